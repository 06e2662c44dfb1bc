#include "exporters/live_json.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "exporters/json_text.h"
#include "exporters/live_pages.h"

#include "metrics/gfxinfo_tracker.h"
#include "metrics/sources/thermal.h"
#include "metrics/sources/traces.h"
#include "metrics/trace_files.h"
#include "parsers/text_scan.h"
#include "parsers/time_units.h"

namespace jank::exporters {
namespace {

using Json = nlohmann::ordered_json;

double rounded(double v) { return std::round(v * 1000) / 1000; }

// Host times in seconds with three decimals (a millisecond prints as one).
double seconds_of_ms(std::int64_t ms) { return parsers::units::Seconds(std::chrono::milliseconds(ms)).count(); }
double seconds_of_ns(std::int64_t ns) {
  return seconds_of_ms(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::nanoseconds(ns)).count());
}

template <typename T>
Json or_null(const std::optional<T>& v) {
  return v ? Json(*v) : Json();
}
Json rounded_or_null(const std::optional<double>& v) { return v && std::isfinite(*v) ? Json(rounded(*v)) : Json(); }

std::optional<std::string> info(const metrics::DeviceMetrics& d, const char* key) {
  const auto it = d.live.info.find(key);
  if (it == d.live.info.end()) return std::nullopt;
  return it->second;
}

bool measures(const metrics::Run& run, std::string_view serial) {
  return std::any_of(run.devices.begin(), run.devices.end(), [&](const auto& d) { return d.serial == serial; });
}

LiveDeviceRow row_of(const metrics::DeviceMetrics& d, const metrics::RunBook& runs, std::int64_t now_ns,
                     std::chrono::seconds sm_window) {
  LiveDeviceRow row;
  row.serial = d.serial;
  row.model = info(d, "model");
  row.manufacturer = info(d, "manufacturer");
  row.release = info(d, "release");
  if (const auto sdk = info(d, "sdk")) row.sdk = parsers::scan::parse_int<int>(*sdk);
  row.foreground = d.live.foreground;
  row.refresh_hz = d.refresh_hz;
  row.status = metrics::live_status(d, now_ns, sm_window);
  if (!d.live.state_reason.empty() &&
      (d.live.state == metrics::DeviceState::stalled || d.live.state == metrics::DeviceState::unsupported)) {
    row.status_reason = d.live.state_reason;
  }
  row.sm = metrics::device_sm(d, now_ns, sm_window);
  row.window = d.history.window(std::chrono::milliseconds(sm_window).count());
  row.thermal_status = metrics::thermal_status(d, now_ns);
  const auto* traces = metrics::traces_of(d);
  row.trace_armed = traces != nullptr && traces->status.armed;
  for (const auto& [seq, run] : runs.runs()) {
    if (run.state != metrics::RunState::finished && measures(run, d.serial)) ++row.open_runs;
  }
  if (const auto* s = d.history.newest()) row.sampled_at_ms = s->t_ms;
  row.totals = metrics::device_totals(d);
  return row;
}

Json row_json(const LiveDeviceRow& r) {
  Json j;
  j["serial"] = r.serial;
  // The serial as a URL segment, from its bytes: a serial that is not UTF-8
  // reads as U+FFFD in "serial", and a link made from that would lead nowhere.
  j["serial_path"] = percent_encode_segment(r.serial);
  j["model"] = or_null(r.model);
  j["manufacturer"] = or_null(r.manufacturer);
  j["release"] = or_null(r.release);
  j["sdk"] = or_null(r.sdk);
  j["refresh_hz"] = r.refresh_hz;
  j["status"] = std::string(metrics::live_status_name(r.status));
  j["status_reason"] = or_null(r.status_reason);
  j["foreground"] = or_null(r.foreground);
  j["sm"] = or_null(r.sm);  // unrounded: the value /metrics writes
  j["fps"] = rounded_or_null(r.window.fps);
  j["jank_percent"] = rounded_or_null(r.window.jank_percent);
  j["skipped_per_minute"] = rounded_or_null(r.window.skipped_per_minute);
  j["davey_per_minute"] = rounded_or_null(r.window.davey_per_minute);
  j["big_jank_per_minute"] = rounded_or_null(r.window.big_jank_per_minute);
  j["thermal_status"] = or_null(r.thermal_status);
  j["trace_armed"] = r.trace_armed;
  j["open_runs"] = r.open_runs;
  j["sampled_at"] = r.sampled_at_ms ? Json(seconds_of_ms(*r.sampled_at_ms)) : Json();
  j["totals"] = {{"skipped_frames", r.totals.skipped_frames},
                 {"davey_frames", r.totals.davey_frames},
                 {"big_jank", or_null(r.totals.big_jank)},
                 {"frozen_frames", or_null(r.totals.frozen_frames)},
                 {"layer_frozen_frames", or_null(r.totals.layer_frozen_frames)}};
  return j;
}

Json history_json(const std::vector<metrics::LiveSample>& samples) {
  Json t = Json::array(), sm = Json::array(), fps = Json::array(), jank = Json::array(), skipped = Json::array(),
       davey = Json::array(), big_jank = Json::array(), status = Json::array(), thermal = Json::array(),
       app_cpu = Json::array(), main_thread_cpu = Json::array(), device_cpu = Json::array(), rss = Json::array(),
       capped = Json::array(), commands = Json::array(), command_kib = Json::array();
  for (const auto& s : samples) {
    t.push_back(seconds_of_ms(s.t_ms));
    sm.push_back(rounded_or_null(s.sm_value()));
    fps.push_back(rounded_or_null(s.fps()));
    jank.push_back(rounded_or_null(s.jank_percent()));
    skipped.push_back(s.skipped_frames);
    davey.push_back(s.davey_frames);
    big_jank.push_back(s.has_layers() ? Json(s.big_jank) : Json());
    status.push_back(std::string(metrics::live_status_name(s.status())));
    thermal.push_back(or_null(s.thermal()));
    app_cpu.push_back(rounded_or_null(s.app_cpu_percent()));
    main_thread_cpu.push_back(rounded_or_null(s.main_thread_cpu_percent()));
    device_cpu.push_back(rounded_or_null(s.device_cpu_percent()));
    rss.push_back(or_null(s.app_rss()));
    capped.push_back(or_null(s.cpu_capped()));
    commands.push_back(rounded_or_null(s.commands_per_second()));
    command_kib.push_back(rounded_or_null(s.command_kib_per_second()));
  }
  Json h;
  h["t"] = std::move(t);
  h["sm"] = std::move(sm);
  h["fps"] = std::move(fps);
  h["jank_percent"] = std::move(jank);
  h["skipped_frames"] = std::move(skipped);
  h["davey_frames"] = std::move(davey);
  h["big_jank"] = std::move(big_jank);
  h["status"] = std::move(status);
  h["thermal_status"] = std::move(thermal);
  h["app_cpu_percent"] = std::move(app_cpu);
  h["main_thread_cpu_percent"] = std::move(main_thread_cpu);
  h["device_cpu_percent"] = std::move(device_cpu);
  h["app_rss_mib"] = std::move(rss);
  h["cpu_capped"] = std::move(capped);
  h["commands_per_second"] = std::move(commands);
  h["command_kib_per_second"] = std::move(command_kib);
  return h;
}

// frame_time and jank_causes: sums over the history; null when no sample read gfxinfo.
void gfxinfo_json(const LiveDeviceSnapshot& s, Json& j) {
  const bool any = std::any_of(s.history.begin(), s.history.end(), [](const auto& x) { return x.has_gfxinfo(); });
  if (!any) {
    j["frame_time"] = nullptr;
    j["jank_causes"] = nullptr;
    return;
  }
  std::vector<std::uint64_t> counts(metrics::kLiveFrameTimeBuckets, 0);
  std::vector<std::uint64_t> causes(metrics::kLiveJankCauses, 0);
  for (const auto& x : s.history) {
    for (std::size_t i = 0; i < counts.size(); ++i) counts[i] += x.frame_time[i];
    for (std::size_t i = 0; i < causes.size(); ++i) causes[i] += x.jank_causes[i];
  }
  Json bounds = Json::array();
  for (const double b : metrics::kLiveFrameTimeBounds) bounds.push_back(std::round(b * 1e6) / 1e3);
  j["frame_time"] = {{"bounds_ms", std::move(bounds)}, {"counts", counts}};
  Json c = Json::object();
  for (std::size_t i = 0; i < causes.size(); ++i) {
    if (((s.jank_causes_seen >> i) & 1u) == 0u) continue;
    c[std::string(metrics::jank_cause_name(static_cast<metrics::JankCause>(i)))] = causes[i];
  }
  j["jank_causes"] = std::move(c);
}

std::string dump(const Json& j) { return json_text(j) + "\n"; }

}  // namespace

LiveDevicesSnapshot snapshot_devices(const metrics::Store& store, const metrics::RunBook& runs, std::int64_t now_ns,
                                     const LiveViewOptions& options) {
  LiveDevicesSnapshot s;
  s.generated_at_ns = now_ns;
  s.sm_window = store.options().sm_window;
  s.options = options;
  s.devices.reserve(store.devices().size());
  for (const auto& [serial, d] : store.devices()) s.devices.push_back(row_of(*d, runs, now_ns, s.sm_window));
  return s;
}

std::optional<LiveDeviceSnapshot> snapshot_device(const metrics::Store& store, const metrics::RunBook& runs,
                                                  std::string_view serial, std::int64_t now_ns,
                                                  const LiveViewOptions& options) {
  const auto it = store.devices().find(serial);
  if (it == store.devices().end()) return std::nullopt;
  const metrics::DeviceMetrics& d = *it->second;
  LiveDeviceSnapshot s;
  s.generated_at_ns = now_ns;
  s.sm_window = store.options().sm_window;
  s.options = options;
  s.row = row_of(d, runs, now_ns, s.sm_window);
  s.history = d.history.copy();
  s.jank_causes_seen = d.history.jank_causes_seen();
  for (const auto& [kind, cost] : d.live.command_costs) {
    s.commands.push_back({kind, cost.runs, cost.seconds, cost.output_bytes, cost.timed, cost.device_seconds});
  }
  std::stable_sort(s.commands.begin(), s.commands.end(),
                   [](const LiveCommandCost& a, const LiveCommandCost& b) { return a.runs > b.runs; });
  s.per_frame_polling = d.live.per_frame_polling;
  s.budget_waits = d.live.budget_waits;
  const std::int64_t from = now_ns - parsers::units::to_ns(options.history);
  for (const auto& [seq, run] : runs.runs()) {
    const std::int64_t start = run.started_ns != 0 ? run.started_ns : run.requested_ns;
    const bool finished = run.state == metrics::RunState::finished;
    if (!measures(run, d.serial) || start > now_ns || (finished && run.finished_ns < from)) continue;
    s.runs.push_back({run.spec.id, run.spec.name, start, finished ? std::optional(run.finished_ns) : std::nullopt});
  }
  return s;
}

std::string devices_json(const LiveDevicesSnapshot& s) {
  Json j;
  j["generated_at"] = seconds_of_ns(s.generated_at_ns);
  j["window_seconds"] = s.sm_window.count();
  j["sample_seconds"] = s.options.sample.count();
  j["history_seconds"] = s.options.history.count();
  Json devices = Json::array();
  for (const auto& row : s.devices) devices.push_back(row_json(row));
  j["devices"] = std::move(devices);
  return dump(j);
}

std::string device_json(const LiveDeviceSnapshot& s, const std::vector<metrics::StoredTrace>& traces) {
  Json j = row_json(s.row);
  j["generated_at"] = seconds_of_ns(s.generated_at_ns);
  j["window_seconds"] = s.sm_window.count();
  j["sample_seconds"] = s.options.sample.count();
  j["history_seconds"] = s.options.history.count();
  j["history"] = history_json(s.history);
  gfxinfo_json(s, j);
  Json runs = Json::array();
  for (const auto& r : s.runs) {
    runs.push_back({{"id", r.id},
                    {"name", r.name},
                    {"start", seconds_of_ns(r.start_ns)},
                    {"end", r.end_ns ? Json(seconds_of_ns(*r.end_ns)) : Json()}});
  }
  j["runs"] = std::move(runs);
  Json commands = Json::array();
  for (const auto& c : s.commands) {
    commands.push_back({{"kind", c.kind},
                        {"runs", c.runs},
                        {"seconds", rounded(c.seconds)},
                        {"output_bytes", c.output_bytes},
                        {"timed", c.timed},
                        {"device_seconds", rounded(c.device_seconds)}});
  }
  j["cost"] = {{"commands", std::move(commands)},
               {"per_frame_polling", or_null(s.per_frame_polling)},
               {"budget_waits", s.budget_waits}};
  const std::int64_t from = s.generated_at_ns - parsers::units::to_ns(s.options.history);
  std::vector<const metrics::StoredTrace*> mine;
  for (const auto& t : traces) {
    if (t.serial == s.row.serial && t.triggered_at_ns >= from && t.triggered_at_ns <= s.generated_at_ns) {
      mine.push_back(&t);
    }
  }
  std::sort(mine.begin(), mine.end(), [](const auto* a, const auto* b) { return metrics::newer_trace(*b, *a); });
  Json list = Json::array();
  for (const auto* t : mine) {
    list.push_back({{"id", t->id},
                    {"time", seconds_of_ns(t->triggered_at_ns)},
                    {"rule", t->rule},
                    {"url", "/traces/" + t->id + std::string(metrics::kTraceExtension)}});
  }
  j["traces"] = std::move(list);
  return dump(j);
}

std::string api_error_json(std::string_view message) { return dump(Json{{"error", std::string(message)}}); }

}  // namespace jank::exporters

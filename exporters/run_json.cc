#include "exporters/run_json.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "exporters/json_text.h"

#include "metrics/run_results.h"
#include "parsers/time_units.h"
#include "parsers/utf8.h"

namespace jank::exporters {
namespace {

using Json = nlohmann::ordered_json;

double rounded(double v, double scale = 1000) { return std::round(v * scale) / scale; }

Json number_or_null(const std::optional<double>& v) { return v && std::isfinite(*v) ? Json(rounded(*v)) : Json(); }

Json histogram_json(const metrics::RunHistogram& h) {
  Json j;
  j["bounds"] = std::vector<double>(h.bounds.begin(), h.bounds.end());
  j["counts"] = h.counts;
  return j;
}

Json series_json(const metrics::Run& run, const metrics::RunDevice& d) {
  Json s;
  s["interval_seconds"] = rounded(parsers::units::seconds_of_ns(run.step_ns));
  Json t = Json::array(), frames = Json::array(), janky = Json::array(), skipped = Json::array(),
       sf = Json::array(), active = Json::array(), sm = Json::array(), fps = Json::array(), cpu = Json::array();
  bool any_cpu = false;
  for (const auto& step : d.steps) {
    const double span = parsers::units::seconds_of_ns(step.span_ns);
    t.push_back(rounded(parsers::units::seconds_of_ns(step.end_ns - run.started_ns)));
    frames.push_back(step.has_frames ? Json(step.frames) : Json());
    janky.push_back(step.has_frames ? Json(step.janky_frames) : Json());
    skipped.push_back(step.skipped_frames);
    sf.push_back(step.has_sf ? Json(step.sf_frames) : Json());
    const double active_s = parsers::units::seconds_of_ns(step.active_ns);
    active.push_back(step.has_sf ? Json(rounded(active_s)) : Json());
    sm.push_back(span > 0 ? Json(rounded(std::clamp(d.refresh_hz - static_cast<double>(step.skipped_frames) / span,
                                                    0.0, d.refresh_hz)))
                          : Json());
    const bool fps_known = step.has_sf && !step.intervals_unknown && active_s > 0;
    fps.push_back(fps_known ? Json(rounded(static_cast<double>(step.sf_intervals) / active_s)) : Json());
    const auto cpu_percent = metrics::step_cpu_percent(step);
    cpu.push_back(number_or_null(cpu_percent));
    any_cpu = any_cpu || cpu_percent.has_value();
  }
  s["t"] = t;
  s["frames"] = frames;
  s["janky_frames"] = janky;
  s["skipped_frames"] = skipped;
  s["sf_frames"] = sf;
  s["active_seconds"] = active;
  s["sm"] = sm;
  s["fps"] = fps;
  if (any_cpu) s["cpu_percent"] = cpu;
  return s;
}

Json device_json(const metrics::Run& run, const metrics::RunDevice& d, std::int64_t now_ns, RunDetail detail) {
  const auto results = metrics::run_results(run, d, now_ns);
  Json j;
  j["serial"] = d.serial;
  j["model"] = d.model.empty() ? Json() : Json(d.model);
  j["sdk"] = d.sdk ? Json(*d.sdk) : Json();
  j["refresh_hz"] = rounded(d.refresh_hz);
  j["settled"] = d.settled_start && (run.state != metrics::RunState::finished || d.settled_stop);
  Json versions = Json::array();
  for (const auto& v : d.versions) {
    Json e;
    e["name"] = v.version.name;
    e["code"] = v.version.code ? Json(*v.version.code) : Json();
    e["at_seconds"] = rounded(parsers::units::seconds_of_ns(std::max<std::int64_t>(0, v.at_ns - run.started_ns)));
    versions.push_back(e);
  }
  j["versions"] = versions;
  j["version_changed"] = d.versions.size() > 1;
  j["counter_restarts"] = d.restarts;
  Json m = Json::object();
  for (const auto name : metrics::run_metric_names()) {
    const auto it = results.metrics.find(std::string(name));
    if (it != results.metrics.end() && it->second) m[std::string(name)] = number_or_null(it->second);
  }
  j["metrics"] = m;
  j["jank_causes"] = results.jank_causes;
  j["ft_jank_types"] = results.ft_jank_types;
  if (detail == RunDetail::full) {
    Json h = Json::object();
    for (const auto& [name, hist] : results.histograms) h[name] = histogram_json(hist);
    j["histograms"] = h;
    j["series"] = series_json(run, d);
  }
  return j;
}

Json run_object(const metrics::Run& run, std::int64_t now_ns, RunDetail detail) {
  Json j;
  j["format"] = 1;
  j["id"] = run.spec.id;
  j["name"] = run.spec.name;
  j["package"] = run.spec.package;
  j["tags"] = run.spec.tags;
  j["state"] = std::string(metrics::run_state_name(run.state));
  j["started_at"] = run.started_ns != 0 ? Json(rfc3339_ms(run.started_ns)) : Json();
  j["stopped_at"] = run.stop_requested_ns != 0 ? Json(rfc3339_ms(run.stop_requested_ns)) : Json();
  j["duration_seconds"] = rounded(metrics::run_duration_seconds(run, now_ns));
  Json devices = Json::array();
  for (const auto& d : run.devices) devices.push_back(device_json(run, d, now_ns, detail));
  j["devices"] = devices;
  return j;
}

// Valid UTF-8 (invalid bytes as U+FFFD, as in the JSON), quoted where RFC 4180 asks.
std::string csv_field(std::string_view raw) {
  const std::string s = parsers::utf8_replaced(raw);
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string rfc3339_ms(std::int64_t wall_ns) {
  return parsers::units::format_utc(wall_ns, parsers::units::UtcFormat::iso_ms);
}

std::string run_json(const metrics::Run& run, std::int64_t now_ns, RunDetail detail) {
  return json_text(run_object(run, now_ns, detail), 2) + "\n";
}

std::string run_list_json(const std::vector<const metrics::Run*>& runs, std::int64_t now_ns) {
  Json j;
  j["format"] = 1;
  Json list = Json::array();
  for (const auto* r : runs) list.push_back(run_object(*r, now_ns, RunDetail::summary));
  j["runs"] = list;
  return json_text(j, 2) + "\n";
}

std::string run_csv(const std::vector<const metrics::Run*>& runs, std::int64_t now_ns) {
  std::string out = "id,name,package,state,started_at,duration_seconds,serial,model,sdk,version_name,version_code,"
                    "version_changed,settled";
  for (const auto name : metrics::run_metric_names()) out += "," + std::string(name);
  out += "\n";
  for (const auto* run : runs) {
    const Json j = run_object(*run, now_ns, RunDetail::summary);
    for (const auto& d : j["devices"]) {
      auto text = [](const Json& v) -> std::string {
        if (v.is_null()) return "";
        if (v.is_string()) return v.get<std::string>();
        return json_text(v);
      };
      const Json first = d["versions"].empty() ? Json::object() : d["versions"][0];
      out += csv_field(run->spec.id) + "," + csv_field(run->spec.name) + "," + csv_field(run->spec.package) + "," +
             text(j["state"]) + "," + text(j["started_at"]) + "," + text(j["duration_seconds"]) + "," +
             csv_field(d["serial"].get<std::string>()) + "," + csv_field(text(d["model"])) + "," + text(d["sdk"]) +
             "," + csv_field(text(first.value("name", Json()))) + "," + text(first.value("code", Json())) + "," +
             text(d["version_changed"]) + "," + text(d["settled"]);
      for (const auto name : metrics::run_metric_names()) {
        const auto& m = d["metrics"];
        out += "," + (m.contains(std::string(name)) ? text(m[std::string(name)]) : std::string());
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace jank::exporters

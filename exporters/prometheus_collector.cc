#include "exporters/prometheus_collector.h"

#include "exporters/text_format.h"

#include <limits>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace jank::exporters {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

// Label values come from devices (serials, getprop, process names) and may
// hold any bytes. One invalid UTF-8 value makes Prometheus reject the whole
// scrape, so each byte that is not part of valid UTF-8 is spelled \xNN.
std::string valid_utf8(std::string value) {
  auto continuation = [&](std::size_t i) {
    return i < value.size() && (static_cast<unsigned char>(value[i]) & 0xC0) == 0x80;
  };
  auto sequence = [&](std::size_t i) -> std::size_t {  // length of a valid sequence at i, or 0
    const auto c = static_cast<unsigned char>(value[i]);
    if (c < 0x80) return 1;
    std::size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    for (std::size_t k = 1; k < n; ++k) {
      if (!continuation(i + k)) return 0;
    }
    if (n >= 3) {
      const auto c1 = static_cast<unsigned char>(value[i + 1]);
      if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F)) {
        return 0;  // overlong, surrogate or beyond U+10FFFF
      }
    }
    return n;
  };
  std::size_t i = 0;
  while (i < value.size() && sequence(i) != 0) i += sequence(i);
  if (i == value.size()) return value;
  std::string out = value.substr(0, i);
  while (i < value.size()) {
    if (const std::size_t n = sequence(i); n != 0) {
      out.append(value, i, n);
      i += n;
    } else {
      static const char hex[] = "0123456789ABCDEF";
      const auto c = static_cast<unsigned char>(value[i++]);
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xF];
    }
  }
  return out;
}

}  // namespace

// Labels shared by many series (a device's, a package's), made valid UTF-8
// and rendered in exposition form once rather than once per series.
class LabelSet {
 public:
  explicit LabelSet(std::vector<ClientMetric::Label> labels) : list_(std::move(labels)) {
    for (std::size_t i = 0; i < list_.size(); ++i) {
      list_[i].value = valid_utf8(std::move(list_[i].value));
      if (i != 0) text_ += ',';
      text_ += list_[i].name;
      text_ += "=\"";
      append_escaped(text_, list_[i].value, true);
      text_ += '"';
    }
  }
  const std::vector<ClientMetric::Label>& list() const { return list_; }
  const std::string& text() const { return text_; }

 private:
  std::vector<ClientMetric::Label> list_;
  std::string text_;  // name="value",… without braces
};

// One more label for a single series (result, reason, cause, stage, …): a
// fixed ASCII name and value chosen by this file.
struct Extra {
  std::string_view name;
  std::string_view value;
};

// Receives every series in collection order. Families come out in the order
// of their first series; families without series are not printed.
class SeriesSink {
 public:
  virtual ~SeriesSink() = default;
  virtual void sample(const char* name, const char* help, MetricType type, const LabelSet& labels,
                      const Extra* extra, double value) = 0;
  virtual void histogram(const char* name, const char* help, const LabelSet& labels, const Extra* extra,
                         const metrics::Histogram& h) = 0;

  void counter(const char* name, const char* help, const LabelSet& labels, double v) {
    sample(name, help, MetricType::Counter, labels, nullptr, v);
  }
  void counter(const char* name, const char* help, const LabelSet& labels, Extra extra, double v) {
    sample(name, help, MetricType::Counter, labels, &extra, v);
  }
  void gauge(const char* name, const char* help, const LabelSet& labels, double v) {
    sample(name, help, MetricType::Gauge, labels, nullptr, v);
  }
  void gauge(const char* name, const char* help, const LabelSet& labels, Extra extra, double v) {
    sample(name, help, MetricType::Gauge, labels, &extra, v);
  }
  void histogram(const char* name, const char* help, const LabelSet& labels, const metrics::Histogram& h) {
    histogram(name, help, labels, nullptr, h);
  }
  void histogram(const char* name, const char* help, const LabelSet& labels, Extra extra,
                 const metrics::Histogram& h) {
    histogram(name, help, labels, &extra, h);
  }
};

namespace {

// Builds prometheus-cpp metric families (Collect()).
class FamilySink final : public SeriesSink {
 public:
  void sample(const char* name, const char* help, MetricType type, const LabelSet& labels, const Extra* extra,
              double value) override {
    auto& m = add(name, help, type, labels, extra);
    if (type == MetricType::Counter) {
      m.counter.value = value;
    } else {
      m.gauge.value = value;
    }
  }
  void histogram(const char* name, const char* help, const LabelSet& labels, const Extra* extra,
                 const metrics::Histogram& h) override {
    auto& m = add(name, help, MetricType::Histogram, labels, extra);
    m.histogram.sample_count = h.count();
    m.histogram.sample_sum = h.sum();
    std::uint64_t cumulative = 0;
    const auto bounds = h.upper_bounds();
    for (std::size_t i = 0; i < bounds.size(); ++i) {
      cumulative += h.counts()[i];
      m.histogram.bucket.push_back({cumulative, bounds[i]});
    }
    m.histogram.bucket.push_back({h.count(), std::numeric_limits<double>::infinity()});
  }
  std::vector<MetricFamily> take() { return std::move(families_); }

 private:
  ClientMetric& add(const char* name, const char* help, MetricType type, const LabelSet& labels,
                    const Extra* extra) {
    auto it = index_.find(name);
    if (it == index_.end()) {
      it = index_.emplace(name, families_.size()).first;
      families_.push_back(MetricFamily{name, help, type, {}});
    }
    auto& family = families_[it->second];
    family.metric.emplace_back();
    auto& label = family.metric.back().label;
    label = labels.list();
    if (extra != nullptr) label.push_back({std::string(extra->name), valid_utf8(std::string(extra->value))});
    return family.metric.back();
  }

  std::unordered_map<std::string_view, std::size_t> index_;
  std::vector<MetricFamily> families_;
};

// Writes the text exposition directly, one buffer per family, with no
// per-series allocation: the scrape path of the daemon.
class TextSink final : public SeriesSink {
 public:
  explicit TextSink(std::vector<ExpositionFamily>& families) : families_(families) {}

  void sample(const char* name, const char* help, MetricType type, const LabelSet& labels, const Extra* extra,
              double value) override {
    std::string& out = body(name, help, type);
    head(out, name, "", labels, extra);
    append_number(out, value);
    out += '\n';
  }
  void histogram(const char* name, const char* help, const LabelSet& labels, const Extra* extra,
                 const metrics::Histogram& h) override {
    std::string& out = body(name, help, MetricType::Histogram);
    head(out, name, "_count", labels, extra);
    append_count(out, h.count());
    out += '\n';
    head(out, name, "_sum", labels, extra);
    append_number(out, h.sum());
    out += '\n';
    const auto& les = le_labels(h.upper_bounds());
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < les.size(); ++i) {
      cumulative = i < h.upper_bounds().size() ? cumulative + h.counts()[i] : h.count();
      out += name;
      out += "_bucket{";
      if (!labels.text().empty()) {
        out += labels.text();
        out += ',';
      }
      if (extra != nullptr) append_extra(out, *extra);
      out += les[i];
      append_count(out, cumulative);
      out += '\n';
    }
  }

 private:
  std::string& body(const char* name, const char* help, MetricType type) {
    if (last_ != nullptr && last_name_ == name) return *last_;
    auto it = index_.find(name);
    if (it == index_.end()) {
      it = index_.emplace(name, families_.size()).first;
      families_.push_back(ExpositionFamily{});
      auto& f = families_.back();
      f.header = "# HELP ";
      f.header += name;
      f.header += ' ';
      append_escaped(f.header, help, false);
      f.header += "\n# TYPE ";
      f.header += name;
      f.header += ' ';
      f.header += type_name(type);
      f.header += '\n';
    }
    last_name_ = name;
    last_ = &families_[it->second].body;
    return *last_;
  }

  static void append_extra(std::string& out, const Extra& extra) {
    out += extra.name;
    out += "=\"";
    append_escaped(out, extra.value, true);
    out += "\",";
  }

  static void head(std::string& out, const char* name, const char* suffix, const LabelSet& labels,
                   const Extra* extra) {
    out += name;
    out += suffix;
    if (!labels.text().empty() || extra != nullptr) {
      out += '{';
      out += labels.text();
      if (extra != nullptr) {
        if (!labels.text().empty()) out += ',';
        out += extra->name;
        out += "=\"";
        append_escaped(out, extra->value, true);
        out += '"';
      }
      out += '}';
    }
    out += ' ';
  }

  // `le="0.005"} ` for each bound of a bucket layout, then `le="+Inf"} `.
  const std::vector<std::string>& le_labels(std::span<const double> bounds) {
    auto [it, added] = le_.try_emplace(bounds.data());
    if (added) {
      for (std::size_t i = 0; i <= bounds.size(); ++i) {
        std::string le = "le=\"";
        append_number(le, i < bounds.size() ? bounds[i] : std::numeric_limits<double>::infinity());
        le += "\"} ";
        it->second.push_back(std::move(le));
      }
    }
    return it->second;
  }

  std::vector<ExpositionFamily>& families_;
  std::unordered_map<std::string_view, std::size_t> index_;
  std::unordered_map<const double*, std::vector<std::string>> le_;
  std::string_view last_name_;
  std::string* last_ = nullptr;
};

void add_percentiles(SeriesSink& f, const char* name, const char* help, const LabelSet& labels,
                     const metrics::ReportedPercentiles& p) {
  // "quantile" is reserved for summaries, hence "percentile" as HWUI prints it.
  if (p.has_p50) f.gauge(name, help, labels, Extra{"percentile", "50"}, p.p50_ms / 1000.0);
  f.gauge(name, help, labels, Extra{"percentile", "90"}, p.p90_ms / 1000.0);
  f.gauge(name, help, labels, Extra{"percentile", "95"}, p.p95_ms / 1000.0);
  f.gauge(name, help, labels, Extra{"percentile", "99"}, p.p99_ms / 1000.0);
}

void collect_live(SeriesSink& f, const metrics::DeviceMetrics& d, const LabelSet& dev) {
  const auto& l = d.live;
  f.gauge("android_device_up",
          "1 while the device's log is followed and counted (jank_exporter_device_state{state=\"following\"}).", dev,
          l.up && l.state == metrics::DeviceState::following ? 1 : 0);
  for (const auto state : metrics::kDeviceStates) {
    f.gauge("jank_exporter_device_state",
            "What the exporter is doing with the device: 1 for the current state, 0 for the others.", dev,
            Extra{"state", std::string(metrics::device_state_name(state))}, l.state == state ? 1 : 0);
  }
  if (l.command_deadline_seconds > 0) {
    f.gauge("jank_exporter_device_command_deadline_seconds",
            "Deadline device commands get now: the configured one, longer while the device answers slowly.", dev,
            l.command_deadline_seconds);
  }
  if (!l.info.empty()) {
    std::vector<ClientMetric::Label> labels = dev.list();
    for (const auto& [k, v] : l.info) labels.push_back({k, v});
    f.gauge("android_device_info", "Device facts from getprop; the value is always 1.", LabelSet(std::move(labels)), 1);
  }
  f.gauge("android_choreographer_skip_threshold_frames",
          "Smallest N that Choreographer logs for the device's running apps, as far as the exporter knows.", dev,
          l.skip_threshold_frames);
  f.counter("jank_exporter_device_sessions_total", "Sessions started with the device (first one and reconnects).",
            dev, static_cast<double>(l.sessions));
  f.counter("jank_exporter_logcat_streams_total", "Logcat streams opened on the device.", dev,
            static_cast<double>(l.logcat_streams));
  const auto& c = d.continuity;
  f.counter("jank_exporter_logcat_resume_gaps_total",
            "Log streams that found lines gone from the device's ring before they were read.", dev,
            static_cast<double>(c.resumes_with_loss));
  f.counter("jank_exporter_logcat_lost_lines_total",
            "Lines of the followed log buffers that left the device's ring (wrap, logcat -c) before they were read.",
            dev, static_cast<double>(c.lost_lines));
  f.counter("jank_exporter_device_reboots_total",
            "Reboots seen (a new boot id); lines written between the last read and the reboot are unknown.", dev,
            static_cast<double>(c.reboots));
  f.counter("jank_exporter_logd_restarts_total",
            "logd restarts seen without a reboot; lines written between the last read and the restart are unknown.",
            dev, static_cast<double>(c.logd_restarts));
  f.counter("jank_exporter_logcat_unconfirmed_resumes_total",
            "Resumes whose last counted line was not found by its content; the position came from logd's counts alone.",
            dev, static_cast<double>(c.unconfirmed_resumes));
  if (const auto offset = d.clock.offset_ns()) {
    f.gauge("android_device_clock_offset_seconds",
            "Device wall clock minus host wall clock, learned from log lines as they arrive (within the read latency).",
            dev, -static_cast<double>(*offset) / 1e9);
  }
  f.counter("jank_exporter_device_clock_steps_total",
            "Device clock steps seen in the log (a stamp after its arrival, or well before the line before it).", dev,
            static_cast<double>(d.clock.steps()));
  for (const auto& [result, n] : l.gfxinfo_polls) {
    f.counter("jank_exporter_gfxinfo_polls_total", "dumpsys gfxinfo polls, by result.", dev, Extra{"result", result},
              static_cast<double>(n));
  }
  for (const auto& [result, n] : l.commands) {
    f.counter("jank_exporter_device_commands_total", "Shell commands run on the device, by result.",
              dev, Extra{"result", result}, static_cast<double>(n));
  }
  if (l.last_line_time_ns != 0) {
    f.gauge("jank_exporter_ingest_lag_seconds",
            "Host time at receipt minus the host-time place of the newest log line read (how far behind the reader is).", dev,
            l.ingest_lag_seconds);
    f.gauge("jank_exporter_last_line_timestamp_seconds", "Time of the newest log line read, on the device's clock.",
            dev, static_cast<double>(l.last_line_time_ns) / 1e9);
  }
}

void collect_daemon(SeriesSink& f, const metrics::DaemonMetrics& m) {
  const LabelSet none({});
  f.gauge("jank_exporter_build_info", "Version of the running exporter; the value is always 1.",
          LabelSet({{"version", m.version}}), 1);
  for (const auto& [server, s] : m.adb_servers) {
    const LabelSet labels({{"server", server}});
    f.gauge("jank_exporter_adb_server_up", "1 while the adb server answers and its device list is followed.",
            labels, s.up ? 1 : 0);
    for (const auto& [kind, n] : s.errors) {
      f.counter("jank_exporter_adb_errors_total", "Failed adb requests, by kind.", labels, Extra{"kind", kind},
                static_cast<double>(n));
    }
  }
  f.counter("jank_exporter_checkpoints_total", "State checkpoints, by result.", none, Extra{"result", "written"},
            static_cast<double>(m.checkpoints_written));
  f.counter("jank_exporter_checkpoints_total", "State checkpoints, by result.", none, Extra{"result", "failed"},
            static_cast<double>(m.checkpoint_failures));
  f.counter("jank_exporter_state_load_failures_total",
            "State files that could not be read at start-up (set aside; counting restarted).", none,
            static_cast<double>(m.state_load_failures));
  for (const auto& [record, n] : m.state_rejected_records) {
    f.counter("jank_exporter_state_rejected_records_total",
              "Records of the state file dropped at start for holding values that cannot be true, by record kind.",
              none, Extra{"record", record}, static_cast<double>(n));
  }
  f.counter("jank_exporter_config_reloads_total", "Configuration reloads (SIGHUP), by result.",
            none, Extra{"result", "success"}, static_cast<double>(m.config_reloads));
  f.counter("jank_exporter_config_reloads_total", "Configuration reloads (SIGHUP), by result.",
            none, Extra{"result", "failure"}, static_cast<double>(m.config_reload_failures));
}

void collect_device(SeriesSink& f, const metrics::DeviceMetrics& d, std::int64_t now, std::int64_t window_s) {
  const LabelSet dev({{"serial", d.serial}});
  if (d.live.live) collect_live(f, d, dev);
  f.gauge("android_display_refresh_rate_hertz", "Display refresh rate used for SM and jank thresholds.", dev,
          d.refresh_hz);
  f.gauge("android_display_refresh_rate_fallback",
          "1 when the refresh rate is the configured default rather than read from the device.", dev,
          d.refresh_is_fallback ? 1 : 0);
  f.gauge("android_choreographer_device_sm",
          "Smoothness of the whole device: refresh rate minus skipped frames per second over the window.", dev,
          metrics::smoothness(d.refresh_hz, d.window.frames(now), window_s));

  const char* lines_help = "Logcat lines received, by outcome (received = parsed + unmatched + discarded).";
  f.counter("jank_exporter_logcat_lines_total", lines_help, dev, Extra{"result", "parsed"},
            static_cast<double>(d.lines.parsed));
  f.counter("jank_exporter_logcat_lines_total", lines_help, dev, Extra{"result", "unmatched"},
            static_cast<double>(d.lines.unmatched));
  f.counter("jank_exporter_logcat_lines_total", lines_help, dev, Extra{"result", "discarded"},
            static_cast<double>(d.lines.discarded_total()));
  for (std::size_t r = 0; r < parsers::kDiscardReasons; ++r) {
    f.counter("jank_exporter_logcat_discarded_lines_total", "Logcat lines discarded, by reason.",
              dev, Extra{"reason", parsers::discard_reason_name(static_cast<parsers::DiscardReason>(r))},
              static_cast<double>(d.lines.discarded[r]));
  }
  f.counter("jank_exporter_logcat_duplicate_lines_total",
            "Lines dropped after a reconnect or restart because they had been counted already.", dev,
            static_cast<double>(d.lines.duplicates));
  f.counter("jank_exporter_package_overflow_events_total",
            "Events counted under package=\"_other_\" because the device reached its package cap.", dev,
            static_cast<double>(d.package_overflow_events));

  for (const auto& [name, p] : d.packages) {
    const LabelSet pkg({{"serial", d.serial}, {"package", name}});
    if (p.skip_events > 0) {
      f.counter("android_choreographer_skipped_frames_total",
                "Frames Choreographer reported skipped (sum of N in \"Skipped N frames!\").", pkg,
                static_cast<double>(p.skipped_frames));
      f.counter("android_choreographer_skip_events_total", "\"Skipped N frames!\" lines.", pkg,
                static_cast<double>(p.skip_events));
      f.histogram("android_choreographer_skip_size_frames", "Distribution of N in \"Skipped N frames!\".", pkg,
                  p.skip_size);
      f.gauge("android_choreographer_sm",
              "Smoothness of the process: refresh rate minus its skipped frames per second over the window.", pkg,
              metrics::smoothness(d.refresh_hz, p.window.frames(now), window_s));
      f.gauge("android_choreographer_max_skipped_frames", "Largest single skip within the window.", pkg,
              p.window.max_skip(now));
    }
    if (p.davey_frames > 0) {
      f.counter("android_hwui_davey_frames_total", "HWUI \"Davey!\" frames (700 ms or longer).", pkg,
                static_cast<double>(p.davey_frames));
      f.histogram("android_hwui_davey_duration_seconds", "Duration of Davey! frames with a valid duration.", pkg,
                  p.davey_duration);
      f.counter("android_hwui_davey_invalid_durations_total",
                "Davey! frames whose duration is garbage (unsignalled fence, INT64_MAX timestamps).", pkg,
                static_cast<double>(p.davey_invalid_durations));
    }
    if (p.has_gfxinfo) {
      const auto& g = p.gfxinfo;
      f.counter("android_gfxinfo_frames_rendered_total", "Frames rendered (gfxinfo \"Total frames rendered\").", pkg,
                static_cast<double>(g.frames_rendered()));
      f.counter("android_gfxinfo_janky_frames_total", "Janky frames (gfxinfo \"Janky frames\").", pkg,
                static_cast<double>(g.janky_frames()));
      if (g.has_legacy()) {
        f.counter("android_gfxinfo_janky_frames_legacy_total", "gfxinfo \"Janky frames (legacy)\" (Android 12+).",
                  pkg, static_cast<double>(g.janky_frames_legacy()));
      }
      for (std::size_t c = 0; c < metrics::kJankCauses; ++c) {
        if (!g.causes_seen()[c]) continue;
        f.counter("android_gfxinfo_jank_causes_total", "gfxinfo \"Number <cause>\" counters.",
                  pkg, Extra{"cause", metrics::jank_cause_name(static_cast<metrics::JankCause>(c))},
                  static_cast<double>(g.causes()[c]));
      }
      f.histogram("android_gfxinfo_frame_duration_seconds",
                  "Frame durations from the gfxinfo HISTOGRAM (sum estimated from bin labels).", pkg,
                  g.frame_duration());
      if (g.has_gpu_histogram()) {
        f.histogram("android_gfxinfo_gpu_frame_duration_seconds",
                    "GPU frame durations from the gfxinfo GPU HISTOGRAM (sum estimated from bin labels).", pkg,
                    g.gpu_duration());
      }
      f.counter("android_gfxinfo_baseline_resets_total",
                "Times the gfxinfo counters restarted (process restart or gfxinfo reset).", pkg,
                static_cast<double>(g.baseline_resets()));
      if (g.percentiles()) {
        add_percentiles(f, "android_gfxinfo_reported_frame_duration_seconds",
                        "Frame duration percentiles as the newest gfxinfo dump reported them.", pkg,
                        *g.percentiles());
      }
      if (g.gpu_percentiles()) {
        add_percentiles(f, "android_gfxinfo_reported_gpu_duration_seconds",
                        "GPU duration percentiles as the newest gfxinfo dump reported them.", pkg,
                        *g.gpu_percentiles());
      }
    }
    if (p.has_framestats) {
      const auto& s = p.framestats;
      f.counter("android_framestats_frames_total", "Frames timed from framestats rows (Flags=0, de-duplicated).",
                pkg, static_cast<double>(s.frames()));
      f.counter("android_framestats_janky_frames_total",
                "Framestats frames longer than one refresh interval (FrameCompleted - IntendedVsync).", pkg,
                static_cast<double>(s.janky_frames()));
      f.counter("android_framestats_flagged_frames_total", "Framestats rows with Flags != 0 (not timed).", pkg,
                static_cast<double>(s.flagged_frames()));
      f.counter("android_framestats_invalid_frames_total",
                "Framestats Flags=0 rows with impossible timestamps (not timed).", pkg,
                static_cast<double>(s.invalid_frames()));
      f.counter("android_framestats_window_overflows_total",
                "Polls whose ~120-frame window did not overlap the previous poll (frames missed).", pkg,
                static_cast<double>(s.overflows()));
      f.histogram("android_framestats_frame_duration_seconds", "FrameCompleted - IntendedVsync of each frame.",
                  pkg, s.frame_duration());
      for (std::size_t st = 0; st < metrics::kFrameStages; ++st) {
        f.histogram("android_framestats_stage_duration_seconds", "Duration of each rendering stage of a frame.",
                    pkg, Extra{"stage", metrics::frame_stage_name(static_cast<metrics::FrameStage>(st))},
                    s.stage_duration()[st]);
      }
    }
  }
}

}  // namespace

WindowNow input_time_now() {
  return [](const metrics::DeviceMetrics& d) { return d.latest_time_ns; };
}

StoreCollector::StoreCollector(const metrics::Store& store, WindowNow now, std::mutex* mutex,
                               const metrics::DaemonMetrics* daemon)
    : store_(store), now_(std::move(now)), mutex_(mutex), daemon_(daemon) {}

std::vector<MetricFamily> StoreCollector::Collect() const {
  std::unique_lock<std::mutex> lock;
  if (mutex_ != nullptr) lock = std::unique_lock<std::mutex>(*mutex_);
  FamilySink families;
  collect(families);
  return families.take();
}

Exposition StoreCollector::Text() const {
  Exposition exposition;
  {
    std::unique_lock<std::mutex> lock;
    if (mutex_ != nullptr) lock = std::unique_lock<std::mutex>(*mutex_);
    TextSink sink(exposition.families);
    collect(sink);
  }
  return exposition;
}

Exposition StoreCollector::Text(std::string_view serial) const {
  Exposition exposition;
  std::unique_lock<std::mutex> lock;
  if (mutex_ != nullptr) lock = std::unique_lock<std::mutex>(*mutex_);
  const auto it = store_.devices().find(serial);
  if (it != store_.devices().end()) {
    TextSink sink(exposition.families);
    collect_device(sink, *it->second, now_(*it->second), store_.options().window_seconds);
  }
  return exposition;
}

void StoreCollector::collect(SeriesSink& sink) const {
  if (daemon_ != nullptr) collect_daemon(sink, *daemon_);
  for (const auto& [serial, device] : store_.devices()) {
    collect_device(sink, *device, now_(*device), store_.options().window_seconds);
  }
}

std::function<Exposition(std::string_view serial)> text_source(std::shared_ptr<const StoreCollector> collector) {
  return [collector = std::move(collector)](std::string_view serial) {
    return serial.empty() ? collector->Text() : collector->Text(serial);
  };
}

std::string serialize_text(const std::vector<MetricFamily>& families) {
  std::string out;
  append_text_exposition(families, out);
  return out;
}

}  // namespace jank::exporters

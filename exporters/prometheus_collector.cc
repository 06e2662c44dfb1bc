#include "exporters/prometheus_collector.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "exporters/budgeted_sink.h"
#include "exporters/label_repair.h"
#include "exporters/openmetrics.h"
#include "metrics/device_view.h"
#include "metrics/source.h"
#include "metrics/trace_files.h"
#include "parsers/time_units.h"

namespace jank::exporters {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using F = Family;

namespace {

prometheus::MetricType prometheus_type(FamilyType type) {
  switch (type) {
    case FamilyType::counter: return prometheus::MetricType::Counter;
    case FamilyType::gauge: return prometheus::MetricType::Gauge;
    case FamilyType::histogram: return prometheus::MetricType::Histogram;
  }
  return prometheus::MetricType::Untyped;
}

// A sink's families as SeriesSink::mark takes them: how much each holds.
template <typename Families, typename SizeOf>
void mark_families(const Families& families, SeriesSink::Mark& m, SizeOf size_of) {
  m.clear();
  for (const auto& family : families) m.push_back(size_of(family));
}

// Back to a mark: the families first written since go (their catalogue
// index forgotten), the others are cut to what they held.
template <typename Families, typename Resize>
void roll_back_families(Families& families, std::vector<std::size_t>& order, std::vector<int>& index,
                        const SeriesSink::Mark& m, Resize resize) {
  while (families.size() > m.size()) {
    index[order.back()] = -1;
    order.pop_back();
    families.pop_back();
  }
  for (std::size_t i = 0; i < m.size(); ++i) resize(families[i], m[i]);
}

// Builds prometheus-cpp metric families (Collect()).
class FamilySink final : public SeriesSink {
 public:
  using SeriesSink::histogram;
  using SeriesSink::sample;

  void sample(const FamilySpec& spec, const LabelSet& labels, const Extra* extra, double value) override {
    auto& m = add(spec, labels, extra);
    if (spec.type == FamilyType::counter) {
      m.counter.value = value;
    } else {
      m.gauge.value = value;
    }
  }
  void histogram(const FamilySpec& spec, const LabelSet& labels, const Extra* extra,
                 const metrics::Histogram& h) override {
    auto& m = add(spec, labels, extra);
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

  void mark(Mark& m) const override {
    mark_families(families_, m, [](const MetricFamily& f) { return f.metric.size(); });
  }
  void rollback(const Mark& m) override {
    roll_back_families(families_, order_, index_, m, [](MetricFamily& f, std::size_t n) { f.metric.resize(n); });
  }

 private:
  ClientMetric& add(const FamilySpec& spec, const LabelSet& labels, const Extra* extra) {
    const std::size_t at = family_index(spec);
    auto& index = index_[at];
    if (index < 0) {
      index = static_cast<int>(families_.size());
      order_.push_back(at);
      // The declaration, not a module's copy of it (a copy holds no help).
      const FamilySpec& decl = at < catalogue().size() ? catalogue()[at] : spec;
      families_.push_back(MetricFamily{std::string(decl.name), std::string(decl.help), prometheus_type(decl.type), {}});
    }
    auto& metrics = families_[static_cast<std::size_t>(index)].metric;
    metrics.emplace_back();
    auto& label = metrics.back().label;
    label.reserve(labels.list().size() + 1);
    for (const auto& l : labels.list()) label.push_back({l.name, l.value});
    if (extra != nullptr) label.push_back({std::string(extra->name), valid_utf8(std::string(extra->value))});
    return metrics.back();
  }

  std::vector<int> index_ = std::vector<int>(catalogue().size() + 1, -1);
  std::vector<std::size_t> order_;  // the catalogue index of each of families_
  std::vector<MetricFamily> families_;
};

// The metadata lines of every family in each format, rendered once per process.
using FamilyHeaders = std::vector<std::string>;
const FamilyHeaders& family_headers(ExpositionFormat format) {
  static const auto headers = [] {
    std::array<FamilyHeaders, 2> out;
    out[0].resize(catalogue().size() + 1);
    out[1].resize(catalogue().size() + 1);
    for (std::size_t i = 0; i < catalogue().size(); ++i) {
      const auto& spec = catalogue()[i];
      auto& h = out[0][i];
      h = "# HELP ";
      h += spec.name;
      h += ' ';
      append_help_text(h, spec.help);
      h += "\n# TYPE ";
      h += spec.name;
      h += ' ';
      h += family_type_name(spec.type);
      h += '\n';
      // The catalogue's types are named alike in both formats.
      append_openmetrics_metadata(out[1][i], spec.name, family_type_name(spec.type), spec.unit, spec.help);
    }
    return out;
  }();
  return headers[format == ExpositionFormat::openmetrics_1_0_0 ? 1 : 0];
}

// Writes the text exposition directly, one buffer per family, with no
// per-series allocation: the scrape path of the daemon. Both formats write
// the same sample lines; OpenMetrics has its own metadata and exemplars.
class TextSink final : public SeriesSink {
 public:
  using SeriesSink::histogram;
  using SeriesSink::sample;

  TextSink(std::vector<ExpositionFamily>& families, ExpositionFormat format)
      : families_(families),
        headers_(family_headers(format)),
        exemplars_(format == ExpositionFormat::openmetrics_1_0_0),
        index_(headers_.size(), -1) {}

  void sample(const FamilySpec& spec, const LabelSet& labels, const Extra* extra, double value) override {
    std::string& out = body(spec);
    append_series_head(out, spec.name, "", labels, extra);
    append_number(out, value);
    out += '\n';
  }
  void histogram(const FamilySpec& spec, const LabelSet& labels, const Extra* extra,
                 const metrics::Histogram& h) override {
    std::string& out = body(spec);
    const std::string_view name = spec.name;
    append_series_head(out, name, "_count", labels, extra);
    append_count(out, h.count());
    out += '\n';
    append_series_head(out, name, "_sum", labels, extra);
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

  void mark(Mark& m) const override {
    mark_families(families_, m, [](const ExpositionFamily& f) { return f.body.size(); });
  }
  void rollback(const Mark& m) override {
    roll_back_families(families_, order_, index_, m, [](ExpositionFamily& f, std::size_t n) { f.body.resize(n); });
  }

 protected:
  void exemplar_sample(const FamilySpec& spec, const LabelSet& labels, double value,
                       const metrics::TraceExemplar& exemplar) override {
    std::string& out = body(spec);
    append_series_head(out, spec.name, "", labels, nullptr);
    append_number(out, value);
    if (exemplars_) append_exemplar(out, exemplar);
    out += '\n';
  }

 private:
  std::string& body(const FamilySpec& spec) {
    const auto i = family_index(spec);
    auto& index = index_[i];
    if (index < 0) {
      index = static_cast<int>(families_.size());
      order_.push_back(i);
      families_.push_back(ExpositionFamily{headers_[i], {}});
    }
    return families_[static_cast<std::size_t>(index)].body;
  }

  static void append_extra(std::string& out, const Extra& extra) {
    out += extra.name;
    out += "=\"";
    append_label_value(out, extra.value);
    out += "\",";
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
  const FamilyHeaders& headers_;
  bool exemplars_;
  std::vector<int> index_;
  std::vector<std::size_t> order_;  // the catalogue index of each of families_
  std::unordered_map<const double*, std::vector<std::string>> le_;
};

double count(std::uint64_t n) { return static_cast<double>(n); }

// Seconds and their fraction apart: a millisecond time prints as one (ns / 1e9 would not).
double unix_seconds(std::int64_t ns) {
  return static_cast<double>(parsers::units::whole_seconds_of_ns(ns)) +
         parsers::units::seconds_of_ns(ns % parsers::units::kNsPerSecond);
}

// The trace directory, while traces are on: every drop reason from the
// start, so that rates exist.
void collect_trace_store(SeriesSink& f, const metrics::TraceStoreStatus& s) {
  if (!s.enabled) return;
  const LabelSet none = label_set({});
  for (const auto reason : metrics::kTraceDrops) {
    const auto it = s.dropped.find(std::string(metrics::trace_drop_name(reason)));
    f.sample(F::jank_exporter_traces_dropped_total, none, Extra{"reason", metrics::trace_drop_name(reason)},
             count(it == s.dropped.end() ? 0 : it->second));
  }
  f.sample(F::jank_exporter_traces_stored, none, count(s.stored));
  f.sample(F::jank_exporter_traces_stored_bytes, none, count(s.stored_bytes));
  for (std::size_t i = 0; i < std::min(s.recent.size(), metrics::kRecentTraces); ++i) {
    const auto& t = s.recent[i];
    f.sample(F::jank_exporter_trace_info,
             label_set({{"serial", t.serial}, {"package", t.package}, {"rule", t.rule}, {"trace_id", t.id}}),
             unix_seconds(t.triggered_at_ns));
  }
}

void collect_live(SeriesSink& f, const metrics::DeviceMetrics& d, const LabelSet& dev) {
  const auto& l = d.live;
  f.sample(F::android_device_up, dev, l.up && l.state == metrics::DeviceState::following ? 1 : 0);
  for (const auto state : metrics::kDeviceStates) {
    f.sample(F::jank_exporter_device_state, dev, Extra{"state", metrics::device_state_name(state)},
             l.state == state ? 1 : 0);
  }
  if (!l.state_reason.empty() &&
      (l.state == metrics::DeviceState::stalled || l.state == metrics::DeviceState::unsupported)) {
    f.sample(F::jank_exporter_device_state_reason, dev, Extra{"reason", l.state_reason}, 1);
  }
  if (l.command_deadline_seconds > 0) {
    f.sample(F::jank_exporter_device_command_deadline_seconds, dev, l.command_deadline_seconds);
  }
  if (!l.info.empty()) {
    std::vector<metrics::Label> labels = dev.list();
    for (const auto& [k, v] : l.info) labels.push_back({k, v});
    f.sample(F::android_device_info, label_set(std::move(labels)), 1);
  }
  f.sample(F::android_choreographer_skip_threshold_frames, dev, l.skip_threshold_frames);
  f.sample(F::jank_exporter_device_sessions_total, dev, count(l.sessions));
  f.sample(F::jank_exporter_logcat_streams_total, dev, count(l.logcat_streams));
  const auto& c = d.continuity;
  f.sample(F::jank_exporter_logcat_resume_gaps_total, dev, count(c.resumes_with_loss));
  f.sample(F::jank_exporter_logcat_lost_lines_total, dev, count(c.lost_lines));
  f.sample(F::jank_exporter_device_reboots_total, dev, count(c.reboots));
  f.sample(F::jank_exporter_logd_restarts_total, dev, count(c.logd_restarts));
  f.sample(F::jank_exporter_logcat_unconfirmed_resumes_total, dev, count(c.unconfirmed_resumes));
  f.sample(F::jank_exporter_logcat_unheld_lines_total, dev, count(c.unheld_lines));
  if (const auto offset = d.clock.offset_ns()) {
    f.sample(F::android_device_clock_offset_seconds, dev, -parsers::units::seconds_of_ns(*offset));
  }
  f.sample(F::jank_exporter_device_clock_steps_total, dev, count(d.clock.steps()));
  for (const auto& [result, n] : l.gfxinfo_polls) {
    f.sample(F::jank_exporter_gfxinfo_polls_total, dev, Extra{"result", result}, count(n));
  }
  for (const auto& [key, n] : l.surfaceflinger_polls) {
    const LabelSet labels = label_set({{"serial", d.serial}, {"command", key.first}});
    f.sample(F::jank_exporter_surfaceflinger_polls_total, labels, Extra{"result", key.second}, count(n));
  }
  for (const auto& [result, n] : l.commands) {
    f.sample(F::jank_exporter_device_commands_total, dev, Extra{"result", result}, count(n));
  }
  for (const auto& [kind, cost] : l.command_costs) {
    f.sample(F::jank_exporter_device_command_runs_total, dev, Extra{"command", kind}, count(cost.runs));
  }
  for (const auto& [kind, cost] : l.command_costs) {
    f.sample(F::jank_exporter_device_command_seconds_total, dev, Extra{"command", kind}, cost.seconds);
  }
  for (const auto& [kind, cost] : l.command_costs) {
    f.sample(F::jank_exporter_device_command_output_bytes_total, dev, Extra{"command", kind}, count(cost.output_bytes));
  }
  for (const auto& [kind, cost] : l.command_costs) {
    if (cost.timed > 0) f.sample(F::jank_exporter_device_command_timed_total, dev, Extra{"command", kind}, count(cost.timed));
  }
  for (const auto& [kind, cost] : l.command_costs) {
    if (cost.timed > 0) {
      f.sample(F::jank_exporter_device_command_device_seconds_total, dev, Extra{"command", kind}, cost.device_seconds);
    }
  }
  for (const auto& [reason, n] : l.untimed_commands) {
    f.sample(F::jank_exporter_device_command_untimed_total, dev, Extra{"reason", reason}, count(n));
  }
  f.sample(F::jank_exporter_device_budget_waits_total, dev, count(l.budget_waits));
  f.sample(F::jank_exporter_device_budget_wait_seconds_total, dev, l.budget_wait_seconds);
  if (l.per_frame_polling) f.sample(F::jank_exporter_device_per_frame_polling, dev, *l.per_frame_polling ? 1.0 : 0.0);
  for (const auto& [result, n] : l.package_polls) {
    f.sample(F::jank_exporter_package_polls_total, dev, Extra{"result", result}, count(n));
  }
  if (l.last_line_time_ns != 0) {
    f.sample(F::jank_exporter_ingest_lag_seconds, dev, l.ingest_lag_seconds);
    f.sample(F::jank_exporter_last_line_timestamp_seconds, dev, parsers::units::seconds_of_ns(l.last_line_time_ns));
  }
}

void collect_runs(SeriesSink& f, const metrics::RunBook& book) {
  const LabelSet none = label_set({});
  f.sample(F::jank_exporter_runs_started_total, none, count(book.counts().started));
  f.sample(F::jank_exporter_runs_finished_total, none, count(book.counts().finished));
  for (const char* reason : {"count", "age"}) {
    const auto it = book.counts().dropped.find(reason);
    f.sample(F::jank_exporter_runs_dropped_total, none, Extra{"reason", reason},
             count(it == book.counts().dropped.end() ? 0 : it->second));
  }
  for (const auto& [seq, run] : book.runs()) {
    if (run.state == metrics::RunState::finished) continue;
    for (const auto& d : run.devices) {
      f.sample(F::jank_exporter_run_open,
               label_set({{"run", run.spec.id},
                         {"name", run.spec.name},
                         {"package", run.spec.package},
                         {"serial", d.serial},
                         {"state", std::string(metrics::run_state_name(run.state))}}),
               1);
      const LabelSet labels = label_set({{"run", run.spec.id}, {"serial", d.serial}});
      if (const auto v = d.counted.total("frames")) f.sample(F::android_run_frames, labels, count(*v));
      if (const auto v = d.counted.total("janky_frames")) f.sample(F::android_run_janky_frames, labels, count(*v));
      f.sample(F::android_run_skipped_frames, labels, count(d.counted.total("skipped_frames").value_or(0)));
    }
  }
}

void collect_daemon(SeriesSink& f, const metrics::DaemonMetrics& m) {
  const LabelSet none = label_set({});
  f.sample(F::jank_exporter_build_info, label_set({{"version", m.version}}), 1);
  for (const auto& [server, s] : m.adb_servers) {
    const LabelSet labels = label_set({{"server", server}});
    f.sample(F::jank_exporter_adb_server_up, labels, s.up ? 1 : 0);
    for (const auto& [kind, n] : s.errors) {
      f.sample(F::jank_exporter_adb_errors_total, labels, Extra{"kind", kind}, count(n));
    }
    const auto& t = s.tracker;
    f.sample(F::jank_exporter_adb_device_list_lines_total, labels, Extra{"result", "parsed"},
             count(t.list_lines - t.list_malformed_lines));
    f.sample(F::jank_exporter_adb_device_list_lines_total, labels, Extra{"result", "discarded"},
             count(t.list_malformed_lines));
    f.sample(F::jank_exporter_adb_device_list_polls_total, labels, Extra{"result", "applied"},
             count(t.polls_ok - t.polls_discarded));
    f.sample(F::jank_exporter_adb_device_list_polls_total, labels, Extra{"result", "discarded"},
             count(t.polls_discarded));
    f.sample(F::jank_exporter_adb_device_list_polls_total, labels, Extra{"result", "failed"}, count(t.polls_failed));
  }
  f.sample(F::jank_exporter_checkpoints_total, none, Extra{"result", "written"}, count(m.checkpoints_written));
  f.sample(F::jank_exporter_checkpoints_total, none, Extra{"result", "failed"}, count(m.checkpoint_failures));
  f.sample(F::jank_exporter_state_load_failures_total, none, count(m.state_load_failures));
  for (const auto& [record, n] : m.state_rejected_records) {
    f.sample(F::jank_exporter_state_rejected_records_total, none, Extra{"record", record}, count(n));
  }
  f.sample(F::jank_exporter_config_reloads_total, none, Extra{"result", "success"}, count(m.config_reloads));
  f.sample(F::jank_exporter_config_reloads_total, none, Extra{"result", "failure"}, count(m.config_reload_failures));
  for (const std::string_view thread : metrics::kBarrierThreads) {  // each at 0 from the start: a rate() sees the first
    const auto it = m.internal_errors.find(thread);
    f.sample(F::jank_exporter_internal_errors_total, none, Extra{"thread", thread},
             count(it == m.internal_errors.end() ? 0 : it->second));
  }
  collect_trace_store(f, m.traces);
}

// The source modules' series at one place among the device's (metrics::CollectAt).
void collect_sources(SeriesSink& f, const metrics::DeviceMetrics& d, const LabelSet& dev, std::int64_t now,
                     metrics::CollectAt at) {
  for (const auto* source : metrics::device_sources()) {
    if (source->collects_at(at)) source->collect(f, d, dev, now, at);
  }
}

// The source modules' series at one place among an app's (metrics::PackageAt).
void collect_package_sources(SeriesSink& f, const metrics::DeviceMetrics& d, const std::string& package,
                             const metrics::PackageMetrics& p, std::int64_t now, metrics::PackageAt at) {
  for (const auto* source : metrics::device_sources()) source->collect_package(f, d, package, p, now, at);
}

void collect_surface(SeriesSink& f, const metrics::DeviceMetrics& d, const LabelSet& dev, std::int64_t now) {
  collect_sources(f, d, dev, now, metrics::CollectAt::display);
  if (const auto state = metrics::activity_state(d)) {
    for (const std::string_view s : {"active", "idle", "off"}) {
      f.sample(F::android_device_activity_state, dev, Extra{"state", s}, *state == s ? 1 : 0);
    }
  }
  collect_sources(f, d, dev, now, metrics::CollectAt::timelines);
  if (metrics::surfaceflinger_read(d)) collect_sources(f, d, dev, now, metrics::CollectAt::surface_input);
}

// `dev`: the device's own labels, rendered once for all its series.
void collect_device(SeriesSink& f, const metrics::DeviceMetrics& d, const LabelSet& dev, std::int64_t now) {
  if (d.live.live) {
    collect_live(f, d, dev);
    collect_sources(f, d, dev, now, metrics::CollectAt::live);
  }
  collect_sources(f, d, dev, now, metrics::CollectAt::refresh);

  f.sample(F::jank_exporter_logcat_lines_total, dev, Extra{"result", "parsed"}, count(d.lines.parsed));
  f.sample(F::jank_exporter_logcat_lines_total, dev, Extra{"result", "unmatched"}, count(d.lines.unmatched));
  f.sample(F::jank_exporter_logcat_lines_total, dev, Extra{"result", "discarded"}, count(d.lines.discarded_total()));
  for (std::size_t r = 0; r < parsers::kDiscardReasons; ++r) {
    f.sample(F::jank_exporter_logcat_discarded_lines_total, dev,
             Extra{"reason", parsers::discard_reason_name(static_cast<parsers::DiscardReason>(r))},
             count(d.lines.discarded[r]));
  }
  f.sample(F::jank_exporter_logcat_duplicate_lines_total, dev, count(d.lines.duplicates));
  collect_sources(f, d, dev, now, metrics::CollectAt::dump_input);
  f.sample(F::jank_exporter_package_overflow_events_total, dev, count(d.package_overflow_events));
  collect_sources(f, d, dev, now, metrics::CollectAt::before_surface);
  collect_surface(f, d, dev, now);
  collect_sources(f, d, dev, now, metrics::CollectAt::after_surface);

  std::size_t part = 0;
  for (const auto& [name, p] : d.packages) {
    f.begin_part(++part);
    collect_package_sources(f, d, name, p, now, metrics::PackageAt::head);
    collect_package_sources(f, d, name, p, now, metrics::PackageAt::dumps);
    collect_package_sources(f, d, name, p, now, metrics::PackageAt::windows);
    collect_package_sources(f, d, name, p, now, metrics::PackageAt::last);
  }
  f.begin_part(++part);
  collect_sources(f, d, dev, now, metrics::CollectAt::after_apps);
}

// Which parts of a device over its cap stay (SeriesSink::begin_part), from
// the default profile's series per part: the device's own always, then the
// layers' and the apps in order while they fit.
std::vector<bool> parts_within(const std::vector<std::size_t>& core, std::size_t cap) {
  std::vector<bool> keep(core.size(), false);
  if (core.empty()) return keep;
  keep[0] = true;
  std::size_t used = core[0];
  std::vector<std::size_t> order;
  if (core.size() > 1) order.push_back(core.size() - 1);
  for (std::size_t i = 1; i + 1 < core.size(); ++i) order.push_back(i);
  for (const auto i : order) {
    if (used + core[i] <= cap) {
      keep[i] = true;
      used += core[i];
    }
  }
  return keep;
}

}  // namespace

WindowNow input_time_now() {
  return [](const metrics::DeviceMetrics& d) { return d.latest_time_ns; };
}

WindowSpan input_span() {
  return [](const metrics::DeviceMetrics& d, std::chrono::seconds sm_window) {
    using parsers::units::Seconds;
    if (!d.has_time) return Seconds::zero();
    const Seconds span(parsers::units::seconds_of_ns(d.latest_time_ns - d.earliest_time_ns));
    return std::clamp(span, Seconds::zero(), Seconds(sm_window));
  };
}

StoreCollector::StoreCollector(const metrics::Store& store, WindowNow now, std::mutex* mutex,
                               const metrics::DaemonMetrics* daemon, const metrics::RunBook* runs)
    : store_(store), now_(std::move(now)), mutex_(mutex), daemon_(daemon), runs_(runs) {}

std::vector<MetricFamily> StoreCollector::Collect() const {
  FamilySink families;
  collect(families);
  return families.take();
}

Exposition StoreCollector::Text(ExpositionFormat format) const {
  Exposition exposition;
  TextSink sink(exposition.families, format);
  collect(sink);
  finish_exposition(exposition, format);
  return exposition;
}

Exposition StoreCollector::Text(std::string_view serial, ExpositionFormat format) const {
  Exposition exposition;
  std::unique_lock<std::mutex> lock;
  if (mutex_ != nullptr) lock = std::unique_lock<std::mutex>(*mutex_);
  const auto it = store_.devices().find(serial);
  if (it != store_.devices().end()) {
    TextSink sink(exposition.families, format);
    collect_one(sink, *it->second);
  }
  finish_exposition(exposition, format);
  return exposition;
}

void StoreCollector::collect(SeriesSink& sink) const {
  std::unique_lock<std::mutex> lock;
  if (mutex_ != nullptr) lock = std::unique_lock<std::mutex>(*mutex_);
  collect_unlocked(sink);
}

void StoreCollector::collect_unlocked(SeriesSink& sink) const {
  if (daemon_ != nullptr) collect_daemon(sink, *daemon_);
  if (runs_ != nullptr) collect_runs(sink, *runs_);
  for (const auto& [serial, device] : store_.devices()) collect_one(sink, *device);
}

void StoreCollector::collect_one(SeriesSink& sink, const metrics::DeviceMetrics& device) const {
  metrics::SeriesSink::SmWindow w;
  w.length = store_.options().sm_window;
  w.span = w.length;
  if (span_) {
    w.span = span_(device, w.length);
    w.span_exported = true;
  }
  const std::int64_t now = now_(device);
  const LabelSet dev = label_set({{"serial", device.serial}});
  if (!budget_) {
    sink.set_sm_window(w);
    collect_device(sink, device, dev, now);
    return;
  }
  const std::size_t cap = budget_->max_per_device;
  SeriesSink::Mark before;
  if (cap > 0) sink.mark(before);
  BudgetedSink within(sink, *budget_);
  within.set_sm_window(w);
  collect_device(within, device, dev, now);
  std::size_t written = within.written(), dropped = 0;
  if (cap > 0 && written > cap) {
    // Over the cap: the device's series again, the default profile's only
    // and without the parts that do not fit.
    sink.rollback(before);
    SeriesBudget core;
    BudgetedSink capped(sink, core, parts_within(within.core_per_part(), cap));
    capped.set_sm_window(w);
    collect_device(capped, device, dev, now);
    dropped = written - capped.written();
    written = capped.written();
  }
  sink.sample(F::jank_exporter_device_series, dev, count(written));
  sink.sample(F::jank_exporter_device_series_dropped, dev, count(dropped));
}

std::function<Exposition(std::string_view serial, ExpositionFormat format)> text_source(
    std::shared_ptr<const StoreCollector> collector) {
  return [collector = std::move(collector)](std::string_view serial, ExpositionFormat format) {
    return serial.empty() ? collector->Text(format) : collector->Text(serial, format);
  };
}

}  // namespace jank::exporters

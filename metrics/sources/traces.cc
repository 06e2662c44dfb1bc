#include "metrics/sources/traces.h"

#include <string>

#include "metrics/sources/layers.h"

namespace jank::metrics {
namespace {

constexpr FamilySpec kFamilies[] = {
    {"jank_exporter_trace_armed", FamilyType::gauge, "",
     "1 while the device has a Perfetto ring-buffer session of the flight recorder running.", "serial"},
    {"jank_exporter_trace_sessions_total", FamilyType::counter, "",
     "Flight recorder sessions, by result (armed, adopted, expired, arm_failed, unsupported).", "serial,result"},
    {"jank_exporter_traces_taken_total", FamilyType::counter, "",
     "Traces pulled from the device and stored, by the rule that fired.", "serial,rule"},
    {"jank_exporter_traces_failed_total", FamilyType::counter, "", "Traces triggered but not stored, by reason.",
     "serial,reason"},
    {"jank_exporter_trace_triggers_suppressed_total", FamilyType::counter, "",
     "Rules that fired without a trigger (not armed, collecting, over a rate limit), by reason.", "serial,reason"},
};
constexpr const FamilySpec& kArmed = kFamilies[0];
constexpr const FamilySpec& kSessions = kFamilies[1];
constexpr const FamilySpec& kTaken = kFamilies[2];
constexpr const FamilySpec& kFailed = kFamilies[3];
constexpr const FamilySpec& kSuppressed = kFamilies[4];

}  // namespace

const TraceSource& trace_source() {
  static const TraceSource source;
  return source;
}

std::span<const FamilySpec> TraceSource::families() const { return kFamilies; }

void TraceSource::collect(SeriesSink& f, const DeviceMetrics& d, const LabelSet& dev, std::int64_t,
                          CollectAt) const {
  const DeviceTraceState* s = find(d);
  if (s == nullptr) return;
  const DeviceTraceStatus& t = s->status;
  if (!t.armed && t.sessions.empty() && t.taken.empty() && t.failed.empty() && t.suppressed.empty()) return;
  f.sample(kArmed, dev, t.armed ? 1 : 0);
  struct ByKey {
    const FamilySpec& family;
    std::string_view label;
    const std::map<std::string, std::uint64_t>& counts;
  };
  const ByKey by_key[] = {{kSessions, "result", t.sessions},
                          {kTaken, "rule", t.taken},
                          {kFailed, "reason", t.failed},
                          {kSuppressed, "reason", t.suppressed}};
  for (const auto& [family, label, counts] : by_key) {
    for (const auto& [value, n] : counts) f.sample(family, dev, Extra{label, value}, count_value(n));
  }
}

void TraceSource::packages_changed(DeviceMetrics& device) const {
  if (find(device) == nullptr) return;
  std::erase_if(state(device).exemplars, [&](const auto& entry) {
    return !device.packages.contains(entry.first.package) ||
           (!entry.first.layer.empty() && !layers_of(device).contains(entry.first.layer));
  });
}

DeviceTraceState& trace_state(DeviceMetrics& device) { return trace_source().state(device); }
const DeviceTraceState* traces_of(const DeviceMetrics& device) { return trace_source().find(device); }

const TraceExemplar* trace_exemplar(const DeviceMetrics& device, ExemplarCounter counter, std::string_view package,
                                    std::string_view layer) {
  const DeviceTraceState* s = traces_of(device);
  if (s == nullptr || s->exemplars.empty()) return nullptr;
  const auto it = s->exemplars.find(ExemplarKey{counter, std::string(package), std::string(layer)});
  return it == s->exemplars.end() ? nullptr : &it->second;
}

void keep_spike_line(DeviceMetrics& device, bool davey, std::string_view package, double value, std::int64_t at_ns) {
  const DeviceTraceState* s = traces_of(device);
  if (s == nullptr) return;
  const SpikeLines& asked = s->spike_lines;
  const bool wanted = davey ? asked.min_davey_ms > 0 && value >= asked.min_davey_ms
                            : asked.min_skip_frames > 0 && value >= asked.min_skip_frames;
  if (!wanted) return;
  auto& spikes = trace_state(device).spike_lines;
  // The series the line was counted under: its own, or the overflow one.
  const std::string key(device.packages.contains(package) ? package : kOverflowPackage);
  spikes.lines.push_back({spikes.next_seq++, davey, key, value, at_ns});
  if (spikes.lines.size() > SpikeLines::kMax) spikes.lines.pop_front();
}

}  // namespace jank::metrics

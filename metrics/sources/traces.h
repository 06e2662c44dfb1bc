// Source module: the flight recorder on each device (docs/traces.md). Its
// per-device state is what the recorder counts (sessions, traces taken,
// failed and suppressed, whether a session is armed), the exemplars that
// link counter series to stored traces, and the log lines big enough to
// fire a trace rule. Set by app/session/trace_recorder and the log's
// record rules, read by the spike rules and the exposition. Never
// checkpointed: a restarted exporter arms again, and an exemplar lives
// only as long as its series.
#pragma once

#include <map>
#include <string_view>

#include "metrics/source.h"
#include "metrics/trace_status.h"

namespace jank::metrics {

struct DeviceTraceState final : SourceState {
  DeviceTraceStatus status;
  std::map<ExemplarKey, TraceExemplar> exemplars;  // the newest per series
  SpikeLines spike_lines;
};

class TraceSource final : public DeviceSourceOf<DeviceTraceState> {
 public:
  std::string_view name() const override { return "traces"; }
  std::span<const FamilySpec> families() const override;
  // Last of the live device's status series; only once the recorder has
  // anything to say of the device (none while traces are off).
  bool collects_at(CollectAt at) const override { return at == CollectAt::live; }
  void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels, std::int64_t now_ns,
               CollectAt at) const override;
  // An exemplar goes with its series.
  void packages_changed(DeviceMetrics& device) const override;

 protected:
  bool state_worth_saving(const DeviceTraceState&) const override { return false; }
  bool checkpoint_state(Checkpoint& c, DeviceTraceState&) const override { return c.valid(); }
};
const TraceSource& trace_source();

// The device's recorder state, made on first use (the recorder, the spike rules).
DeviceTraceState& trace_state(DeviceMetrics& device);
// Null until the recorder or a rule touched the device.
const DeviceTraceState* traces_of(const DeviceMetrics& device);

// The exemplar the flight recorder left on a counter series of `device`, if
// any: `layer` "" for the package counters. Free when the device has none.
const TraceExemplar* trace_exemplar(const DeviceMetrics& device, ExemplarCounter counter, std::string_view package,
                                    std::string_view layer = {});

// A log line big enough for a trace rule: a skip of `value` frames or a
// Davey of `value` ms of `package`, at host time `at_ns`. Kept only while a
// rule asks for such lines (SpikeLines' minimums), under the series the
// line was counted in (its own, or the overflow series).
void keep_spike_line(DeviceMetrics& device, bool davey, std::string_view package, double value, std::int64_t at_ns);

}  // namespace jank::metrics

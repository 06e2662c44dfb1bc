// Source module: dumpsys SurfaceFlinger --timestats -dump (Android 12+,
// opt-in). TimeStats' counters made loss-free across its resets
// (metrics/timestats_tracker.h), per app and per rate bucket, and the lines
// the answers brought.
#pragma once

#include <cstdint>
#include <string_view>

#include "metrics/source.h"
#include "metrics/timestats_tracker.h"
#include "parsers/timestats.h"

namespace jank::metrics {

struct TimeStatsState final : SourceState {
  TimeStatsTracker tracker;
  bool counted = false;  // an answer was taken in (or the record restored): the series exist
  std::uint64_t lines = 0, malformed_lines = 0;
};

class TimeStatsSource final : public DeviceSourceOf<TimeStatsState> {
 public:
  // The tag its record had in the store ("ts_device lines malformed
  // timestats ..."): files written before the module load unchanged.
  std::string_view name() const override { return "ts_device"; }
  std::span<const FamilySpec> families() const override;
  // Where the collector wrote its series: after FrameTimeline's input.
  bool collects_at(CollectAt at) const override { return at == CollectAt::timelines; }
  void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels, std::int64_t now_ns,
               CollectAt at) const override;
  std::string_view rejected_record() const override { return "timestats"; }
  std::string_view rejected_why() const override { return "a value that cannot be true; TimeStats is read afresh"; }

 protected:
  // Lines of answers never taken in (no jank payload) are not kept, as before.
  bool state_worth_saving(const TimeStatsState& state) const override { return state.counted; }
  bool checkpoint_state(Checkpoint& c, TimeStatsState& state) const override;
};
const TimeStatsSource& timestats_source();

// A `--timestats -dump` answer: its lines counted, loss-free totals across
// TimeStats resets.
TsObservation record_timestats(DeviceMetrics& device, const parsers::TimeStatsDump& dump);

}  // namespace jank::metrics

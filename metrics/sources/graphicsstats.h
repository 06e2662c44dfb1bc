// Source module: dumpsys graphicsstats (Android 7+). The system's own frame
// statistics of every app on the device, per app and version code, kept by
// system_server across process deaths and reboots and read in one command
// with no work on any app's threads: cumulative and lossless at any cadence
// (metrics/graphicsstats_tracker.h says how each frame counts once).
#pragma once

#include <cstdint>
#include <string_view>

#include "metrics/graphicsstats_tracker.h"
#include "metrics/source.h"
#include "parsers/graphicsstats.h"

namespace jank::metrics {

struct GraphicsStatsState final : SourceState {
  GraphicsStatsTracker tracker;
  std::uint64_t dumps = 0;
  std::uint64_t lines = 0, malformed_lines = 0;
  std::uint64_t discarded_blocks = 0;  // cut short or past the parser's cap
  PollCounts polls;
};

class GraphicsStatsSource final : public DeviceSourceOf<GraphicsStatsState> {
 public:
  std::string_view name() const override { return "graphicsstats"; }
  std::span<const FamilySpec> families() const override;
  void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels,
               std::int64_t now_ns, CollectAt at) const override;

 protected:
  bool state_worth_saving(const GraphicsStatsState& state) const override { return state.dumps > 0; }
  bool checkpoint_state(Checkpoint& c, GraphicsStatsState& state) const override;
};
const GraphicsStatsSource& graphicsstats_source();

// An answer; `whole`: read to its end (not cut at the output cap).
void record_graphicsstats(const Store& store, DeviceMetrics& device, const parsers::GraphicsStatsDump& dump,
                          bool whole);
void count_graphicsstats_poll(DeviceMetrics& device, std::string_view result);
// Null until the device was polled or a dump recorded.
const GraphicsStatsState* graphicsstats_of(const DeviceMetrics& device);

}  // namespace jank::metrics

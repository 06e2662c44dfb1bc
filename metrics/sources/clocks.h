// Source module: the clocks (the resource poll, parsers/resource_files.h).
// Per cpufreq policy (a cluster of cores sharing a clock) the clock now, the
// highest it may run now and the hardware's highest; the time the allowed
// highest stood below the hardware's (a thermal or power cap: "throttled");
// the GPU's clock and load where the kernel shows them (Adreno kgsl, Mali
// devfreq). Gauges only while fresh; the throttled time is a counter that
// survives restarts (checkpointed).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string_view>

#include "metrics/source.h"
#include "parsers/resource_files.h"

namespace jank::metrics {

struct PolicyClock {
  parsers::CpufreqPolicy reading;  // the newest answer's (not checkpointed)
  std::int64_t throttled_ns = 0;   // host time capped, summed (checkpointed)
  std::int64_t capped_since_ns = 0;  // host time of the newest answer that showed it capped (0: not capped)
};

struct ClockState final : SourceState {
  std::map<int, PolicyClock> policies;  // by the policy's first core
  parsers::GpuFiles gpu;                // the newest answer's
  std::int64_t fresh_until_ns = 0;
  // The kernel keeps cpufreq per core (no policy directories): the poll asks that way.
  bool per_core_cpufreq = false;
  bool per_core_tried = false;  // asked per core once after the policy layout found nothing
  bool cpufreq_seen = false;    // an answer held cpufreq (the layout asked is the device's)
};

class ClockSource final : public DeviceSourceOf<ClockState> {
 public:
  std::string_view name() const override { return "clocks"; }
  std::span<const FamilySpec> families() const override;
  void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels, std::int64_t now_ns,
               CollectAt at) const override;

 protected:
  bool state_worth_saving(const ClockState& state) const override;
  bool checkpoint_state(Checkpoint& c, ClockState& state) const override;
};
const ClockSource& clock_source();

// An answer of the resource poll at the store's host time: the clocks
// replaced; a policy capped in this answer and the one before it adds the
// host time between them to its throttled time.
void record_clocks(const Store& store, DeviceMetrics& device, const parsers::ResourceAnswer& answer,
                   std::int64_t fresh_for_ns = 0);
const ClockState* clocks_of(const DeviceMetrics& device);
// How the poll should ask for cpufreq on this device.
parsers::CpufreqLayout cpufreq_layout(const DeviceMetrics& device);

}  // namespace jank::metrics

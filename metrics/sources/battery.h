// Source module: dumpsys battery (every release). The battery's level,
// temperature, voltage and charging state of the newest answer (gauges,
// current only while fresh), and what the answers brought (counters).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "metrics/source.h"
#include "parsers/battery.h"

namespace jank::metrics {

struct BatteryState final : SourceState {
  // The newest answer that held battery state (gauges, never checkpointed).
  std::optional<parsers::BatteryDump> reading;
  std::int64_t fresh_until_ns = 0;  // host time the reading goes stale (0: never, replay)
  std::uint64_t dumps = 0;
  std::uint64_t lines = 0, malformed_lines = 0;
  PollCounts polls;
  // The battery's current from the kernel (the resource poll's current_now,
  // µA as the driver signs it), and until when it is current.
  std::optional<std::int64_t> current_ua;
  std::int64_t current_fresh_until_ns = 0;
};

class BatterySource final : public DeviceSourceOf<BatteryState> {
 public:
  std::string_view name() const override { return "battery"; }
  std::span<const FamilySpec> families() const override;
  void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels,
               std::int64_t now_ns, CollectAt at) const override;

 protected:
  bool state_worth_saving(const BatteryState& state) const override { return state.dumps > 0; }
  // Only the counts: an old reading is no current state.
  bool checkpoint_state(Checkpoint& c, BatteryState& state) const override;
};
const BatterySource& battery_source();

// An answer: its lines counted; the reading replaced when it holds battery
// state, cleared when it does not. `fresh_for_ns` as for thermal readings.
void record_battery(const Store& store, DeviceMetrics& device, const parsers::BatteryDump& dump,
                    std::int64_t fresh_for_ns = 0);
void count_battery_poll(DeviceMetrics& device, std::string_view result);
// The kernel's current_now (the resource poll), replacing the one before.
void record_battery_current(const Store& store, DeviceMetrics& device, std::int64_t microamperes,
                            std::int64_t fresh_for_ns = 0);
// Amperes into the battery (positive while charging, negative while
// draining), from the driver's reading: drivers sign it either way (the
// kernel fixed the convention only in 2020), so while dumpsys battery says
// charging or discharging the sign is set by that; otherwise as read.
double battery_current_amperes(std::int64_t microamperes, std::optional<int> status);
// Null until the device was polled or a dump recorded.
const BatteryState* battery_of(const DeviceMetrics& device);

}  // namespace jank::metrics

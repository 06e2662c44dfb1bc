// Source module: dumpsys thermalservice (Android 10+). The thermal status
// and temperatures of the newest answer (gauges, current only while fresh),
// and what the answers brought (counters: received = parsed + discarded).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/source.h"
#include "parsers/thermal.h"

namespace jank::metrics {

// Why a temperature reading of a thermalservice dump was not exported.
enum class ThermalDrop : std::uint8_t {
  non_finite,  // NaN or infinite (a sensor the HAL cannot read)
  duplicate,   // a second reading of a name already taken
  long_name,   // a sensor name over kMaxThermalSensorName bytes
  over_cap,    // beyond max_thermal_sensors_per_device
};
inline constexpr std::size_t kThermalDrops = 4;
inline constexpr std::size_t kMaxThermalSensorName = 128;
std::string_view thermal_drop_name(ThermalDrop drop);

struct ThermalState final : SourceState {
  std::optional<int> status;  // 0 none ... 6 shutdown; unset until a dump told it
  // Readings in degrees Celsius (the battery current limit types, which
  // carry other units, are left out), in the HAL's order, at most the cap.
  std::vector<parsers::ThermalTemperature> temperatures;
  std::int64_t fresh_until_ns = 0;  // host time the reading goes stale (0: never, replay)
  std::uint64_t dumps = 0;
  std::uint64_t lines = 0, malformed_lines = 0;
  std::array<std::uint64_t, kThermalDrops> dropped{};  // readings per ThermalDrop, every dump
  PollCounts polls;
};

class ThermalSource final : public DeviceSourceOf<ThermalState> {
 public:
  std::string_view name() const override { return "thermal"; }
  std::span<const FamilySpec> families() const override;
  void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels,
               std::int64_t now_ns, CollectAt at) const override;
  std::string_view rejected_record() const override { return "device_counters"; }
  std::string_view rejected_why() const override {
    return "thermalservice input counts out of range; restart from 0";
  }

 protected:
  bool state_worth_saving(const ThermalState& state) const override { return state.dumps > 0; }
  // Only the counts: an old reading is no current state.
  bool checkpoint_state(Checkpoint& c, ThermalState& state) const override;
};
const ThermalSource& thermal_source();

// An answer: its lines counted, the reading replaced (an answer without
// thermal state clears it). With `fresh_for_ns` and a host time, the reading
// is exported only that long (a device that stops answering shows no old
// temperature).
void record_thermal(const Store& store, DeviceMetrics& device, const parsers::ThermalDump& dump,
                    std::int64_t fresh_for_ns = 0);
// A poll's result ("ok", "timeout", "unsupported", …).
void count_thermal_poll(DeviceMetrics& device, std::string_view result);
// Null until the device was polled or a dump recorded.
const ThermalState* thermal_of(const DeviceMetrics& device);

// Whether the newest thermal reading is exported at `now_ns`: not once the
// device went away, nor past its freshness (a device that stopped answering).
bool thermal_current(const DeviceMetrics& device, std::int64_t now_ns);
// android_thermal_status at `now_ns`.
std::optional<int> thermal_status(const DeviceMetrics& device, std::int64_t now_ns);

}  // namespace jank::metrics

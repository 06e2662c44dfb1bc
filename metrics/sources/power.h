// Source module: dumpsys power, polled with SurfaceFlinger's commands. The
// panel's power state of the newest answer (a gauge; it also makes SM and
// the activity state dark, and tells a game's rest from a freeze), and the
// lines the answers brought.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "metrics/source.h"
#include "parsers/power_state.h"

namespace jank::metrics {

struct PowerState final : SourceState {
  std::optional<parsers::ScreenPower> screen;  // nullopt until an answer told it; never checkpointed
  std::int64_t not_on_ns = 0;                  // host time an answer last found the panel not on (0: never)
  std::uint64_t lines = 0, malformed_lines = 0;
};

class PowerSource final : public DeviceSourceOf<PowerState> {
 public:
  std::string_view name() const override { return "power"; }
  std::span<const FamilySpec> families() const override;
  // The power state first of SurfaceFlinger's series, its lines among theirs.
  bool collects_at(CollectAt at) const override {
    return at == CollectAt::display || at == CollectAt::surface_input;
  }
  void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels, std::int64_t now_ns,
               CollectAt at) const override;
  // Its counts were fields of the surface record before it was a module.
  std::string_view legacy_record() const override { return "surface"; }
  std::string_view rejected_record() const override { return "surface_counters"; }
  std::string_view rejected_why() const override { return "dumpsys power line counts out of range; restart from 0"; }

 protected:
  bool state_worth_saving(const PowerState& state) const override { return state.lines > 0; }
  // Only the counts: an old panel state is no current state.
  bool checkpoint_state(Checkpoint& c, PowerState& state) const override;
};
const PowerSource& power_source();

// An answer: its lines counted, the panel's state replaced.
void record_power_state(const Store& store, DeviceMetrics& device, const parsers::PowerState& power);
// Null until an answer was recorded (or its counts restored).
const PowerState* power_of(const DeviceMetrics& device);

}  // namespace jank::metrics

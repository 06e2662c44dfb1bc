// The registration list: every device source module, in the order their
// series are collected and their checkpoint records written.
#include <array>

#include "metrics/source.h"
#include "metrics/sources/battery.h"
#include "metrics/sources/power.h"
#include "metrics/sources/thermal.h"
#include "metrics/sources/timestats.h"

namespace jank::metrics {

std::span<const DeviceSource* const> device_sources() {
  static const std::array<const DeviceSource*, 4> sources = {
      &thermal_source(),
      &battery_source(),
      &power_source(),
      &timestats_source(),
  };
  return sources;
}

}  // namespace jank::metrics

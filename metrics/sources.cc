// The registration list: every device source module, in the order their
// series are collected and their checkpoint records written.
#include <array>

#include "metrics/source.h"
#include "metrics/sources/battery.h"
#include "metrics/sources/graphicsstats.h"
#include "metrics/sources/clocks.h"
#include "metrics/sources/cpu.h"
#include "metrics/sources/display.h"
#include "metrics/sources/frametimeline.h"
#include "metrics/sources/gfxinfo.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/log_patterns.h"
#include "metrics/sources/memory.h"
#include "metrics/sources/power.h"
#include "metrics/sources/skips.h"
#include "metrics/sources/thermal.h"
#include "metrics/sources/timestats.h"
#include "metrics/sources/traces.h"
#include "metrics/sources/versions.h"

namespace jank::metrics {

std::span<const DeviceSource* const> device_sources() {
  // gfxinfo before FrameTimeline: at PackageAt::windows its part and its
  // series come first. FrameTimeline first of those with a record: its
  // record follows the surface record, as the store wrote it, and its input
  // series come before TimeStats' (timelines).
  // The display first: its refresh rate leads the series the skips collect
  // at the same place (CollectAt::refresh).
  // The layers before FrameTimeline: their record (the store's surface
  // record) comes first of the modules' records; their input lines lead
  // power's, their series lead the other new sources' (after_surface) and
  // their app series the log patterns' (PackageAt::last).
  static const std::array<const DeviceSource*, 16> sources = {
      &display_source(),
      &skip_source(),
      &gfxinfo_source(),
      &layers_source(),
      &frametimeline_source(),
      &log_pattern_source(),
      &thermal_source(),
      &battery_source(),
      &power_source(),
      &timestats_source(),
      &versions_source(),
      &trace_source(),
      &cpu_source(),
      &clock_source(),
      &memory_source(),
      &graphicsstats_source(),
  };
  return sources;
}

}  // namespace jank::metrics

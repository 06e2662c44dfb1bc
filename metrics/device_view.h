// What is derived from a device's model for showing it: one rule each, used
// by /metrics (exporters/prometheus_collector.cc) and by the live view
// (metrics/live_history.h, exporters/live_json.h), so that both show the
// same numbers. Call under the store's lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "metrics/live_history.h"
#include "metrics/store.h"
#include "parsers/power_state.h"
#include "parsers/time_units.h"

namespace jank::metrics {

// The panel's state as the newest dumpsys power answer told it (nullopt
// until one did), and whether it is off or dozing.
std::optional<parsers::ScreenPower> screen_power(const DeviceMetrics& d);
bool screen_dark(const DeviceMetrics& d);
// Whether an answer found the panel not on within `span_ns` before host time
// `now_ns` (never without host time): a game's pause is then a rest.
bool screen_not_on_within(const DeviceMetrics& d, std::int64_t now_ns, std::int64_t span_ns);
// Whether dumpsys power lines were read: such a device has SurfaceFlinger's
// device series (it is polled with them).
bool power_lines_read(const DeviceMetrics& d);
// SurfaceFlinger was polled: a layer followed, or lines read from --list,
// --latency or dumpsys power. Such a device has SurfaceFlinger's input series.
bool surfaceflinger_read(const DeviceMetrics& d);

// android_device_activity_state (docs/metrics.md, "Idle, active, off"):
// "active", "idle" or "off"; nullopt until the panel's state or a layer is known.
std::optional<std::string_view> activity_state(const DeviceMetrics& d);

// android_choreographer_device_sm at `now_ns` over the `span` the window's
// skips were counted in (the whole window, or in a replay the part the
// input covers): none while the screen is dark, nor over no time.
std::optional<double> device_sm(const DeviceMetrics& d, std::int64_t now_ns, parsers::units::Seconds span);

// The live view's status at host time `now_ns`: the device state, and while
// it is counted, what its screen and layers show. Never idle while an app
// skipped frames or a layer presented within the window the row's SM and
// FPS are over (`sm_window`): the row would contradict itself.
LiveStatus live_status(const DeviceMetrics& d, std::int64_t now_ns, std::chrono::seconds sm_window);

// The sums of the device's counter series as /metrics exports them.
struct DeviceTotals {
  std::uint64_t skipped_frames = 0;     // android_choreographer_skipped_frames_total
  std::uint64_t davey_frames = 0;       // android_hwui_davey_frames_total
  std::optional<std::uint64_t> big_jank;  // android_layer_perfdog_big_jank_total; none without layers
  // Android vitals' frozen frames (over 700 ms): android_gfxinfo_frozen_frames_total,
  // none until an app's gfxinfo printed a HISTOGRAM; android_layer_frozen_frames_total,
  // none without layers (games' SurfaceViews have no gfxinfo).
  std::optional<std::uint64_t> frozen_frames;
  std::optional<std::uint64_t> layer_frozen_frames;
};
DeviceTotals device_totals(const DeviceMetrics& d);

// Everything a history sample takes from the device at host time `now_ns`.
LiveReading live_reading(const DeviceMetrics& d, std::int64_t now_ns, std::chrono::seconds sm_window);

}  // namespace jank::metrics

// Whether a device's apps are polled frame by frame now (config per_frame.*,
// docs/config.md "Per-frame polling"). Frame-by-frame sources (SurfaceFlinger
// --latency and --frametimeline, gfxinfo framestats) cost the phone several
// commands a second, with work on SurfaceFlinger's main thread and the app's
// RenderThread; the cumulative ones (graphicsstats, gfxinfo's aggregate,
// TimeStats, logcat) lose nothing at any cadence and always run.
//
// Mode `always`: every watched app, all the time. Mode `needed`: the whole
// device while a run is open on it and after a spike (a Choreographer skip of
// per_frame.spike_skipped_frames or more in the SM window, or a new Davey
// line; then per_frame.after_spike_seconds more), and per_frame.apps
// whenever they run. Fed the device under the store's lock and the host
// time; no device, no clock.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "config/config.h"
#include "metrics/store.h"

namespace jank::app {

class PerFramePolicy {
 public:
  explicit PerFramePolicy(std::shared_ptr<const config::Config> config);

  // Looks at the device's open runs, spikes and foreground app; notes the
  // decision in the device's live status.
  void update(metrics::DeviceMetrics& device, std::int64_t now_ns);
  // Whether `package` (a base package name) is polled per frame now.
  bool polls(std::string_view package) const;
  // Whether some app is: FrameTimeline, one dump of every app, runs then.
  bool polls_any() const { return whole_device_ || named_in_front_; }
  bool whole_device() const { return whole_device_; }

 private:
  std::shared_ptr<const config::Config> config_;
  bool whole_device_ = false;
  bool named_in_front_ = false;  // a per_frame.apps app is the foreground one
  std::optional<std::int64_t> spike_until_ns_;
  // Davey lines seen per package: the first sight is a baseline, not a spike.
  std::map<std::string, std::uint64_t, std::less<>> daveys_;
};

}  // namespace jank::app

// One SurfaceFlinger layer's presented frames, from successive
// `dumpsys SurfaceFlinger --latency <layer>` polls (parsers/sf_latency.h).
//
// The table is a ring of the layer's last ~127 frames; polls overlap, so a
// frame is identified by its actual present time and counted once: only
// presents newer than the newest one counted are new. A poll whose table no
// longer holds that newest frame and has every slot used (the ring wrapped
// between polls) counts one overflow: frames were presented that nobody
// will see. A table with unused slots that lacks it is a new instance of the
// layer (the activity was recreated): its frames are new, nothing was lost.
//
// Per new present the frame time is the present-to-present gap. Gaps longer
// than the idle gap are the layer resting (a static screen), not frames
// that took long: they end an active stretch and are not judged. Within a
// stretch each frame time is judged:
//   - PerfDog (its published definitions): Jank when FT > 2 × the mean of the
//     previous three frame times and FT > 2 × 1000/24 ms (83.3 ms); BigJank
//     when FT > 2 × that mean and FT > 3 × 1000/24 ms (125 ms). A BigJank is a
//     Jank too. Stutter = time in janky frames / active time.
//   - Refresh-aware: FT in refresh periods (rounded) ≥ the expected count + 2,
//     the expected count being the mean of the previous three frame times in
//     periods (rounded, at least 1): a 30 fps game on a 60 Hz panel expects 2.
//     PerfDog's fixed 83 ms floor misses a 50 ms hitch at 120 Hz; this does not.
// The first three frames of a stretch have no history: counted and timed,
// judged by the refresh rule only against one period.
//
// Present times are the device's monotonic clock: a table whose frames are
// all older than the newest counted one (and lacks it) comes from a device
// that rebooted; its frames are new and nothing is judged across the reboot.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "metrics/histogram.h"
#include "parsers/sf_latency.h"

namespace jank::metrics {

class StateReader;
class StateWriter;

struct PresentOptions {
  std::int64_t idle_gap_ns = 1'200'000'000;  // SurfaceFlinger's own "active layer" window
};

// A stretch of time in which a layer presented (present clock, ns).
struct ActiveSpan {
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
};

class PresentTracker {
 public:
  explicit PresentTracker(PresentOptions options = {});

  // One poll. Returns the number of frames it added; `active` (if given)
  // receives the present-to-present gaps it counted as active time.
  std::uint64_t observe(const parsers::SfLatency& table, std::vector<ActiveSpan>* active = nullptr);

  std::uint64_t frames() const { return frames_; }
  std::uint64_t overflows() const { return overflows_; }
  std::uint64_t jank() const { return jank_; }
  std::uint64_t big_jank() const { return big_jank_; }
  std::uint64_t refresh_jank() const { return refresh_jank_; }
  std::int64_t jank_ns() const { return jank_ns_; }      // Stutter's numerator
  std::int64_t active_ns() const { return active_ns_; }  // Stutter's denominator; FPS over active time
  const Histogram& frame_time() const { return frame_time_; }
  std::optional<std::int64_t> last_present() const { return last_present_; }

  // Checkpoint: the counts and what deduplication and judging need next.
  void save(StateWriter& w) const;
  // False when a value cannot be true (the tracker is then reset).
  bool load(StateReader& r);

 private:
  void present(std::int64_t at_ns, std::optional<std::int64_t> period_ns, std::vector<ActiveSpan>* active);
  void judge(std::int64_t frame_ns, std::optional<std::int64_t> period_ns);

  PresentOptions options_;
  std::optional<std::int64_t> last_present_;
  std::deque<std::int64_t> recent_;  // the stretch's last three frame times
  std::uint64_t frames_ = 0, overflows_ = 0, jank_ = 0, big_jank_ = 0, refresh_jank_ = 0;
  std::int64_t jank_ns_ = 0, active_ns_ = 0;
  Histogram frame_time_;
};

}  // namespace jank::metrics

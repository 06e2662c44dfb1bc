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
// Per new present the frame time is the present-to-present gap. A gap up to
// the idle gap (SurfaceFlinger's own 1.2 s "active layer" window) is a frame.
// A longer one is a freeze or a rest, decided by evidence, never by a timer:
//   - a freeze when the caller's check says the app was busy through it (its
//     own report of a stall that long: metrics/stall_reports.h) — then the
//     frame that ends it took the whole gap and is judged like any other,
//     the stretch going on;
//   - a rest otherwise: it ends the active stretch and is not judged. A
//     report arriving later (framestats polls come seconds after the freeze)
//     still turns a recent rest into the freeze it was (confirm_freeze).
//     Until it is decided, the up to three frames after the newest rest are
//     timed but not judged, since their history is the freeze's stretch or
//     none: a report while one still can explain the gap (undecided_ns)
//     judges them in the stretch; after that, or at a reboot, an overflow or
//     a newer rest, they are judged as a new stretch's. Replay (no host
//     time) judges them at once.
// A layer that draws without the app's evidence (a game's SurfaceView) has
// the caller's check decide by its own rule.
// Within a stretch each frame time is judged:
//   - PerfDog (its published definitions): Jank when FT > 2 × the mean of the
//     previous three frame times and FT > 2 × 1000/24 ms (83.3 ms); BigJank
//     when FT > 2 × that mean and FT > 3 × 1000/24 ms (125 ms). A BigJank is a
//     Jank too. Stutter = time in janky frames / active time.
//   - Refresh-aware: FT in refresh periods (rounded) ≥ the expected count + 2,
//     the expected count being the mean of the previous three frame times in
//     periods (rounded, at least 1): a 30 fps game on a 60 Hz panel expects 2.
//     PerfDog's fixed 83 ms floor misses a 50 ms hitch at 120 Hz; this does not.
//   - Android vitals: frozen when FT > 700 ms; slow when the frame took more
//     than 16 ms to render, which on presents is FT − one period > 16 ms (a
//     frame on time shows one period); slow at the panel's rate when FT in
//     periods (rounded) ≥ the expected count + 1: a vsync missed beyond the
//     layer's own cadence (a 60 fps game on a 120 Hz panel is not slow).
// The first three frames of a stretch have no history: counted and timed,
// judged by the refresh rule only against one period.
//
// Present times are the device's monotonic clock: a table whose frames are
// all older than the newest counted one (and lacks it) comes from a device
// that rebooted; its frames are new and nothing is judged across the reboot.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
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

// Was the app busy through a gap of `gap_ns` (the layer's refresh period
// `period_ns`, 0 when unknown) that a poll saw at host time `seen_ns` (0:
// unknown)? True makes the gap a freeze.
using FreezeCheck = std::function<bool(std::int64_t gap_ns, std::int64_t period_ns, std::int64_t seen_ns)>;

class PresentTracker {
 public:
  // Rests kept for confirm_freeze: the newest few, for a minute of host time.
  static constexpr std::size_t kMaxRests = 4;
  static constexpr std::int64_t kRestKeepNs = 60'000'000'000;
  // How long after a gap of `gap_ns` was seen the frames after it wait for
  // a report: as long as one can still explain it (metrics/stall_reports.h).
  static std::int64_t undecided_ns(std::int64_t gap_ns);

  explicit PresentTracker(PresentOptions options = {});

  // One poll. Returns the number of frames it added; `active` (if given)
  // receives the present-to-present gaps it counted as active time. Gaps
  // longer than the idle gap are freezes when `frozen` says so, else rests
  // (noted at host time `host_ns`, 0 in replay, for confirm_freeze).
  std::uint64_t observe(const parsers::SfLatency& table, std::vector<ActiveSpan>* active = nullptr,
                        const FreezeCheck& frozen = {}, std::int64_t host_ns = 0);

  // A stall report came after its gap was taken for a rest: the newest rest
  // `frozen` accepts becomes a freeze, judged with the history it had.
  // Returns whether one did (its span then appended to `active`).
  bool confirm_freeze(const FreezeCheck& frozen, std::int64_t host_ns, std::vector<ActiveSpan>* active = nullptr);

  // The layer was not polled for a while on purpose (per-frame polling
  // paused): frames gone from the table before the next poll are no overflow.
  void expect_gap() { gap_expected_ = true; }

  std::uint64_t frames() const { return frames_; }
  std::uint64_t overflows() const { return overflows_; }
  std::uint64_t jank() const { return jank_; }
  std::uint64_t big_jank() const { return big_jank_; }
  std::uint64_t refresh_jank() const { return refresh_jank_; }
  std::uint64_t freezes() const { return freezes_; }  // gaps over the idle gap judged as frames
  std::uint64_t slow_frames() const { return slow_; }
  std::uint64_t slow_frames_refresh() const { return slow_refresh_; }
  std::uint64_t frozen_frames() const { return frozen_; }
  std::int64_t jank_ns() const { return jank_ns_; }      // Stutter's numerator
  std::int64_t active_ns() const { return active_ns_; }  // Stutter's denominator; FPS over active time
  const Histogram& frame_time() const { return frame_time_; }
  std::optional<std::int64_t> last_present() const { return last_present_; }

  // Checkpoint: the counts and what deduplication and judging need next.
  void save(StateWriter& w) const;
  // False when a value cannot be true (the tracker is then reset).
  bool load(StateReader& r);

 private:
  static constexpr std::size_t kHistory = 3;  // frame times a frame is judged against
  struct Frame {
    std::int64_t frame_ns = 0;
    std::optional<std::int64_t> period_ns;
  };
  struct Rest {
    std::int64_t end_ns = 0, gap_ns = 0, period_ns = 0, host_ns = 0;
    std::deque<std::int64_t> recent;  // the stretch's history when it ended
    std::vector<Frame> after;         // frames since, timed but not judged while it is undecided
    bool undecided = true;
  };

  void present(std::int64_t at_ns, std::optional<std::int64_t> period_ns, std::vector<ActiveSpan>* active,
               const FreezeCheck& frozen, std::int64_t host_ns);
  void judge(std::int64_t frame_ns, std::optional<std::int64_t> period_ns, std::deque<std::int64_t>& recent);
  // The parts of a frame's judgment that need no history, and those that do.
  void time(std::int64_t frame_ns, std::optional<std::int64_t> period_ns);
  void judge_against(std::int64_t frame_ns, std::optional<std::int64_t> period_ns, std::deque<std::int64_t>& recent);
  // The newest rest, when the frames after it are not judged yet.
  Rest* undecided_rest();
  // Judges the frames after the newest rest as a new stretch's.
  void decide_as_rest();
  // Decides the newest rest as a rest once no report can explain it.
  void decide_overdue(std::int64_t host_ns);

  PresentOptions options_;
  std::optional<std::int64_t> last_present_;
  std::deque<std::int64_t> recent_;  // the stretch's last three frame times
  std::vector<Rest> rests_;          // recent rests a late report may still explain (empty: no allocation)
  bool gap_expected_ = false;  // not checkpointed: the session sets it again
  std::uint64_t frames_ = 0, overflows_ = 0, jank_ = 0, big_jank_ = 0, refresh_jank_ = 0;
  std::uint64_t freezes_ = 0, slow_ = 0, slow_refresh_ = 0, frozen_ = 0;
  std::int64_t jank_ns_ = 0, active_ns_ = 0;
  Histogram frame_time_;
};

}  // namespace jank::metrics

// One app's FrameTimeline verdicts: frames SurfaceFlinger judged, by jank
// type, and the join with HWUI's framestats rows of the same frames (the
// SurfaceFrame Token is the row's FrameTimelineVsyncId), which puts each
// joined frame's stage times under its jank types.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "metrics/framestats_tracker.h"
#include "metrics/histogram.h"
#include "metrics/window_frames.h"
#include "parsers/frametimeline.h"

namespace jank::metrics {

// Jank labels: index 0 is "none" (a frame on time), index i + 1 the cause of
// bit 1 << i (parsers::jank_bit_name).
inline constexpr std::size_t kJankLabels = parsers::kJankBitCount + 1;
std::string_view jank_label(std::size_t index);
// The label indices of a verdict: {0} for none, else one per cause.
std::vector<std::size_t> jank_labels_of(std::uint32_t jank);

// The causes TimeStats counts as janky (its jankyFrames): display HAL,
// SurfaceFlinger CPU/GPU deadline, app deadline, prediction error and
// SurfaceFlinger scheduling. Buffer stuffing, unknown, SurfaceFlinger
// stuffing and dropped frames are not.
inline constexpr std::uint32_t kJankyMask = parsers::kJankDisplayHal | parsers::kJankSfCpuDeadlineMissed |
                                            parsers::kJankSfGpuDeadlineMissed | parsers::kJankAppDeadlineMissed |
                                            parsers::kJankPredictionError | parsers::kJankSfScheduling;

// Pairs verdicts with timings of the same frame, each once. A frame is known
// by its token and its window: the layer's name without the unique suffix on
// the FrameTimeline side, the gfxinfo "Window:" title on the framestats side
// (both "pkg/pkg.Activity"); a timing without a window title matches any
// window. Unmatched halves wait, a bounded number each (oldest out first):
// framestats rows are samples, so many verdicts never meet a timing.
class FrameJoin {
 public:
  struct Match {
    std::uint32_t jank = 0;
    TimedFrame timing;
  };
  static constexpr std::size_t kMaxWaiting = 1024;

  // Each returns the frame completed by the new half, if any.
  std::optional<Match> verdict(std::int64_t token, std::string_view window, std::uint32_t jank);
  std::optional<Match> timing(std::string_view window, const TimedFrame& frame);
  std::size_t waiting() const { return verdicts_.size() + timings_.size(); }

 private:
  struct Verdict {
    std::string window;
    std::uint32_t jank = 0;
  };
  struct Timing {
    std::string window;
    TimedFrame frame;
  };
  // Halves waiting for their match, oldest evicted first.
  template <typename T>
  class Waiting {
   public:
    void add(std::int64_t token, T value);
    // Removes and returns the first waiting half of `token` that `fits`.
    template <typename Fits>
    std::optional<T> take(std::int64_t token, Fits fits);
    std::size_t size() const { return by_age_.size(); }

   private:
    std::map<std::uint64_t, std::pair<std::int64_t, T>> by_age_;    // arrival number → (token, half)
    std::unordered_multimap<std::int64_t, std::uint64_t> by_token_;  // token → arrival number
    std::uint64_t next_ = 0;
  };
  Waiting<Verdict> verdicts_;
  Waiting<Timing> timings_;
};

struct FrameTimelineCounts {
  FrameTimelineCounts() = default;

  std::uint64_t frames = 0;    // frames SurfaceFlinger judged (each once)
  std::uint64_t janky = 0;     // of those, janky as TimeStats counts them (kJankyMask)
  std::uint64_t unjudged = 0;  // left the window before a verdict
  std::array<std::uint64_t, kJankLabels> by_label{};  // frames per jank label (a frame under each of its causes)
  std::uint64_t joined = 0;    // judged frames whose framestats row was found
  // Stage times of joined frames per jank label (a frame under each of its
  // labels): seconds summed and frames that had the stage. Sums, not
  // histograms: 11 labels x 6 stages, all exported once a frame joined, keep
  // the series fixed (histograms made as rare labels appear kept adding
  // thousands); the per-app stage histograms give the distributions.
  std::array<std::array<double, kFrameStages>, kJankLabels> stage_seconds{};
  std::array<std::array<std::uint64_t, kFrameStages>, kJankLabels> stage_frames{};

  // A final frame (`classified`: SurfaceFlinger judged it) of this app.
  void count(std::uint32_t jank, bool classified);
  void join(const FrameJoin::Match& match);

  void save(class StateWriter& w) const;
  bool load(class StateReader& r);
};

// An app's judged frames per window (activity), the window being its layer's
// name without the instance ("pkg/pkg.Activity": gfxinfo's title of the same
// window). At most `cap` windows get their own counts; frames of later ones
// count under kOverflowWindow ("_other_"), as gfxinfo's windows do.
struct FrameTimelineWindowCounts {
  std::uint64_t frames = 0;
  std::uint64_t janky = 0;
  std::array<std::uint64_t, kJankLabels> by_label{};
  bool operator==(const FrameTimelineWindowCounts&) const = default;
};

class FrameTimelineWindows {
 public:
  void count(std::string_view window, std::uint32_t jank, std::size_t cap);
  const std::map<std::string, FrameTimelineWindowCounts, std::less<>>& windows() const { return windows_; }

  void save(class StateWriter& w) const;
  // False when the record holds counts that cannot be true together.
  bool load(class StateReader& r);
  static constexpr std::size_t kMaxSaved = 257;  // 256 windows and _other_

 private:
  std::map<std::string, FrameTimelineWindowCounts, std::less<>> windows_;
};

}  // namespace jank::metrics

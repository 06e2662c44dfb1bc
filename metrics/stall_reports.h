// What an app said about its own long frames, kept for a minute so that a
// gap in one of its layers' presents can be told apart: a freeze (the app
// was busy through the gap, and the frame that ends it took that long) or a
// rest (the app asked for no frame; nothing to judge).
//
// Reports come from the app's own sources, whichever arrives first:
//   - Choreographer's `Skipped N frames!` (the main thread was N refresh
//     periods late starting a frame: N × period);
//   - HWUI's `Davey! duration=…ms` (IntendedVsync → FrameCompleted);
//   - a framestats row (FrameCompleted − IntendedVsync);
//   - a FrameTimeline frame of the app presented late (its present delta:
//     Android 12, which keeps the vsync id the frame was meant for).
// Each measures the stall from the vsync the frame was meant for to its
// completion, which is the layer's gap less the pipeline between a frame's
// completion and its present (a few refresh periods). A report explains a gap
// when it covers all of it but that slack, and explains one gap per layer.
//
// Times are host time (never the device's clock): a report is matched to a
// gap by its length, only within kKeepNs of when it arrived, and only to a
// gap seen after the stall began (a rest the layer took before the stall is
// not it). Sources report the same stall separately: a report of the same
// length within kSameStallNs of an earlier one is that one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jank::metrics {

// A SurfaceView layer is drawn by a game's own loop, with no Choreographer,
// framestats or vsync id to report a stall. Such a loop draws continuously
// while it is shown, so a gap in its presents shorter than this limit is a
// freeze unless the panel was off meanwhile; a longer one is the game paused
// or off screen (HWUI, too, takes no frame event of 10 s or more).
inline constexpr std::int64_t kUnreportedFreezeLimitNs = 10'000'000'000;

class StallReports {
 public:
  static constexpr std::size_t kMax = 16;
  static constexpr std::int64_t kKeepNs = 60'000'000'000;
  // Shorter stalls cannot explain a gap longer than the idle gap (1.2 s)
  // within the largest slack.
  static constexpr std::int64_t kShortestNs = 900'000'000;
  static constexpr std::int64_t kSameStallNs = 15'000'000'000;
  // Host time between a stall's end and its report (the log's latency).
  static constexpr std::int64_t kReportLagNs = 1'000'000'000;

  // `host_ns` 0: no host time (replay): reports never age out.
  void add(std::int64_t duration_ns, std::int64_t host_ns);

  // True when a report explains a gap of `gap_ns` on `layer` (its refresh
  // period `period_ns`, 0 when unknown) that a poll saw at host time
  // `seen_ns`; that report is then taken by the layer and explains none of
  // its other gaps.
  bool explain(std::int64_t gap_ns, std::int64_t period_ns, std::string_view layer, std::int64_t seen_ns,
               std::int64_t host_now_ns);

  std::size_t size() const { return reports_.size(); }

  // The slack a report may fall short of the gap by: the frames between a
  // stalled frame's completion and its present, at most kLongestSlackNs.
  static constexpr std::int64_t kLongestSlackNs = 300'000'000;
  static std::int64_t slack_ns(std::int64_t period_ns);
  // A report arriving later than this after a gap of `gap_ns` was seen
  // cannot explain it: that stall began after the gap was seen.
  static std::int64_t latest_report_ns(std::int64_t gap_ns) { return gap_ns + kLongestSlackNs + kReportLagNs; }

 private:
  struct Report {
    std::int64_t duration_ns = 0;
    std::int64_t host_ns = 0;
    std::vector<std::string> taken_by;  // layers whose gap it explained
  };
  void age(std::int64_t host_now_ns);

  std::vector<Report> reports_;  // a vector: empty costs nothing, and it stays tiny
};

}  // namespace jank::metrics

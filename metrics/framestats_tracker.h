// Per-frame rows from successive `gfxinfo framestats` polls. Polls return
// overlapping windows of the last ~120 frames: each window (one per
// `Window:` block) keeps the newest IntendedVsync counted so far, and only rows
// after it are new. Only rows with Flags = 0 carry trustworthy timings.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/histogram.h"
#include "parsers/framestats.h"

namespace jank::metrics {

enum class FrameStage : std::uint8_t { input, animation, layout, draw, sync, gpu, count_ };
inline constexpr std::size_t kFrameStages = static_cast<std::size_t>(FrameStage::count_);
std::string_view frame_stage_name(FrameStage stage);

// A frame this poll timed for the first time: its vsync id (the
// FrameTimelineVsyncId column, -1 where the table has none) and the stages it
// could time, for the FrameTimeline join.
struct TimedFrame {
  std::int64_t token = -1;
  std::array<std::optional<double>, kFrameStages> stage_seconds;
};

// A frame this poll counted (in frames()): its FrameCompleted − IntendedVsync,
// HWUI's "Janky frames" verdict (janky_frames()) and its "(legacy)" one
// (janky_frames_legacy()); see FramestatsTracker::apply.
struct CountedFrame {
  std::int64_t duration_ns = 0;
  bool janky = false;
  bool janky_legacy = false;
};

class FramestatsTracker {
 public:
  FramestatsTracker();

  // Each new Flags=0 row is judged by HWUI's own rules (libs/hwui/JankTracker.cpp):
  //  - janky (dumpsys "Janky frames"): from Android 12, GpuCompleted ≥ FrameDeadline
  //    as printed (HWUI writes its triple-buffering deadline back into the row);
  //    before 12, the legacy rule below on FrameCompleted.
  //  - janky_legacy ("Janky frames (legacy)"): IntendedVsync → SwapBuffersCompleted
  //    (Android ≤ 11: → FrameCompleted) longer than the frame interval.
  // The interval is the row's FrameInterval; `frame_interval_ns` (1/refresh
  // rate) only serves rows that have none (Android ≤ 11).
  // The frames timed for the first time are appended to `timed` when given,
  // and those counted to `counted`.
  void apply(std::string_view window, const parsers::FramestatsTable& table, std::int64_t frame_interval_ns,
             std::vector<TimedFrame>* timed = nullptr, std::vector<CountedFrame>* counted = nullptr);

  // The device's frame rings were emptied right after the last table applied
  // (a `gfxinfo reset` of ours): every row of the next table is new, and
  // frames fell out unseen only when that table is full.
  void note_reset();

  // The app was polled without framestats for a while on purpose (per-frame
  // polling paused): each known window's next table may not overlap its
  // previous one without that being an overflow.
  void expect_gap();

  std::uint64_t frames() const { return frames_; }            // new Flags=0 rows with valid timings
  std::uint64_t janky_frames() const { return janky_; }       // of those, HWUI's "Janky frames"
  std::uint64_t janky_frames_legacy() const { return janky_legacy_; }  // of those, "Janky frames (legacy)"
  // Of those, rows with the interval columns but no interval in them: judged
  // by the caller's interval.
  std::uint64_t interval_fallbacks() const { return interval_fallbacks_; }
  std::uint64_t flagged_frames() const { return flagged_; }   // new rows with Flags ≠ 0 (not timed)
  std::uint64_t invalid_frames() const { return invalid_; }   // Flags=0 rows with impossible timestamps
  std::uint64_t overflows() const { return overflows_; }      // polls that did not overlap the previous one
  std::uint64_t unusable_tables() const { return unusable_; }  // tables without the needed columns
  const Histogram& frame_duration() const { return frame_duration_; }
  const std::array<Histogram, kFrameStages>& stage_duration() const { return stages_; }
  std::size_t windows_tracked() const { return newest_.size(); }

  void save(class StateWriter& w) const;
  bool load(class StateReader& r);

 private:
  std::map<std::string, std::int64_t, std::less<>> newest_;  // window → newest IntendedVsync counted
  std::set<std::string, std::less<>> gap_expected_;          // windows whose next table may not overlap
  std::uint64_t interval_fallbacks_ = 0;
  std::uint64_t frames_ = 0, janky_ = 0, janky_legacy_ = 0, flagged_ = 0, invalid_ = 0, overflows_ = 0, unusable_ = 0;
  Histogram frame_duration_;
  std::array<Histogram, kFrameStages> stages_;
};

}  // namespace jank::metrics

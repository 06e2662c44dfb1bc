#include "metrics/framestats_tracker.h"

#include <limits>
#include <optional>

#include "metrics/state_io.h"
#include "parsers/time_units.h"

namespace jank::metrics {
namespace {

constexpr std::int64_t kMaxFrameNs = 10'000'000'000;  // HWUI ignores events ≥ 10 s too
constexpr std::size_t kMaxWindows = 64;               // per package; windows beyond share one slot
constexpr std::size_t kRingRows = 120;                // HWUI keeps a window's last 120 frames
// A window's newest IntendedVsync after its ring was reset: every row is new.
constexpr std::int64_t kAfterReset = std::numeric_limits<std::int64_t>::min() + 1;

struct Columns {
  std::optional<std::size_t> flags, intended, completed, input, animation, traversals, draw, sync_queued,
      sync, issue;
  // Android 12+: the deadline rule's inputs and the legacy rule's end.
  std::optional<std::size_t> deadline, gpu_completed, swap_completed, interval, start_time;
};

// An interval is a few ms; a CLOCK_MONOTONIC timestamp of a running device is
// far above a second. Tells the two apart where the header mislabels them.
constexpr std::int64_t kMaxIntervalNs = parsers::units::kNsPerSecond;

bool is_interval(std::int64_t v) { return v > 0 && v < kMaxIntervalNs; }

// The row's own frame interval, or `fallback`. Android 12/13 label the data
// order FrameDeadline, FrameStartTime, FrameInterval as
// "FrameDeadline,FrameInterval,FrameStartTime" (docs/metrics.md): the column
// named FrameInterval then holds a timestamp and the one named FrameStartTime
// the interval, so whichever of the two holds an interval is taken.
std::int64_t row_interval(const Columns& c, const std::vector<std::int64_t>& row, std::int64_t fallback) {
  if (c.interval && is_interval(row[*c.interval])) return row[*c.interval];
  if (c.interval && c.start_time && is_interval(row[*c.start_time])) return row[*c.start_time];
  return fallback;
}

// HWUI's "Janky frames (legacy)" verdict, JankTracker::calculateLegacyJank
// (frameworks/base libs/hwui/JankTracker.cpp, Miku-UI/platform_frameworks_base
// @5144fe5 lines 102-168): IntendedVsync → SwapBuffersCompleted longer than the
// interval (line 136); a duration ≤ 0 is not judged (line 124). On Android ≤ 11
// (no SwapBuffersCompleted column) finishFrame made the same test up to
// FrameCompleted (Ankits-lab/frameworks_base@150a924, an Android 11 tree, lines
// 111 and 136) and it was the only "Janky frames". HWUI also forgives time
// blocked in dequeueBuffer up to its vsync offsets (lines 105-122); those
// offsets are the device's, not in the row, so nothing is forgiven here.
bool legacy_janky(const Columns& c, const std::vector<std::int64_t>& row, std::int64_t interval) {
  const std::int64_t end = c.swap_completed ? row[*c.swap_completed] : row[*c.completed];
  const std::int64_t total = end - row[*c.intended];
  return total > 0 && interval > 0 && total > interval;
}

// HWUI's "Janky frames" verdict from Android 12, JankTracker::finishFrame (same
// file, lines 170-230): the GPU finished at or after the frame's deadline
// (line 210). When the frame was triple-buffered HWUI moves the deadline
// (lines 196-207: to the unstuffed next-frame start + WorkloadTarget; Android
// 12/13 add one FrameInterval) and writes it back into the frame (line 206),
// the very FrameInfo of the ring that framestats prints (JankTracker.h:
// startFrame returns &mFrames.next()). The printed FrameDeadline therefore
// already holds the moved deadline and is compared as printed.
bool deadline_janky(const Columns& c, const std::vector<std::int64_t>& row) {
  return row[*c.gpu_completed] >= row[*c.deadline];
}

}  // namespace

std::string_view frame_stage_name(FrameStage stage) {
  switch (stage) {
    case FrameStage::input: return "input";
    case FrameStage::animation: return "animation";
    case FrameStage::layout: return "layout";
    case FrameStage::draw: return "draw";
    case FrameStage::sync: return "sync";
    case FrameStage::gpu: return "gpu";
    case FrameStage::count_: break;
  }
  return "unknown";
}

void FramestatsTracker::save(StateWriter& w) const {
  w.u64(newest_.size());
  for (const auto& [window, newest] : newest_) w.str(window).i64(newest);
  w.u64(frames_).u64(janky_).u64(flagged_).u64(invalid_).u64(overflows_).u64(unusable_);
  frame_duration_.save(w);
  for (const auto& h : stages_) h.save(w);
  // A record of its own: files written before the legacy rule read on without it.
  w.tag("fs_legacy").u64(janky_legacy_);
  w.tag("fs_interval_fallbacks").u64(interval_fallbacks_);
}

bool FramestatsTracker::load(StateReader& r) {
  newest_.clear();
  const std::uint64_t n = r.count(kMaxWindows + 1);
  for (std::uint64_t i = 0; i < n && !r.fail(); ++i) {
    std::string window = r.str();
    newest_[window] = r.i64();
  }
  frames_ = r.u64();
  janky_ = r.u64();
  flagged_ = r.u64();
  invalid_ = r.u64();
  overflows_ = r.u64();
  unusable_ = r.u64();
  frame_duration_.load(r);
  for (auto& h : stages_) h.load(r);
  // Records of their own, absent from older files; a count over the frames
  // cannot be true and is rejected.
  auto optional_count = [&](std::string_view tag) -> std::uint64_t {
    if (!r.peek(tag)) return 0;
    r.expect(tag);
    const std::uint64_t count = r.u64();
    if (count <= frames_) return count;
    r.reject();
    return 0;
  };
  janky_legacy_ = optional_count("fs_legacy");
  interval_fallbacks_ = optional_count("fs_interval_fallbacks");
  return !r.fail();
}

FramestatsTracker::FramestatsTracker()
    : frame_duration_(buckets::frame_duration_seconds()),
      stages_{Histogram(buckets::stage_duration_seconds()), Histogram(buckets::stage_duration_seconds()),
              Histogram(buckets::stage_duration_seconds()), Histogram(buckets::stage_duration_seconds()),
              Histogram(buckets::stage_duration_seconds()), Histogram(buckets::stage_duration_seconds())} {}

void FramestatsTracker::expect_gap() {
  for (const auto& [window, newest] : newest_) gap_expected_.insert(window);
}

void FramestatsTracker::note_reset() {
  for (auto& [window, newest] : newest_) newest = kAfterReset;
}

void FramestatsTracker::apply(std::string_view window, const parsers::FramestatsTable& table,
                              std::int64_t frame_interval_ns, std::vector<TimedFrame>* timed,
                              std::vector<CountedFrame>* counted) {
  Columns c;
  c.flags = table.column("Flags");
  c.intended = table.column("IntendedVsync");
  c.completed = table.column("FrameCompleted");
  c.input = table.column("HandleInputStart");
  c.animation = table.column("AnimationStart");
  c.traversals = table.column("PerformTraversalsStart");
  c.draw = table.column("DrawStart");
  c.sync_queued = table.column("SyncQueued");
  c.sync = table.column("SyncStart");
  c.issue = table.column("IssueDrawCommandsStart");
  c.deadline = table.column("FrameDeadline");
  c.gpu_completed = table.column("GpuCompleted");
  c.swap_completed = table.column("SwapBuffersCompleted");
  c.interval = table.column("FrameInterval");
  c.start_time = table.column("FrameStartTime");
  const bool deadline_rule = c.deadline && c.gpu_completed;
  const auto token_column = table.column("FrameTimelineVsyncId");
  if (!c.flags || !c.intended || !c.completed) {
    if (!table.rows.empty()) ++unusable_;
    return;
  }
  if (table.rows.empty()) return;

  std::string key(window);
  if (newest_.size() >= kMaxWindows && newest_.find(key) == newest_.end()) key = "\x01overflow";
  auto [it, inserted] = newest_.try_emplace(key, std::numeric_limits<std::int64_t>::min());
  std::int64_t& newest = it->second;

  // Overlap check: if the previous poll's newest frame is older than every
  // row of this one, frames fell out of the ~120-row window between polls.
  std::int64_t oldest_here = std::numeric_limits<std::int64_t>::max();
  for (const auto& row : table.rows) oldest_here = std::min(oldest_here, row[*c.intended]);
  if (gap_expected_.erase(key) != 0) {
    // Not polled on purpose: what fell out unseen is no overflow.
  } else if (newest == kAfterReset) {
    if (table.rows.size() >= kRingRows) ++overflows_;
  } else if (!inserted && newest != std::numeric_limits<std::int64_t>::min() && oldest_here > newest) {
    ++overflows_;
  }

  std::int64_t newest_here = newest;
  for (const auto& row : table.rows) {
    const std::int64_t intended = row[*c.intended];
    if (intended <= newest) continue;  // counted by an earlier poll
    newest_here = std::max(newest_here, intended);
    if (row[*c.flags] != 0) {
      ++flagged_;
      continue;
    }
    const std::int64_t completed = row[*c.completed];
    if (intended <= 0 || completed <= intended || completed - intended >= kMaxFrameNs) {
      ++invalid_;
      continue;
    }
    const std::int64_t duration = completed - intended;
    ++frames_;
    const std::int64_t interval = row_interval(c, row, frame_interval_ns);
    // A row that has the interval columns but no interval in them is judged
    // by the device's rate instead, and counted so.
    if (c.interval && !is_interval(row[*c.interval]) &&
        !(c.start_time && is_interval(row[*c.start_time]))) {
      ++interval_fallbacks_;
    }
    const bool janky_legacy = legacy_janky(c, row, interval);
    const bool janky = deadline_rule ? deadline_janky(c, row) : janky_legacy;
    if (janky) ++janky_;
    if (janky_legacy) ++janky_legacy_;
    frame_duration_.observe(parsers::units::seconds_of_ns(duration));
    if (counted != nullptr) counted->push_back({duration, janky, janky_legacy});

    TimedFrame frame;
    if (token_column) frame.token = row[*token_column];
    auto record = [&](FrameStage s, std::int64_t ns) {
      const double seconds = parsers::units::seconds_of_ns(ns);
      stages_[static_cast<std::size_t>(s)].observe(seconds);
      frame.stage_seconds[static_cast<std::size_t>(s)] = seconds;
    };
    auto stage = [&](FrameStage s, std::optional<std::size_t> from, std::optional<std::size_t> to) {
      if (!from || !to) return;
      const std::int64_t a = row[*from], b = row[*to];
      if (a <= 0 || b < a || b - a >= kMaxFrameNs) return;
      record(s, b - a);
    };
    stage(FrameStage::input, c.input, c.animation);
    stage(FrameStage::animation, c.animation, c.traversals);
    stage(FrameStage::layout, c.traversals, c.draw);
    stage(FrameStage::draw, c.draw, c.sync_queued ? c.sync_queued : c.sync);
    stage(FrameStage::sync, c.sync, c.issue);
    // GPU issue: from command issue to frame completion.
    if (c.issue) {
      const std::int64_t a = row[*c.issue];
      if (a > 0 && completed >= a && completed - a < kMaxFrameNs) record(FrameStage::gpu, completed - a);
    }
    if (timed != nullptr) timed->push_back(frame);
  }
  newest = newest_here;
}

}  // namespace jank::metrics

#include "metrics/framestats_tracker.h"

#include <limits>
#include <optional>

#include "metrics/state_io.h"

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
};

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
  return !r.fail();
}

FramestatsTracker::FramestatsTracker()
    : frame_duration_(buckets::frame_duration_seconds()),
      stages_{Histogram(buckets::stage_duration_seconds()), Histogram(buckets::stage_duration_seconds()),
              Histogram(buckets::stage_duration_seconds()), Histogram(buckets::stage_duration_seconds()),
              Histogram(buckets::stage_duration_seconds()), Histogram(buckets::stage_duration_seconds())} {}

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
  if (newest == kAfterReset) {
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
    const bool janky = frame_interval_ns > 0 && duration > frame_interval_ns;
    if (janky) ++janky_;
    frame_duration_.observe(static_cast<double>(duration) / 1e9);
    if (counted != nullptr) counted->push_back({duration, janky});

    TimedFrame frame;
    if (token_column) frame.token = row[*token_column];
    auto record = [&](FrameStage s, std::int64_t ns) {
      const double seconds = static_cast<double>(ns) / 1e9;
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

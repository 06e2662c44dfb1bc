#include "metrics/frametimeline_tracker.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "metrics/state_io.h"
#include "parsers/time_units.h"

namespace jank::metrics {

namespace {

// SurfaceFlinger has judged the frame: dropped at latch, or presented and
// classified (a valid prediction gets a present verdict; frames without one
// are never classified further, so their first presented state is final).
bool is_final(const parsers::SurfaceFrame& sf) {
  if (sf.present == parsers::FtPresentState::dropped) return true;
  if (sf.present != parsers::FtPresentState::presented) return false;
  return sf.prediction != parsers::FtPrediction::valid || sf.present_timing != parsers::FtPresentTiming::unknown ||
         sf.jank != 0;
}

// The least time 64 display frames of this dump can span (0: unknown).
std::int64_t shortest_span_ns(const parsers::FrameTimelineDump& dump) {
  double period_ms = 0;
  for (const auto& df : dump.display_frames) {
    if (df.vsync_period_ms && *df.vsync_period_ms > 0 && (period_ms == 0 || *df.vsync_period_ms < period_ms)) {
      period_ms = *df.vsync_period_ms;
    }
  }
  return parsers::units::ns_of_ms(period_ms) * static_cast<std::int64_t>(kFrameTimelineDisplayFrames);
}

FtFrame frame_of(const parsers::SurfaceFrame& sf) {
  FtFrame f;
  f.layer = sf.layer;
  f.token = sf.token;
  f.layer_id = sf.layer_id;
  f.owner_pid = sf.owner_pid;
  f.jank = sf.jank;
  if (sf.present == parsers::FtPresentState::presented && sf.prediction == parsers::FtPrediction::valid &&
      sf.present_delta_ms && std::isfinite(*sf.present_delta_ms) && *sf.present_delta_ms > 0 &&
      *sf.present_delta_ms < 3.6e6) {
    f.late_ns = parsers::units::ns_of_ms(*sf.present_delta_ms);
  }
  // Before Android 15 a dropped frame's jank type is None; name it the same everywhere.
  if (sf.present == parsers::FtPresentState::dropped) f.jank |= parsers::kJankDropped;
  return f;
}

}  // namespace

std::vector<FtFrame> FrameTimelineTracker::observe(const parsers::FrameTimelineDump& dump,
                                                   std::optional<std::int64_t> since_previous_ns) {
  std::vector<FtFrame> out;
  std::int64_t min_token = std::numeric_limits<std::int64_t>::max(), max_token = -1;
  bool overlap = false;
  for (const auto& df : dump.display_frames) {
    for (const auto& sf : df.surface_frames) {
      if (sf.token < 0) continue;  // frames without a vsync id cannot be told apart
      min_token = std::min(min_token, sf.token);
      max_token = std::max(max_token, sf.token);
      // A frame seen before: the windows overlap, nothing went by unseen.
      const Key key{sf.token, sf.layer_id};
      overlap = overlap || counted_.count(key) != 0 || pending_.count(key) != 0;
    }
  }
  if (max_token < 0) return out;  // nothing identifiable: nothing learnt, nothing forgotten

  if (newest_token_ >= 0 && !overlap) {
    if (max_token < newest_token_) {
      // Tokens started again (SurfaceFlinger or the device restarted): what
      // was pending is gone unjudged.
      ++restarts_;
      for (auto& [key, frame] : pending_) {
        frame.classified = false;
        out.push_back(std::move(frame));
      }
      pending_.clear();
      counted_.clear();
      newest_token_ = -1;
    } else if (std::max(static_cast<std::int64_t>(dump.display_frames.size()), dump.display_frame_count.value_or(0)) >=
                   static_cast<std::int64_t>(kFrameTimelineDisplayFrames) &&
               !(since_previous_ns && *since_previous_ns < shortest_span_ns(dump)) && !gap_expected_) {
      ++overflows_;  // a full window without any frame seen before
    }
  }

  for (const auto& df : dump.display_frames) {
    for (const auto& sf : df.surface_frames) {
      if (sf.token < 0) continue;
      const Key key{sf.token, sf.layer_id};
      if (counted_.count(key) != 0) continue;
      if (is_final(sf)) {
        pending_.erase(key);
        counted_.insert(key);
        out.push_back(frame_of(sf));
      } else {
        pending_[key] = frame_of(sf);
      }
    }
  }
  // Frames older than the window's oldest have left it for good.
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->first.token < min_token) {
      it->second.classified = false;
      out.push_back(std::move(it->second));
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  std::erase_if(counted_, [&](const Key& k) { return k.token < min_token; });
  newest_token_ = std::max(newest_token_, max_token);
  gap_expected_ = false;
  return out;
}

void FrameTimelineTracker::save(StateWriter& w) const {
  // Sorted so that equal trackers give equal files.
  std::vector<std::pair<std::int64_t, std::int64_t>> counted;
  for (const Key& k : counted_) counted.emplace_back(k.token, k.layer_id);
  std::sort(counted.begin(), counted.end());
  w.tag("ft_tracker").i64(newest_token_).u64(overflows_).u64(restarts_).u64(counted.size());
  for (const auto& [token, layer_id] : counted) w.i64(token).i64(layer_id);
  std::vector<const FtFrame*> pending;
  for (const auto& [k, f] : pending_) pending.push_back(&f);
  std::sort(pending.begin(), pending.end(), [](const FtFrame* a, const FtFrame* b) {
    return std::pair(a->token, a->layer_id) < std::pair(b->token, b->layer_id);
  });
  w.u64(pending.size());
  for (const FtFrame* f : pending) w.str(f->layer).i64(f->token).i64(f->layer_id).i64(f->owner_pid).u64(f->jank);
}

bool FrameTimelineTracker::load(StateReader& r) {
  const std::uint64_t rejected = r.rejected();
  r.expect("ft_tracker");
  newest_token_ = r.i64();
  overflows_ = r.u64();
  restarts_ = r.u64();
  counted_.clear();
  pending_.clear();
  bool ok = newest_token_ >= -1;
  const std::uint64_t counted = r.count(kMaxSavedFrames);
  for (std::uint64_t k = 0; k < counted && !r.fail(); ++k) {
    const std::int64_t token = r.i64(), layer_id = r.i64();
    ok = ok && token >= 0 && token <= newest_token_;
    counted_.insert(Key{token, layer_id});
  }
  const std::uint64_t pending = r.count(kMaxSavedFrames);
  for (std::uint64_t k = 0; k < pending && !r.fail(); ++k) {
    FtFrame f;
    f.layer = r.str();
    f.token = r.i64();
    f.layer_id = r.i64();
    f.owner_pid = r.i64();
    const std::uint64_t jank = r.u64();
    ok = ok && f.token >= 0 && f.token <= newest_token_ && jank < (std::uint64_t{1} << parsers::kJankBitCount);
    f.jank = static_cast<std::uint32_t>(jank);
    pending_.insert_or_assign(Key{f.token, f.layer_id}, std::move(f));
  }
  if (!ok || r.rejected() != rejected) {
    *this = FrameTimelineTracker();
    return false;
  }
  return true;
}

}  // namespace jank::metrics

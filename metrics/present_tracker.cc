#include "metrics/present_tracker.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "metrics/stall_reports.h"
#include "metrics/state_io.h"
#include "parsers/time_units.h"

namespace jank::metrics {
namespace {

constexpr std::int64_t kPending = std::numeric_limits<std::int64_t>::max();
// PerfDog's thresholds: two and three frames of a 24 fps film, in ns.
constexpr double kJankFloorNs = 2 * 1e9 / 24;
constexpr double kBigJankFloorNs = 3 * 1e9 / 24;
// A frame time a checkpoint may hold: freezes are judged, but not for hours.
constexpr std::int64_t kLongestFrameNs = 3'600'000'000'000;
// Android vitals: a frame rendered in more than 16 ms is slow, one over
// 700 ms frozen.
constexpr std::int64_t kVitalsSlowNs = 16'000'000;
constexpr std::int64_t kVitalsFrozenNs = 700'000'000;

}  // namespace

PresentTracker::PresentTracker(PresentOptions options)
    : options_(options), frame_time_(buckets::frame_duration_seconds()) {}

std::uint64_t PresentTracker::observe(const parsers::SfLatency& table, std::vector<ActiveSpan>* active,
                                      const FreezeCheck& frozen, std::int64_t host_ns) {
  decide_overdue(host_ns);
  std::vector<std::int64_t> presents;
  bool anchor_held = false;
  bool slot_unused = false;
  bool any_presented = false;
  for (const auto& row : table.rows) {
    const std::int64_t actual = row[1];
    if (row[0] == 0 && row[1] == 0 && row[2] == 0) {
      slot_unused = true;
      continue;
    }
    if (actual <= 0 || actual == kPending) continue;  // not presented (yet)
    any_presented = true;
    if (last_present_ && actual == *last_present_) anchor_held = true;
    if (!last_present_ || actual > *last_present_) presents.push_back(actual);
  }
  if (last_present_ && !anchor_held && any_presented && presents.empty()) {
    // Every frame is older than the newest counted one, which is gone: the
    // device's clock started again (a reboot). All of them are new.
    decide_as_rest();
    last_present_.reset();
    recent_.clear();
    rests_.clear();
    return observe(table, active, frozen, host_ns);
  }
  std::sort(presents.begin(), presents.end());
  presents.erase(std::unique(presents.begin(), presents.end()), presents.end());
  if (last_present_ && !anchor_held && !presents.empty()) {
    // The frame counted last is gone from the table: the ring wrapped past
    // it (overflow), or this is a new instance of the layer. Either way the
    // gap to the first new present is no frame time.
    if (!slot_unused && !gap_expected_) ++overflows_;
    decide_as_rest();
    last_present_.reset();
    recent_.clear();
  }
  if (!presents.empty()) gap_expected_ = false;  // the gap, if any, is behind
  for (const std::int64_t at : presents) present(at, table.refresh_period_ns, active, frozen, host_ns);
  return presents.size();
}

void PresentTracker::present(std::int64_t at_ns, std::optional<std::int64_t> period_ns,
                             std::vector<ActiveSpan>* active, const FreezeCheck& frozen, std::int64_t host_ns) {
  ++frames_;
  if (last_present_) {
    const std::int64_t frame_ns = at_ns - *last_present_;
    const std::int64_t period = period_ns.value_or(0);
    const bool is_frame = frame_ns <= options_.idle_gap_ns || (frozen && frozen(frame_ns, period, host_ns));
    if (is_frame) {
      if (frame_ns > options_.idle_gap_ns) ++freezes_;
      if (Rest* rest = undecided_rest(); rest != nullptr && rest->host_ns != 0 && rest->after.size() < kHistory) {
        // Timed now; judged against its history once the rest is decided (a
        // fourth frame's history is the three before it either way).
        time(frame_ns, period_ns);
        rest->after.push_back({frame_ns, period_ns});
        recent_.push_back(frame_ns);
      } else {
        judge(frame_ns, period_ns, recent_);
      }
      if (active != nullptr) active->push_back({*last_present_, at_ns});
    } else {
      // The layer rested: a new stretch starts here. Kept a while in case
      // the app's report of a stall that long comes after this poll.
      decide_as_rest();
      rests_.push_back({at_ns, frame_ns, period, host_ns, std::move(recent_), {}, true});
      if (rests_.size() > kMaxRests) rests_.erase(rests_.begin());
      recent_.clear();
    }
  }
  last_present_ = at_ns;
}

PresentTracker::Rest* PresentTracker::undecided_rest() {
  return !rests_.empty() && rests_.back().undecided ? &rests_.back() : nullptr;
}

void PresentTracker::decide_as_rest() {
  Rest* rest = undecided_rest();
  if (rest == nullptr) return;
  std::deque<std::int64_t> history;
  for (const Frame& f : rest->after) judge_against(f.frame_ns, f.period_ns, history);
  rest->after.clear();
  rest->undecided = false;
}

void PresentTracker::decide_overdue(std::int64_t host_ns) {
  const Rest* rest = undecided_rest();
  if (host_ns != 0 && rest != nullptr && rest->host_ns != 0 && host_ns - rest->host_ns > undecided_ns(rest->gap_ns)) {
    decide_as_rest();
  }
}

std::int64_t PresentTracker::undecided_ns(std::int64_t gap_ns) {
  return std::min(kRestKeepNs, StallReports::latest_report_ns(gap_ns));
}

bool PresentTracker::confirm_freeze(const FreezeCheck& frozen, std::int64_t host_ns, std::vector<ActiveSpan>* active) {
  decide_overdue(host_ns);
  if (host_ns != 0) {
    std::erase_if(rests_, [&](const Rest& r) { return r.host_ns != 0 && host_ns - r.host_ns > kRestKeepNs; });
  }
  for (auto it = rests_.rbegin(); it != rests_.rend(); ++it) {
    if (!frozen(it->gap_ns, it->period_ns, it->host_ns)) continue;
    ++freezes_;
    // Judged as it would have been then, and the frames since (still
    // undecided) in the stretch it goes on; decided ones stay as judged.
    std::optional<std::int64_t> period;
    if (it->period_ns > 0) period = it->period_ns;
    judge(it->gap_ns, period, it->recent);
    const bool stretch_goes_on =
        it->undecided ? it->after.size() < kHistory : last_present_ && *last_present_ == it->end_ns;
    if (it->undecided) {
      for (const Frame& f : it->after) judge_against(f.frame_ns, f.period_ns, it->recent);
    }
    if (stretch_goes_on) recent_ = it->recent;
    if (active != nullptr) active->push_back({it->end_ns - it->gap_ns, it->end_ns});
    rests_.erase(std::next(it).base());
    return true;
  }
  return false;
}

void PresentTracker::judge(std::int64_t frame_ns, std::optional<std::int64_t> period_ns,
                           std::deque<std::int64_t>& recent) {
  time(frame_ns, period_ns);
  judge_against(frame_ns, period_ns, recent);
}

void PresentTracker::time(std::int64_t frame_ns, std::optional<std::int64_t> period_ns) {
  frame_time_.observe(parsers::units::seconds_of_ns(frame_ns));
  active_ns_ += frame_ns;
  if (frame_ns > kVitalsFrozenNs) ++frozen_;
  if (period_ns && *period_ns > 0 && frame_ns - *period_ns > kVitalsSlowNs) ++slow_;
}

void PresentTracker::judge_against(std::int64_t frame_ns, std::optional<std::int64_t> period_ns,
                                   std::deque<std::int64_t>& recent) {
  const double ft = static_cast<double>(frame_ns);
  const double mean = recent.empty() ? 0
                                     : static_cast<double>(std::accumulate(recent.begin(), recent.end(),
                                                                           std::int64_t{0})) /
                                           static_cast<double>(recent.size());
  if (recent.size() == kHistory && ft > 2 * mean && ft > kJankFloorNs) {
    ++jank_;
    jank_ns_ += frame_ns;
    if (ft > kBigJankFloorNs) ++big_jank_;
  }
  if (period_ns && *period_ns > 0) {
    const double period = static_cast<double>(*period_ns);
    const double expected = recent.empty() ? 1 : std::max(1.0, std::round(mean / period));
    if (std::round(ft / period) >= expected + 2) ++refresh_jank_;
    if (std::round(ft / period) >= expected + 1) ++slow_refresh_;
  }
  recent.push_back(frame_ns);
  if (recent.size() > kHistory) recent.pop_front();
}

void PresentTracker::save(StateWriter& w) const {
  if (!rests_.empty() && rests_.back().undecided && !rests_.back().after.empty()) {
    // Rests are not kept across a restart: frames still undecided are saved
    // judged as the new stretch they then are.
    PresentTracker decided = *this;
    decided.decide_as_rest();
    decided.save(w);
    return;
  }
  w.u64(frames_).u64(overflows_).u64(jank_).u64(big_jank_).u64(refresh_jank_).i64(jank_ns_).i64(active_ns_);
  frame_time_.save(w);
  w.boolean(last_present_.has_value()).i64(last_present_.value_or(0)).u64(recent_.size());
  for (const std::int64_t ft : recent_) w.i64(ft);
  // Absent from checkpoints written before freezes and vitals were counted.
  w.tag("vitals").u64(freezes_).u64(slow_).u64(slow_refresh_).u64(frozen_);
}

bool PresentTracker::load(StateReader& r) {
  const std::uint64_t rejected = r.rejected();
  PresentTracker t(options_);
  t.frames_ = r.u64();
  t.overflows_ = r.u64();
  t.jank_ = r.u64();
  t.big_jank_ = r.u64();
  t.refresh_jank_ = r.u64();
  t.jank_ns_ = r.i64();
  t.active_ns_ = r.i64();
  bool sane = t.frame_time_.load(r);
  const bool has_last = r.boolean();
  const std::int64_t last = r.i64();
  const std::uint64_t recent = r.count(kHistory);
  for (std::uint64_t k = 0; k < recent && !r.fail(); ++k) {
    const std::int64_t ft = r.i64();
    sane = sane && ft > 0 && ft <= kLongestFrameNs;
    t.recent_.push_back(ft);
  }
  if (has_last) t.last_present_ = last;
  if (r.peek("vitals")) {
    r.expect("vitals");
    t.freezes_ = r.u64();
    t.slow_ = r.u64();
    t.slow_refresh_ = r.u64();
    t.frozen_ = r.u64();
  }
  // Counts are bounded by the reader; a BigJank is a Jank, janky time is
  // active time, times are never negative.
  sane = sane && t.big_jank_ <= t.jank_ && t.jank_ <= t.frames_ && t.refresh_jank_ <= t.frames_ && t.jank_ns_ >= 0 &&
         t.active_ns_ >= t.jank_ns_ && last >= 0 && t.freezes_ <= t.frames_ && t.slow_ <= t.frames_ &&
         t.slow_refresh_ <= t.frames_ && t.frozen_ <= t.frames_;
  if (r.fail() || r.rejected() != rejected || !sane) {
    *this = PresentTracker(options_);
    return false;
  }
  *this = std::move(t);
  return true;
}

}  // namespace jank::metrics

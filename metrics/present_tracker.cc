#include "metrics/present_tracker.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "metrics/state_io.h"

namespace jank::metrics {
namespace {

constexpr std::int64_t kPending = std::numeric_limits<std::int64_t>::max();
// PerfDog's thresholds: two and three frames of a 24 fps film, in ns.
constexpr double kJankFloorNs = 2 * 1e9 / 24;
constexpr double kBigJankFloorNs = 3 * 1e9 / 24;

}  // namespace

PresentTracker::PresentTracker(PresentOptions options)
    : options_(options), frame_time_(buckets::frame_duration_seconds()) {}

std::uint64_t PresentTracker::observe(const parsers::SfLatency& table, std::vector<ActiveSpan>* active) {
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
    last_present_.reset();
    recent_.clear();
    return observe(table, active);
  }
  std::sort(presents.begin(), presents.end());
  presents.erase(std::unique(presents.begin(), presents.end()), presents.end());
  if (last_present_ && !anchor_held && !presents.empty()) {
    // The frame counted last is gone from the table: the ring wrapped past
    // it (overflow), or this is a new instance of the layer. Either way the
    // gap to the first new present is no frame time.
    if (!slot_unused) ++overflows_;
    last_present_.reset();
    recent_.clear();
  }
  for (const std::int64_t at : presents) present(at, table.refresh_period_ns, active);
  return presents.size();
}

void PresentTracker::present(std::int64_t at_ns, std::optional<std::int64_t> period_ns,
                             std::vector<ActiveSpan>* active) {
  ++frames_;
  if (last_present_) {
    const std::int64_t frame_ns = at_ns - *last_present_;
    if (frame_ns > options_.idle_gap_ns) {
      recent_.clear();  // the layer rested: a new stretch starts here
    } else {
      judge(frame_ns, period_ns);
      if (active != nullptr) active->push_back({*last_present_, at_ns});
    }
  }
  last_present_ = at_ns;
}

void PresentTracker::judge(std::int64_t frame_ns, std::optional<std::int64_t> period_ns) {
  frame_time_.observe(static_cast<double>(frame_ns) / 1e9);
  active_ns_ += frame_ns;
  const double ft = static_cast<double>(frame_ns);
  const double mean = recent_.empty() ? 0
                                      : static_cast<double>(std::accumulate(recent_.begin(), recent_.end(),
                                                                            std::int64_t{0})) /
                                            static_cast<double>(recent_.size());
  if (recent_.size() == 3 && ft > 2 * mean && ft > kJankFloorNs) {
    ++jank_;
    jank_ns_ += frame_ns;
    if (ft > kBigJankFloorNs) ++big_jank_;
  }
  if (period_ns && *period_ns > 0) {
    const double period = static_cast<double>(*period_ns);
    const double expected = recent_.empty() ? 1 : std::max(1.0, std::round(mean / period));
    if (std::round(ft / period) >= expected + 2) ++refresh_jank_;
  }
  recent_.push_back(frame_ns);
  if (recent_.size() > 3) recent_.pop_front();
}

void PresentTracker::save(StateWriter& w) const {
  w.u64(frames_).u64(overflows_).u64(jank_).u64(big_jank_).u64(refresh_jank_).i64(jank_ns_).i64(active_ns_);
  frame_time_.save(w);
  w.boolean(last_present_.has_value()).i64(last_present_.value_or(0)).u64(recent_.size());
  for (const std::int64_t ft : recent_) w.i64(ft);
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
  const std::uint64_t recent = r.count(3);
  for (std::uint64_t k = 0; k < recent && !r.fail(); ++k) {
    const std::int64_t ft = r.i64();
    sane = sane && ft > 0 && ft <= options_.idle_gap_ns;
    t.recent_.push_back(ft);
  }
  if (has_last) t.last_present_ = last;
  // Counts are bounded by the reader; a BigJank is a Jank, janky time is
  // active time, times are never negative.
  sane = sane && t.big_jank_ <= t.jank_ && t.jank_ <= t.frames_ && t.refresh_jank_ <= t.frames_ && t.jank_ns_ >= 0 &&
         t.active_ns_ >= t.jank_ns_ && last >= 0;
  if (r.fail() || r.rejected() != rejected || !sane) {
    *this = PresentTracker(options_);
    return false;
  }
  *this = std::move(t);
  return true;
}

}  // namespace jank::metrics

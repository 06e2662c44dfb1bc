#include "metrics/skip_window.h"

#include <algorithm>

#include "metrics/state_io.h"

namespace jank::metrics {

std::int64_t SkipWindow::second_of(std::int64_t ns) {
  // Floor division so that negative (pre-epoch or monotonic-zero) times work.
  std::int64_t s = ns / 1'000'000'000;
  if (ns % 1'000'000'000 < 0) --s;
  return s;
}

void SkipWindow::add(std::int64_t time_ns, std::uint32_t frames) {
  const std::int64_t sec = second_of(time_ns);
  // Logs are nearly ordered; walk from the back to place a late entry.
  auto it = seconds_.end();
  while (it != seconds_.begin() && std::prev(it)->second > sec) --it;
  if (it != seconds_.begin() && std::prev(it)->second == sec) {
    auto& bucket = *std::prev(it);
    bucket.frames += frames;
    bucket.max = std::max(bucket.max, frames);
  } else {
    seconds_.insert(it, Second{sec, frames, frames});
  }
  // Drop seconds that can no longer be inside any window ending at the newest.
  const std::int64_t newest = seconds_.back().second;
  while (!seconds_.empty() && seconds_.front().second <= newest - length_.count()) seconds_.pop_front();
}

std::uint64_t SkipWindow::frames(std::int64_t now_ns) const {
  const std::int64_t now = second_of(now_ns);
  std::uint64_t total = 0;
  for (const auto& s : seconds_) {
    if (s.second > now - length_.count() && s.second <= now) total += s.frames;
  }
  return total;
}

std::uint32_t SkipWindow::max_skip(std::int64_t now_ns) const {
  const std::int64_t now = second_of(now_ns);
  std::uint32_t worst = 0;
  for (const auto& s : seconds_) {
    if (s.second > now - length_.count() && s.second <= now) worst = std::max(worst, s.max);
  }
  return worst;
}

void SkipWindow::save(StateWriter& w) const {
  w.u64(seconds_.size());
  for (const auto& s : seconds_) w.i64(s.second).u64(s.frames).u64(s.max);
}

bool SkipWindow::load(StateReader& r) {
  seconds_.clear();
  const std::uint64_t n = r.count(1'000'000);
  for (std::uint64_t i = 0; i < n && !r.fail(); ++i) {
    Second s{};
    s.second = r.i64();
    s.frames = r.u64();
    s.max = static_cast<std::uint32_t>(r.u64());
    if (!seconds_.empty() && s.second <= seconds_.back().second) r.set_error("skip window out of order");
    seconds_.push_back(s);
  }
  return !r.fail();
}

double smoothness(double refresh_hz, std::uint64_t skipped_in_window, parsers::units::Seconds span) {
  const double seconds = span.count();
  if (seconds <= 0 || refresh_hz <= 0) return 0;
  double sm = refresh_hz - static_cast<double>(skipped_in_window) / seconds;
  return std::clamp(sm, 0.0, refresh_hz);
}

}  // namespace jank::metrics

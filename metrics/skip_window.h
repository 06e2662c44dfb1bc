// Skipped frames in a sliding time window, kept as per-second totals so that
// memory is bounded by the window length, not by the event rate.
#pragma once

#include <cstdint>
#include <deque>

namespace jank::metrics {

class SkipWindow {
 public:
  explicit SkipWindow(std::int64_t window_seconds) : window_s_(window_seconds > 0 ? window_seconds : 1) {}

  void add(std::int64_t time_ns, std::uint32_t frames);
  // Skipped frames with a time in (now − window, now].
  std::uint64_t frames(std::int64_t now_ns) const;
  // Largest single skip in that window (0 if none).
  std::uint32_t max_skip(std::int64_t now_ns) const;
  std::int64_t window_seconds() const { return window_s_; }
  // A window read back from a file gets the configured length.
  void set_window_seconds(std::int64_t window_seconds) { window_s_ = window_seconds > 0 ? window_seconds : 1; }
  std::size_t buckets() const { return seconds_.size(); }

  void save(class StateWriter& w) const;
  bool load(class StateReader& r);

 private:
  struct Second {
    std::int64_t second;
    std::uint64_t frames;
    std::uint32_t max;
  };
  static std::int64_t second_of(std::int64_t ns);
  std::int64_t window_s_;
  std::deque<Second> seconds_;  // ascending by second
};

// SM = refresh − skipped_in_window / seconds, clamped to [0, refresh];
// `seconds` is the time the skips were counted over (the window, or the
// part of it a replayed input covers).
double smoothness(double refresh_hz, std::uint64_t skipped_in_window, double seconds);

}  // namespace jank::metrics

// Skipped frames in a sliding time window, kept as per-second totals so that
// memory is bounded by the window length, not by the event rate.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>

#include "parsers/time_units.h"

namespace jank::metrics {

class SkipWindow {
 public:
  // At least a second long: the buckets are whole seconds.
  explicit SkipWindow(std::chrono::seconds length) : length_(at_least_a_second(length)) {}

  void add(std::int64_t time_ns, std::uint32_t frames);
  // Skipped frames with a time in (now − window, now].
  std::uint64_t frames(std::int64_t now_ns) const;
  // Largest single skip in that window (0 if none).
  std::uint32_t max_skip(std::int64_t now_ns) const;
  std::chrono::seconds length() const { return length_; }
  // A window read back from a file gets the configured length (the file
  // keeps only the buckets).
  void set_length(std::chrono::seconds length) { length_ = at_least_a_second(length); }
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
  static std::chrono::seconds at_least_a_second(std::chrono::seconds s) {
    return s > std::chrono::seconds::zero() ? s : std::chrono::seconds(1);
  }
  std::chrono::seconds length_;
  std::deque<Second> seconds_;  // ascending by second
};

// SM = refresh − skipped_in_window / span, clamped to [0, refresh]; `span`
// is the time the skips were counted over (the window, or the part of it a
// replayed input covers), fractional in a replay.
double smoothness(double refresh_hz, std::uint64_t skipped_in_window, parsers::units::Seconds span);

}  // namespace jank::metrics

// Places a device's log events on the host's timeline, so that windows (SM,
// the worst skip) stay right when the device's clock steps (NTP, a test that
// sets the date, a board without RTC) or one line carries a wild stamp.
//
// The offset host − device is learned from entries as they arrive: an entry
// cannot have been written after it arrived, and entries arrive in logd's
// order, so a stamp later than its arrival (beyond a tolerance) or earlier
// than the entry before it is a step: the offset is re-anchored there and
// counted. A backlog read after a reconnect keeps its spacing: it is placed
// in the past, where it happened, not piled into the current window.
#pragma once

#include <cstdint>
#include <optional>

namespace jank::metrics {

class DeviceClock {
 public:
  // How far a stamp may run ahead of its arrival, or behind the entry
  // before it, before it counts as a step (entries from several threads
  // interleave a little out of stamp order).
  static constexpr std::int64_t kToleranceNs = 2'000'000'000;

  // An entry stamped `device_ns` arrived at host time `host_ns`; returns its
  // place on the host timeline.
  std::int64_t observe(std::int64_t device_ns, std::int64_t host_ns);
  // The host time of an event stamped `device_ns` of the entry last observed
  // (or of a replay, where nothing is observed: the stamp itself).
  std::int64_t place(std::int64_t device_ns) const;

  // host − device, once an entry was observed.
  std::optional<std::int64_t> offset_ns() const;
  std::uint64_t steps() const { return steps_; }

  // For the checkpoint: the learned offset survives a restart so that a
  // backlog read afterwards lands where it belongs.
  void restore(std::optional<std::int64_t> offset_ns, std::uint64_t steps);

 private:
  bool known_ = false;
  std::int64_t offset_ = 0;
  std::int64_t last_ = 0;       // newest host-time placement
  bool has_last_ = false;
  std::uint64_t steps_ = 0;
};

}  // namespace jank::metrics

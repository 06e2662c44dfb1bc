#include "metrics/device_clock.h"

#include <algorithm>
#include <limits>

namespace jank::metrics {
namespace {

// Saturating: a stamp or offset from a damaged state file never overflows.
std::int64_t add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  }
  return r;
}

}  // namespace

std::int64_t DeviceClock::observe(std::int64_t device_ns, std::int64_t host_ns) {
  if (!known_) {
    known_ = true;
    offset_ = add(host_ns, -std::max(device_ns, std::numeric_limits<std::int64_t>::min() + 1));
  }
  std::int64_t at = add(device_ns, offset_);
  if (at > add(host_ns, kToleranceNs)) {
    // Stamped after it arrived: the clock jumped ahead (or this one line
    // did). It happened no later than now.
    at = host_ns;
    ++steps_;
  } else if (has_last_ && at < add(last_, -kToleranceNs)) {
    // Stamped well before the entry that came before it: the clock went
    // back. It happened no earlier than that entry.
    at = last_;
    ++steps_;
  }
  at = std::min(at, host_ns);
  offset_ = add(at, -std::max(device_ns, std::numeric_limits<std::int64_t>::min() + 1));
  last_ = has_last_ ? std::max(last_, at) : at;
  has_last_ = true;
  return at;
}

std::int64_t DeviceClock::place(std::int64_t device_ns) const {
  if (!known_) return device_ns;
  const std::int64_t at = add(device_ns, offset_);
  return has_last_ ? std::min(at, last_) : at;
}

std::optional<std::int64_t> DeviceClock::offset_ns() const {
  if (!known_) return std::nullopt;
  return offset_;
}

void DeviceClock::restore(std::optional<std::int64_t> offset_ns, std::uint64_t steps) {
  known_ = offset_ns.has_value();
  offset_ = offset_ns.value_or(0);
  has_last_ = false;
  steps_ = steps;
}

}  // namespace jank::metrics

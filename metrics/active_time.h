// Active time of an app or a device: the union of its layers' active spans
// (metrics/present_tracker.h), each instant counted once although several
// layers present at the same time and are polled at different moments.
//
// Spans arrive in any order within a few poll intervals, so the recent ones
// are kept (two minutes' worth) to subtract overlaps; a span older than
// that is a clock that started again (a reboot): the memory is cleared and
// the span counted in full.
#pragma once

#include <cstdint>
#include <map>

#include "metrics/present_tracker.h"

namespace jank::metrics {

class ActiveTime {
 public:
  static constexpr std::int64_t kHorizonNs = 120'000'000'000;

  // Adds a span; returns the time it covered that no earlier span did.
  std::int64_t add(ActiveSpan span);
  std::int64_t total_ns() const { return total_ns_; }
  // The checkpoint keeps the total only: spans after a restart are new.
  void restore_total(std::int64_t ns) { total_ns_ = ns; }

 private:
  std::map<std::int64_t, std::int64_t> spans_;  // begin -> end, disjoint, sorted
  std::int64_t total_ns_ = 0;
  std::int64_t newest_end_ = 0;
};

}  // namespace jank::metrics

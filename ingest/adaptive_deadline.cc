#include "ingest/adaptive_deadline.h"

#include <algorithm>

namespace jank::ingest {

AdaptiveDeadline::AdaptiveDeadline(std::chrono::milliseconds base, std::chrono::milliseconds max)
    : base_(base), max_(std::max(base, max)), current_(base) {}

void AdaptiveDeadline::on_answer(std::chrono::milliseconds took) {
  const auto target = std::clamp(3 * took, base_, max_);
  // Up at once (the next command may be as slow); down a quarter per answer
  // (one fast answer does not mean the device recovered).
  current_ = target >= current_ ? target : current_ - (current_ - target + std::chrono::milliseconds(3)) / 4;
}

void AdaptiveDeadline::on_timeout() { current_ = std::min(max_, 2 * current_); }

}  // namespace jank::ingest

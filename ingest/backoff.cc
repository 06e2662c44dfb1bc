#include "ingest/backoff.h"

#include <algorithm>
#include <cmath>

namespace jank::ingest {

Backoff::Backoff(BackoffPolicy policy) : policy_(policy) {
  // Sanitise once so next() needs no error path.
  if (policy_.initial.count() < 1) policy_.initial = std::chrono::milliseconds{1};
  if (policy_.max < policy_.initial) policy_.max = policy_.initial;
  if (!(policy_.multiplier >= 1.0)) policy_.multiplier = 1.0;
  if (!(policy_.jitter >= 0.0)) policy_.jitter = 0.0;
  if (policy_.jitter > 1.0) policy_.jitter = 1.0;
}

std::chrono::milliseconds Backoff::next(double unit_random) {
  if (!(unit_random >= 0.0)) unit_random = 0.0;
  if (unit_random > 1.0) unit_random = 1.0;
  auto initial = static_cast<double>(policy_.initial.count());
  auto max = static_cast<double>(policy_.max.count());
  // pow() of a large exponent saturates to inf, which min() caps.
  double base = std::min(max, initial * std::pow(policy_.multiplier, static_cast<double>(attempts_)));
  if (attempts_ < UINT32_MAX) ++attempts_;
  double delay = base * (1.0 - policy_.jitter * unit_random);
  return std::chrono::milliseconds{std::max<std::int64_t>(1, std::llround(delay))};
}

}  // namespace jank::ingest

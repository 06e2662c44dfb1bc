#include "app/session/command_budget.h"

#include <algorithm>
#include <cmath>

namespace jank::app {

CommandBudget::CommandBudget(double per_second) {
  if (!(per_second > 0) || !std::isfinite(per_second)) return;
  interval_ = std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(1e9 / per_second)));
  // A burst of one second's worth (at least one command).
  const double burst = std::max(1.0, std::floor(per_second));
  tolerance_ = interval_ * static_cast<std::int64_t>(burst - 1);
}

CommandBudget::Time CommandBudget::book(Time now) {
  if (interval_ == std::chrono::nanoseconds::zero()) return now;
  const Time start = std::max(now, next_ - tolerance_);
  next_ = std::max(next_, start) + interval_;
  return start;
}

}  // namespace jank::app

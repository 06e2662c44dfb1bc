#include "app/session/command_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "parsers/time_units.h"

namespace jank::app {

CommandBudget::CommandBudget(double per_second) {
  if (!(per_second > 0) || !std::isfinite(per_second)) return;
  interval_ = std::chrono::round<std::chrono::nanoseconds>(parsers::units::Seconds(1 / per_second));
  // A burst of one second's worth (at least one command), half of it kept.
  const auto burst = static_cast<std::int64_t>(std::max(1.0, std::floor(per_second)));
  tolerance_ = interval_ * (burst - 1);
  reserve_ = interval_ * (burst / 2);
}

CommandBudget::Turn CommandBudget::request(Time now, bool frame_by_frame, Time asked) {
  if (interval_ == std::chrono::nanoseconds::zero()) return {now, true};
  if (!frame_by_frame && now - asked < kMaxDeferral) {
    // Only while the reserve stays free; else ask again when it would be.
    const Time free_from = next_ - tolerance_ + reserve_;
    if (free_from > now) return {std::min(free_from, asked + kMaxDeferral), false};
  }
  const Time start = std::max(now, next_ - tolerance_);
  next_ = std::max(next_, start) + interval_;
  return {start, true};
}

}  // namespace jank::app

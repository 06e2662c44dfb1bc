#include "metrics/trace_budget.h"

namespace jank::metrics {
namespace {
constexpr std::int64_t kHourNs = 3'600'000'000'000;
}  // namespace

TraceBudget::TraceBudget(std::int64_t min_interval_ns, std::uint32_t max_per_hour)
    : min_interval_ns_(min_interval_ns), max_per_hour_(max_per_hour) {}

void TraceBudget::set_limits(std::int64_t min_interval_ns, std::uint32_t max_per_hour) {
  min_interval_ns_ = min_interval_ns;
  max_per_hour_ = max_per_hour;
}

void TraceBudget::expire(std::int64_t now_ns) {
  while (!last_hour_.empty() && now_ns - last_hour_.front() >= kHourNs) last_hour_.pop_front();
  // A device's last trigger matters only while it still limits it.
  std::erase_if(last_by_device_, [&](const auto& e) { return now_ns - e.second >= min_interval_ns_; });
}

std::string_view TraceBudget::refuse(std::string_view serial, std::int64_t now_ns) {
  expire(now_ns);
  if (last_by_device_.contains(serial)) return "rate_limit";
  if (last_hour_.size() >= max_per_hour_) return "hourly_cap";
  return "";
}

void TraceBudget::spend(std::string_view serial, std::int64_t now_ns) {
  last_hour_.push_back(now_ns);
  last_by_device_.insert_or_assign(std::string(serial), now_ns);
}

}  // namespace jank::metrics

// The flight recorder's limits (docs/traces.md): a device is triggered at
// most once per min_interval, all devices together at most max_per_hour
// times in any rolling hour. Pure: the caller passes the host time.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>

namespace jank::metrics {

class TraceBudget {
 public:
  TraceBudget(std::int64_t min_interval_ns, std::uint32_t max_per_hour);
  void set_limits(std::int64_t min_interval_ns, std::uint32_t max_per_hour);

  // "" when `serial` may trigger now, else why not: "rate_limit" or "hourly_cap".
  std::string_view refuse(std::string_view serial, std::int64_t now_ns);
  // A trigger was sent.
  void spend(std::string_view serial, std::int64_t now_ns);

 private:
  void expire(std::int64_t now_ns);

  std::int64_t min_interval_ns_;
  std::uint32_t max_per_hour_;
  std::deque<std::int64_t> last_hour_;                          // trigger times, oldest first
  std::map<std::string, std::int64_t, std::less<>> last_by_device_;
};

}  // namespace jank::metrics

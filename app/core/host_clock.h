// The host's clocks, injected: the daemon passes the system's, tests their
// own. Wall time stamps what an operator reads (down since, host time of a
// sample); steady time measures how long a command took. Device clocks are
// never used for either (metrics/device_clock.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace jank::app {

struct HostClock {
  std::function<std::int64_t()> wall_ns;                               // ns since the Unix epoch
  std::function<std::chrono::steady_clock::time_point()> steady_now;  // monotonic

  static HostClock system();
};

}  // namespace jank::app

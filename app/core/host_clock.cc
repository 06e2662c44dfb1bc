#include "app/core/host_clock.h"

namespace jank::app {

HostClock HostClock::system() {
  return HostClock{
      [] {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
      },
      [] { return std::chrono::steady_clock::now(); }};
}

}  // namespace jank::app

// How long one device's commands may take: starts at the configured
// deadline, doubles on every timeout up to a cap, and comes back down as
// answers arrive, towards three times their own duration. An overloaded
// phone that answers every command after 20 s is then followed, not
// restarted forever. Pure: the caller reports what happened.
#pragma once

#include <chrono>

namespace jank::ingest {

class AdaptiveDeadline {
 public:
  AdaptiveDeadline(std::chrono::milliseconds base, std::chrono::milliseconds max);

  std::chrono::milliseconds current() const { return current_; }
  void on_answer(std::chrono::milliseconds took);
  void on_timeout();

 private:
  std::chrono::milliseconds base_, max_, current_;
};

}  // namespace jank::ingest

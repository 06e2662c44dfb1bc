// A device's command budget (budget.max_commands_per_second): the exporter
// starts at most that many shell commands a second on the phone, in bursts
// of at most one second's worth. Each command measured costs the device a
// process and the service's work (docs/config.md, "Per-frame polling"). A
// command over budget waits its turn, first come first served: pollers run
// one command at a time, so the slower cadence falls on whoever asks most.
// The generic cell rate algorithm: one number of state, no queue.
#pragma once

#include <chrono>

namespace jank::app {

class CommandBudget {
 public:
  using Time = std::chrono::steady_clock::time_point;
  // 0: no cap.
  explicit CommandBudget(double per_second);

  // When a command asked for at `now` may start; the slot is then taken.
  Time book(Time now);

 private:
  std::chrono::nanoseconds interval_{0};   // 1 / rate
  std::chrono::nanoseconds tolerance_{0};  // the burst beyond one: a second's worth
  Time next_{};                            // when the next command would start with no burst left
};

}  // namespace jank::app

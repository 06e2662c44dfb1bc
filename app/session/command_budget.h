// A device's command budget (budget.max_commands_per_second): the exporter
// starts at most that many shell commands a second on the phone, in bursts
// of at most one second's worth (docs/config.md, "Per-frame polling").
//
// Frame-by-frame commands (--latency, --frametimeline, framestats) read
// windows that move on within a second or two: late, they lose frames. The
// others are cumulative or slow and lose nothing by waiting. So a
// frame-by-frame command books the next slot at once; any other one takes a
// slot only while half the burst stays free for frame-by-frame ones, or once
// it has waited kMaxDeferral (then it books like them: nothing starves).
// The generic cell rate algorithm: one time of state, no queue.
#pragma once

#include <chrono>

namespace jank::app {

class CommandBudget {
 public:
  using Time = std::chrono::steady_clock::time_point;
  static constexpr std::chrono::seconds kMaxDeferral{5};

  // 0: no cap.
  explicit CommandBudget(double per_second);

  struct Turn {
    Time at;      // when to start (booked), or when to ask again (not booked)
    bool booked;  // the slot at `at` is the command's
  };
  // A command asked for first at `asked`, asking again at `now`.
  Turn request(Time now, bool frame_by_frame, Time asked);

 private:
  std::chrono::nanoseconds interval_{0};   // 1 / rate
  std::chrono::nanoseconds tolerance_{0};  // the burst beyond one: a second's worth
  std::chrono::nanoseconds reserve_{0};    // the part of it kept for frame-by-frame commands
  Time next_{};                            // when the next command would start with no burst left
};

}  // namespace jank::app

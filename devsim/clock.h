// Time source for the simulated devices. The model only reads time through
// this interface so that unit tests drive it with ManualClock and never sleep.
#pragma once

#include <chrono>
#include <cstdint>

namespace jank::devsim {

class Clock {
 public:
  virtual ~Clock() = default;
  // Nanoseconds since the Unix epoch (CLOCK_REALTIME on a device).
  virtual std::int64_t wall_ns() const = 0;
  // Nanoseconds on a monotonic clock (the simulator adds each device's uptime).
  virtual std::int64_t mono_ns() const = 0;
};

class SystemClock final : public Clock {
 public:
  std::int64_t wall_ns() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  std::int64_t mono_ns() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

// Both clocks advance together, only when told to.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(std::int64_t wall = 1'700'000'000'000'000'000, std::int64_t mono = 0)
      : wall_(wall), mono_(mono) {}
  std::int64_t wall_ns() const override { return wall_; }
  std::int64_t mono_ns() const override { return mono_; }
  void advance_ns(std::int64_t ns) {
    wall_ += ns;
    mono_ += ns;
  }
  void advance_ms(std::int64_t ms) { advance_ns(ms * 1'000'000); }

 private:
  std::int64_t wall_;
  std::int64_t mono_;
};

}  // namespace jank::devsim

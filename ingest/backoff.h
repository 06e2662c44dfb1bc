// Exponential backoff with jitter, pure: the caller supplies the random
// number, so tests need neither a clock nor sleeping.
#pragma once

#include <chrono>
#include <cstdint>

namespace jank::ingest {

struct BackoffPolicy {
  std::chrono::milliseconds initial{500};
  std::chrono::milliseconds max{30000};
  double multiplier = 2.0;
  // Fraction of the delay that is randomised: the delay lies in
  // [base * (1 - jitter), base], so retries of many clients spread out and the
  // delay never exceeds `max`.
  double jitter = 0.5;
};

class Backoff {
 public:
  explicit Backoff(BackoffPolicy policy = {});

  // Delay before the next attempt; `unit_random` in [0, 1) (clamped).
  std::chrono::milliseconds next(double unit_random);
  // After a success.
  void reset() { attempts_ = 0; }
  std::uint32_t attempts() const { return attempts_; }
  const BackoffPolicy& policy() const { return policy_; }

 private:
  BackoffPolicy policy_;
  std::uint32_t attempts_ = 0;
};

}  // namespace jank::ingest

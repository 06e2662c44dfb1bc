#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "ingest/backoff.h"

using namespace jank::ingest;
using std::chrono::milliseconds;

TEST_CASE("Backoff doubles from initial up to max when the random draw is 0", "[adb]") {
  Backoff b({milliseconds{500}, milliseconds{30000}, 2.0, 0.5});
  const long expected[] = {500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000};
  for (long e : expected) CHECK(b.next(0.0).count() == e);
  CHECK(b.attempts() == 9);
  b.reset();
  CHECK(b.attempts() == 0);
  CHECK(b.next(0.0).count() == 500);
}

TEST_CASE("Backoff jitter keeps every delay between base times (1 - jitter) and base", "[adb]") {
  BackoffPolicy policy{milliseconds{100}, milliseconds{10000}, 3.0, 0.4};
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int run = 0; run < 200; ++run) {
    Backoff b(policy);
    double base = 100;
    for (int i = 0; i < 12; ++i) {
      auto delay = static_cast<double>(b.next(unit(rng)).count());
      CHECK(delay <= std::ceil(base));
      CHECK(delay >= std::floor(base * 0.6));
      base = std::min(10000.0, base * 3);
    }
  }
  Backoff b(policy);
  CHECK(b.next(1.0).count() == 60);  // the far end of the jitter range
}

TEST_CASE("Backoff with jitter spreads clients that fail at the same moment", "[adb]") {
  BackoffPolicy policy{milliseconds{1000}, milliseconds{1000}, 2.0, 0.5};
  Backoff a(policy);
  Backoff b(policy);
  CHECK(a.next(0.1) != b.next(0.9));
}

TEST_CASE("Backoff sanitises odd policies and random draws instead of misbehaving", "[adb]") {
  SECTION("multiplier below 1 means a constant delay") {
    Backoff b({milliseconds{200}, milliseconds{1000}, 0.5, 0.0});
    CHECK(b.next(0.0).count() == 200);
    CHECK(b.next(0.0).count() == 200);
  }
  SECTION("max below initial is raised to initial") {
    Backoff b({milliseconds{200}, milliseconds{10}, 2.0, 0.0});
    CHECK(b.next(0.0).count() == 200);
    CHECK(b.next(0.0).count() == 200);
  }
  SECTION("zero initial still waits at least 1 ms") {
    Backoff b({milliseconds{0}, milliseconds{0}, 2.0, 1.0});
    CHECK(b.next(1.0).count() == 1);
  }
  SECTION("jitter above 1 is clamped, NaN and out-of-range draws are clamped") {
    Backoff b({milliseconds{1000}, milliseconds{1000}, 2.0, 7.0});
    CHECK(b.next(std::numeric_limits<double>::quiet_NaN()).count() == 1000);
    CHECK(b.next(-3.0).count() == 1000);
    CHECK(b.next(5.0).count() == 1);
  }
  SECTION("thousands of attempts stay at max without overflow") {
    Backoff b({milliseconds{1}, milliseconds{60000}, 10.0, 0.0});
    for (int i = 0; i < 5000; ++i) b.next(0.0);
    CHECK(b.next(0.0).count() == 60000);
  }
}

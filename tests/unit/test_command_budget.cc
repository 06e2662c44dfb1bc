// The device's command budget on the test's clock: bursts of a second's
// worth, then one command per interval, first come first served.
#include <catch2/catch.hpp>

#include <vector>

#include "app/session/command_budget.h"

using namespace std::chrono_literals;
using jank::app::CommandBudget;

TEST_CASE("command budget: a second's worth at once, then one per interval, refilled by rest", "[budget][app]") {
  CommandBudget b(10);
  const CommandBudget::Time t0 = CommandBudget::Time{} + 1000s;
  for (int i = 0; i < 10; ++i) CHECK(b.book(t0) == t0);
  CHECK(b.book(t0) == t0 + 100ms);
  CHECK(b.book(t0) == t0 + 200ms);
  // Asked later than its turn: at once, and the next one an interval on.
  CHECK(b.book(t0 + 250ms) == t0 + 300ms);
  CHECK(b.book(t0 + 450ms) == t0 + 450ms);
  // A second's rest gives a whole burst back, and no more.
  const CommandBudget::Time t1 = t0 + 10s;
  for (int i = 0; i < 10; ++i) CHECK(b.book(t1) == t1);
  CHECK(b.book(t1) == t1 + 100ms);
}

TEST_CASE("command budget: sustained asking is held to the rate", "[budget][app]") {
  CommandBudget b(4);
  CommandBudget::Time now = CommandBudget::Time{} + 1000s;
  const CommandBudget::Time t0 = now;
  int started_in_first_10s = 0;
  // A poller that asks again as soon as its command started (answers take no time).
  for (int i = 0; i < 100; ++i) {
    now = b.book(now);
    if (now < t0 + 10s) ++started_in_first_10s;
  }
  // 4 in the first burst, then 4 a second: 4 + 4 × 10 minus the one at 10 s.
  CHECK(started_in_first_10s == 43);
}

TEST_CASE("command budget: 0 is no cap, under one a second is one at a time", "[budget][app]") {
  CommandBudget none(0);
  const CommandBudget::Time t0 = CommandBudget::Time{} + 1000s;
  for (int i = 0; i < 100; ++i) CHECK(none.book(t0) == t0);
  CommandBudget slow(0.5);
  CHECK(slow.book(t0) == t0);
  CHECK(slow.book(t0) == t0 + 2s);
}

// The device's command budget on the test's clock: bursts of a second's
// worth, then one command per interval; frame-by-frame commands first.
#include <catch2/catch.hpp>

#include <vector>

#include "app/session/command_budget.h"

using namespace std::chrono_literals;
using jank::app::CommandBudget;

namespace {

const CommandBudget::Time kT0 = CommandBudget::Time{} + 1000s;

// A frame-by-frame command: always booked.
CommandBudget::Time urgent(CommandBudget& b, CommandBudget::Time now) {
  const auto turn = b.request(now, true, now);
  REQUIRE(turn.booked);
  return turn.at;
}

}  // namespace

TEST_CASE("command budget: a second's worth at once, then one per interval, refilled by rest", "[budget][app]") {
  CommandBudget b(10);
  for (int i = 0; i < 10; ++i) CHECK(urgent(b, kT0) == kT0);
  CHECK(urgent(b, kT0) == kT0 + 100ms);
  CHECK(urgent(b, kT0) == kT0 + 200ms);
  // Asked later than its turn: at once, and the next one an interval on.
  CHECK(urgent(b, kT0 + 250ms) == kT0 + 300ms);
  CHECK(urgent(b, kT0 + 450ms) == kT0 + 450ms);
  // A second's rest gives a whole burst back, and no more.
  const CommandBudget::Time t1 = kT0 + 10s;
  for (int i = 0; i < 10; ++i) CHECK(urgent(b, t1) == t1);
  CHECK(urgent(b, t1) == t1 + 100ms);
}

TEST_CASE("command budget: sustained asking is held to the rate", "[budget][app]") {
  CommandBudget b(4);
  CommandBudget::Time now = kT0;
  int started_in_first_10s = 0;
  // A poller that asks again as soon as its command started (answers take no time).
  for (int i = 0; i < 100; ++i) {
    now = urgent(b, now);
    if (now < kT0 + 10s) ++started_in_first_10s;
  }
  // 4 in the first burst, then 4 a second: 4 + 4 × 10 minus the one at 10 s.
  CHECK(started_in_first_10s == 43);
}

TEST_CASE("command budget: other commands leave half the burst to frame-by-frame ones and wait at most 5 s",
          "[budget][app]") {
  CommandBudget b(10);
  // Five others take half the burst; the sixth waits, without taking a slot.
  for (int i = 0; i < 5; ++i) CHECK(b.request(kT0, false, kT0).booked);
  const auto sixth = b.request(kT0, false, kT0);
  CHECK_FALSE(sixth.booked);
  CHECK(sixth.at == kT0 + 100ms);
  // The reserve is the frame-by-frame commands': five at once.
  for (int i = 0; i < 5; ++i) CHECK(urgent(b, kT0) == kT0);
  CHECK(urgent(b, kT0) == kT0 + 100ms);
  // Frame-by-frame commands asking all the time: another one waits, then
  // books like them once it has waited 5 s.
  CommandBudget::Time now = kT0 + 100ms;
  auto turn = b.request(now, false, kT0);
  while (!turn.booked) {
    now = urgent(b, turn.at);  // a frame-by-frame command takes the time it asks again at
    turn = b.request(now, false, kT0);
  }
  CHECK(now >= kT0 + 5s);
  CHECK(now < kT0 + 6s);
}

TEST_CASE("command budget: 0 is no cap and under one a second is one at a time", "[budget][app]") {
  CommandBudget none(0);
  for (int i = 0; i < 100; ++i) CHECK(none.request(kT0, false, kT0).at == kT0);
  CommandBudget slow(0.5);
  CHECK(urgent(slow, kT0) == kT0);
  CHECK(urgent(slow, kT0) == kT0 + 2s);
}

// Windows on the host's timeline: metrics/device_clock and the SM window
// across device clock steps; and the adaptive command deadline.
#include <catch2/catch.hpp>

#include "ingest/adaptive_deadline.h"
#include "metrics/device_clock.h"
#include "metrics/sources/skips.h"
#include "metrics/store.h"

using namespace jank;

namespace {
constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kHost = 1'800'000'000 * kS;  // host wall clock at the start
}  // namespace

TEST_CASE("a device clock in step: events land when they happened on the host", "[clock]") {
  metrics::DeviceClock c;
  // The device runs 90 s behind the host; lines arrive 0.1 s after they are written.
  const std::int64_t skew = -90 * kS;
  // The first line's read latency is part of the learned offset.
  CHECK(c.observe(kHost + skew, kHost + kS / 10) == kHost + kS / 10);
  CHECK(c.offset_ns() == -skew + kS / 10);
  CHECK(c.observe(kHost + 5 * kS + skew, kHost + 5 * kS + kS / 10) == kHost + 5 * kS + kS / 10);
  CHECK(c.place(kHost + 5 * kS + skew) == kHost + 5 * kS + kS / 10);
  CHECK(c.steps() == 0);
}

TEST_CASE("a clock stepped back an hour: the next events stay now", "[clock]") {
  metrics::DeviceClock c;
  c.observe(kHost, kHost);
  c.observe(kHost + 10 * kS, kHost + 10 * kS);
  // The device's clock goes back an hour; its next line arrives a second later.
  const std::int64_t at = c.observe(kHost + 11 * kS - 3600 * kS, kHost + 11 * kS);
  CHECK(at >= kHost + 10 * kS);
  CHECK(at <= kHost + 11 * kS);
  CHECK(c.steps() == 1);
  // And from there on the new offset holds.
  CHECK(c.observe(kHost + 20 * kS - 3600 * kS, kHost + 20 * kS) == kHost + 20 * kS - (at == kHost + 10 * kS ? kS : 0));
  CHECK(c.steps() == 1);
}

TEST_CASE("one line stamped a year ahead: one step there, one back, then in step", "[clock]") {
  metrics::DeviceClock c;
  c.observe(kHost, kHost);
  CHECK(c.observe(kHost + kS + 365 * 86400 * kS, kHost + kS) == kHost + kS);
  CHECK(c.observe(kHost + 2 * kS, kHost + 2 * kS) == kHost + kS);  // no earlier than the line before
  CHECK(c.steps() == 2);
  CHECK(c.observe(kHost + 3 * kS, kHost + 3 * kS) == kHost + 2 * kS);
  CHECK(c.steps() == 2);
}

TEST_CASE("a backlog after a reconnect keeps its spacing in the past", "[clock]") {
  metrics::DeviceClock c;
  c.observe(kHost, kHost);
  // Away for ten minutes; the lines of minutes 2 and 9 arrive together at minute 10.
  CHECK(c.observe(kHost + 120 * kS, kHost + 600 * kS) == kHost + 120 * kS);
  CHECK(c.observe(kHost + 540 * kS, kHost + 600 * kS) == kHost + 540 * kS);
  CHECK(c.steps() == 0);
}

TEST_CASE("the SM window survives a clock step back: a 120-frame skip right after it counts now", "[clock]") {
  metrics::Store store;
  auto& d = store.device("s");
  d.clock.observe(kHost, kHost);
  jank::metrics::record_skip(store, d, "app", kHost, true, 1);
  // Clock back an hour, then a 120-frame skip, arriving one second later.
  const std::int64_t stamp = kHost + kS - 3600 * kS;
  d.clock.observe(stamp, kHost + kS);
  jank::metrics::record_skip(store, d, "app", stamp, true, 120);
  const std::int64_t now = kHost + 2 * kS;
  CHECK(metrics::skips_of(d.packages.at("app"))->window.max_skip(now) == 120);
  CHECK(metrics::skips_of(d)->window.frames(now) == 121);
  const std::chrono::seconds minute(60);
  CHECK(metrics::smoothness(60, metrics::skips_of(d)->window.frames(now), minute) == Approx(60 - 121.0 / 60));
}

TEST_CASE("replays have no host clock: windows run on the input's stamps", "[clock]") {
  metrics::Store store;
  auto& d = store.device("s");
  jank::metrics::record_skip(store, d, "app", 5 * kS, true, 7);
  CHECK(metrics::skips_of(d)->window.frames(5 * kS) == 7);
  CHECK_FALSE(d.clock.offset_ns());
}

TEST_CASE("the command deadline lengthens on timeouts, up to its cap, and comes back down", "[deadline]") {
  using std::chrono::milliseconds;
  ingest::AdaptiveDeadline d(milliseconds(20'000), milliseconds(120'000));
  CHECK(d.current() == milliseconds(20'000));
  d.on_timeout();
  CHECK(d.current() == milliseconds(40'000));
  d.on_timeout();
  d.on_timeout();
  CHECK(d.current() == milliseconds(120'000));
  // A device answering after 20 s keeps a deadline of 60 s, not less.
  for (int i = 0; i < 50; ++i) d.on_answer(milliseconds(20'000));
  CHECK(d.current() == milliseconds(60'000));
  // Healthy again: back to the configured deadline, a quarter of the way per answer.
  d.on_answer(milliseconds(50));
  CHECK(d.current() == milliseconds(50'000));
  for (int i = 0; i < 50; ++i) d.on_answer(milliseconds(50));
  CHECK(d.current() == milliseconds(20'000));
  // A cap below the base is no cap.
  CHECK(ingest::AdaptiveDeadline(milliseconds(5000), milliseconds(1000)).current() == milliseconds(5000));
}

// The daemon's live-view sampler (app/daemon/live_sampler.h): every device sampled
// at a steady pace, and what a reload of live_view.* does to the rings. The
// clocks and the timer are the test's.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <utility>
#include <vector>

#include "app/daemon/live_sampler.h"

using namespace jank;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t kT0 = 1'764'061'000LL * 1'000'000'000;

config::Config live_config(std::int64_t sample_seconds, std::int64_t history_minutes) {
  config::Config c;
  c.live_view_sample_seconds = std::chrono::seconds(sample_seconds);
  c.live_view_history_minutes = std::chrono::minutes(history_minutes);
  return c;
}

// Host clocks the test moves, and the waits the sampler asked for, fired by
// the test (a new wait replaces the pending one, as a steady timer's does).
struct FakeTime {
  std::int64_t wall_ns = kT0;
  std::chrono::steady_clock::time_point steady{std::chrono::hours(1)};
  std::vector<std::chrono::milliseconds> waits;
  std::function<void()> due;

  app::HostClock clock() {
    return {[this] { return wall_ns; }, [this] { return steady; }};
  }
  app::RunAfter after() {
    return [this](std::chrono::milliseconds delay, std::function<void()> then) {
      waits.push_back(delay);
      due = std::move(then);
    };
  }
  void advance(std::chrono::milliseconds d) {
    steady += d;
    wall_ns += std::chrono::nanoseconds(d).count();
  }
  // Lets the pending wait run out on time (plus `late`) and fires it.
  void fire(std::chrono::milliseconds late = std::chrono::milliseconds(0)) {
    REQUIRE(due);
    advance(waits.back() + late);
    std::exchange(due, nullptr)();
  }
};

}  // namespace

TEST_CASE("live sampler: every device gets a sample and a reload that changes the ring empties it",
          "[live][sampler]") {
  FakeTime time;
  app::SharedState shared(metrics::StoreOptions{});
  app::LiveSampler sampler(shared, time.clock(), time.after());
  shared.store.device("a");
  shared.store.device("b");
  sampler.configure(live_config(5, 15));
  sampler.sample();
  for (const auto& [serial, d] : shared.store.devices()) {
    INFO(serial);
    CHECK(d->history.capacity() == 180);
    CHECK(d->history.size() == 1);
  }
  const auto& a = shared.store.devices().at("a")->history;
  time.advance(5s);
  sampler.configure(live_config(5, 15));  // unchanged: the history stays
  sampler.sample();
  CHECK(a.size() == 2);
  time.advance(5s);
  sampler.configure(live_config(5, 30));  // a longer history: a new ring
  sampler.sample();
  CHECK(a.capacity() == 360);
  CHECK(a.size() == 1);
  time.advance(5s);
  sampler.configure(live_config(10, 30));  // another interval, same size: a new ring all the same
  sampler.sample();
  CHECK(a.capacity() == 180);
  CHECK(a.size() == 1);
  sampler.stop();
}

TEST_CASE("live sampler: one sample every sample_seconds at a steady pace until stopped", "[live][sampler]") {
  FakeTime time;
  app::SharedState shared(metrics::StoreOptions{});
  app::LiveSampler sampler(shared, time.clock(), time.after());
  shared.store.device("a");
  const auto& h = shared.store.devices().at("a")->history;
  sampler.configure(live_config(2, 1));
  REQUIRE(time.waits == std::vector<std::chrono::milliseconds>{2000ms});
  CHECK(h.size() == 0);

  time.fire();
  CHECK(h.size() == 1);
  CHECK(h.newest()->t_ms == kT0 / 1'000'000 + 2000);
  CHECK(time.waits.back() == 2000ms);

  // Woken 300 ms late: the next sample keeps the pace (1.7 s later, not 2 s).
  time.fire(300ms);
  CHECK(h.size() == 2);
  CHECK(time.waits.back() == 1700ms);

  // Woken 5 s late (at 11 s of a 2 s pace): the missed samples are skipped,
  // not bunched; one now, the next on the pace's grid, at 12 s.
  time.fire(5000ms);
  CHECK(h.size() == 3);
  CHECK(time.waits.back() == 1000ms);

  // The same interval again: the pending wait stands.
  const std::size_t waits = time.waits.size();
  sampler.configure(live_config(2, 1));
  CHECK(time.waits.size() == waits);

  // A new interval: a new wait of that length; the one it replaced does nothing if it still fires.
  auto replaced = time.due;
  sampler.configure(live_config(3, 1));
  CHECK(time.waits.back() == 3000ms);
  replaced();
  CHECK(h.size() == 3);

  // Stopped: the pending wait does nothing when it fires, and asks for no other.
  sampler.stop();
  const std::size_t stopped_waits = time.waits.size();
  time.fire();
  CHECK(h.size() == 3);
  CHECK(time.waits.size() == stopped_waits);
  CHECK_FALSE(time.due);
}

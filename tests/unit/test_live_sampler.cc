// The daemon's live-view sampler (app/daemon/live_sampler.h): every device sampled
// at a steady pace, what a reload of live_view.* does to the rings, and the
// CPU each sample takes from the resource poll's counters. The clocks and the
// timer are the test's.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "app/daemon/live_sampler.h"
#include "metrics/sources/cpu.h"
#include "parsers/resource_files.h"

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

namespace {

// A resource poll's answer: two cores (`user` and `idle` ticks each) and the
// app's process `pid` with its main thread, comm as Android sets it.
std::string poll(int cpu0_user, int cpu0_idle, int cpu1_user, int cpu1_idle, int pid, int user, int system,
                 int main_user, int start) {
  const auto stat = [&](int id, int u, int s) {
    return std::to_string(id) + " (om.example.feed) S 1 1 0 0 -1 0 0 0 0 0 " + std::to_string(u) + " " +
           std::to_string(s) + " 0 0 10 -10 20 0 " + std::to_string(start) + " 1 512\n";
  };
  return "/proc/sys/kernel/random/boot_id:b1\n/proc/stat:cpu0 " + std::to_string(cpu0_user) + " 0 0 " +
         std::to_string(cpu0_idle) + " 0 0 0 0 0 0\n/proc/stat:cpu1 " + std::to_string(cpu1_user) + " 0 0 " +
         std::to_string(cpu1_idle) + " 0 0 0 0 0 0\n/proc/" + std::to_string(pid) + "/stat:" + stat(pid, user, system) +
         "/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/stat:" + stat(pid, main_user, 0);
}

}  // namespace

TEST_CASE("live sampler: each sample holds the CPU the resource poll counted in its interval, worked by hand",
          "[live][sampler][resources]") {
  FakeTime time;
  app::SharedState shared(metrics::StoreOptions{});
  app::LiveSampler sampler(shared, time.clock(), time.after());
  auto& d = shared.store.device("a");
  d.pid_names.started(4242, "com.example.feed");
  const auto record = [&](const std::string& text) {
    const auto answer = parsers::parse_resource_answer(text);
    REQUIRE(answer.malformed_lines == 0);
    metrics::record_cpu(shared.store, d, answer, {});
  };
  sampler.configure(live_config(5, 15));
  record(poll(1000, 9000, 500, 9500, 4242, 100, 40, 70, 5000));
  time.fire();  // the baseline
  // 5 s: the first core's clock +500 ticks (200 user, 300 idle); the second
  // +500 (50 user): 250 of 1000 busy. The app +250 ticks (200 user, 50
  // system): 2.5 s of CPU in 5 s, half a core; its main thread +150.
  record(poll(1200, 9300, 550, 9950, 4242, 300, 90, 220, 5000));
  time.fire();
  const auto& h = d.history;
  REQUIRE(h.size() == 2);
  CHECK(h.at(1).span_ms == 5000);
  CHECK(*h.at(1).app_cpu_percent() == Approx(50.0));
  CHECK(*h.at(1).main_thread_cpu_percent() == Approx(30.0));
  CHECK(*h.at(1).device_cpu_percent() == Approx(25.0));

  // The app restarts as pid 5151: the poll counts the new process from its
  // start (12 user, 3 system; main 10), so the app's total only grows and the
  // interval holds the new process's 15 ticks: 3 % of a core.
  d.pid_names.died(4242);
  d.pid_names.started(5151, "com.example.feed");
  record(poll(1300, 9700, 600, 10400, 5151, 12, 3, 10, 9000));
  time.fire();
  CHECK(*h.at(2).app_cpu_percent() == Approx(3.0));
  CHECK(*h.at(2).main_thread_cpu_percent() == Approx(2.0));
  CHECK(*h.at(2).device_cpu_percent() == Approx(15.0));  // 150 of 1000

  // No poll in the next interval: not measured, not 0.
  time.fire();
  CHECK_FALSE(h.at(3).app_cpu_percent().has_value());
  CHECK_FALSE(h.at(3).device_cpu_percent().has_value());
  sampler.stop();
}

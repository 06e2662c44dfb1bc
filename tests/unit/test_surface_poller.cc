#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "app/session/surface_poller.h"
#include "metrics/sources/frametimeline.h"

using namespace jank::app;
using namespace std::chrono_literals;
using Kind = PollSchedule::Job::Kind;

namespace {

PollIntervals intervals() {
  PollIntervals i;
  i.fast = 500ms;
  i.idle = 2000ms;
  i.list = 10s;
  i.power = 5s;
  i.spacing = 100ms;
  return i;
}

// A followed layer named `stable` (its exact name with a suffix).
jank::parsers::AppLayer layer(const std::string& stable) {
  jank::parsers::AppLayer l;
  l.name = stable + "#1";
  l.stable_name = stable;
  return l;
}

}  // namespace

TEST_CASE("poll schedule: list and power first, then layers by due time, spaced by the budget", "[surface]") {
  const PollSchedule::Time t0{};
  PollSchedule s(intervals(), t0);
  auto job = s.next();
  CHECK(job.kind == Kind::list);
  CHECK(s.earliest_start(job) == t0);
  s.ran(job, t0);
  s.follow({layer("a"), layer("b")}, t0);
  CHECK(s.layers() == 2);
  // Layers due now go before the power state, which is due too.
  job = s.next();
  CHECK(job.kind == Kind::layer);
  CHECK(job.layer.stable_name == "a");
  CHECK(s.earliest_start(job) == t0 + 100ms);  // spacing after the list
  s.ran(job, t0 + 100ms, true);
  job = s.next();
  CHECK(job.layer.stable_name == "b");
  s.ran(job, t0 + 200ms, false);
  job = s.next();
  CHECK(job.kind == Kind::power);
  s.ran(job, t0 + 300ms);
  // Nothing due: the earliest is a's, 500 ms after its start (it presented).
  job = s.next();
  CHECK(job.layer.stable_name == "a");
  CHECK(job.due == t0 + 600ms);
}

TEST_CASE("poll schedule: a budget too small for the layers still runs the list and the power state", "[surface]") {
  // One command a second, two presenting layers wanting one every 0.5 s:
  // the layers are always due, yet the power state (every 5 s) and the list
  // (every 10 s) wait at most one turn of the four jobs (3 s) past their due.
  PollIntervals tight = intervals();
  tight.spacing = 1s;
  const PollSchedule::Time t0{};
  PollSchedule s(tight, t0);
  s.follow({layer("a"), layer("b")}, t0);
  std::map<Kind, int> runs;
  for (PollSchedule::Time now = t0; now < t0 + 60s;) {
    const auto job = s.next();
    now = std::max(now, s.earliest_start(job));
    s.ran(job, now, job.kind == Kind::layer);
    ++runs[job.kind];
  }
  CHECK(runs[Kind::power] >= 60 / 8);
  CHECK(runs[Kind::list] >= 60 / 13);
  CHECK(runs[Kind::layer] >= 60 - 60 / 8 - 60 / 13 - 2);
}

TEST_CASE("poll schedule: a stall is not rest, rest is slow, and no interval outlasts the table", "[surface]") {
  const PollSchedule::Time t0{};
  PollIntervals slow_jobs = intervals();
  slow_jobs.list = slow_jobs.power = 60s;
  PollSchedule s(slow_jobs, t0);
  s.ran({Kind::list, {}, t0}, t0);
  s.ran({Kind::power, {}, t0}, t0);
  s.follow({layer("game")}, t0);
  const PollSchedule::Job game{Kind::layer, layer("game"), t0};
  // Never presented: resting from the start.
  s.ran(game, t0, false);
  CHECK(s.next().due == t0 + 2000ms);
  s.ran(game, t0 + 1s, true);
  CHECK(s.next().due == t0 + 1500ms);
  // An empty poll 0.5 s later is a stall, not rest: still fast.
  s.ran(game, t0 + 1500ms, false);
  CHECK(s.next().due == t0 + 2000ms);
  // 1.2 s without frames: resting.
  s.ran(game, t0 + 2200ms, false);
  CHECK(s.next().due == t0 + 4200ms);
  // At 120 Hz a table lasts 127 × 8.33 ms ≈ 1.06 s: even a resting layer
  // is polled again within 90 % of that.
  s.ran(game, t0 + 4200ms, false, 127 * 8'333'333ns);
  CHECK(s.next().due == t0 + 4200ms + 127 * 8'333'333ns * 9 / 10);
  // A layer no longer listed is no longer polled.
  s.follow({}, t0 + 5s);
  CHECK(s.layers() == 0);
  CHECK(s.next().kind == Kind::list);
}

TEST_CASE("layers to follow: the watched apps' buffer layers, each stable name once, capped", "[surface]") {
  const std::vector<std::string> listed = {
      "Task=12#40",
      "5e6ac22 com.example.game/com.example.game.Main#42",
      "com.example.game/com.example.game.Main#43",
      "SurfaceView[com.example.game/com.example.game.Main]#44",
      "SurfaceView[com.example.game/com.example.game.Main](BLAST)#45",
      "com.example.game/com.example.game.Main#46",  // a second instance during recreation
      "com.example.other/com.example.other.Main#50",
      "com.example.feed/com.example.feed.Main#60",
  };
  const std::set<std::string, std::less<>> watched = {"com.example.game", "com.example.feed"};
  auto names = [](const std::vector<jank::parsers::AppLayer>& layers) {
    std::vector<std::string> out;
    for (const auto& l : layers) out.push_back(l.name);
    return out;
  };
  CHECK(names(layers_to_follow(listed, watched, 16)) ==
        std::vector<std::string>{"com.example.game/com.example.game.Main#43",
                                 "SurfaceView[com.example.game/com.example.game.Main](BLAST)#45",
                                 "com.example.feed/com.example.feed.Main#60"});
  CHECK(names(layers_to_follow(listed, watched, 1)) ==
        std::vector<std::string>{"com.example.game/com.example.game.Main#43"});
  CHECK(layers_to_follow(listed, {}, 16).empty());
}

TEST_CASE("poll schedule: FrameTimeline fast while animating then idle and woken by a presenting layer",
          "[surface][frametimeline]") {
  const PollSchedule::Time t0{};
  PollIntervals i = intervals();
  i.list = i.power = 60s;
  i.frametimeline = true;
  PollSchedule s(i, t0);
  s.ran({Kind::list, {}, t0}, t0);
  s.ran({Kind::power, {}, t0}, t0);
  // Due from the start, before the span is known: polled at once.
  auto job = s.next();
  CHECK(job.kind == Kind::frametimeline);
  CHECK(job.due == t0);
  // 64 periods at 120 Hz ≈ 533 ms: every 3/5 of that while frames come.
  const auto span = 64 * 8'333'333ns;
  s.ran_frametimeline(t0, true, span);
  job = s.next();
  CHECK(job.kind == Kind::frametimeline);
  CHECK(job.due == t0 + span * 3 / 5);
  // Polls that made no frame final keep it fast for 10 s (a UI pausing
  // between scrolls), then idle.
  s.ran_frametimeline(t0 + 9s, false, span);
  CHECK(s.next().due == t0 + 9s + span * 3 / 5);
  s.ran_frametimeline(t0 + 10s, false, span);
  CHECK(s.next().kind == Kind::list);  // FrameTimeline rests for the list's interval (60 s here)
  // A layer that presents wakes it at once.
  s.follow({layer("a")}, t0 + 10s);
  s.ran({Kind::layer, layer("a"), t0 + 10s}, t0 + 10200ms, true);
  job = s.next();
  CHECK(job.kind == Kind::frametimeline);
  CHECK(job.due == t0 + 10200ms);
  CHECK(s.earliest_start(job) == t0 + 10300ms);  // still spaced by the budget
  // A device that cannot answer is asked again after the list interval,
  // without taking a command's turn.
  s.defer({Kind::frametimeline, {}, t0}, t0 + 10300ms);
  CHECK(s.next().kind == Kind::layer);
  CHECK(s.earliest_start(s.next()) == t0 + 10700ms);
  s.ran(s.next(), t0 + 10700ms, false);
  s.ran(s.next(), t0 + 11200ms, false);
  bool ft_due_later = false;
  for (int k = 0; k < 200; ++k) {
    job = s.next();
    if (job.kind == Kind::frametimeline) {
      ft_due_later = job.due == t0 + 70300ms;
      break;
    }
    s.ran(job, job.due, false);
  }
  CHECK(ft_due_later);
}

TEST_CASE("poll schedule: FrameTimeline off is never due", "[surface][frametimeline]") {
  const PollSchedule::Time t0{};
  PollSchedule s(intervals(), t0);
  for (int k = 0; k < 50; ++k) {
    const auto job = s.next();
    CHECK(job.kind != Kind::frametimeline);
    s.ran(job, std::max(job.due, s.earliest_start(job)), false);
  }
}

TEST_CASE("poll schedule: FrameTimeline goes first by one spacing but a tight budget still runs every job",
          "[surface][frametimeline]") {
  const PollSchedule::Time t0{};
  PollIntervals i = intervals();
  i.frametimeline = true;
  {
    PollSchedule s(i, t0);
    s.ran({Kind::list, {}, t0}, t0);
    s.ran({Kind::power, {}, t0}, t0);
    s.follow({layer("a")}, t0);
    s.ran({Kind::layer, layer("a"), t0}, t0, true);  // a due at 500 ms
    s.ran_frametimeline(t0 + 50ms, true, 64 * 8'333'333ns);  // due at 50 + 320 ms
    s.ran({Kind::layer, layer("a"), t0}, t0 + 200ms, true);  // a due at 700 ms
    CHECK(s.next().kind == Kind::frametimeline);
    s.ran_frametimeline(t0 + 370ms, true, std::nullopt);  // due at 690 ms: within 100 ms of a's
    CHECK(s.next().kind == Kind::frametimeline);
    s.ran_frametimeline(t0 + 500ms, true, std::nullopt);  // due at 820 ms: a goes first
    CHECK(s.next().kind == Kind::layer);
  }
  // One command a second: FrameTimeline (every 0.32 s) and a layer (every
  // 0.5 s) are always due, yet each job gets its turns.
  i.spacing = 1s;
  PollSchedule s(i, t0);
  s.follow({layer("a")}, t0);
  std::map<Kind, int> runs;
  for (PollSchedule::Time now = t0; now < t0 + 60s;) {
    const auto job = s.next();
    now = std::max(now, s.earliest_start(job));
    if (job.kind == Kind::frametimeline) {
      s.ran_frametimeline(now, true, 64 * 8'333'333ns);
    } else {
      s.ran(job, now, job.kind == Kind::layer);
    }
    ++runs[job.kind];
  }
  CHECK(runs[Kind::power] >= 60 / 8);
  CHECK(runs[Kind::list] >= 60 / 13);
  CHECK(runs[Kind::layer] >= 15);
  CHECK(runs[Kind::frametimeline] >= 15);
}

TEST_CASE("poll schedule: FrameTimeline at rest is polled at the list interval", "[surface][frametimeline]") {
  const PollSchedule::Time t0{};
  PollIntervals i = intervals();
  i.list = 5s;
  i.power = 60s;
  i.frametimeline = true;
  PollSchedule s(i, t0);
  s.ran({Kind::list, {}, t0}, t0);
  s.ran({Kind::power, {}, t0}, t0);
  s.ran_frametimeline(t0, false, 64 * 16'666'667ns);  // nothing ever drawn
  const auto job = s.next();
  CHECK(job.kind == Kind::frametimeline);
  CHECK(job.due == t0 + 5s);
}

namespace {

// A full FrameTimeline window at 120 Hz (64 display frames: at least 533 ms)
// of one app's frames with tokens from `first`.
std::string full_window(std::int64_t first) {
  std::string s = "Number of display frames : 64\n";
  for (int i = 0; i < 64; ++i) {
    s += "Display Frame " + std::to_string(i) + "\nVsync Period:   8.333333\n";
    s += "    Layer - TX - a/a.Main#3\n    Token: " + std::to_string(first + i) +
         "\n    Layer ID : 3\n    Present State : Presented\n    Prediction State : Valid\n    Jank Type : None\n"
         "    Present Metadata : On Time Present\n";
  }
  return s;
}

// A SurfacePoller on an Android 13 phone with a fake session and clock: the
// test says how long each FrameTimeline answer takes; the others answer at once.
struct FrameTimelineRig {
  std::shared_ptr<jank::config::Config> config = std::make_shared<jank::config::Config>();
  SharedState shared{jank::metrics::StoreOptions{}};
  PollSchedule::Time now{};
  std::function<void(jank::ingest::ShellResult)> pending;
  std::string pending_command;
  std::function<void()> due;
  std::chrono::milliseconds wait{0};
  std::unique_ptr<SurfacePoller> poller;

  FrameTimelineRig() {
    config->per_frame_mode = "always";
    shared.store.device("s").live.info["sdk"] = "33";
    HostClock clock{[this] { return 1'000'000'000'000 + now.time_since_epoch().count(); }, [this] { return now; }};
    poller = std::make_unique<SurfacePoller>(
        config, "s", shared,
        [this](const std::string& command, std::size_t, std::function<void(jank::ingest::ShellResult)> done) {
          pending_command = command;
          pending = std::move(done);
        },
        [this](std::chrono::milliseconds delay, std::function<void()> then) {
          wait = delay;
          due = std::move(then);
        },
        clock, std::make_shared<PerFramePolicy>(config));
    poller->start(0ms);
  }
  // Runs the session until the next FrameTimeline request, then answers it
  // `took` later with `output`.
  void answer_frametimeline(std::chrono::milliseconds took, const std::string& output) {
    for (int guard = 0; guard < 100; ++guard) {
      if (pending) {
        const bool ft = pending_command.find("--frametimeline") != std::string::npos;
        jank::ingest::ShellResult r;
        if (ft) {
          now += took;
          r.output = output;
        }
        std::exchange(pending, nullptr)(std::move(r));
        if (ft) return;
      } else {
        REQUIRE(due);
        now += wait;
        std::exchange(due, nullptr)();
      }
    }
    FAIL("no --frametimeline request");
  }
  std::uint64_t overflows() {
    return jank::metrics::frametimeline_of(shared.store.device("s"))->tracker.overflows();
  }
};

}  // namespace

TEST_CASE("surface poller: FrameTimeline windows are judged by the time from the previous request, not answer",
          "[surface][frametimeline]") {
  FrameTimelineRig rig;
  rig.answer_frametimeline(10ms, full_window(1000));
  // Answered at once and polled again within 533 ms (the window's least
  // span): an app that stalled while other layers filled the window.
  rig.answer_frametimeline(10ms, full_window(2000));
  CHECK(rig.overflows() == 0);
  // Answered 700 ms late: frames may have gone by.
  rig.answer_frametimeline(700ms, full_window(3000));
  CHECK(rig.overflows() == 1);
  // The next one, asked at once, comes back quickly: the two answers are
  // closer than 533 ms, but the late one's dump may have been taken soon
  // after its request, over 700 ms before this one: frames may have gone by.
  rig.answer_frametimeline(10ms, full_window(4000));
  CHECK(rig.overflows() == 2);
}

TEST_CASE("poll schedule: a held FrameTimeline or layer job is asked again after the fast interval, taking no turn",
          "[surface][per_frame]") {
  auto i = intervals();
  i.frametimeline = true;
  const PollSchedule::Time t0{};
  PollSchedule s(i, t0);
  s.follow({layer("a")}, t0);
  auto job = s.next();
  REQUIRE(job.kind == Kind::frametimeline);
  s.hold(job, t0);
  job = s.next();
  REQUIRE(job.kind == Kind::layer);
  CHECK(s.earliest_start(job) == t0);  // the hold took no command's turn
  s.hold(job, t0);
  // Both back after the fast interval (500 ms), FrameTimeline first.
  job = s.next();
  CHECK(job.kind != Kind::layer);
  CHECK(job.kind != Kind::frametimeline);
  CHECK(job.due == t0);  // the list and the power state, due since the start
  s.ran(job, t0);
  job = s.next();
  s.ran(job, t0 + 100ms);
  job = s.next();
  CHECK(job.kind == Kind::frametimeline);
  CHECK(job.due == t0 + 500ms);
  s.hold(job, t0 + 500ms);
  job = s.next();
  CHECK(job.kind == Kind::layer);
  CHECK(job.due == t0 + 500ms);
}

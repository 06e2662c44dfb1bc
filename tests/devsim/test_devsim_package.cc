// The simulator's `dumpsys package`, `install` and `gfxinfo ... reset`
// against the exporter's parsers and store: the version the simulator
// installed is the version read back, a new build restarts the app and
// janks by its factor, and counters polled with resets add up to the truth.
#include <catch2/catch.hpp>

#include <string>

#include "app/session/version_poller.h"
#include "devsim/model.h"
#include "devsim/shell.h"
#include "metrics/store.h"
#include "parsers/gfxinfo.h"
#include "parsers/package_info.h"
#include "tests/devsim/truth.h"
#include "tests/unit/gfxinfo_state.h"

using namespace jank::devsim;
using jank::test::gfx;
namespace parsers = jank::parsers;
namespace metrics = jank::metrics;

namespace {

constexpr const char* kFeed = "com.example.feed";

DeviceConfig one_app(int sdk, std::uint64_t seed = 7) {
  DeviceConfig c;
  c.sdk = sdk;
  c.seed = seed;
  c.noise_lines_per_sec = 0;
  AppConfig a;
  a.package = kFeed;
  c.apps.push_back(a);
  return c;
}

}  // namespace

TEST_CASE("devsim dumpsys package: every release reads back the installed version", "[devsim][package]") {
  for (const int sdk : {21, 26, 30, 33, 35}) {
    CAPTURE(sdk);
    ManualClock clock;
    Device dev(one_app(sdk), clock);
    const auto whole = run_shell(dev, std::string("dumpsys package ") + kFeed);
    REQUIRE(whole.exit == 0);
    const auto info = parsers::parse_package_info(whole.out, kFeed);
    REQUIRE(info);
    CHECK(info->version_name == "1.0");
    CHECK(info->version_code == 1);
    CHECK(info->target_sdk == std::max(sdk, 23));
    CHECK(info->min_sdk == (sdk >= 24 ? std::optional<std::int32_t>(24) : std::nullopt));
    REQUIRE(info->users.size() == 1);
    CHECK(info->users[0].installed == true);
    CHECK(info->first_install_time.has_value());
    CHECK(info->last_update_time.has_value());
    // The exporter's command: only the version lines, read the same.
    const auto filtered = run_shell(dev, jank::app::package_command(kFeed));
    REQUIRE(filtered.exit == 0);
    CHECK(filtered.out.size() < 200);
    const auto small = parsers::parse_package_info(filtered.out, kFeed);
    REQUIRE(small);
    CHECK(small->version_name == "1.0");
    CHECK(small->version_code == 1);
  }
}

TEST_CASE("devsim dumpsys package: an unknown package is not found", "[devsim][package]") {
  ManualClock clock;
  Device dev(one_app(33), clock);
  const auto out = run_shell(dev, "dumpsys package com.example.absent");
  CHECK(out.out == "Unable to find package: com.example.absent\n");
  CHECK_FALSE(parsers::parse_package_info(out.out, "com.example.absent"));
  const auto filtered = run_shell(dev, jank::app::package_command("com.example.absent"));
  CHECK(filtered.out == "Unable to find package: com.example.absent\n");
}

TEST_CASE("devsim install: a new build restarts the app with its version and janks by its factor",
          "[devsim][package]") {
  ManualClock clock;
  // Both devices install a build (the same draws); one janks three times as much.
  Device same(one_app(33), clock), worse(one_app(33), clock);
  clock.advance_ms(1000);
  const std::int32_t pid_before = worse.app(kFeed)->pid;
  REQUIRE(same.install_app(kFeed, "1.1", 11, 1));
  REQUIRE(worse.install_app(kFeed, "2.0-rc1", 20000, 3));
  CHECK_FALSE(worse.install_app("com.example.absent", "1", 1, 1));
  const AppState& a = *worse.app(kFeed);
  const std::uint64_t frames_before = a.truth.frames_rendered;
  CHECK(a.pid != pid_before);
  CHECK(a.truth.starts == 2);
  CHECK(a.gfx.total == 0);  // a new process: gfxinfo from zero
  const auto info = parsers::parse_package_info(run_shell(worse, std::string("dumpsys package ") + kFeed).out, kFeed);
  REQUIRE(info);
  CHECK(info->version_name == "2.0-rc1");
  CHECK(info->version_code == 20000);
  const std::string log = run_shell(worse, "logcat -d -b system").out;
  CHECK(log.find("Process com.example.feed (pid " + std::to_string(pid_before) + ") has died") != std::string::npos);
  CHECK(log.find("Start proc " + std::to_string(a.pid) + ":com.example.feed/") != std::string::npos);
  const auto truth = test::truth_app(worse, kFeed);
  CHECK(truth.at("version_name").get<std::string>() == "2.0-rc1");
  CHECK(truth.at("version_code").get<std::int64_t>() == 20000);
  CHECK(truth.at("jank_factor").get<double>() == 3.0);

  clock.advance_ms(300'000);
  same.advance();
  worse.advance();
  const AppState& s = *same.app(kFeed);
  CAPTURE(s.truth.skip_events, a.truth.skip_events, s.gfx.janky, a.gfx.janky);
  // Three times the stalls per frame drawn, each three times as long: far
  // more frames skipped, fewer drawn (the stalls take the time).
  auto per_frame = [](const AppState& x) {
    return static_cast<double>(x.truth.skip_events) / static_cast<double>(x.truth.frames_rendered);
  };
  CHECK(per_frame(a) > 2 * per_frame(s));
  CHECK(2 * a.truth.skipped_frames > 5 * s.truth.skipped_frames);
  CHECK(a.truth.frames_rendered < s.truth.frames_rendered);
  CHECK(static_cast<double>(a.gfx.janky) / static_cast<double>(a.gfx.total) >
        2 * static_cast<double>(s.gfx.janky) / static_cast<double>(s.gfx.total));
  // The sources agree with each other: every frame of the build in gfxinfo
  // and in its windows, every stall's frames in the skips.
  CHECK(a.gfx.total == a.truth.frames_rendered - frames_before);  // the first second was the old build's
  std::uint64_t window_janky = 0;
  for (const auto& w : a.windows) window_janky += w.janky;
  CHECK(window_janky >= a.gfx.janky);
}

TEST_CASE("devsim install: factor 1 draws exactly as a restart does", "[devsim][package]") {
  ManualClock clock;
  Device restarted(one_app(33), clock), installed(one_app(33), clock);
  clock.advance_ms(2000);
  REQUIRE(restarted.restart_app(kFeed));
  REQUIRE(installed.install_app(kFeed, "1.0", 1, 1));
  clock.advance_ms(60'000);
  restarted.advance();
  installed.advance();
  const auto& r = restarted.app(kFeed)->truth;
  const auto& i = installed.app(kFeed)->truth;
  CHECK(i.frames_rendered == r.frames_rendered);
  CHECK(i.skipped_frames == r.skipped_frames);
  CHECK(i.skip_events == r.skip_events);
  CHECK(installed.app(kFeed)->gfx.janky == restarted.app(kFeed)->gfx.janky);
}

TEST_CASE("devsim gfxinfo reset: polled with resets the counters add up to the truth", "[devsim][package][reset]") {
  ManualClock clock;
  Device reset_dev(one_app(33), clock), plain_dev(one_app(33), clock);
  metrics::Store with_resets, without;
  auto poll = [&](Device& dev, metrics::Store& store, bool reset) {
    const std::string command = std::string("dumpsys gfxinfo ") + kFeed + (reset ? " framestats reset" : " framestats");
    const auto out = run_shell(dev, command);
    REQUIRE(out.exit == 0);
    metrics::record_gfxinfo(store, store.device("sim0"), parsers::parse_gfxinfo(out.out), reset);
  };
  for (int step = 0; step < 30; ++step) {
    clock.advance_ms(1000);
    poll(reset_dev, with_resets, true);
    poll(plain_dev, without, false);
    if (step == 12) {
      // Just after a reset: the counters are zero and "Stats since" is now.
      const auto d = parsers::parse_gfxinfo(run_shell(reset_dev, std::string("dumpsys gfxinfo ") + kFeed).out);
      REQUIRE(d.processes.size() == 1);
      CHECK(d.processes[0].stats->total_frames == 0);
      CHECK(d.processes[0].stats->stats_since_ns == static_cast<std::uint64_t>(reset_dev.now_mono()));
      metrics::record_gfxinfo(with_resets, with_resets.device("sim0"), d);
    }
    if (step == 20) {
      REQUIRE(reset_dev.restart_app(kFeed));
      REQUIRE(plain_dev.restart_app(kFeed));
    }
  }
  const auto& truth = reset_dev.app(kFeed)->truth;
  const auto& p = with_resets.device("sim0").packages.at(kFeed);
  const auto& q = without.device("sim0").packages.at(kFeed);
  CHECK(gfx(p).gfxinfo.frames_rendered() == truth.gfx_dumped_before + truth.gfx_last_dumped);
  CHECK(gfx(p).gfxinfo.janky_frames() == truth.gfx_janky_dumped_before + truth.gfx_janky_last_dumped);
  CHECK(gfx(p).gfxinfo.frames_rendered() == truth.frames_rendered);  // polled at every frame's end: all dumped
  // The same frames as without resets (resets draw nothing).
  CHECK(gfx(p).gfxinfo.frames_rendered() == gfx(q).gfxinfo.frames_rendered());
  CHECK(gfx(p).gfxinfo.janky_frames() == gfx(q).gfxinfo.janky_frames());
  CHECK(gfx(p).gfxinfo.frame_duration().count() == gfx(q).gfxinfo.frame_duration().count());
  // Our resets are no surprise, and after one even the restart is a dump counted whole.
  CHECK(gfx(p).gfxinfo.baseline_resets() == 0);
  CHECK(gfx(q).gfxinfo.baseline_resets() == 1);
  CHECK(gfx(p).framestats.frames() == gfx(q).framestats.frames());
  CHECK(gfx(p).framestats.overflows() == 0);
}

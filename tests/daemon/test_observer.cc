// `jank_exporter observer-test` (docs/observer-test.md) on two simulated
// Android 13 phones through Debian's adb server: one whose gfxinfo dumps
// hold the app's RenderThread for 60 ms and whose SurfaceFlinger dumps hold
// SurfaceFlinger for 20 ms (devsim/observer_cost.cc), one on which commands
// are free. The test detects the cost on the first, by both counters,
// within what the simulator says it caused, and none on the second.
#include <catch2/catch.hpp>

#include <fstream>
#include <future>
#include <string>

#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

const std::string kPkg = "com.example.feed";

RunResult observer_test(const AdbServer& adb, const std::string& serial, const std::string& conf) {
  return run({JANK_EXPORTER_PROGRAM, "observer-test", "--serial", serial, "--adb",
              "127.0.0.1:" + std::to_string(adb.port()), "--package", kPkg, "--pairs", "6", "--phase-seconds", "3",
              "--config", conf, "--json"},
             {}, std::chrono::milliseconds(120000));
}

std::uint64_t caused(DevSim& sim, const std::string& dev) {
  const Json t = sim.truth();
  return DevSim::app(t, dev, kPkg)->operator[]("observer_janky_frames").u64();
}

}  // namespace

TEST_CASE("observer-test detects an injected polling cost and reports none where commands are free") {
  AdbServer adb;
  // Seeded: the frames each phase draws are the same from run to run.
  DevSim sim({"--devices", "2", "--sdk", "33", "--packages", kPkg, "--seed", "7"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  const std::string costly = emulator_serial(sim.devices()[0]), free = emulator_serial(sim.devices()[1]);
  REQUIRE(adb.wait_state(costly, "device", 10000ms));
  REQUIRE(adb.wait_state(free, "device", 10000ms));
  REQUIRE(sim.control("command-cost sim0 app=60 sf=20") == "OK");
  TempDir conf_dir;
  const std::string conf = conf_dir.path() + "/c.yaml";
  // framestats at its fast interval the whole high phase, as while a run is open.
  std::ofstream(conf) << "gfxinfo:\n  fast_poll_interval_seconds: 0.5\n";

  const std::uint64_t caused_before = caused(sim, "sim0");
  auto costly_run = std::async(std::launch::async, [&] { return observer_test(adb, costly, conf); });
  const RunResult free_run = observer_test(adb, free, conf);
  const RunResult cost_run = costly_run.get();
  const std::uint64_t caused_during = caused(sim, "sim0") - caused_before;

  INFO(cost_run.out << cost_run.err);
  REQUIRE(cost_run.exit == 6);
  const auto report = parse_json(cost_run.out);
  REQUIRE(report);
  CHECK((*report)["verdict"].str == "cost");
  const Json& gs = (*report)["counters"]["graphicsstats"];
  const Json& ts = (*report)["counters"]["timestats"];
  CHECK(gs["pairs"].u64() == 6);
  CHECK(gs["verdict"].str == "cost");
  CHECK(ts["verdict"].str == "cost");  // SurfaceFlinger's missed compositions
  CHECK(gs["confidence"].num == Approx(0.975));  // 0.95 shared by two counters
  // The simulator's own count of frames the dumps made janky, as a share of
  // the high phases' frames, lies near the interval (the rest is chance).
  std::uint64_t high_frames = 0;
  for (const auto& p : (*report)["phases"].arr) {
    if (p["kind"].str == "high") high_frames += p["graphicsstats"]["frames"].u64();
  }
  REQUIRE(high_frames > 0);
  const double truth_points = 100.0 * static_cast<double>(caused_during) / static_cast<double>(high_frames);
  INFO("truth " << truth_points << " points");
  CHECK(truth_points >= gs["ci_low_points"].num - 3);
  CHECK(truth_points <= gs["ci_high_points"].num + 3);
  // The daemon's per-frame commands at full rate: one layer every 0.5 s,
  // framestats every 0.5 s, FrameTimeline every 3/5 of 64 frames at 60 Hz.
  const Json& rates = (*report)["high_commands_per_second"];
  CHECK(rates["sf_latency"].num == Approx(2).margin(0.5));
  CHECK(rates["gfxinfo"].num == Approx(2).margin(0.5));
  CHECK(rates["frametimeline"].num == Approx(1 / 0.64).margin(0.5));

  INFO(free_run.out << free_run.err);
  REQUIRE(free_run.exit == 0);
  const auto quiet = parse_json(free_run.out);
  REQUIRE(quiet);
  CHECK((*quiet)["verdict"].str == "none_detected");
  CHECK((*quiet)["counters"]["graphicsstats"]["ci_low_points"].num <= 0);
  CHECK((*quiet)["counters"]["timestats"]["ci_low_points"].num <= 0);
}

TEST_CASE("observer-test refuses what it cannot measure: an unknown device, a release without counters") {
  AdbServer adb;
  DevSim sim({"--devices", "1", "--sdk", "23", "--packages", kPkg});
  adb.emulator(sim.devices()[0].port);
  const std::string old = emulator_serial(sim.devices()[0]);
  REQUIRE(adb.wait_state(old, "device", 10000ms));
  const RunResult too_old = run({JANK_EXPORTER_PROGRAM, "observer-test", "--serial", old, "--adb",
                                 "127.0.0.1:" + std::to_string(adb.port()), "--package", kPkg},
                                {}, std::chrono::milliseconds(30000));
  CHECK(too_old.exit == 69);
  CHECK(too_old.err.find("Android 7.0 (API 24) or later") != std::string::npos);
  const RunResult unknown = run({JANK_EXPORTER_PROGRAM, "observer-test", "--serial", "emulator-1", "--adb",
                                 "127.0.0.1:" + std::to_string(adb.port())},
                                {}, std::chrono::milliseconds(30000));
  CHECK(unknown.exit == 69);
  CHECK(unknown.err.find("emulator-1") != std::string::npos);
  const RunResult usage = run({JANK_EXPORTER_PROGRAM, "observer-test", "--serial", old, "--pairs", "1"}, {},
                              std::chrono::milliseconds(30000));
  CHECK(usage.exit == 64);
}

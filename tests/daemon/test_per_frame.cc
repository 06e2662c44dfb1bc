// Per-frame polling only where it is needed (docs/config.md, "Per-frame
// polling"): the real exporter with the product's default (per_frame.mode
// needed) on a simulated Android 13 phone through Debian's adb server. While
// nothing asks for it, no --frametimeline, no framestats and no --latency of
// an app not named run, yet gfxinfo's aggregate and graphicsstats count
// every frame, the slow and the frozen ones, exactly as the simulated HWUI
// does; a freeze (a skip line and a Davey) turns it on for the whole device
// for the SM window and after_spike_seconds, then it stops again, and the
// windows it resumes on count no overflow for the frames it left unpolled.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

const std::string kFeed = "com.example.feed", kGame = "com.example.game";

double value_or_zero(const std::map<std::string, double>& s, const std::string& key) {
  const auto it = s.find(key);
  return it == s.end() ? 0.0 : it->second;
}

double runs_of(const std::map<std::string, double>& s, const std::string& serial, const std::string& kind) {
  return value_or_zero(s, "jank_exporter_device_command_runs_total{serial=\"" + serial + "\",command=\"" + kind + "\"}");
}

// Presented frames over every followed layer of `package`.
double layer_frames(const std::map<std::string, double>& s, const std::string& package) {
  double n = 0;
  for (const auto& [key, v] : s) {
    if (key.rfind("android_layer_frames_presented_total{", 0) == 0 &&
        key.find("package=\"" + package + "\"") != std::string::npos) {
      n += v;
    }
  }
  return n;
}

// Every overflow counter of the frame-by-frame sources on the device.
double overflows(const std::map<std::string, double>& s, const std::string& serial) {
  double n = value_or_zero(s, "jank_exporter_frametimeline_overflows_total{serial=\"" + serial + "\"}");
  for (const auto& [key, v] : s) {
    if ((key.rfind("android_layer_poll_overflows_total{", 0) == 0 ||
         key.rfind("android_framestats_window_overflows_total{", 0) == 0) &&
        key.find("serial=\"" + serial + "\"") != std::string::npos) {
      n += v;
    }
  }
  return n;
}

// The feed's cumulative counts, exported and true: gfxinfo's aggregate and
// graphicsstats (one version, no restart: the service's block is the process's).
std::map<std::string, double> cumulative(const Exporter& ex, const std::string& serial) {
  const auto s = ex.samples();
  std::map<std::string, double> out;
  for (const char* f : {"frames_rendered", "janky_frames", "slow_frames", "frozen_frames"}) {
    out[std::string("gfxinfo ") + f] = value_or_zero(s, series(std::string("android_gfxinfo_") + f + "_total", serial, kFeed));
  }
  for (const auto& [key, v] : s) {
    if (key.find("package=\"" + kFeed + "\"") == std::string::npos) continue;
    for (const char* f : {"frames", "janky_frames", "slow_frames", "frozen_frames"}) {
      if (key.rfind(std::string("android_graphicsstats_") + f + "_total{", 0) == 0) out[std::string("graphicsstats ") + f] += v;
    }
  }
  return out;
}

std::map<std::string, double> cumulative_truth(DevSim& sim) {
  const Json t = sim.truth();
  const Json* a = DevSim::app(t, sim.devices()[0].name, kFeed);
  REQUIRE(a != nullptr);
  std::map<std::string, double> out;
  out["gfxinfo frames_rendered"] = (*a)["gfx_total_frames"].num;
  out["gfxinfo janky_frames"] = (*a)["gfx_janky_frames"].num;
  out["gfxinfo slow_frames"] = (*a)["gfx_slow_frames"].num;
  out["gfxinfo frozen_frames"] = (*a)["gfx_frozen_frames"].num;
  REQUIRE((*a)["graphicsstats"].arr.size() == 1);
  const Json& gs = (*a)["graphicsstats"].arr[0];
  out["graphicsstats frames"] = gs["frames"].num;
  out["graphicsstats janky_frames"] = gs["janky_frames"].num;
  // The service's block holds the same frames as the process's counters.
  out["graphicsstats slow_frames"] = out["gfxinfo slow_frames"];
  out["graphicsstats frozen_frames"] = out["gfxinfo frozen_frames"];
  return out;
}

// Paused, once every poll has caught up, the exported counts equal the truth.
void check_cumulative(DevSim& sim, const Exporter& ex, const std::string& serial) {
  REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
  const auto want = cumulative_truth(sim);
  std::map<std::string, double> got;
  const bool equal = wait_until([&] {
    got = cumulative(ex, serial);
    return got == want;
  }, 20000ms, 250ms);
  for (const auto& [key, n] : want) {
    INFO(key << ": exported " << got[key] << ", truth " << n);
    CHECK(got[key] == n);
  }
  CHECK(equal);
  REQUIRE(sim.control("resume").rfind("OK", 0) == 0);
}

}  // namespace

TEST_CASE("per-frame polling when needed: cumulative counts exact without it and a freeze turns it on then off",
          "[serial]") {
  AdbServer adb;
  // Small skips only (no spike) until the test makes one.
  DevSim sim({"--devices", "1", "--sdk", "33", "--refresh", "60", "--packages", kFeed, "--games", kGame + ":60",
              "--stall-prob", "0.05", "--skip-bands", "1-3:1", "--log-rate", "2"});
  const auto& dev = sim.devices()[0];
  adb.emulator(dev.port);
  const std::string serial = emulator_serial(dev);
  REQUIRE(adb.wait_state(serial, "device", 10000ms));
  REQUIRE(sim.control("foreground " + dev.name + " " + kFeed).rfind("OK", 0) == 0);
  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/c.yaml";
  std::ofstream(conf) << "gfxinfo:\n  packages: [" << kFeed << ", " << kGame << "]\n  poll_interval_seconds: 1\n  fast_poll_interval_seconds: 1\n"
                      << "graphicsstats:\n  poll_interval_seconds: 1\n"
                      << "choreographer:\n  sm_window_seconds: 5\n"
                      << "per_frame:\n  apps: [" << kGame << "]\n  after_spike_seconds: 5\n";
  Exporter ex({adb.port()}, state.path(), {"--config", conf, "--per-frame", "needed"});

  // Off: the named game's layer is followed, the feed's is not, and neither
  // FrameTimeline (the feed is in front) nor framestats run.
  const bool game_followed = wait_until([&] { return layer_frames(ex.samples(), kGame) > 100; }, 30000ms, 250ms);
  auto s = ex.samples();
  if (!game_followed) WARN(ex.log().substr(0, 6000) << "\n" << s.size() << " series");
  REQUIRE(game_followed);
  CHECK(value_or_zero(s, "jank_exporter_device_per_frame_polling{serial=\"" + serial + "\"}") == 0);
  CHECK(layer_frames(s, kFeed) == 0);
  CHECK(runs_of(s, serial, "frametimeline") == 0);
  CHECK(runs_of(s, serial, "gfxinfo") > 0);
  CHECK(value_or_zero(s, series("android_framestats_frames_total", serial, kFeed)) == 0);
  check_cumulative(sim, ex, serial);

  // A freeze of 0.8 s: a skip of 48 frames and a Davey line, a frozen frame.
  // Returns once every frame-by-frame source has polled again.
  auto spike = [&] {
    const auto before = ex.samples();
    REQUIRE(sim.control("freeze " + dev.name + " " + kFeed + " 0.8").rfind("OK", 0) == 0);
    REQUIRE(wait_until([&] {
      const auto now = ex.samples();
      const std::string framestats = series("android_framestats_frames_total", serial, kFeed);
      return value_or_zero(now, "jank_exporter_device_per_frame_polling{serial=\"" + serial + "\"}") == 1 &&
             layer_frames(now, kFeed) > layer_frames(before, kFeed) &&
             runs_of(now, serial, "frametimeline") > runs_of(before, serial, "frametimeline") + 1 &&
             value_or_zero(now, framestats) > value_or_zero(before, framestats);
    }, 30000ms, 250ms));
  };
  spike();
  CHECK(overflows(ex.samples(), serial) == 0);

  // The SM window (5 s) and after_spike_seconds (5 s) later it stops.
  REQUIRE(wait_until([&] {
    return value_or_zero(ex.samples(), "jank_exporter_device_per_frame_polling{serial=\"" + serial + "\"}") == 0;
  }, 30000ms, 250ms));
  std::this_thread::sleep_for(3s);  // a frame-by-frame poll already asked may still answer
  s = ex.samples();
  const double feed_frames = layer_frames(s, kFeed), ft_runs = runs_of(s, serial, "frametimeline");
  std::this_thread::sleep_for(5s);
  s = ex.samples();
  CHECK(layer_frames(s, kFeed) == feed_frames);
  CHECK(runs_of(s, serial, "frametimeline") == ft_runs);
  CHECK(layer_frames(s, kGame) > 0);

  // Resumed after 8 s unpolled: every window has moved on, no overflow.
  spike();
  CHECK(overflows(ex.samples(), serial) == 0);
  check_cumulative(sim, ex, serial);
  const Json truth = sim.truth();
  const Json* feed = DevSim::app(truth, dev.name, kFeed);
  REQUIRE(feed != nullptr);
  CHECK((*feed)["gfx_frozen_frames"].num >= 2);
}

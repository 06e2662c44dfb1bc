// Per-window frames and HWUI profile frames end to end: the real exporter
// polls a simulated app with three windows through Debian's real adb server;
// what it exports per window equals the simulator's truth, each frame once.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <string>

#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

const std::string kFeed = "com.example.feed";
const std::vector<std::string> kWindows = {kFeed + "/" + kFeed + ".MainActivity",
                                           kFeed + "/" + kFeed + ".SettingsActivity", "PopupWindow:5c2a9e1"};

std::string window_series(const std::string& family, const std::string& serial, const std::string& window) {
  return family + "{serial=\"" + serial + "\",package=\"" + kFeed + "\",window=\"" + window + "\"}";
}

struct WindowTruth {
  double frames = 0, janky = 0;
};

std::map<std::string, WindowTruth> windows_of(const Json& truth, const std::string& device) {
  const Json* app = DevSim::app(truth, device, kFeed);
  REQUIRE(app != nullptr);
  std::map<std::string, WindowTruth> out;
  for (const Json& w : (*app)["windows"].arr) {
    out[w["title"].str] = {static_cast<double>(w["frames"].u64()), static_cast<double>(w["janky"].u64())};
  }
  return out;
}

double profile_rows(const Json& truth, const std::string& device) {
  const Json* app = DevSim::app(truth, device, kFeed);
  REQUIRE(app != nullptr);
  return static_cast<double>((*app)["profile"]["rows"].u64());
}

}  // namespace

TEST_CASE("frames per window and HWUI profile frames equal the simulator truth") {
  AdbServer adb;
  DevSim sim({"--devices", "1", "--packages", kFeed, "--windows", kFeed + ":" + kWindows[1] + "," + kFeed + ":" + kWindows[2],
              "--hwui-profile", "--stall-prob", "0.03", "--log-rate", "5"});
  // Attached while paused, once every window drew (a window gets series
  // once it drew): the first poll reads each window's ring whole.
  const SimDeviceInfo& dev = sim.devices()[0];
  REQUIRE(wait_until([&] {
    for (const auto& [title, w] : windows_of(sim.truth(), dev.name)) {
      if (w.frames < 10) return false;
    }
    return true;
  }, 10000ms, 50ms));
  REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
  adb.emulator(dev.port);
  REQUIRE(adb.wait_state(emulator_serial(dev), "device", 10000ms));
  const std::string serial = emulator_serial(dev);
  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/c.yaml";
  std::ofstream(conf) << "gfxinfo:\n  packages: [" << kFeed << "]\n  discover: false\n  poll_interval_seconds: 1\n"
                      << "  fast_poll_interval_seconds: 1\nsurfaceflinger:\n  enabled: false\n"
                      << "series:\n  detailed: [windows]\n";  // the per-window series are a detailed group
  Exporter ex({adb.port()}, state.path(), {"--config", conf});

  const Json t0json = sim.truth();
  const auto t0 = windows_of(t0json, dev.name);
  REQUIRE(t0.size() == 3);
  std::map<std::string, WindowTruth> e0;
  std::string shown;
  const bool first = wait_until([&] {
    const auto s = ex.samples();
    shown.clear();
    for (const auto& [k, v] : s) {
      if (k.find("window") != std::string::npos || k.find("gfxinfo_polls") != std::string::npos) {
        shown += k + " " + std::to_string(v) + "\n";
      }
    }
    for (const auto& w : kWindows) {
      const auto it = s.find(window_series("android_gfxinfo_window_frames_total", serial, w));
      if (it == s.end() || it->second != std::min(120.0, t0.at(w).frames)) return false;
      e0[w] = {it->second, s.at(window_series("android_gfxinfo_window_janky_frames_total", serial, w))};
    }
    return true;
  }, 30000ms, 250ms);
  INFO(shown);
  REQUIRE(first);
  // Only the exporter dumps the app: every row printed so far is one it read.
  const std::string profile = series("android_hwui_profile_frames_total", serial, kFeed);
  CHECK(wait_until([&] { return ex.value(profile) == profile_rows(sim.truth(), dev.name); }, 5000ms, 250ms));

  // Then every frame once: run until each window drew 300 more.
  REQUIRE(sim.control("resume").rfind("OK", 0) == 0);
  REQUIRE(wait_until([&] {
    const auto t = windows_of(sim.truth(), dev.name);
    for (const auto& w : kWindows) {
      if (t.at(w).frames < t0.at(w).frames + 300) return false;
    }
    return true;
  }, 60000ms, 250ms));
  REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
  const Json t1json = sim.truth();
  const auto t1 = windows_of(t1json, dev.name);
  std::string differences;
  const bool settled = wait_until([&] {
    const auto s = ex.samples();
    differences.clear();
    for (const auto& w : kWindows) {
      const double expected = e0[w].frames + t1.at(w).frames - t0.at(w).frames;
      const double got = s.at(window_series("android_gfxinfo_window_frames_total", serial, w));
      if (got != expected) {
        differences += w + ": exported " + std::to_string(got) + ", expected " + std::to_string(expected) + "\n";
      }
    }
    return differences.empty();
  }, 20000ms, 250ms);
  INFO(differences);
  REQUIRE(settled);

  const auto s = ex.samples();
  double frames = 0;
  for (const auto& w : kWindows) {
    CAPTURE(w);
    CHECK(s.at(window_series("android_gfxinfo_window_janky_frames_total", serial, w)) - e0[w].janky ==
          t1.at(w).janky - t0.at(w).janky);
    frames += s.at(window_series("android_gfxinfo_window_frames_total", serial, w));
  }
  CHECK(t1.at(kWindows[0]).janky > t0.at(kWindows[0]).janky);  // stalls happened and were judged
  CHECK(s.at(series("android_framestats_frames_total", serial, kFeed)) == frames);
  CHECK(s.at(series("android_framestats_window_overflows_total", serial, kFeed)) == 0);
  CHECK(s.at(series("jank_exporter_gfxinfo_windows_overflowed_total", serial, kFeed)) == 0);
  CHECK(wait_until([&] { return ex.value(profile) == profile_rows(sim.truth(), dev.name); }, 5000ms, 250ms));
  // No profiled frame left a buffer unprinted while the exporter followed the app.
  const Json* before = DevSim::app(t0json, dev.name, kFeed);
  const Json* after = DevSim::app(t1json, dev.name, kFeed);
  REQUIRE((before != nullptr && after != nullptr));
  CHECK((*after)["profile"]["lost"].u64() == (*before)["profile"]["lost"].u64());
}

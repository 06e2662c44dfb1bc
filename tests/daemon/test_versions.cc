// App versions and gfxinfo.reset_after_poll end to end: the real exporter on
// a simulated device through Debian's real adb server. android_app_info shows
// the simulated build, and the new one after `install`; with resets after
// every poll the gfxinfo counters still equal the simulator's truth.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

constexpr const char* kFeed = "com.example.feed";

std::string app_info(const std::string& serial, const std::string& name, const std::string& code) {
  return "android_app_info{serial=\"" + serial + "\",package=\"" + kFeed + "\",version_name=\"" + name +
         "\",version_code=\"" + code + "\"}";
}

// One Android 14 phone with one app, attached over the USB-like transport.
struct Rig {
  AdbServer adb;
  DevSim sim{{"--devices", "1", "--sdk", "34", "--packages", kFeed, "--log-rate", "2"}};
  TempDir state, conf_dir;
  std::string serial, name;

  Rig() {
    adb.emulator(sim.devices()[0].port);
    serial = emulator_serial(sim.devices()[0]);
    name = sim.devices()[0].name;
    REQUIRE(adb.wait_state(serial, "device", 10000ms));
  }
  // A configuration polling the app every second, with `extra` gfxinfo keys.
  std::string config(const std::string& extra) {
    const std::string conf = conf_dir.path() + "/c.yaml";
    std::ofstream(conf) << "gfxinfo:\n  packages: [" << kFeed << "]\n  discover: false\n  poll_interval_seconds: 1\n"
                        << "  fast_poll_interval_seconds: 1\n" << extra
                        << "surfaceflinger:\n  enabled: false\nthermal:\n  enabled: false\n";
    return conf;
  }
};

}  // namespace

TEST_CASE("App versions: android_app_info shows the installed build and a new one after install") {
  Rig rig;
  Exporter ex({rig.adb.port()}, rig.state.path(), {"--config", rig.config("")});
  const std::string v1 = app_info(rig.serial, "1.0", "1"), v2 = app_info(rig.serial, "2.0", "2");
  REQUIRE(wait_until([&] { return ex.value(v1) == 1; }, 30000ms, 250ms));

  // A new build: the app restarts, and the next gfxinfo round (a second
  // here) sees its new pid and reads the version again, long before the
  // five-minute interval.
  REQUIRE(rig.sim.control("install " + rig.name + " " + kFeed + " 2.0 2 2.5") == "OK");
  const Json truth = rig.sim.truth();
  const Json* app = DevSim::app(truth, rig.name, kFeed);
  REQUIRE(app != nullptr);
  CHECK((*app)["version_name"].str == "2.0");
  CHECK((*app)["version_code"].num == 2);
  CHECK((*app)["starts"].num == 2);
  const auto started = std::chrono::steady_clock::now();
  REQUIRE(wait_until([&] {
    const auto s = ex.samples();
    return s.count(v2) == 1 && s.count(v1) == 0;
  }, 15000ms, 250ms));
  INFO("seen after " << std::chrono::duration_cast<ms>(std::chrono::steady_clock::now() - started).count() << " ms");
  const auto s = ex.samples();
  CHECK(s.at("jank_exporter_package_polls_total{serial=\"" + rig.serial + "\",result=\"ok\"}") >= 2);
  CHECK(s.count("jank_exporter_package_polls_total{serial=\"" + rig.serial + "\",result=\"error\"}") == 0);
  CHECK(ex.terminate() == 0);
}

TEST_CASE("App versions: with reset_after_poll the gfxinfo counters equal the simulator's truth") {
  Rig rig;
  Exporter ex({rig.adb.port()}, rig.state.path(), {"--config", rig.config("  reset_after_poll: true\n")});
  const std::string frames = series("android_gfxinfo_frames_rendered_total", rig.serial, kFeed);
  const std::string janky = series("android_gfxinfo_janky_frames_total", rig.serial, kFeed);
  REQUIRE(wait_until([&] { return ex.value(frames) > 0; }, 30000ms, 250ms));
  // A few polls, each resetting, and a process restart in between.
  std::this_thread::sleep_for(3000ms);
  REQUIRE(rig.sim.control("restart " + rig.name + " " + kFeed) == "OK");
  std::this_thread::sleep_for(3000ms);
  REQUIRE(rig.sim.control("pause").rfind("OK", 0) == 0);
  // Once a poll after the pause took the last frames (and reset them), the
  // exporter's counters are every frame any dump showed, each once.
  std::string last;
  const bool equal = wait_until([&] {
    const Json truth = rig.sim.truth();
    const Json* app = DevSim::app(truth, rig.name, kFeed);
    if (app == nullptr) return false;
    const auto s = ex.samples();
    const double f = s.count(frames) ? s.at(frames) : -1, j = s.count(janky) ? s.at(janky) : -1;
    last = "exporter " + std::to_string(f) + "/" + std::to_string(j) + ", truth dumped " +
           std::to_string((*app)["gfx_frames_dumped"].u64()) + "/" +
           std::to_string((*app)["gfx_janky_frames_dumped"].u64()) + ", left in counters " +
           std::to_string((*app)["gfx_total_frames"].u64());
    return (*app)["gfx_total_frames"].u64() == 0 &&
           f == static_cast<double>((*app)["gfx_frames_dumped"].u64()) &&
           j == static_cast<double>((*app)["gfx_janky_frames_dumped"].u64());
  }, 15000ms, 250ms);
  INFO(last);
  CHECK(equal);
  // The resets were ours: no baseline surprise, the restart included (its
  // first dump is counted whole either way).
  CHECK(ex.value(series("android_gfxinfo_baseline_resets_total", rig.serial, kFeed)) == 0);
  REQUIRE(rig.sim.control("resume").rfind("OK", 0) == 0);
  CHECK(ex.terminate() == 0);
}

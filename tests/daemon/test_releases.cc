// Every Android release a farm runs, on the real binary with the real adb
// server (docs/ingest.md, "Android releases"; the simulator answers each
// command as that release's AOSP source does, docs/devsim.md, "Releases"):
// 6.0 to 16 are followed exactly with process names and the foreground app;
// 5.x is reported unsupported with its reason; none loops. And a device that
// answers every command with an error is reported and backs off.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

const std::string kApp = "com.example.feed";

struct Release {
  std::string name;
  int sdk;
};
const std::vector<Release> kReleases = {{"5.0", 21}, {"5.1", 22}, {"6.0", 23}, {"7.0", 24}, {"7.1", 25},
                                        {"8.0", 26}, {"8.1", 27}, {"9", 28},   {"10", 29},  {"11", 30},
                                        {"12", 31},  {"13", 33},  {"14", 34},  {"15", 35},  {"16", 36}};

std::string state_series(const std::string& serial, const std::string& state) {
  return "jank_exporter_device_state{serial=\"" + serial + "\",state=\"" + state + "\"}";
}

}  // namespace

TEST_CASE("compat matrix: Android 6.0 to 16 are followed exactly with process names and the foreground app, 5.x is "
          "unsupported with its reason, none loops") {
  std::string sdks;
  for (const auto& r : kReleases) sdks += (sdks.empty() ? "" : ",") + std::to_string(r.sdk);
  AdbServer adb;
  // The app runs before the exporter starts: its "Start proc" line is history
  // the exporter never counts, so its name can only come from ps.
  DevSim sim({"--devices", std::to_string(kReleases.size()), "--sdk", sdks, "--packages", kApp, "--stall-prob", "0",
              "--log-rate", "1"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 15000ms));

  TempDir state;
  Exporter ex({adb.port()}, state.path());
  INFO(ex.log());
  std::vector<std::string> serials;
  for (const auto& d : sim.devices()) serials.push_back(emulator_serial(d));
  auto expected_state = [&](std::size_t i) { return kReleases[i].sdk < 23 ? "unsupported" : "following"; };
  REQUIRE(wait_until([&] {
    const auto s = ex.samples();
    for (std::size_t i = 0; i < serials.size(); ++i) {
      const auto it = s.find(state_series(serials[i], expected_state(i)));
      if (it == s.end() || it->second != 1) return false;
    }
    return true;
  }, 60000ms, 500ms));

  // One scripted skip each, counted exactly and under the app's name.
  for (std::size_t i = 0; i < serials.size(); ++i) {
    if (kReleases[i].sdk < 23) continue;
    REQUIRE_THAT(sim.control("skip " + sim.devices()[i].name + " " + kApp + " " + std::to_string(40 + i)),
                 Catch::Matchers::StartsWith("OK"));
  }
  auto all_counted = [&] {
    const auto s = ex.samples();
    for (std::size_t i = 0; i < serials.size(); ++i) {
      if (kReleases[i].sdk < 23) continue;
      const auto it = s.find(series("android_choreographer_skipped_frames_total", serials[i], kApp));
      if (it == s.end() || it->second != static_cast<double>(40 + i)) return false;
    }
    return true;
  };
  CHECK(wait_until(all_counted, 30000ms, 500ms));
  // The foreground app, from the window dump each release prints it in.
  auto all_foreground = [&] {
    const auto devices = get_json(ex, "/api/devices");
    if (!devices) return false;
    std::size_t found = 0;
    for (const auto& d : (*devices)["devices"].arr) {
      if (d["foreground"].str == kApp) ++found;
    }
    return found == serials.size() - 2;
  };
  CHECK(wait_until(all_foreground, 30000ms, 500ms));

  const auto s = ex.samples();
  const auto devices = get_json(ex, "/api/devices");
  REQUIRE(devices);
  for (std::size_t i = 0; i < serials.size(); ++i) {
    INFO("Android " << kReleases[i].name << " (API " << kReleases[i].sdk << "), " << serials[i]);
    const auto value = [&](const std::string& name) {
      const auto it = s.find(name);
      return it == s.end() ? -1.0 : it->second;
    };
    CHECK(value(state_series(serials[i], expected_state(i))) == 1);
    // No loop: one session (a 5.x phone is asked again after 30 minutes).
    CHECK(value(series("jank_exporter_device_sessions_total", serials[i])) == 1);
    CHECK(value(series("jank_exporter_logcat_lost_lines_total", serials[i])) <= 0);
    const Json* row = nullptr;
    for (const auto& d : (*devices)["devices"].arr) {
      if (d["serial"].str == serials[i]) row = &d;
    }
    REQUIRE(row);
    if (kReleases[i].sdk < 23) {
      CHECK((*row)["status"].str == "unsupported");
      CHECK_THAT((*row)["status_reason"].str, Catch::Matchers::StartsWith("Android " + kReleases[i].name +
                                                                          " (API " + std::to_string(kReleases[i].sdk) +
                                                                          "): logcat before Android 6.0"));
      CHECK(ex.log().find("device " + serials[i] + ": Android " + kReleases[i].name) != std::string::npos);
      // Nothing set on a phone that is not followed.
      CHECK(value(series("android_choreographer_skipped_frames_total", serials[i], kApp)) == -1);
    } else {
      CHECK((*row)["status_reason"].type == Json::Type::null);
      CHECK((*row)["foreground"].str == kApp);
      // Named by ps: no series under a bare pid.
      for (const auto& [name, v] : s) {
        if (name.find("serial=\"" + serials[i] + "\"") != std::string::npos) {
          CHECK(name.find("package=\"pid:") == std::string::npos);
        }
      }
    }
  }
  CHECK(ex.terminate() == 0);
}

TEST_CASE("a phone that answers every command with an error is reported and asked again at growing intervals") {
  AdbServer adb;
  DevSim sim({"--devices", "1", "--packages", kApp});
  const auto& d = sim.devices()[0];
  adb.emulator(d.port);
  const std::string serial = emulator_serial(d);
  REQUIRE(adb.wait_state(serial, "device", 10000ms));
  REQUIRE_THAT(sim.control("fail " + d.name + " on"), Catch::Matchers::StartsWith("OK"));

  TempDir state;
  const auto started = std::chrono::steady_clock::now();
  Exporter ex({adb.port()}, state.path());
  INFO(ex.log());
  std::this_thread::sleep_until(started + 20s);
  const auto s = ex.samples();
  auto value = [&](const std::string& name) {
    const auto it = s.find(name);
    return it == s.end() ? 0.0 : it->second;
  };
  CHECK(value(state_series(serial, "stalled")) == 1);
  // Why, in the device's words.
  bool reason_found = false;
  for (const auto& [name, v] : s) {
    if (name.rfind("jank_exporter_device_state_reason{serial=\"" + serial + "\"", 0) == 0) {
      CHECK(v == 1);
      // The script's first command is the device-time stamp (docs/metrics.md, "Device commands").
      CHECK_THAT(name, Catch::Matchers::Contains("getprop: exit status 126: /system/bin/sh: echo: can't execute: I/O error"));
      reason_found = true;
    }
  }
  CHECK(reason_found);
  // Backed off (0.5, 1, 2, 4, 8 s …): a handful of sessions, one command each.
  const double sessions = value(series("jank_exporter_device_sessions_total", serial));
  CHECK(sessions >= 3);
  CHECK(sessions <= 7);
  double commands = 0;
  for (const auto& [name, v] : s) {
    if (name.rfind("jank_exporter_device_commands_total{serial=\"" + serial + "\"", 0) == 0) commands += v;
  }
  CHECK(commands == sessions);
  CHECK(commands / 20 < 0.5);
  // Answered again: followed, and the reason is gone.
  REQUIRE_THAT(sim.control("fail " + d.name + " off"), Catch::Matchers::StartsWith("OK"));
  CHECK(wait_until([&] { return ex.value(state_series(serial, "following")) == 1; }, 40000ms, 250ms));
  CHECK(ex.scrape().find("jank_exporter_device_state_reason{serial=\"" + serial + "\"") == std::string::npos);
  CHECK(ex.terminate() == 0);
}

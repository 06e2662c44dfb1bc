// Battery state end to end: the real exporter polls dumpsys battery on
// simulated devices (an Android 14 and an Android 6.0 phone, each printing
// the keys its release has) through Debian's real adb server. Set on the
// control channel, the exported gauges follow; frozen, they equal the
// simulator's truth.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

const Json& device_truth(const Json& truth, const std::string& name) {
  const Json* d = DevSim::device(truth, name);
  if (d == nullptr) FAIL("no device " << name);
  return *d;
}

std::string source_series(const std::string& serial, const std::string& source) {
  return "android_battery_power_source{serial=\"" + serial + "\",source=\"" + source + "\"}";
}

}  // namespace

TEST_CASE("battery level temperature voltage and power source follow the device and equal the truth") {
  AdbServer adb;
  DevSim sim({"--devices", "2", "--sdk", "34,23", "--packages", "com.example.feed", "--log-rate", "2"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/c.yaml";
  std::ofstream(conf) << "battery:\n  poll_interval_seconds: 1\n";
  Exporter ex({adb.port()}, state.path(), {"--config", conf});

  for (const auto& d : sim.devices()) {
    const std::string serial = emulator_serial(d);
    INFO(serial << " (" << d.name << ")");
    const std::string level = series("android_battery_level_ratio", serial);
    const std::string charging = series("android_battery_charging", serial);
    // On a charger, fixed level and temperature: the next polls say so.
    REQUIRE(sim.control("battery " + d.name + " level=42 temp=38.5 plugged=usb rate=0") == "OK");
    CHECK(wait_until([&] {
      const auto s = ex.samples();
      return s.count(level) && std::abs(s.at(level) - 0.42) < 1e-9 && s.count(charging) && s.at(charging) == 1 &&
             s.count(source_series(serial, "usb")) && s.at(source_series(serial, "usb")) == 1;
    }, 30000ms, 250ms));
    // Unplugged: discharging, no source.
    REQUIRE(sim.control("battery " + d.name + " plugged=none") == "OK");
    CHECK(wait_until([&] {
      const auto s = ex.samples();
      return s.count(charging) && s.at(charging) == 0 && s.count(source_series(serial, "none")) &&
             !s.count(source_series(serial, "usb"));
    }, 10000ms, 200ms));
  }

  // Frozen, the exported gauges are the truth's.
  REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
  const Json truth = sim.truth();
  for (const auto& d : sim.devices()) {
    const std::string serial = emulator_serial(d);
    INFO(serial);
    const Json& b = device_truth(truth, d.name)["battery"];
    REQUIRE(b["scale"].num > 0);
    std::string differences;
    const bool equal = wait_until([&] {
      const auto s = ex.samples();
      differences.clear();
      const auto differs = [&](const std::string& key, double want) {
        const auto it = s.find(key);
        if (it != s.end() && std::abs(it->second - want) < 1e-9) return;
        differences += key + " = " + (it == s.end() ? std::string("absent") : std::to_string(it->second)) +
                       ", truth " + std::to_string(want) + "\n";
      };
      differs(series("android_battery_level_ratio", serial), b["level"].num / b["scale"].num);
      differs(series("android_battery_temperature_celsius", serial), b["temperature_celsius"].num);
      differs(series("android_battery_voltage_volts", serial), b["voltage_volts"].num);
      differs(source_series(serial, b["plugged"].str), 1);
      return differences.empty();
    }, 10000ms, 250ms);
    INFO(differences);
    CHECK(equal);
    const auto s = ex.samples();
    CHECK(s.at("jank_exporter_battery_polls_total{serial=\"" + serial + "\",result=\"ok\"}") >= 3);
    CHECK(s.at("jank_exporter_battery_lines_total{serial=\"" + serial + "\",result=\"discarded\"}") == 0);
    CHECK(s.at(series("android_battery_values_forced", serial)) == 0);
  }
  REQUIRE(sim.control("resume").rfind("OK", 0) == 0);
}

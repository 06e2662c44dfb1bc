// Thermal state end to end: the real exporter polls dumpsys thermalservice on
// simulated devices through Debian's real adb server. The status follows a
// throttling episode started on the control channel; the temperatures equal
// the simulator's truth; a device without the service exports none.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

std::string temperature_series(const std::string& serial, const std::string& sensor, const std::string& type) {
  return "android_thermal_temperature_celsius{serial=\"" + serial + "\",sensor=\"" + sensor + "\",type=\"" + type +
         "\"}";
}

const Json& device_truth(const Json& truth, const std::string& name) {
  const Json* d = DevSim::device(truth, name);
  if (d == nullptr) FAIL("no device " << name);
  return *d;
}

}  // namespace

TEST_CASE("the thermal status follows a throttling episode and temperatures equal the truth") {
  AdbServer adb;
  // An Android 14 phone and an Android 9 one (no thermal service).
  DevSim sim({"--devices", "2", "--sdk", "34,28", "--packages", "com.example.feed", "--log-rate", "2"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  const std::string serial = emulator_serial(sim.devices()[0]), old = emulator_serial(sim.devices()[1]);
  const std::string name = sim.devices()[0].name;
  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/c.yaml";
  std::ofstream(conf) << "thermal:\n  poll_interval_seconds: 1\n";
  Exporter ex({adb.port()}, state.path(), {"--config", conf});
  const std::string status = series("android_thermal_status", serial);

  // At rest: a status below severe, and every sensor's temperature.
  REQUIRE(wait_until([&] {
    const auto s = ex.samples();
    return s.count(status) && s.count(temperature_series(serial, "skin", "skin")) &&
           s.count(temperature_series(serial, "cpu", "cpu")) && s.count(temperature_series(serial, "gpu", "gpu")) &&
           s.count(temperature_series(serial, "battery", "battery"));
  }, 30000ms, 250ms));
  CHECK(ex.value(status) < 3);

  // A critical episode: the exporter's next polls say so.
  REQUIRE(sim.control("thermal " + name + " 4") == "OK");
  CHECK(wait_until([&] { return ex.value(status) == 4; }, 10000ms, 200ms));

  // Frozen, the exported temperatures are the truth's (hundredths).
  REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
  const Json thermal = device_truth(sim.truth(), name)["thermal"];
  CHECK(thermal["status"].num == 4);
  CHECK(thermal["episode"].b);
  REQUIRE(thermal["temperatures"].size() == 4);
  std::string differences;
  const bool equal = wait_until([&] {
    const auto s = ex.samples();
    differences.clear();
    for (const Json& t : thermal["temperatures"].arr) {
      static const std::map<double, std::string> kTypes = {{0, "cpu"}, {1, "gpu"}, {2, "battery"}, {3, "skin"}};
      const std::string key = temperature_series(serial, t["name"].str, kTypes.at(t["type"].num));
      const auto it = s.find(key);
      if (it == s.end() || std::abs(it->second - t["value"].num) > 1e-6) {
        differences += key + " = " + (it == s.end() ? std::string("absent") : std::to_string(it->second)) +
                       ", truth " + std::to_string(t["value"].num) + "\n";
      }
    }
    return differences.empty();
  }, 10000ms, 250ms);
  INFO(differences);
  CHECK(equal);
  REQUIRE(sim.control("resume").rfind("OK", 0) == 0);

  // Ended: back to what the skin says.
  REQUIRE(sim.control("thermal " + name + " auto") == "OK");
  CHECK(wait_until([&] { return ex.value(status) < 3; }, 10000ms, 200ms));

  // The Android 9 device: asked once, counted, never shown.
  const auto s = ex.samples();
  CHECK(s.count(series("android_thermal_status", old)) == 0);
  CHECK(s.at("jank_exporter_thermal_polls_total{serial=\"" + old + "\",result=\"unsupported\"}") == 1);
  CHECK(s.at("jank_exporter_thermal_polls_total{serial=\"" + serial + "\",result=\"ok\"}") >= 3);  // at rest, in the episode, after it
  CHECK(s.at("jank_exporter_thermal_lines_total{serial=\"" + serial + "\",result=\"discarded\"}") == 0);
}

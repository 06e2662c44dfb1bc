// The store's thermal reading and counters, their exposition (current only
// while fresh and while the device is there), and the checkpoint.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "exporters/prometheus_collector.h"
#include "metrics/store.h"
#include "metrics/sources/thermal.h"
#include "parsers/thermal.h"

using namespace jank;

namespace {

std::string temperature_line(const std::string& name, int type, const std::string& value, int status = 0) {
  return "\tTemperature{mValue=" + value + ", mType=" + std::to_string(type) + ", mName=" + name +
         ", mStatus=" + std::to_string(status) + "}\n";
}

// An Android 14 dump with the given HAL readings.
std::string dump_with(int status, const std::string& readings) {
  return "IsStatusOverride: false\nThermal Status: " + std::to_string(status) +
         "\nCached temperatures:\nHAL Ready: true\nHAL connection:\n\tThermalHAL AIDL 1  connected: yes\n"
         "Current temperatures from HAL:\n" +
         readings + "Current cooling devices from HAL:\n";
}

std::string exposition(const metrics::Store& store, std::int64_t now = 0) {
  return exporters::StoreCollector(store, [now](const metrics::DeviceMetrics&) { return now; }).Text().str();
}

bool has(const std::string& text, const std::string& line) { return text.find(line + "\n") != std::string::npos; }

}  // namespace

TEST_CASE("thermal store: status and temperatures exported with sensor and type labels", "[thermal][store]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_thermal(store, d, parsers::parse_thermalservice(dump_with(
                              3, temperature_line("VIRTUAL-SKIN", 3, "41.5", 3) + temperature_line("cpu-big", 0, "67.25") +
                                     temperature_line("ibat", 7, "1500.0") + temperature_line("vbat", 6, "3800.0") +
                                     temperature_line("soc", 8, "85.0") + temperature_line("battery", 2, "NaN") +
                                     temperature_line("cpu-big", 0, "70.0") + "\tTemperature{mValue=oops}\n")));
  const std::string text = exposition(store);
  CHECK(has(text, "android_thermal_status{serial=\"s\"} 3"));
  CHECK(has(text, "android_thermal_temperature_celsius{serial=\"s\",sensor=\"VIRTUAL-SKIN\",type=\"skin\"} 41.5"));
  CHECK(has(text, "android_thermal_temperature_celsius{serial=\"s\",sensor=\"cpu-big\",type=\"cpu\"} 67.25"));
  // Battery current limit readings are volts, amps and percent: not temperatures.
  CHECK(text.find("sensor=\"ibat\"") == std::string::npos);
  CHECK(text.find("type=\"bcl_") == std::string::npos);
  CHECK(metrics::thermal_of(d)->temperatures.size() == 2);
  // received = parsed + discarded: every line of the dump, one malformed.
  CHECK(has(text, "jank_exporter_thermal_lines_total{serial=\"s\",result=\"parsed\"} 15"));
  CHECK(has(text, "jank_exporter_thermal_lines_total{serial=\"s\",result=\"discarded\"} 1"));
  CHECK(has(text, "jank_exporter_thermal_readings_dropped_total{serial=\"s\",reason=\"non_finite\"} 1"));
  CHECK(has(text, "jank_exporter_thermal_readings_dropped_total{serial=\"s\",reason=\"duplicate\"} 1"));
  CHECK(has(text, "jank_exporter_thermal_readings_dropped_total{serial=\"s\",reason=\"over_cap\"} 0"));
}

TEST_CASE("thermal store: sensors beyond the cap and over-long names are counted and not exported", "[thermal][store]") {
  metrics::StoreOptions options;
  options.max_thermal_sensors_per_device = 3;
  metrics::Store store(options);
  auto& d = store.device("s");
  std::string readings;
  for (int i = 0; i < 5; ++i) readings += temperature_line("t" + std::to_string(i), 0, "50.0");
  readings += temperature_line(std::string(metrics::kMaxThermalSensorName + 1, 'x'), 3, "30.0");
  metrics::record_thermal(store, d, parsers::parse_thermalservice(dump_with(0, readings)));
  REQUIRE(metrics::thermal_of(d)->temperatures.size() == 3);
  CHECK(metrics::thermal_of(d)->temperatures[2].name == "t2");  // the HAL's first ones
  CHECK(metrics::thermal_of(d)->dropped[static_cast<std::size_t>(metrics::ThermalDrop::over_cap)] == 2);
  CHECK(metrics::thermal_of(d)->dropped[static_cast<std::size_t>(metrics::ThermalDrop::long_name)] == 1);
  // Each dump counts its own drops: a second poll of the same device doubles them.
  metrics::record_thermal(store, d, parsers::parse_thermalservice(dump_with(0, readings)));
  CHECK(metrics::thermal_of(d)->dropped[static_cast<std::size_t>(metrics::ThermalDrop::over_cap)] == 4);
  CHECK(metrics::thermal_of(d)->temperatures.size() == 3);
}

TEST_CASE("thermal store: an answer without thermal state clears the reading and keeps the counters",
          "[thermal][store]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_thermal(store, d, parsers::parse_thermalservice(dump_with(2, temperature_line("skin", 3, "39.5", 2))));
  REQUIRE(metrics::thermal_of(d)->status == 2);
  metrics::record_thermal(store, d, parsers::parse_thermalservice("Can't find service: thermalservice\n"));
  CHECK_FALSE(metrics::thermal_of(d)->status.has_value());
  CHECK(metrics::thermal_of(d)->temperatures.empty());
  CHECK(metrics::thermal_of(d)->dumps == 2);
  const std::string text = exposition(store);
  CHECK(text.find("android_thermal_status") == std::string::npos);
  CHECK(text.find("android_thermal_temperature_celsius") == std::string::npos);
  CHECK(has(text, "jank_exporter_thermal_lines_total{serial=\"s\",result=\"parsed\"} 10"));
  // Android 10 before its first temperature: no status yet, nothing made up.
  metrics::record_thermal(store, d, parsers::parse_thermalservice("Thermal Status: -2147483648\n"));
  CHECK_FALSE(metrics::thermal_of(d)->status.has_value());
}

TEST_CASE("thermal store: a reading is exported while fresh and while the device is there", "[thermal][store]") {
  metrics::Store store;
  auto& d = store.device("s");
  d.live.live = d.live.up = true;
  constexpr std::int64_t kSecond = 1'000'000'000;
  store.set_host_time(1000 * kSecond);
  metrics::record_thermal(store, d, parsers::parse_thermalservice(dump_with(4, temperature_line("skin", 3, "45.0", 4))),
                       60 * kSecond);
  CHECK(metrics::thermal_of(d)->fresh_until_ns == 1060 * kSecond);
  const std::string status = "android_thermal_status{serial=\"s\"} 4";
  CHECK(has(exposition(store, 1060 * kSecond), status));
  // No newer answer for longer than that: the old one is not shown.
  std::string text = exposition(store, 1060 * kSecond + 1);
  CHECK_FALSE(has(text, status));
  CHECK(text.find("android_thermal_temperature_celsius") == std::string::npos);
  CHECK(text.find("jank_exporter_thermal_lines_total") != std::string::npos);  // counters stay
  // A device that went away shows none, however fresh.
  d.live.up = false;
  CHECK_FALSE(has(exposition(store, 1000 * kSecond), status));
  // Replays know no host time: their reading never goes stale.
  metrics::Store replay;
  auto& r = replay.device("s");
  metrics::record_thermal(replay, r, parsers::parse_thermalservice(dump_with(1, "")), 60 * kSecond);
  CHECK(metrics::thermal_of(r)->fresh_until_ns == 0);
  CHECK(has(exposition(replay, 1'000'000 * kSecond), "android_thermal_status{serial=\"s\"} 1"));
}

TEST_CASE("thermal store: the checkpoint keeps the counts and no reading", "[thermal][store][checkpoint]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_thermal(store, d, parsers::parse_thermalservice(dump_with(
                              2, temperature_line("skin", 3, "NaN") + temperature_line("cpu", 0, "50.0") + "Thermal Status: x\n")));
  metrics::Store restored;
  std::string error;
  REQUIRE(restored.load(store.save(), error));
  const auto& r = restored.device("s");
  CHECK(metrics::thermal_of(r)->dumps == 1);
  CHECK(metrics::thermal_of(r)->lines == metrics::thermal_of(d)->lines);
  CHECK(metrics::thermal_of(r)->malformed_lines == metrics::thermal_of(d)->malformed_lines);
  CHECK(metrics::thermal_of(r)->dropped == metrics::thermal_of(d)->dropped);
  CHECK_FALSE(metrics::thermal_of(r)->status.has_value());
  CHECK(metrics::thermal_of(r)->temperatures.empty());
  CHECK(restored.save() == store.save());
  // A device that never had a dump writes no thermal record.
  metrics::Store plain;
  plain.device("t");
  CHECK(plain.save().find("thermal") == std::string::npos);

  // Counts that cannot be true drop the record alone.
  std::string text = store.save();
  const auto at = text.find("thermal ");
  REQUIRE(at != std::string::npos);
  text.replace(at, text.find('\n', at) - at, "thermal 1 2 5 0 0 0 0");  // more malformed than lines
  metrics::Store bad;
  metrics::Store::LoadReport report;
  REQUIRE(bad.load(text, error, &report));
  CHECK(metrics::thermal_of(bad.device("s")) == nullptr);  // the record was dropped
  CHECK(report.rejected_by_record["device_counters"] == 1);
}

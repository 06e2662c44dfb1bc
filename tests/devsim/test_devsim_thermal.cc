// The simulator's `dumpsys thermalservice` against the exporter's parser:
// what the simulated device says is what the parser reads, in the layout of
// every release the simulator knows.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "devsim/thermal_dump.h"
#include "parsers/thermal.h"

using namespace jank::devsim;
namespace parsers = jank::parsers;

namespace {

SimThermal warm_phone() {
  SimThermal t;
  t.status = 2;
  t.temps = {
      {"VIRTUAL-SKIN", 3, 41.5, 2},
      {"cpu-big", 0, 67.25, 0},
      {"gpu", 1, 55.0, 0},
      {"battery", 2, 33.75, 0},
      {"usb", 4, 29.5, 0},
      {"cold-sensor", 18, -4.5, 0},
  };
  t.cooling = {{"cpu-cluster2", 2, 3}, {"battery-charge", 1, 0}};
  return t;
}

}  // namespace

TEST_CASE("devsim thermalservice: every release reads back as it was simulated", "[thermal]") {
  const SimThermal sim = warm_phone();
  for (const int sdk : {29, 30, 31, 32, 33, 34, 35, 36}) {
    INFO("sdk " << sdk);
    const std::string text = format_thermalservice(sdk, sim);
    const parsers::ThermalDump d = parsers::parse_thermalservice(text);
    CHECK(d.recognised);
    CHECK(d.status == 2);
    CHECK(d.status_override == false);
    CHECK(d.hal_ready == true);
    CHECK(d.source == parsers::ThermalSource::hal);
    CHECK(d.malformed_lines == 0);
    CHECK(d.non_finite_values == 0);
    CHECK(d.duplicate_names == 0);
    REQUIRE(d.temperatures.size() == sim.temps.size());
    for (std::size_t i = 0; i < sim.temps.size(); ++i) {
      CHECK(d.temperatures[i].name == sim.temps[i].name);
      CHECK(d.temperatures[i].type == sim.temps[i].type);
      CHECK(d.temperatures[i].value == sim.temps[i].value);  // all exact in a float
      CHECK(d.temperatures[i].status == sim.temps[i].status);
    }
    REQUIRE(d.cooling_devices.size() == 2);
    CHECK(d.cooling_devices[0].name == "cpu-cluster2");
    CHECK(d.cooling_devices[0].value == 3);
    CHECK(d.cooling_devices[1].type == 1);
  }
}

TEST_CASE("devsim thermalservice: the HAL and threshold lines follow the release", "[thermal]") {
  const SimThermal sim = warm_phone();
  const std::string a10 = format_thermalservice(29, sim);
  const std::string a12 = format_thermalservice(31, sim);
  const std::string a13 = format_thermalservice(33, sim);
  const std::string a15 = format_thermalservice(35, sim);
  const std::string a16 = format_thermalservice(36, sim);

  CHECK(a10.find("Temperature static thresholds from HAL:") == std::string::npos);
  CHECK(a12.find("\t{.type = SKIN, .name = VIRTUAL-SKIN, .hotThrottlingThresholds = [NaN, 37.0, 39.0, 41.0, "
                 "44.0, 47.0, 50.0], .coldThrottlingThresholds = [NaN, NaN, NaN, NaN, NaN, NaN, NaN], "
                 ".vrThrottlingThreshold = NaN}\n") != std::string::npos);
  CHECK(a13.find("\tTemperatureThreshold{mType=3, mName=VIRTUAL-SKIN, mHotThrottlingThresholds=[NaN, 37.0, "
                 "39.0, 41.0, 44.0, 47.0, 50.0], mColdThrottlingThresholds=[NaN, NaN, NaN, NaN, NaN, NaN, NaN]}\n") !=
        std::string::npos);
  CHECK(a13.find("Temperature headroom thresholds:") == std::string::npos);
  CHECK(a15.find("Temperature headroom thresholds:\n[NaN, 0.8666667, 0.93333334, 1.0, 1.1, 1.2, 1.3]\n") !=
        std::string::npos);

  CHECK(parsers::parse_thermalservice(a10).hal == "2.0");
  CHECK(parsers::parse_thermalservice(a13).hal == "AIDL 1");
  CHECK(parsers::parse_thermalservice(a15).hal == "AIDL 2");
  CHECK(parsers::parse_thermalservice(a16).hal == "AIDL 3");
  CHECK(a16.find("\tThermalHAL AIDL 3  connected: yes\n") != std::string::npos);
}

TEST_CASE("devsim thermalservice: one small state printed exactly as Android 14 prints it", "[thermal]") {
  SimThermal sim;
  sim.status = 1;
  sim.temps = {{"skin", 3, 38.5, 1}, {"AP", 0, 1.0e7, 0}, {"BAT", 2, 0.0001, 0}};
  // The cache is in name-hash order: "AP" < "BAT" < "skin".
  CHECK(format_thermalservice(34, sim) ==
        "IsStatusOverride: false\n"
        "ThermalEventListeners:\n\tcallbacks: 2\n\tkilled: false\n\tbroadcasts count: -1\n"
        "ThermalStatusListeners:\n\tcallbacks: 3\n\tkilled: false\n\tbroadcasts count: -1\n"
        "Thermal Status: 1\n"
        "Cached temperatures:\n"
        "\tTemperature{mValue=1.0E7, mType=0, mName=AP, mStatus=0}\n"
        "\tTemperature{mValue=1.0E-4, mType=2, mName=BAT, mStatus=0}\n"
        "\tTemperature{mValue=38.5, mType=3, mName=skin, mStatus=1}\n"
        "HAL Ready: true\n"
        "HAL connection:\n\tThermalHAL AIDL 1  connected: yes\n"
        "Current temperatures from HAL:\n"
        "\tTemperature{mValue=38.5, mType=3, mName=skin, mStatus=1}\n"
        "\tTemperature{mValue=1.0E7, mType=0, mName=AP, mStatus=0}\n"
        "\tTemperature{mValue=1.0E-4, mType=2, mName=BAT, mStatus=0}\n"
        "Current cooling devices from HAL:\n"
        "Temperature static thresholds from HAL:\n"
        "\tTemperatureThreshold{mType=3, mName=skin, mHotThrottlingThresholds=[NaN, 37.0, 39.0, 41.0, 44.0, 47.0, "
        "50.0], mColdThrottlingThresholds=[NaN, NaN, NaN, NaN, NaN, NaN, NaN]}\n");
  const parsers::ThermalDump d = parsers::parse_thermalservice(format_thermalservice(34, sim));
  REQUIRE(d.temperatures.size() == 3);
  CHECK(d.temperatures[1].value == 1.0e7);
  CHECK(d.temperatures[2].value == Approx(1.0e-4));
}

TEST_CASE("devsim thermalservice: override and a HAL that is not ready", "[thermal]") {
  SimThermal sim;
  sim.status = 5;
  sim.status_override = true;
  sim.hal_ready = false;
  sim.temps = {{"skin", 3, 30.0, 0}};
  for (const int sdk : {29, 31, 33, 34, 35}) {
    INFO("sdk " << sdk);
    const std::string text = format_thermalservice(sdk, sim);
    const parsers::ThermalDump d = parsers::parse_thermalservice(text);
    CHECK(d.status == 5);
    CHECK(d.status_override == true);
    CHECK(d.hal_ready == false);
    CHECK(d.hal.empty());
    CHECK(d.source == parsers::ThermalSource::cached);
    REQUIRE(d.temperatures.size() == 1);
    CHECK(d.temperatures[0].value == 30.0);
    CHECK(text.find("Current temperatures from HAL:") == std::string::npos);
    CHECK(d.malformed_lines == 0);
  }
  // The headroom array is never filled without a HAL: all zero.
  CHECK(format_thermalservice(35, sim).find("Temperature headroom thresholds:\n[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]\n") !=
        std::string::npos);
}

TEST_CASE("devsim thermalservice: Android 10 without temperatures has no status yet", "[thermal]") {
  SimThermal sim;
  sim.status = 0;
  const std::string a10 = format_thermalservice(29, sim);
  CHECK(a10.find("Thermal Status: -2147483648\n") != std::string::npos);
  const parsers::ThermalDump d10 = parsers::parse_thermalservice(a10);
  CHECK(d10.recognised);
  CHECK_FALSE(d10.status.has_value());
  CHECK(d10.malformed_lines == 0);
  CHECK(d10.source == parsers::ThermalSource::none);
  // Android 11 and later start at none.
  CHECK(parsers::parse_thermalservice(format_thermalservice(30, sim)).status == 0);
}

TEST_CASE("devsim thermalservice: NaN readings and a name the HAL lists twice", "[thermal]") {
  SimThermal sim;
  sim.temps = {{"skin", 3, std::numeric_limits<double>::quiet_NaN(), 0},
               {"cpu", 0, 50.0, 0},
               {"cpu", 0, 51.0, 0}};
  for (const int sdk : {29, 31, 33, 34, 35}) {
    INFO("sdk " << sdk);
    const std::string text = format_thermalservice(sdk, sim);
    CHECK(text.find("\tTemperature{mValue=NaN, mType=3, mName=skin, mStatus=0}\n") != std::string::npos);
    const parsers::ThermalDump d = parsers::parse_thermalservice(text);
    CHECK(d.source == parsers::ThermalSource::hal);
    CHECK(d.non_finite_values == 1);
    CHECK(d.duplicate_names == 1);
    REQUIRE(d.temperatures.size() == 1);
    CHECK(d.temperatures[0].name == "cpu");
    CHECK(d.temperatures[0].value == 50.0);
  }
}

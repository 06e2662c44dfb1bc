#include <catch2/catch.hpp>

#include <string>

#include "parsers/thermal.h"
#include "tests/support/names.h"
#include "tests/support/crlf.h"

using namespace jank::parsers;

namespace {

// Android 10: HAL 2.0, cooling devices, no static thresholds section yet.
constexpr std::string_view kAndroid10 =
    "IsStatusOverride: false\n"
    "ThermalEventListeners:\n"
    "\tcallbacks: 1\n"
    "\tkilled: false\n"
    "\tbroadcasts count: -1\n"
    "ThermalStatusListeners:\n"
    "\tcallbacks: 2\n"
    "\tkilled: false\n"
    "\tbroadcasts count: -1\n"
    "Thermal Status: 1\n"
    "Cached temperatures:\n"
    "\tTemperature{mValue=38.1, mType=3, mName=skin, mStatus=1}\n"
    "\tTemperature{mValue=44.2, mType=0, mName=cpu0, mStatus=0}\n"
    "HAL Ready: true\n"
    "HAL connection:\n"
    "\tThermalHAL 2.0 connected: yes\n"
    "Current temperatures from HAL:\n"
    "\tTemperature{mValue=45.3, mType=0, mName=cpu0, mStatus=0}\n"
    "\tTemperature{mValue=39.4, mType=3, mName=skin, mStatus=1}\n"
    "\tTemperature{mValue=31.0, mType=2, mName=battery, mStatus=0}\n"
    "Current cooling devices from HAL:\n"
    "\tCoolingDevice{mValue=0, mType=2, mName=thermal-cpufreq-0}\n"
    "\tCoolingDevice{mValue=3, mType=3, mName=thermal-devfreq-0}\n";

// Android 12 on a HIDL 2.0 HAL: static thresholds in the HIDL struct's
// own toString form, and a sensor the HAL cannot read (0.0 is a value).
constexpr std::string_view kAndroid12 =
    "IsStatusOverride: false\n"
    "ThermalEventListeners:\n"
    "\tcallbacks: 1\n"
    "\tkilled: false\n"
    "\tbroadcasts count: -1\n"
    "ThermalStatusListeners:\n"
    "\tcallbacks: 4\n"
    "\tkilled: false\n"
    "\tbroadcasts count: -1\n"
    "Thermal Status: 0\n"
    "Cached temperatures:\n"
    "\tTemperature{mValue=27.5, mType=0, mName=AP, mStatus=0}\n"
    "\tTemperature{mValue=26.1, mType=2, mName=BAT, mStatus=0}\n"
    "HAL Ready: true\n"
    "HAL connection:\n"
    "\tThermalHAL 2.0 connected: yes\n"
    "Current temperatures from HAL:\n"
    "\tTemperature{mValue=27.9, mType=0, mName=AP, mStatus=0}\n"
    "\tTemperature{mValue=26.1, mType=2, mName=BAT, mStatus=0}\n"
    "\tTemperature{mValue=25.0, mType=3, mName=LRB, mStatus=0}\n"
    "\tTemperature{mValue=0.0, mType=4, mName=USB, mStatus=0}\n"
    "Current cooling devices from HAL:\n"
    "Temperature static thresholds from HAL:\n"
    "\t{.type = SKIN, .name = LRB, .hotThrottlingThresholds = [NaN, 39.0, 41.0, 43.0, 45.0, 50.0, 55.0], "
    ".coldThrottlingThresholds = [NaN, NaN, NaN, NaN, NaN, NaN, NaN], .vrThrottlingThreshold = NaN}\n";

// Android 14 on the AIDL HAL (note the two blanks before "connected"),
// thresholds in the service's TemperatureThreshold{...} form, newer types.
constexpr std::string_view kAndroid14 =
    "IsStatusOverride: false\n"
    "ThermalEventListeners:\n"
    "\tcallbacks: 3\n"
    "\tkilled: false\n"
    "\tbroadcasts count: -1\n"
    "ThermalStatusListeners:\n"
    "\tcallbacks: 9\n"
    "\tkilled: false\n"
    "\tbroadcasts count: -1\n"
    "Thermal Status: 2\n"
    "Cached temperatures:\n"
    "\tTemperature{mValue=40.2, mType=3, mName=VIRTUAL-SKIN, mStatus=2}\n"
    "HAL Ready: true\n"
    "HAL connection:\n"
    "\tThermalHAL AIDL 1  connected: yes\n"
    "Current temperatures from HAL:\n"
    "\tTemperature{mValue=41.75, mType=3, mName=VIRTUAL-SKIN, mStatus=2}\n"
    "\tTemperature{mValue=58.2, mType=9, mName=TPU, mStatus=0}\n"
    "\tTemperature{mValue=61.4, mType=13, mName=soc_therm, mStatus=0}\n"
    "\tTemperature{mValue=3700.0, mType=6, mName=vbat, mStatus=0}\n"
    "Current cooling devices from HAL:\n"
    "\tCoolingDevice{mValue=2, mType=2, mName=cpu-cluster2}\n"
    "Temperature static thresholds from HAL:\n"
    "\tTemperatureThreshold{mType=3, mName=VIRTUAL-SKIN, mHotThrottlingThresholds=[NaN, 37.0, 39.0, 41.0, "
    "44.0, 47.0, 50.0], mColdThrottlingThresholds=[NaN, NaN, NaN, NaN, NaN, NaN, NaN]}\n";

// Android 16: AIDL HAL version 3 and the headroom thresholds after the
// HAL block, a bare array on a line of its own.
constexpr std::string_view kAndroid16 =
    "IsStatusOverride: false\n"
    "ThermalEventListeners:\n"
    "\tcallbacks: 2\n"
    "\tkilled: false\n"
    "\tbroadcasts count: -1\n"
    "ThermalStatusListeners:\n"
    "\tcallbacks: 5\n"
    "\tkilled: false\n"
    "\tbroadcasts count: -1\n"
    "Thermal Status: 0\n"
    "Cached temperatures:\n"
    "\tTemperature{mValue=33.5, mType=3, mName=skin, mStatus=0}\n"
    "HAL Ready: true\n"
    "HAL connection:\n"
    "\tThermalHAL AIDL 3  connected: yes\n"
    "Current temperatures from HAL:\n"
    "\tTemperature{mValue=34.25, mType=3, mName=skin, mStatus=0}\n"
    "\tTemperature{mValue=29.5, mType=18, mName=ambient, mStatus=0}\n"
    "Current cooling devices from HAL:\n"
    "Temperature static thresholds from HAL:\n"
    "\tTemperatureThreshold{mType=3, mName=skin, mHotThrottlingThresholds=[NaN, 37.0, 39.0, 41.0, 44.0, "
    "47.0, 50.0], mColdThrottlingThresholds=[NaN, NaN, NaN, NaN, NaN, NaN, NaN]}\n"
    "Temperature headroom thresholds:\n"
    "[NaN, 0.8666667, 0.93333334, 1.0, 1.1, 1.2, 1.3]\n";

}  // namespace

TEST_CASE("thermalservice: Android 10 reads status and the HAL list and cooling devices", "[thermal]") {
  const ThermalDump d = parse_thermalservice(kAndroid10);
  CHECK(d.recognised);
  CHECK(d.refusal == ThermalRefusal::none);
  CHECK(d.status == 1);
  CHECK(d.status_override == false);
  CHECK(d.hal_ready == true);
  CHECK(d.hal == "2.0");
  CHECK(d.source == ThermalSource::hal);
  REQUIRE(d.temperatures.size() == 3);
  CHECK(d.temperatures[0].name == "cpu0");
  CHECK(d.temperatures[0].type == 0);
  CHECK(d.temperatures[0].value == Approx(45.3));
  CHECK(d.temperatures[1].name == "skin");
  CHECK(d.temperatures[1].value == Approx(39.4));  // the HAL's reading, not the cached 38.1
  CHECK(d.temperatures[1].status == 1);
  CHECK(d.temperatures[2].name == "battery");
  CHECK(thermal_type_name(d.temperatures[2].type) == "battery");
  REQUIRE(d.cooling_devices.size() == 2);
  CHECK(d.cooling_devices[1].name == "thermal-devfreq-0");
  CHECK(d.cooling_devices[1].type == 3);
  CHECK(d.cooling_devices[1].value == 3);
  CHECK(d.lines == 23);
  CHECK(d.malformed_lines == 0);
  CHECK(d.non_finite_values == 0);
  CHECK(d.duplicate_names == 0);
}

TEST_CASE("thermalservice: Android 10 before the first temperature has no status", "[thermal]") {
  // Android 10 prints Integer.MIN_VALUE until a sensor has reported; that is
  // a value Android prints, so it is not malformed, just not a status.
  const ThermalDump d = parse_thermalservice(
      "IsStatusOverride: false\nThermalEventListeners:\n\tcallbacks: 0\n\tkilled: false\n\tbroadcasts count: -1\n"
      "ThermalStatusListeners:\n\tcallbacks: 1\n\tkilled: false\n\tbroadcasts count: -1\n"
      "Thermal Status: -2147483648\nCached temperatures:\nHAL Ready: false\n");
  CHECK(d.recognised);
  CHECK_FALSE(d.status.has_value());
  CHECK(d.hal_ready == false);
  CHECK(d.hal.empty());
  CHECK(d.source == ThermalSource::none);
  CHECK(d.temperatures.empty());
  CHECK(d.malformed_lines == 0);
  CHECK(d.lines == 12);
}

TEST_CASE("thermalservice: Android 12 skips the HIDL static thresholds", "[thermal]") {
  const ThermalDump d = parse_thermalservice(kAndroid12);
  CHECK(d.status == 0);
  CHECK(d.hal == "2.0");
  CHECK(d.source == ThermalSource::hal);
  REQUIRE(d.temperatures.size() == 4);
  CHECK(d.temperatures[0].name == "AP");
  CHECK(d.temperatures[0].value == Approx(27.9));
  CHECK(d.temperatures[3].name == "USB");
  CHECK(d.temperatures[3].value == 0.0);
  CHECK(thermal_type_name(d.temperatures[3].type) == "usb_port");
  CHECK(d.cooling_devices.empty());
  CHECK(d.malformed_lines == 0);
  CHECK(d.lines == 24);
}

TEST_CASE("thermalservice: Android 14 on the AIDL HAL with newer sensor types", "[thermal]") {
  const ThermalDump d = parse_thermalservice(kAndroid14);
  CHECK(d.status == 2);
  CHECK(d.hal == "AIDL 1");
  REQUIRE(d.temperatures.size() == 4);
  CHECK(d.temperatures[0].name == "VIRTUAL-SKIN");
  CHECK(d.temperatures[0].value == Approx(41.75));
  CHECK(d.temperatures[0].status == 2);
  CHECK(thermal_type_name(d.temperatures[1].type) == "npu");
  CHECK(thermal_type_name(d.temperatures[2].type) == "soc");
  // A battery current limit sensor: millivolts in the value field.
  CHECK(thermal_type_name(d.temperatures[3].type) == "bcl_voltage");
  CHECK(d.temperatures[3].value == 3700.0);
  REQUIRE(d.cooling_devices.size() == 1);
  CHECK(d.cooling_devices[0].value == 2);
  CHECK(d.malformed_lines == 0);
}

TEST_CASE("thermalservice: Android 16 headroom thresholds are not a temperature", "[thermal]") {
  const ThermalDump d = parse_thermalservice(kAndroid16);
  CHECK(d.status == 0);
  CHECK(d.hal == "AIDL 3");
  REQUIRE(d.temperatures.size() == 2);
  CHECK(d.temperatures[0].value == Approx(34.25));
  CHECK(d.temperatures[1].name == "ambient");
  CHECK(thermal_type_name(d.temperatures[1].type) == "ambient");
  CHECK(d.malformed_lines == 0);
  CHECK(d.lines == 23);
}

TEST_CASE("thermalservice: CRLF and extra indentation read the same as LF", "[thermal]") {
  for (const std::string_view dump : {kAndroid10, kAndroid12, kAndroid14, kAndroid16}) {
    const ThermalDump lf = parse_thermalservice(dump);
    const ThermalDump cr = parse_thermalservice(jank::test::crlf(dump));
    CHECK(cr.status == lf.status);
    CHECK(cr.hal == lf.hal);
    CHECK(cr.lines == lf.lines);
    CHECK(cr.malformed_lines == 0);
    REQUIRE(cr.temperatures.size() == lf.temperatures.size());
    for (std::size_t i = 0; i < lf.temperatures.size(); ++i) {
      CHECK(cr.temperatures[i].name == lf.temperatures[i].name);
      CHECK(cr.temperatures[i].value == lf.temperatures[i].value);
    }
  }
  const ThermalDump spaced = parse_thermalservice(
      "  Thermal Status: 3  \r\n   Current temperatures from HAL:\r\n        "
      "Temperature{mValue=47.0, mType=3, mName=skin, mStatus=3}   \r\n");
  CHECK(spaced.status == 3);
  REQUIRE(spaced.temperatures.size() == 1);
  CHECK(spaced.temperatures[0].value == 47.0);
}

TEST_CASE("thermalservice: an overridden status wins over what the sensors say", "[thermal]") {
  // `cmd thermalservice override-status 6` on a cool device.
  const ThermalDump d = parse_thermalservice(
      "IsStatusOverride: true\nThermal Status: 6\nCached temperatures:\n"
      "\tTemperature{mValue=30.0, mType=3, mName=skin, mStatus=0}\nHAL Ready: true\nHAL connection:\n"
      "\tThermalHAL 2.0 connected: yes\nCurrent temperatures from HAL:\n"
      "\tTemperature{mValue=30.5, mType=3, mName=skin, mStatus=0}\n");
  CHECK(d.status_override == true);
  CHECK(d.status == 6);
  CHECK(thermal_status_name(*d.status) == "shutdown");
  REQUIRE(d.temperatures.size() == 1);
  CHECK(d.temperatures[0].status == 0);
}

TEST_CASE("thermalservice: NaN and infinite readings are dropped and counted", "[thermal]") {
  const ThermalDump d = parse_thermalservice(
      "Thermal Status: 0\nCurrent temperatures from HAL:\n"
      "\tTemperature{mValue=NaN, mType=3, mName=skin1, mStatus=0}\n"
      "\tTemperature{mValue=36.5, mType=3, mName=skin2, mStatus=0}\n"
      "\tTemperature{mValue=Infinity, mType=0, mName=cpu0, mStatus=0}\n"
      "\tTemperature{mValue=-Infinity, mType=0, mName=cpu1, mStatus=0}\n"
      "\tTemperature{mValue=1.0E-4, mType=2, mName=battery, mStatus=0}\n"
      "\tTemperature{mValue=-12.5, mType=18, mName=outside, mStatus=0}\n");
  CHECK(d.non_finite_values == 3);
  CHECK(d.malformed_lines == 0);
  REQUIRE(d.temperatures.size() == 3);
  CHECK(d.temperatures[0].name == "skin2");
  CHECK(d.temperatures[1].value == Approx(1.0e-4));
  CHECK(d.temperatures[2].value == -12.5);
}

TEST_CASE("thermalservice: a name listed twice keeps its first reading", "[thermal]") {
  const ThermalDump d = parse_thermalservice(
      "Current temperatures from HAL:\n"
      "\tTemperature{mValue=40.0, mType=3, mName=skin, mStatus=1}\n"
      "\tTemperature{mValue=52.0, mType=0, mName=cpu, mStatus=0}\n"
      "\tTemperature{mValue=41.0, mType=3, mName=skin, mStatus=2}\n");
  CHECK(d.duplicate_names == 1);
  REQUIRE(d.temperatures.size() == 2);
  CHECK(d.temperatures[0].name == "skin");
  CHECK(d.temperatures[0].value == 40.0);
  CHECK(d.temperatures[0].status == 1);
  CHECK(d.temperatures[1].name == "cpu");
}

TEST_CASE("thermalservice: the cache is used when the HAL gives nothing", "[thermal]") {
  // HAL not ready: only the cached list is printed.
  const ThermalDump down = parse_thermalservice(
      "IsStatusOverride: false\nThermal Status: 1\nCached temperatures:\n"
      "\tTemperature{mValue=38.5, mType=3, mName=skin, mStatus=1}\nHAL Ready: false\n");
  CHECK(down.hal_ready == false);
  CHECK(down.source == ThermalSource::cached);
  REQUIRE(down.temperatures.size() == 1);
  CHECK(down.temperatures[0].value == 38.5);

  // HAL ready but its list empty or unusable: the cache again.
  const ThermalDump empty = parse_thermalservice(
      "Cached temperatures:\n\tTemperature{mValue=38.5, mType=3, mName=skin, mStatus=1}\nHAL Ready: true\n"
      "HAL connection:\n\tThermalHAL 1.0 connected: yes\nCurrent temperatures from HAL:\n"
      "\tTemperature{mValue=NaN, mType=3, mName=skin, mStatus=0}\nCurrent cooling devices from HAL:\n");
  CHECK(empty.hal == "1.0");
  CHECK(empty.source == ThermalSource::cached);
  REQUIRE(empty.temperatures.size() == 1);
  CHECK(empty.temperatures[0].value == 38.5);
  CHECK(empty.non_finite_values == 0);  // the discards of the list taken

  // A Temperature{ line outside both lists belongs to neither.
  const ThermalDump stray = parse_thermalservice(
      "Thermal Status: 0\n\tTemperature{mValue=99.0, mType=3, mName=skin, mStatus=0}\n");
  CHECK(stray.temperatures.empty());
  CHECK(stray.source == ThermalSource::none);
}

TEST_CASE("thermalservice: garbage is skipped and bad values of known keys are counted", "[thermal]") {
  const ThermalDump d = parse_thermalservice(
      "\x01\x02 binary junk \xff\n"
      "IsStatusOverride: maybe\n"
      "Thermal Status: 9\n"
      "HAL Ready: yes\n"
      "some vendor line: 12\n"
      "Current temperatures from HAL:\n"
      "\tTemperature{mValue=abc, mType=3, mName=a, mStatus=0}\n"
      "\tTemperature{mValue=30.0, mType=3, mName=, mStatus=0}\n"
      "\tTemperature{mValue=30.0, mType=3, mName=b, mStatus=7}\n"
      "\tTemperature{mValue=30.0, mType=x, mName=c, mStatus=0}\n"
      "\tTemperature{mValue=30.0, mType=3, mName=d}\n"
      "\tTemperature{mValue=30.0, mType=3, mName=e, mStatus=0\n"
      "\tTemperature{mValue=+30.0, mType=3, mName=f, mStatus=0}\n"
      "\tTemperature{mValue=31.5, mType=3, mName=Battery Therm, mStatus=0}\n"
      "\tTemperature{mValue=32.0, mType=3, mName=odd, mStatus=1, mStatus=2}\n"
      "\tnot a temperature\n"
      "Current cooling devices from HAL:\n"
      "\tCoolingDevice{mValue=-, mType=2, mName=cpu}\n"
      "\tCoolingDevice{mValue=1, mType=2, mName=gpu}\n");
  CHECK(d.recognised);
  CHECK_FALSE(d.status.has_value());
  CHECK_FALSE(d.status_override.has_value());
  CHECK_FALSE(d.hal_ready.has_value());
  // 3 keys, 7 temperatures, 1 cooling device.
  CHECK(d.malformed_lines == 11);
  CHECK(d.lines == 19);
  REQUIRE(d.temperatures.size() == 2);
  CHECK(d.temperatures[0].name == "Battery Therm");
  // The name is everything up to the last ", mStatus=".
  CHECK(d.temperatures[1].name == "odd, mStatus=1");
  CHECK(d.temperatures[1].status == 2);
  REQUIRE(d.cooling_devices.size() == 1);
  CHECK(d.cooling_devices[0].name == "gpu");
}

TEST_CASE("thermalservice: only the first of each key counts", "[thermal]") {
  const std::string twice = std::string(kAndroid14) + std::string(kAndroid16);
  const ThermalDump d = parse_thermalservice(twice);
  CHECK(d.status == 2);
  CHECK(d.hal == "AIDL 1");
  // Both HAL lists are read; their names differ, so nothing is dropped.
  CHECK(d.temperatures.size() == 6);
  CHECK(d.duplicate_names == 0);
  CHECK(d.malformed_lines == 0);
}

TEST_CASE("thermalservice: empty answers and refusals are not a dump", "[thermal]") {
  const ThermalDump empty = parse_thermalservice("");
  CHECK_FALSE(empty.recognised);
  CHECK(empty.lines == 0);
  CHECK(empty.refusal == ThermalRefusal::none);

  const ThermalDump blank = parse_thermalservice("\r\n\n");
  CHECK_FALSE(blank.recognised);
  CHECK(blank.lines == 2);

  const ThermalDump denied = parse_thermalservice(
      "Permission Denial: can't dump ThermalManagerService from from pid=4242, uid=10123 due to missing "
      "android.permission.DUMP permission\n");
  CHECK_FALSE(denied.recognised);
  CHECK(denied.refusal == ThermalRefusal::permission_denied);
  CHECK(jank::test::thermal_refusal_name(denied.refusal) == "permission_denied");
  CHECK_FALSE(denied.status.has_value());
  CHECK(denied.temperatures.empty());
  CHECK(denied.malformed_lines == 0);

  const ThermalDump missing = parse_thermalservice("Can't find service: thermalservice\r\n");
  CHECK_FALSE(missing.recognised);
  CHECK(missing.refusal == ThermalRefusal::service_missing);
  CHECK(jank::test::thermal_refusal_name(missing.refusal) == "service_missing");

  const ThermalDump other = parse_thermalservice("Temperature{mValue=30.0, mType=3, mName=skin, mStatus=0}\n");
  CHECK_FALSE(other.recognised);
  CHECK(other.temperatures.empty());
}

TEST_CASE("thermalservice: type and status labels", "[thermal]") {
  CHECK(thermal_type_name(-1) == "unknown");
  CHECK(thermal_type_name(0) == "cpu");
  CHECK(thermal_type_name(3) == "skin");
  CHECK(thermal_type_name(5) == "power_amplifier");
  CHECK(thermal_type_name(8) == "bcl_percentage");
  CHECK(thermal_type_name(10) == "tpu");
  CHECK(thermal_type_name(11) == "display");
  CHECK(thermal_type_name(12) == "modem");
  CHECK(thermal_type_name(14) == "wifi");
  CHECK(thermal_type_name(15) == "camera");
  CHECK(thermal_type_name(16) == "flashlight");
  CHECK(thermal_type_name(17) == "speaker");
  CHECK(thermal_type_name(19) == "pogo");
  CHECK(thermal_type_name(20) == "unknown");
  CHECK(thermal_type_name(-2) == "unknown");
  CHECK(thermal_status_name(0) == "none");
  CHECK(thermal_status_name(3) == "severe");
  CHECK(thermal_status_name(5) == "emergency");
  CHECK(thermal_status_name(7) == "unknown");
}

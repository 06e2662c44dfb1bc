// dumpsys battery: the project's own fixtures in each release's layout
// (docs/parsing.md, "dumpsys battery"), refusals, bad values, and arbitrary
// bytes.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>

#include "parsers/battery.h"
#include "tests/support/crlf.h"

using namespace jank::parsers;

namespace {

// Android 5.1: no charging current, voltage or counter lines yet.
constexpr std::string_view kAndroid5 =
    "Current Battery Service state:\n"
    "  AC powered: false\n"
    "  USB powered: true\n"
    "  Wireless powered: false\n"
    "  status: 2\n"
    "  health: 2\n"
    "  present: true\n"
    "  level: 63\n"
    "  scale: 100\n"
    "  voltage: 3911\n"
    "  temperature: 287\n"
    "  technology: Li-ion\n";

// Android 6.0: the maximum charging current (µA) after the sources.
constexpr std::string_view kAndroid6 =
    "Current Battery Service state:\n"
    "  AC powered: true\n"
    "  USB powered: false\n"
    "  Wireless powered: false\n"
    "  Max charging current: 1800000\n"
    "  status: 5\n"
    "  health: 2\n"
    "  present: true\n"
    "  level: 100\n"
    "  scale: 100\n"
    "  voltage: 4334\n"
    "  temperature: 312\n"
    "  technology: Li-poly\n";

// Android 14: dock line, charging voltage and the charge counter.
constexpr std::string_view kAndroid14 =
    "Current Battery Service state:\n"
    "  AC powered: false\n"
    "  USB powered: false\n"
    "  Wireless powered: false\n"
    "  Dock powered: false\n"
    "  Max charging current: 0\n"
    "  Max charging voltage: 0\n"
    "  Charge counter: 2716000\n"
    "  status: 3\n"
    "  health: 2\n"
    "  present: true\n"
    "  level: 58\n"
    "  scale: 100\n"
    "  voltage: 3872\n"
    "  temperature: 265\n"
    "  technology: Li-ion\n";

// Android 16: broadcast rate-limit lines (one leading blank) and the HAL's
// charging state, policy and capacity level at the end.
constexpr std::string_view kAndroid16 =
    "Current Battery Service state:\n"
    "  AC powered: false\n"
    "  USB powered: false\n"
    "  Wireless powered: true\n"
    "  Dock powered: false\n"
    "  Max charging current: 1100000\n"
    " Time when the latest updated value of the Max charging current was sent via battery changed broadcast: "
    "+2h11m4s208ms\n"
    "  Max charging voltage: 9000000\n"
    "  Charge counter: 3905000\n"
    "  status: 2\n"
    "  health: 2\n"
    "  present: true\n"
    "  level: 81\n"
    "  scale: 100\n"
    "  voltage: 4207\n"
    " Time when the latest updated value of the voltage was sent via battery changed broadcast: +2h10m40s3ms\n"
    " The last voltage value sent via the battery changed broadcast: 4198\n"
    "  temperature: 334\n"
    "  technology: Li-ion\n"
    "  Charging state: 1\n"
    "  Charging policy: 1\n"
    "  Capacity level: 4\n";

}  // namespace

TEST_CASE("battery: Android 5.1 reads the level and temperature and voltage and the sources", "[battery]") {
  const BatteryDump d = parse_battery(kAndroid5);
  CHECK(d.recognised);
  CHECK_FALSE(d.updates_stopped);
  CHECK(d.refusal == BatteryRefusal::none);
  CHECK(d.ac_powered == false);
  CHECK(d.usb_powered == true);
  CHECK(d.wireless_powered == false);
  CHECK_FALSE(d.dock_powered);
  CHECK(battery_plug_name(d) == "usb");
  CHECK(d.status == 2);
  CHECK(battery_status_name(*d.status) == "charging");
  CHECK(d.health == 2);
  CHECK(battery_health_name(*d.health) == "good");
  CHECK(d.present == true);
  CHECK(d.level == 63);
  CHECK(d.scale == 100);
  CHECK(d.level_fraction == 0.63);
  CHECK(d.voltage_volts == 3.911);
  CHECK(d.temperature_celsius == 28.7);
  CHECK_FALSE(d.max_charging_current_ua);
  CHECK_FALSE(d.max_charging_voltage_uv);
  CHECK_FALSE(d.charge_counter_uah);
  CHECK_FALSE(d.charging_state);
  CHECK(d.lines == 12);
  CHECK(d.malformed_lines == 0);
}

TEST_CASE("battery: Android 6.0 adds the maximum charging current", "[battery]") {
  const BatteryDump d = parse_battery(kAndroid6);
  CHECK(d.recognised);
  CHECK(battery_plug_name(d) == "ac");
  CHECK(d.max_charging_current_ua == 1800000);
  CHECK_FALSE(d.max_charging_voltage_uv);
  CHECK(battery_status_name(*d.status) == "full");
  CHECK(d.level_fraction == 1.0);
  CHECK(d.voltage_volts == 4.334);
  CHECK(d.temperature_celsius == 31.2);
  CHECK(d.malformed_lines == 0);
}

TEST_CASE("battery: Android 14 on battery power with the dock line and counter", "[battery]") {
  const BatteryDump d = parse_battery(kAndroid14);
  CHECK(d.recognised);
  CHECK(d.dock_powered == false);
  CHECK(battery_plug_name(d) == "none");
  CHECK(battery_status_name(*d.status) == "discharging");
  CHECK(d.max_charging_current_ua == 0);
  CHECK(d.max_charging_voltage_uv == 0);
  CHECK(d.charge_counter_uah == 2716000);
  CHECK(d.level == 58);
  CHECK(d.level_fraction == 0.58);
  CHECK(d.voltage_volts == 3.872);
  CHECK(d.temperature_celsius == 26.5);
  CHECK(d.lines == 16);
  CHECK(d.malformed_lines == 0);
}

TEST_CASE("battery: Android 16 skips the broadcast lines and reads the HAL's charging fields", "[battery]") {
  const BatteryDump d = parse_battery(kAndroid16);
  CHECK(d.recognised);
  CHECK(battery_plug_name(d) == "wireless");
  CHECK(d.max_charging_current_ua == 1100000);
  CHECK(d.max_charging_voltage_uv == 9000000);
  CHECK(d.charge_counter_uah == 3905000);
  CHECK(d.voltage_volts == 4.207);  // not the broadcast's 4198
  CHECK(d.temperature_celsius == 33.4);
  CHECK(d.charging_state == 1);
  CHECK(d.charging_policy == 1);
  CHECK(d.capacity_level == 4);
  CHECK(d.malformed_lines == 0);
}

TEST_CASE("battery: values forced with dumpsys battery set are flagged", "[battery]") {
  const std::string forced = "Current Battery Service state:\n"
                             "  (UPDATES STOPPED -- use 'reset' to restart)\n"
                             "  AC powered: false\n"
                             "  USB powered: false\n"
                             "  Wireless powered: false\n"
                             "  Max charging current: 0\n"
                             "  Max charging voltage: 0\n"
                             "  Charge counter: 0\n"
                             "  status: 4\n"
                             "  health: 2\n"
                             "  present: true\n"
                             "  level: 5\n"
                             "  scale: 100\n"
                             "  voltage: 3611\n"
                             "  temperature: 250\n"
                             "  technology: Li-ion\n";
  const BatteryDump d = parse_battery(forced);
  CHECK(d.recognised);
  CHECK(d.updates_stopped);
  CHECK(battery_status_name(*d.status) == "not_charging");
  CHECK(d.level == 5);
  CHECK(d.malformed_lines == 0);
  // The marker means nothing outside the battery section.
  CHECK_FALSE(parse_battery("  (UPDATES STOPPED -- use 'reset' to restart)\n").updates_stopped);
}

TEST_CASE("battery: a missing service and a refused dump are not a dump", "[battery]") {
  const BatteryDump missing = parse_battery("Can't find service: battery\n");
  CHECK_FALSE(missing.recognised);
  CHECK(missing.refusal == BatteryRefusal::service_missing);
  CHECK(battery_refusal_name(missing.refusal) == "service_missing");
  CHECK_FALSE(missing.level);
  CHECK(missing.lines == 1);
  CHECK(missing.malformed_lines == 0);

  const BatteryDump denied = parse_battery(
      "Permission Denial: can't dump Battery service from from pid=4242, uid=10071\n");
  CHECK_FALSE(denied.recognised);
  CHECK(denied.refusal == BatteryRefusal::permission_denied);
  CHECK(battery_refusal_name(denied.refusal) == "permission_denied");

  const BatteryDump empty = parse_battery("");
  CHECK_FALSE(empty.recognised);
  CHECK(empty.refusal == BatteryRefusal::none);
  CHECK(empty.lines == 0);
  CHECK(battery_plug_name(empty) == "unknown");
}

TEST_CASE("battery: keys without the header are not read", "[battery]") {
  const BatteryDump d = parse_battery("  level: 50\n  scale: 100\n  status: 2\n  temperature: nope\n");
  CHECK_FALSE(d.recognised);
  CHECK_FALSE(d.level);
  CHECK_FALSE(d.status);
  CHECK(d.lines == 4);
  CHECK(d.malformed_lines == 0);
}

TEST_CASE("battery: bad and out-of-range values are counted and left unset", "[battery]") {
  const std::string bad = "Current Battery Service state:\n"
                          "  AC powered: yes\n"          // not a Java boolean
                          "  USB powered: false\n"
                          "  Max charging current: 99999999999\n"  // beyond a Java int
                          "  status: 9\n"                // no such status
                          "  health: 0\n"                // no such health
                          "  present: 1\n"
                          "  level: 101\n"               // above the scale
                          "  scale: 100\n"
                          "  voltage: 4123000\n"         // µV printed as mV: 4123 V
                          "  temperature: 2001\n"        // 200.1 °C
                          "  Charge counter: 12.5\n"
                          "  Charging state:\n"
                          "  technology: \n"             // not read: never malformed
                          "  flux capacitor: 88\n"       // unknown key: ignored
                          "just some words\n";
  const BatteryDump d = parse_battery(bad);
  CHECK(d.recognised);
  CHECK_FALSE(d.ac_powered);
  CHECK(d.usb_powered == false);
  CHECK_FALSE(d.max_charging_current_ua);
  CHECK_FALSE(d.status);
  CHECK_FALSE(d.health);
  CHECK_FALSE(d.present);
  CHECK_FALSE(d.level);
  CHECK_FALSE(d.level_fraction);
  CHECK(d.scale == 100);
  CHECK_FALSE(d.voltage_volts);
  CHECK_FALSE(d.temperature_celsius);
  CHECK_FALSE(d.charge_counter_uah);
  CHECK_FALSE(d.charging_state);
  CHECK(d.malformed_lines == 10);
  CHECK(d.lines == 16);
}

TEST_CASE("battery: the level is checked against the scale and the bounds are inclusive", "[battery]") {
  const BatteryDump zero_scale = parse_battery("Current Battery Service state:\n  level: 40\n  scale: 0\n");
  CHECK_FALSE(zero_scale.scale);
  CHECK(zero_scale.level == 40);  // still a percentage
  CHECK_FALSE(zero_scale.level_fraction);
  CHECK(zero_scale.malformed_lines == 1);

  const BatteryDump odd_scale = parse_battery("Current Battery Service state:\n  level: 150\n  scale: 200\n");
  CHECK(odd_scale.level == 150);
  CHECK(odd_scale.level_fraction == 0.75);

  const BatteryDump negative = parse_battery("Current Battery Service state:\n  level: -1\n  scale: 100\n");
  CHECK_FALSE(negative.level);
  CHECK(negative.malformed_lines == 1);

  const BatteryDump edges = parse_battery("Current Battery Service state:\n  temperature: -2000\n  voltage: 20000\n"
                                          "  level: 0\n  scale: 100\n");
  CHECK(edges.temperature_celsius == -200.0);
  CHECK(edges.voltage_volts == 20.0);
  CHECK(edges.level_fraction == 0.0);
  CHECK(edges.malformed_lines == 0);

  const BatteryDump cold = parse_battery("Current Battery Service state:\n  temperature: -45\n  voltage: -1\n");
  CHECK(cold.temperature_celsius == -4.5);
  CHECK_FALSE(cold.voltage_volts);
  CHECK(cold.malformed_lines == 1);
}

TEST_CASE("battery: CRLF and extra indentation read the same as LF", "[battery]") {
  const BatteryDump lf = parse_battery(kAndroid14);
  const BatteryDump cr = parse_battery(jank::test::crlf(kAndroid14));
  CHECK(cr.recognised);
  CHECK(cr.level == lf.level);
  CHECK(cr.temperature_celsius == lf.temperature_celsius);
  CHECK(cr.dock_powered == lf.dock_powered);
  CHECK(cr.lines == lf.lines);
  CHECK(cr.malformed_lines == 0);
  const BatteryDump tabs =
      parse_battery("\xEF\xBB\xBF" "Current Battery Service state:\n\tlevel: 12\t\n\t\tscale: 100\n");
  CHECK(tabs.recognised);
  CHECK(tabs.level == 12);
}

TEST_CASE("battery: only the first of each key counts and the section ends at the next service", "[battery]") {
  const std::string twice = std::string(kAndroid14) + std::string(kAndroid6);
  const BatteryDump d = parse_battery(twice);
  CHECK(d.level == 58);
  CHECK(d.max_charging_current_ua == 0);
  CHECK(d.malformed_lines == 0);

  // A bugreport-style dump of several services: a later service's "level:"
  // or "status:" is not the battery's.
  const std::string separator(79, '-');
  const BatteryDump cut =
      parse_battery("DUMP OF SERVICE battery:\nCurrent Battery Service state:\n  AC powered: true\n" + separator +
                    "\nDUMP OF SERVICE batterystats:\n  level: 7\n  status: bogus\n");
  CHECK(cut.ac_powered == true);
  CHECK_FALSE(cut.level);
  CHECK_FALSE(cut.status);
  CHECK(cut.malformed_lines == 0);

  // Vendor lines that look like keys but are not BatteryService's.
  const BatteryDump vendor = parse_battery("Current Battery Service state:\n  mBootCompleted: true\n"
                                           "  Charge counter: 2000\n  charge counter: x\n  current now: -321\n"
                                           "USE_FAKE_BATTERY: false\n");
  CHECK(vendor.charge_counter_uah == 2000);
  CHECK(vendor.malformed_lines == 0);
}

TEST_CASE("battery: several sources online rank as BatteryService ranks them", "[battery]") {
  BatteryDump d;
  d.usb_powered = true;
  d.dock_powered = true;
  CHECK(battery_plug_name(d) == "usb");
  d.ac_powered = true;
  CHECK(battery_plug_name(d) == "ac");
  d = BatteryDump{};
  d.dock_powered = true;
  CHECK(battery_plug_name(d) == "dock");
}

TEST_CASE("battery: status and health labels", "[battery]") {
  CHECK(battery_status_name(1) == "unknown");
  CHECK(battery_status_name(3) == "discharging");
  CHECK(battery_status_name(0) == "invalid");
  CHECK(battery_status_name(6) == "invalid");
  CHECK(battery_health_name(1) == "unknown");
  CHECK(battery_health_name(3) == "overheat");
  CHECK(battery_health_name(4) == "dead");
  CHECK(battery_health_name(5) == "over_voltage");
  CHECK(battery_health_name(6) == "unspecified_failure");
  CHECK(battery_health_name(7) == "cold");
  CHECK(battery_health_name(8) == "invalid");
  CHECK(battery_refusal_name(BatteryRefusal::none) == "none");
}

TEST_CASE("battery: random bytes never crash and the counts stay consistent", "[battery][hostile]") {
  std::mt19937_64 rng(0xba77e5);
  // Bytes biased towards the dump's own alphabet, so that keys and values
  // are hit often, and half of the inputs start with the header.
  constexpr std::string_view kAlphabet = "Current Battery Service state:\n level scale voltage temperature status "
                                         "health present AC USB Wireless Dock powered true false -0123456789\r\t";
  for (int round = 0; round < 3000; ++round) {
    std::string text = round % 2 == 0 ? "Current Battery Service state:\n" : "";
    const std::size_t n = rng() % 400;
    for (std::size_t i = 0; i < n; ++i) {
      const auto r = rng();
      text += (r & 1) ? kAlphabet[(r >> 1) % kAlphabet.size()] : static_cast<char>(r >> 8);
    }
    const BatteryDump d = parse_battery(text);
    INFO("round " << round);
    REQUIRE(d.malformed_lines <= d.lines);
    if (!d.recognised) {
      REQUIRE(d.malformed_lines == 0);
      REQUIRE_FALSE(d.level);
      REQUIRE_FALSE(d.status);
      REQUIRE_FALSE(d.temperature_celsius);
    }
    if (d.level_fraction) {
      REQUIRE(*d.level_fraction >= 0.0);
      REQUIRE(*d.level_fraction <= 1.0);
    }
    if (d.level && d.scale) REQUIRE(*d.level <= *d.scale);
    if (d.scale) REQUIRE(*d.scale > 0);
    if (d.status) REQUIRE((*d.status >= 1 && *d.status <= 5));
    if (d.health) REQUIRE((*d.health >= 1 && *d.health <= 7));
    if (d.temperature_celsius) REQUIRE((*d.temperature_celsius >= -200.0 && *d.temperature_celsius <= 200.0));
    if (d.voltage_volts) REQUIRE((*d.voltage_volts >= 0.0 && *d.voltage_volts <= 20.0));
    const BatteryDump again = parse_battery(jank::test::crlf(text));
    REQUIRE(again.lines == d.lines);
    REQUIRE(again.malformed_lines == d.malformed_lines);
    REQUIRE(again.level == d.level);
  }
}

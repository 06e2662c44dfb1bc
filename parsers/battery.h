// Battery state from `dumpsys battery` (BatteryService.dumpInternal, every
// release from 5.0). The layout, Android 14's for instance:
//   Current Battery Service state:
//     (UPDATES STOPPED -- use 'reset' to restart)   after `dumpsys battery set|unplug`
//     AC powered: false
//     USB powered: true
//     Wireless powered: false
//     Dock powered: false                           14+
//     Max charging current: 500000                  6.0+, µA
//     Max charging voltage: 5000000                 7.0+, µV
//     Charge counter: 2950000                       7.0+, µAh
//     status: 2                                     BatteryManager.BATTERY_STATUS_*
//     health: 2                                     BatteryManager.BATTERY_HEALTH_*
//     present: true
//     level: 74
//     scale: 100
//     voltage: 4012                                 mV
//     temperature: 294                              tenths of a degree Celsius
//     technology: Li-ion
//     Charging state: 1                             15+ (AIDL BatteryChargingState)
//     Charging policy: 1                            15+ (AIDL BatteryChargingPolicy)
//     Capacity level: 3                             16  (BatteryCapacityLevel)
// Keys are matched exactly (case included) after the header; vendor lines
// (Samsung's lower-case "charge counter:", "mBootCompleted:", ...) are
// unknown keys and skipped. docs/parsing.md, "dumpsys battery", lists the
// releases and the sources.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace jank::parsers {

// Why an answer holds no battery state.
enum class BatteryRefusal : std::uint8_t {
  none,
  permission_denied,  // "Permission Denial: can't dump ..." (no DUMP permission)
  service_missing,    // dumpsys: "Can't find service: battery"
};

struct BatteryDump {
  // The header "Current Battery Service state:" was seen. Keys count only
  // after it: without it nothing below is set and nothing is malformed.
  bool recognised = false;
  // "(UPDATES STOPPED -- use 'reset' to restart)": the values were forced with
  // `dumpsys battery set|unplug` and are not the hardware's until `reset`.
  bool updates_stopped = false;
  BatteryRefusal refusal = BatteryRefusal::none;

  // Power sources ("AC powered:" ... "Dock powered:"); each unset when its
  // line is missing (Dock before Android 14) or malformed.
  std::optional<bool> ac_powered;
  std::optional<bool> usb_powered;
  std::optional<bool> wireless_powered;
  std::optional<bool> dock_powered;

  std::optional<int> status;  // 1..5, battery_status_name
  std::optional<int> health;  // 1..7, battery_health_name
  std::optional<bool> present;

  std::optional<int> level;  // 0..scale
  std::optional<int> scale;  // > 0 (100 on every AOSP release)
  // level / scale, in 0..1: set only when both are.
  std::optional<double> level_fraction;

  std::optional<double> temperature_celsius;  // printed in tenths; within ±200 °C
  std::optional<double> voltage_volts;        // printed in mV; within 0..20 V

  // Java ints as printed, units as the HAL reports them.
  std::optional<std::int32_t> max_charging_current_ua;
  std::optional<std::int32_t> max_charging_voltage_uv;
  std::optional<std::int32_t> charge_counter_uah;
  std::optional<std::int32_t> charging_state;   // android.hardware.health BatteryChargingState
  std::optional<std::int32_t> charging_policy;  // android.hardware.health BatteryChargingPolicy
  std::optional<std::int32_t> capacity_level;   // android.hardware.health BatteryCapacityLevel

  std::uint64_t lines = 0;  // lines read
  // Lines of a known key, after the header, whose value no Android prints or
  // is out of range: not a Java boolean or int, status outside 1..5, health
  // outside 1..7, scale <= 0, level outside 0..scale (0..100 without a
  // scale), temperature beyond ±200 °C, voltage outside 0..20 V. The value
  // is left unset. Only the first line of each key counts (a second dump
  // pasted after the first changes nothing), so malformed_lines <= lines.
  std::uint64_t malformed_lines = 0;
};

BatteryDump parse_battery(std::string_view text);

// BatteryManager.BATTERY_STATUS_*: "unknown" (1), "charging", "discharging",
// "not_charging", "full" (5); "invalid" for any other number.
std::string_view battery_status_name(int status);

// BatteryManager.BATTERY_HEALTH_*: "unknown" (1), "good", "overheat", "dead",
// "over_voltage", "unspecified_failure", "cold" (7); "invalid" otherwise.
std::string_view battery_health_name(int health);

// The power source as BatteryService ranks them when more than one is
// online (AC, then USB, then wireless, then dock): "ac", "usb", "wireless",
// "dock"; "none" when every source line read says false; "unknown" when the
// dump has no source line at all.
std::string_view battery_plug_name(const BatteryDump& d);

std::string_view battery_refusal_name(BatteryRefusal r);

}  // namespace jank::parsers

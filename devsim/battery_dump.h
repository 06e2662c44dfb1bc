// The simulator's `dumpsys battery`: a device's battery printed as
// BatteryService.dumpInternal prints it on each release from 5.0 (sdk 21)
// to 16 (sdk 36), so that the exporter's parser can be run against every
// one of them. docs/devsim.md, "Releases", has the layouts and sources.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jank::devsim {

// The charger online, as the health HAL reports it (one at a time here).
enum class SimPlug : std::uint8_t { none, ac, usb, wireless, dock };

std::string_view sim_plug_name(SimPlug p);
std::optional<SimPlug> sim_plug_from_name(std::string_view name);

// What BatteryService holds: the health HAL's last report (its HealthInfo)
// and the service's own scale.
struct SimBattery {
  bool updates_stopped = false;  // after `dumpsys battery set|unplug` (not simulated: format tests only)
  SimPlug plugged = SimPlug::none;
  std::int32_t max_charging_current_ua = 0;  // 0 when nothing is plugged
  std::int32_t max_charging_voltage_uv = 0;
  std::int32_t charge_counter_uah = 0;
  int status = 3;  // BatteryManager.BATTERY_STATUS_*: 2 charging, 3 discharging, 5 full
  int health = 2;  // BatteryManager.BATTERY_HEALTH_GOOD
  bool present = true;
  int level = 80;
  int scale = 100;  // BatteryService.BATTERY_SCALE, 100 on every release
  std::int32_t voltage_mv = 3900;
  std::int32_t temperature_tenths = 250;  // tenths of a degree Celsius
  std::string technology = "Li-ion";
  int charging_state = 1;   // AIDL BatteryChargingState.NORMAL (15+)
  int charging_policy = 1;  // AIDL BatteryChargingPolicy.DEFAULT (15+)
  int capacity_level = 3;   // AIDL BatteryCapacityLevel.NORMAL (16)
  // Android 16's rate-limit lines: elapsedRealtime (ms) of the last battery
  // changed broadcast that carried a new max current / voltage, and that voltage.
  std::int64_t current_broadcast_ms = 0;
  std::int64_t voltage_broadcast_ms = 0;
  std::int32_t broadcast_voltage_mv = 3900;
};

// What `dumpsys battery` prints on that release (sdk below 21 is printed as
// 21, above 36 as 36).
std::string format_battery(int sdk, const SimBattery& battery);

// android.util.TimeUtils.formatDuration(long): "+1h2m3s4ms", "+500ms", "0".
std::string java_format_duration(std::int64_t ms);

// The control channel's `battery DEV key=value…` (docs/devsim.md): each
// field set only when given.
struct BatteryControl {
  std::optional<int> level;                // 0..100
  std::optional<double> temperature;       // °C, -40..100
  bool temperature_auto = false;           // `temp=auto`: follow the thermal model again
  std::optional<SimPlug> plugged;
  std::optional<double> rate_pct_per_hour;  // 0..1000
  bool rate_auto = false;                  // `rate=auto`: the model's rates again
};

// Parses the arguments after DEV; nullopt when any is not understood or none is given.
std::optional<BatteryControl> parse_battery_control(const std::vector<std::string>& args);

}  // namespace jank::devsim

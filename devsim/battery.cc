// The simulated device's battery: a fuel gauge that drains while nothing is
// plugged (faster with the screen on and apps drawing) and fills from a
// charger, the temperature of the thermal model's battery sensor, a voltage
// that follows the charge, and what BatteryService's last battery changed
// broadcast carried. docs/devsim.md, "Battery".
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

#include "devsim/json.h"
#include "devsim/model.h"

namespace jank::devsim {
namespace {

constexpr double kDesignCapacityUah = 4'500'000;  // a 4500 mAh phone

// BatteryManager.BATTERY_STATUS_* and BATTERY_HEALTH_GOOD.
constexpr int kStatusCharging = 2, kStatusDischarging = 3, kStatusFull = 5;
constexpr int kHealthGood = 2;

// Percent per hour, unplugged: a lit idle phone, each unit of load (an app
// drawing 1, a game 3, as in the thermal model), and a dark one.
constexpr double kDrainLit = 8, kDrainPerLoad = 3, kDrainDark = 1.5;

struct Charger {
  double pct_per_hour;
  std::int32_t max_current_ua;  // what the HAL reads from the charger's current_max / voltage_max
  std::int32_t max_voltage_uv;
};

Charger charger(SimPlug p) {
  switch (p) {
    case SimPlug::none: return {0, 0, 0};
    case SimPlug::usb: return {15, 500'000, 5'000'000};
    case SimPlug::ac: return {60, 3'000'000, 9'000'000};
    case SimPlug::wireless: return {25, 1'100'000, 9'000'000};
    case SimPlug::dock: return {40, 1'500'000, 5'000'000};
  }
  return {0, 0, 0};
}

// BatteryCapacityLevel (android.hardware.health): the kernel's
// capacity_level; the thresholds are the driver's, these representative.
int capacity_level(int level) {
  if (level >= 100) return 5;  // FULL
  if (level >= 80) return 4;   // HIGH
  if (level > 15) return 3;    // NORMAL
  if (level > 5) return 2;     // LOW
  return 1;                    // CRITICAL
}

// BatteryService.rateLimitBatteryChangedBroadcast's thresholds (Android 16's dump).
constexpr std::int64_t kVoltageBroadcastGapNs = 20'000'000'000;  // TIME_DIFF_FOR_VOLTAGE_UPDATE_MS
constexpr double kVoltageBroadcastStep = 0.01;                    // BASE_POINT_DIFF_FOR_VOLTAGE_UPDATE
constexpr int kTemperatureBroadcastStep = 10;                     // ABSOLUTE_DECI_CELSIUS_DIFF_FOR_TEMP_UPDATE

}  // namespace

void Device::init_battery() {
  // A random engine of its own, so that the model's other draws stay as they were.
  std::mt19937_64 rng(cfg_.seed ^ 0x626174746572792eULL);
  battery_.charge_pct = 55 + 40 * std::uniform_real_distribution<double>(0, 1)(rng);
  battery_.at = sim_time_;
  battery_broadcast(sim_time_);
}

double Device::battery_rate_pct_per_hour() const {
  if (battery_.plugged != SimPlug::none) {
    return battery_.rate ? *battery_.rate : charger(battery_.plugged).pct_per_hour;
  }
  if (battery_.rate) return -*battery_.rate;
  if (screen_ != Screen::on) return -kDrainDark;
  double load = 0;
  for (const auto& a : apps_) {
    if (a.pid != 0 && draws(a)) load += a.cfg.game_fps > 0 ? 3 : 1;
  }
  return -(kDrainLit + kDrainPerLoad * load);
}

void Device::update_battery(std::int64_t now) {
  if (now < battery_.at) {
    // Monotonic time went back (a reboot): the gauge keeps its charge,
    // BatteryService starts again with a first broadcast.
    battery_.at = now;
    battery_.broadcast = false;
    battery_broadcast(now);
    return;
  }
  const std::int64_t dt = now - battery_.at;
  if (dt <= 0) return;
  battery_.at = now;
  const double hours = static_cast<double>(dt) / 3.6e12;
  battery_.charge_pct = std::clamp(battery_.charge_pct + battery_rate_pct_per_hour() * hours, 0.0, 100.0);
  battery_broadcast(now);
}

SimBattery Device::battery() const {
  SimBattery b;
  b.plugged = battery_.plugged;
  b.level = std::clamp(static_cast<int>(std::lround(battery_.charge_pct)), 0, 100);
  b.scale = 100;
  const Charger c = charger(battery_.plugged);
  b.max_charging_current_ua = c.max_current_ua;
  b.max_charging_voltage_uv = c.max_voltage_uv;
  b.status = battery_.plugged == SimPlug::none ? kStatusDischarging : b.level >= 100 ? kStatusFull : kStatusCharging;
  b.health = kHealthGood;
  b.present = true;
  // A Li-ion cell from 3.5 V empty to 4.2 V full, a little higher while charging.
  b.voltage_mv = 3500 + 7 * b.level + (b.status == kStatusCharging ? 80 : 0);
  b.charge_counter_uah = static_cast<std::int32_t>(std::lround(battery_.charge_pct / 100 * kDesignCapacityUah));
  double celsius = battery_.fixed_celsius.value_or(0);
  if (!battery_.fixed_celsius) {
    // The thermal model's battery sensor as thermalservice prints it
    // (hundredths), so that both dumps tell the same temperature.
    for (const auto& s : sensors_) {
      if (std::string_view(s.name) == "battery") celsius = std::round(s.value * 100) / 100;
    }
  }
  // healthd reads tenths of a degree from the kernel.
  b.temperature_tenths = static_cast<std::int32_t>(std::lround(celsius * 10));
  b.charging_state = 1;   // NORMAL
  b.charging_policy = 1;  // DEFAULT
  b.capacity_level = capacity_level(b.level);
  if (battery_.broadcast) {
    b.current_broadcast_ms = battery_.current_sent_at / 1'000'000;
    b.voltage_broadcast_ms = battery_.voltage_sent_at / 1'000'000;
    b.broadcast_voltage_mv = battery_.sent.voltage_mv;
  }
  return b;
}

void Device::battery_broadcast(std::int64_t now) {
  // BatteryService sends ACTION_BATTERY_CHANGED when a state changes, and
  // for voltage (1 %, at least 20 s apart) or temperature (1 °C) alone;
  // Android 16 prints when the last one carried a new voltage or current.
  const SimBattery b = battery();
  BatteryModel& m = battery_;
  if (!m.broadcast) {
    m.broadcast = true;
    m.sent = b;
    m.current_sent_at = m.voltage_sent_at = now;
    return;
  }
  const SimBattery& last = m.sent;
  const bool voltage_changed = b.voltage_mv != last.voltage_mv;
  const bool current_changed = b.max_charging_current_ua != last.max_charging_current_ua;
  const bool others = b.level != last.level || b.status != last.status || b.plugged != last.plugged ||
                      b.health != last.health || b.present != last.present ||
                      b.max_charging_voltage_uv != last.max_charging_voltage_uv;
  const bool voltage_due = voltage_changed &&
                           std::abs(last.voltage_mv - b.voltage_mv) >= kVoltageBroadcastStep * last.voltage_mv &&
                           now - m.voltage_sent_at >= kVoltageBroadcastGapNs;
  const bool temperature_due = std::abs(b.temperature_tenths - last.temperature_tenths) >= kTemperatureBroadcastStep;
  if (!others && !voltage_due && !temperature_due) return;
  if (voltage_changed) m.voltage_sent_at = now;
  if (current_changed) m.current_sent_at = now;
  m.sent = b;
}

std::string Device::set_battery(const BatteryControl& c) {
  // BATTERY_PLUGGED_DOCK came with Android 13 (API 33).
  if (c.plugged == SimPlug::dock && cfg_.sdk < 33) return "no dock charging before Android 13 (sdk 33)";
  advance();
  if (c.level) battery_.charge_pct = *c.level;
  if (c.temperature) battery_.fixed_celsius = *c.temperature;
  if (c.temperature_auto) battery_.fixed_celsius.reset();
  if (c.plugged) battery_.plugged = *c.plugged;
  if (c.rate_pct_per_hour) battery_.rate = *c.rate_pct_per_hour;
  if (c.rate_auto) battery_.rate.reset();
  battery_broadcast(sim_time_);
  return {};
}

std::int64_t Device::battery_current_ua() const {
  const double rate = battery_rate_pct_per_hour();
  // A full battery on its charger, or an empty one, moves no charge.
  if ((rate > 0 && battery_.charge_pct >= 100) || (rate < 0 && battery_.charge_pct <= 0)) return 0;
  // The gauge's %/h of the design capacity: 1 %/h of 4500 mAh is 45 mA.
  // Positive while charging, as upstream documents current_now since 2020
  // (commit 05f94eb98907, Documentation/ABI/testing/sysfs-class-power); drivers
  // before it differ, so a vendor may report the other sign.
  const auto ua = static_cast<std::int64_t>(std::llround(rate * kDesignCapacityUah / 100));
  return cfg_.current_positive_discharging ? -ua : ua;
}

Json Device::battery_truth() const {
  const SimBattery b = battery();
  return {{"level", b.level},
          {"scale", b.scale},
          {"temperature_celsius", fixed(b.temperature_tenths / 10.0, 1)},
          {"voltage_volts", fixed(b.voltage_mv / 1000.0, 3)},
          {"plugged", std::string(sim_plug_name(b.plugged))},
          {"status", b.status},
          {"health", b.health},
          {"present", b.present},
          {"charge_counter_uah", b.charge_counter_uah},
          {"max_charging_current_ua", b.max_charging_current_ua},
          {"max_charging_voltage_uv", b.max_charging_voltage_uv},
          {"charging_state", b.charging_state},
          {"charging_policy", b.charging_policy},
          {"capacity_level", b.capacity_level},
          {"charge_pct", fixed(battery_.charge_pct, 4)},
          {"rate_pct_per_hour", fixed(battery_rate_pct_per_hour(), 3)},
          {"temperature_fixed", battery_.fixed_celsius.has_value()}};
}

}  // namespace jank::devsim

#include "parsers/battery.h"

#include <array>
#include <cstdint>

#include "parsers/text_scan.h"

namespace jank::parsers {
namespace {

constexpr std::string_view kHeader = "Current Battery Service state:";
constexpr std::string_view kUpdatesStopped = "(UPDATES STOPPED -- use 'reset' to restart)";
// dumpsys's separator when it dumps several services: the battery section ends there.
constexpr std::string_view kNextService = "DUMP OF SERVICE";

// Bounds beyond which a value is not a battery's, whatever the device says.
constexpr std::int32_t kMaxTenthsCelsius = 2000;  // ±200 °C
constexpr std::int32_t kMaxMillivolts = 20000;    // 20 V

enum class Key : std::uint8_t {
  ac,
  usb,
  wireless,
  dock,
  max_current,
  max_voltage,
  charge_counter,
  status,
  health,
  present,
  level,
  scale,
  voltage,
  temperature,
  charging_state,
  charging_policy,
  capacity_level,
  count,
};

struct KeyName {
  std::string_view text;
  Key key;
};

// BatteryService.dumpInternal's keys, as printed (case matters).
constexpr KeyName kKeys[] = {
    {"AC powered", Key::ac},
    {"USB powered", Key::usb},
    {"Wireless powered", Key::wireless},
    {"Dock powered", Key::dock},
    {"Max charging current", Key::max_current},
    {"Max charging voltage", Key::max_voltage},
    {"Charge counter", Key::charge_counter},
    {"status", Key::status},
    {"health", Key::health},
    {"present", Key::present},
    {"level", Key::level},
    {"scale", Key::scale},
    {"voltage", Key::voltage},
    {"temperature", Key::temperature},
    {"Charging state", Key::charging_state},
    {"Charging policy", Key::charging_policy},
    {"Capacity level", Key::capacity_level},
};

std::optional<Key> find_key(std::string_view name) {
  for (const auto& k : kKeys) {
    if (k.text == name) return k.key;
  }
  return std::nullopt;
}

// Boolean.toString.
std::optional<bool> java_bool(std::string_view v) {
  if (v == "true") return true;
  if (v == "false") return false;
  return std::nullopt;
}

// Integer.toString: an optional '-' and digits, within a Java int.
std::optional<std::int32_t> java_int(std::string_view v) { return scan::parse_int<std::int32_t>(v); }

std::optional<int> in_range(std::optional<std::int32_t> v, std::int32_t lo, std::int32_t hi) {
  if (!v || *v < lo || *v > hi) return std::nullopt;
  return *v;
}

// Reads one known key's value into `out`; false when the value is malformed.
bool read_value(Key key, std::string_view v, BatteryDump& out, std::optional<std::int32_t>& level_raw) {
  switch (key) {
    case Key::ac: return (out.ac_powered = java_bool(v)).has_value();
    case Key::usb: return (out.usb_powered = java_bool(v)).has_value();
    case Key::wireless: return (out.wireless_powered = java_bool(v)).has_value();
    case Key::dock: return (out.dock_powered = java_bool(v)).has_value();
    case Key::present: return (out.present = java_bool(v)).has_value();
    case Key::max_current: return (out.max_charging_current_ua = java_int(v)).has_value();
    case Key::max_voltage: return (out.max_charging_voltage_uv = java_int(v)).has_value();
    case Key::charge_counter: return (out.charge_counter_uah = java_int(v)).has_value();
    case Key::charging_state: return (out.charging_state = java_int(v)).has_value();
    case Key::charging_policy: return (out.charging_policy = java_int(v)).has_value();
    case Key::capacity_level: return (out.capacity_level = java_int(v)).has_value();
    case Key::status: return (out.status = in_range(java_int(v), 1, 5)).has_value();
    case Key::health: return (out.health = in_range(java_int(v), 1, 7)).has_value();
    case Key::scale: return (out.scale = in_range(java_int(v), 1, INT32_MAX)).has_value();
    case Key::level:
      // Checked against the scale once the whole dump is read (scale comes after it).
      level_raw = java_int(v);
      return level_raw.has_value();
    case Key::voltage:
      if (const auto mv = in_range(java_int(v), 0, kMaxMillivolts)) {
        out.voltage_volts = *mv / 1000.0;
        return true;
      }
      return false;
    case Key::temperature:
      if (const auto tenths = in_range(java_int(v), -kMaxTenthsCelsius, kMaxTenthsCelsius)) {
        out.temperature_celsius = *tenths / 10.0;
        return true;
      }
      return false;
    case Key::count: break;
  }
  return false;
}

}  // namespace

BatteryDump parse_battery(std::string_view text) {
  BatteryDump out;
  bool in_section = false;
  std::array<bool, static_cast<std::size_t>(Key::count)> seen{};
  std::optional<std::int32_t> level_raw;

  scan::Lines lines(scan::strip_utf8_bom(text));
  std::string_view raw;
  while (lines.next(raw)) {
    ++out.lines;
    const std::string_view line = scan::trim(raw);
    if (line.empty()) continue;

    if (line == kHeader) {
      out.recognised = true;
      in_section = true;
      continue;
    }
    if (line.starts_with("Can't find service:")) {
      if (out.refusal == BatteryRefusal::none) out.refusal = BatteryRefusal::service_missing;
      continue;
    }
    if (line.starts_with("Permission Denial:")) {
      if (out.refusal == BatteryRefusal::none) out.refusal = BatteryRefusal::permission_denied;
      continue;
    }
    if (!in_section) continue;
    if (line.starts_with(kNextService)) {
      in_section = false;
      continue;
    }
    if (line == kUpdatesStopped) {
      out.updates_stopped = true;
      continue;
    }

    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const auto key = find_key(scan::trim(line.substr(0, colon)));
    if (!key) continue;
    bool& already = seen[static_cast<std::size_t>(*key)];
    if (already) continue;
    already = true;
    if (!read_value(*key, scan::trim(line.substr(colon + 1)), out, level_raw)) ++out.malformed_lines;
  }

  if (level_raw) {
    // BATTERY_SCALE is 100 on every release: without a usable scale line the
    // level is still a percentage.
    const std::int32_t top = out.scale ? *out.scale : 100;
    if (*level_raw >= 0 && *level_raw <= top) {
      out.level = *level_raw;
      if (out.scale) out.level_fraction = static_cast<double>(*out.level) / *out.scale;
    } else {
      ++out.malformed_lines;
    }
  }
  return out;
}

std::string_view battery_status_name(int status) {
  switch (status) {
    case 1: return "unknown";
    case 2: return "charging";
    case 3: return "discharging";
    case 4: return "not_charging";
    case 5: return "full";
    default: return "invalid";
  }
}

std::string_view battery_health_name(int health) {
  switch (health) {
    case 1: return "unknown";
    case 2: return "good";
    case 3: return "overheat";
    case 4: return "dead";
    case 5: return "over_voltage";
    case 6: return "unspecified_failure";
    case 7: return "cold";
    default: return "invalid";
  }
}

std::string_view battery_plug_name(const BatteryDump& d) {
  if (d.ac_powered.value_or(false)) return "ac";
  if (d.usb_powered.value_or(false)) return "usb";
  if (d.wireless_powered.value_or(false)) return "wireless";
  if (d.dock_powered.value_or(false)) return "dock";
  if (d.ac_powered || d.usb_powered || d.wireless_powered || d.dock_powered) return "none";
  return "unknown";
}

std::string_view battery_refusal_name(BatteryRefusal r) {
  switch (r) {
    case BatteryRefusal::none: return "none";
    case BatteryRefusal::permission_denied: return "permission_denied";
    case BatteryRefusal::service_missing: return "service_missing";
  }
  return "none";
}

}  // namespace jank::parsers

#include "devsim/battery_dump.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

namespace jank::devsim {
namespace {

// Sources (docs/devsim.md, "Releases", **Battery**): BatteryService.java
// (frameworks/base services/core/java/com/android/server/), its
// dumpInternal, in the copies read per release:
//   5.x    AOSP-JF/platform_frameworks_base @b372113a: sources, status ... technology
//   6.0    AOSP-Zenfone2/platform_frameworks_base @0e4aed2b: + "Max charging current"
//   8.x    the O-era copy (index file 203980426): + "Max charging voltage", "Charge counter"
//   13     ArrowOS-T/android_frameworks_base @e26dec95: the same keys, AIDL HealthInfo
//   14     CredenceID/C2_a14_frameworks_base @5b6d2cee: + "Dock powered"
//   15     aosp-mirror/platform_frameworks_base @59667c9e: + "Charging state", "Charging policy"
//   16     muhomorr/platform_frameworks_base-15 @072ff768: + rate-limit lines, "Capacity level"
constexpr int kFirstSdk = 21;
constexpr int kLastSdk = 36;

const char* java_bool(bool b) { return b ? "true" : "false"; }

void line(std::string& out, std::string_view key, std::string_view value) {
  out += "  ";
  out += key;
  out += ": ";
  out += value;
  out += '\n';
}

void line(std::string& out, std::string_view key, std::int64_t value) { line(out, key, std::to_string(value)); }

}  // namespace

std::string_view sim_plug_name(SimPlug p) {
  switch (p) {
    case SimPlug::none: return "none";
    case SimPlug::ac: return "ac";
    case SimPlug::usb: return "usb";
    case SimPlug::wireless: return "wireless";
    case SimPlug::dock: return "dock";
  }
  return "none";
}

std::optional<SimPlug> sim_plug_from_name(std::string_view name) {
  for (const SimPlug p : {SimPlug::none, SimPlug::ac, SimPlug::usb, SimPlug::wireless, SimPlug::dock}) {
    if (sim_plug_name(p) == name) return p;
  }
  return std::nullopt;
}

std::string java_format_duration(std::int64_t ms) {
  // TimeUtils.formatDurationLocked with fieldLen 0 (core/java/android/util/TimeUtils.java):
  // "0" alone; else a sign, days/hours/minutes/seconds from the first
  // non-zero one on (zeros included after it), then always the milliseconds.
  if (ms == 0) return "0";
  std::string out(1, ms > 0 ? '+' : '-');
  const std::uint64_t abs_ms = ms > 0 ? static_cast<std::uint64_t>(ms) : 0 - static_cast<std::uint64_t>(ms);
  const std::uint64_t millis = abs_ms % 1000;
  std::uint64_t seconds = abs_ms / 1000;
  const std::uint64_t days = seconds / 86400;
  seconds %= 86400;
  const std::uint64_t hours = seconds / 3600;
  seconds %= 3600;
  const std::uint64_t minutes = seconds / 60;
  seconds %= 60;
  const std::size_t start = out.size();
  auto field = [&](std::uint64_t amount, const char* suffix, bool always) {
    if (!always && amount == 0) return;
    out += std::to_string(amount);
    out += suffix;
  };
  field(days, "d", false);
  field(hours, "h", out.size() != start);
  field(minutes, "m", out.size() != start);
  field(seconds, "s", out.size() != start);
  field(millis, "ms", true);
  return out;
}

std::string format_battery(int sdk, const SimBattery& b) {
  sdk = std::clamp(sdk, kFirstSdk, kLastSdk);
  const bool max_current = sdk >= 23;           // 6.0
  const bool voltage_and_counter = sdk >= 24;  // 7.0 (read in 8.x copies: see above)
  const bool dock = sdk >= 34;                 // 14
  const bool charging_info = sdk >= 35;        // 15
  const bool android16 = sdk >= 36;

  std::string out = "Current Battery Service state:\n";
  if (b.updates_stopped) out += "  (UPDATES STOPPED -- use 'reset' to restart)\n";
  line(out, "AC powered", java_bool(b.plugged == SimPlug::ac));
  line(out, "USB powered", java_bool(b.plugged == SimPlug::usb));
  line(out, "Wireless powered", java_bool(b.plugged == SimPlug::wireless));
  if (dock) line(out, "Dock powered", java_bool(b.plugged == SimPlug::dock));
  if (max_current) line(out, "Max charging current", b.max_charging_current_ua);
  if (android16) {
    // One leading blank, as dumpInternal prints these.
    out += " Time when the latest updated value of the Max charging current was sent via battery changed broadcast: " +
           java_format_duration(b.current_broadcast_ms) + "\n";
  }
  if (voltage_and_counter) {
    line(out, "Max charging voltage", b.max_charging_voltage_uv);
    line(out, "Charge counter", b.charge_counter_uah);
  }
  line(out, "status", b.status);
  line(out, "health", b.health);
  line(out, "present", java_bool(b.present));
  line(out, "level", b.level);
  line(out, "scale", b.scale);
  line(out, "voltage", b.voltage_mv);
  if (android16) {
    out += " Time when the latest updated value of the voltage was sent via battery changed broadcast: " +
           java_format_duration(b.voltage_broadcast_ms) + "\n";
    out += " The last voltage value sent via the battery changed broadcast: " + std::to_string(b.broadcast_voltage_mv) +
           "\n";
  }
  line(out, "temperature", b.temperature_tenths);
  line(out, "technology", b.technology);
  if (charging_info) {
    line(out, "Charging state", b.charging_state);
    line(out, "Charging policy", b.charging_policy);
  }
  if (android16) line(out, "Capacity level", b.capacity_level);
  return out;
}

namespace {

bool parse_double(std::string_view s, double* out) {
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), *out, std::chars_format::fixed);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(*out);
}

}  // namespace

std::optional<BatteryControl> parse_battery_control(const std::vector<std::string>& args) {
  if (args.empty()) return std::nullopt;
  BatteryControl c;
  for (const std::string& arg : args) {
    const std::size_t eq = arg.find('=');
    if (eq == std::string::npos) return std::nullopt;
    const std::string_view key = std::string_view(arg).substr(0, eq);
    const std::string_view value = std::string_view(arg).substr(eq + 1);
    double v = 0;
    if (key == "level") {
      if (!parse_double(value, &v) || v < 0 || v > 100 || v != std::floor(v)) return std::nullopt;
      c.level = static_cast<int>(v);
    } else if (key == "temp") {
      if (value == "auto") {
        c.temperature_auto = true;
        c.temperature.reset();
      } else if (parse_double(value, &v) && v >= -40 && v <= 100) {
        c.temperature = v;
        c.temperature_auto = false;
      } else {
        return std::nullopt;
      }
    } else if (key == "plugged") {
      c.plugged = sim_plug_from_name(value);
      if (!c.plugged) return std::nullopt;
    } else if (key == "rate") {
      if (value == "auto") {
        c.rate_auto = true;
        c.rate_pct_per_hour.reset();
      } else if (parse_double(value, &v) && v >= 0 && v <= 1000) {
        c.rate_pct_per_hour = v;
        c.rate_auto = false;
      } else {
        return std::nullopt;
      }
    } else {
      return std::nullopt;
    }
  }
  return c;
}

}  // namespace jank::devsim

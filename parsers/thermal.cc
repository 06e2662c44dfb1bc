#include "parsers/thermal.h"

#include <charconv>
#include <cmath>
#include <system_error>
#include <unordered_set>
#include <utility>

#include "parsers/text_scan.h"

namespace jank::parsers {
namespace {

constexpr std::string_view kStatusOverride = "IsStatusOverride:";
constexpr std::string_view kThermalStatus = "Thermal Status:";
constexpr std::string_view kHalReady = "HAL Ready:";
constexpr std::string_view kTemperature = "Temperature{";
constexpr std::string_view kCoolingDevice = "CoolingDevice{";
constexpr std::string_view kHalName = "ThermalHAL ";
constexpr std::string_view kConnected = " connected:";

// Android 10 starts the status at Integer.MIN_VALUE and prints it until the
// HAL has reported a temperature.
constexpr std::string_view kStatusNotKnown = "-2147483648";

enum class Section : std::uint8_t { other, cached, hal, cooling };

// Section headers, each on a line of its own. The ones that hold no data
// still end the list before them and mark the text as this service's dump.
struct Header {
  std::string_view text;
  Section section;
};
constexpr Header kHeaders[] = {
    {"Cached temperatures:", Section::cached},
    {"Current temperatures from HAL:", Section::hal},
    {"Current cooling devices from HAL:", Section::cooling},
    {"ThermalEventListeners:", Section::other},
    {"ThermalStatusListeners:", Section::other},
    {"HAL connection:", Section::other},
    {"Temperature static thresholds from HAL:", Section::other},
    {"Temperature headroom thresholds:", Section::other},
};

std::optional<bool> java_bool(std::string_view v) {
  if (v == "true") return true;
  if (v == "false") return false;
  return std::nullopt;
}

// A float as Java's Float.toString prints it ("41.5", "1.0E-4", "NaN",
// "-Infinity"). NaN and infinities come back as such; the caller drops them.
std::optional<double> java_float(std::string_view s) {
  if (s == "NaN") return std::nan("");
  if (s == "Infinity") return HUGE_VAL;
  if (s == "-Infinity") return -HUGE_VAL;
  if (s.empty() || !(scan::is_digit(s.front()) || s.front() == '-')) return std::nullopt;
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

enum class Entry : std::uint8_t { ok, malformed, non_finite };

// "Temperature{mValue=41.5, mType=3, mName=skin, mStatus=1}". The name comes
// from the HAL's configuration and is printed raw, so it is whatever lies
// between ", mName=" and the last ", mStatus=".
Entry parse_temperature(std::string_view line, ThermalTemperature& out) {
  constexpr std::string_view kValue = "mValue=";
  constexpr std::string_view kType = ", mType=";
  constexpr std::string_view kName = ", mName=";
  constexpr std::string_view kStatus = ", mStatus=";
  if (line.size() < kTemperature.size() + 1 || line.back() != '}') return Entry::malformed;
  const std::string_view body = line.substr(kTemperature.size(), line.size() - kTemperature.size() - 1);
  if (!body.starts_with(kValue)) return Entry::malformed;
  const std::size_t type_at = body.find(kType);
  if (type_at == std::string_view::npos) return Entry::malformed;
  const std::size_t name_at = body.find(kName, type_at);
  if (name_at == std::string_view::npos) return Entry::malformed;
  const std::size_t status_at = body.rfind(kStatus);
  if (status_at == std::string_view::npos || status_at < name_at + kName.size()) return Entry::malformed;

  const auto value = java_float(body.substr(kValue.size(), type_at - kValue.size()));
  const auto type = scan::parse_int<int>(body.substr(type_at + kType.size(), name_at - type_at - kType.size()));
  const std::string_view name = body.substr(name_at + kName.size(), status_at - name_at - kName.size());
  const auto status = scan::parse_int<int>(body.substr(status_at + kStatus.size()));
  if (!value || !type || name.empty() || !status || *status < 0 || *status > 6) return Entry::malformed;
  if (!std::isfinite(*value)) return Entry::non_finite;
  out.name = std::string(name);
  out.type = *type;
  out.value = *value;
  out.status = *status;
  return Entry::ok;
}

// "CoolingDevice{mValue=2, mType=2, mName=cpu-cluster0}".
bool parse_cooling_device(std::string_view line, ThermalCoolingDevice& out) {
  constexpr std::string_view kValue = "mValue=";
  constexpr std::string_view kType = ", mType=";
  constexpr std::string_view kName = ", mName=";
  if (line.size() < kCoolingDevice.size() + 1 || line.back() != '}') return false;
  const std::string_view body = line.substr(kCoolingDevice.size(), line.size() - kCoolingDevice.size() - 1);
  if (!body.starts_with(kValue)) return false;
  const std::size_t type_at = body.find(kType);
  if (type_at == std::string_view::npos) return false;
  const std::size_t name_at = body.find(kName, type_at);
  if (name_at == std::string_view::npos) return false;
  const auto value = scan::parse_int<std::int64_t>(body.substr(kValue.size(), type_at - kValue.size()));
  const auto type = scan::parse_int<int>(body.substr(type_at + kType.size(), name_at - type_at - kType.size()));
  const std::string_view name = body.substr(name_at + kName.size());
  if (!value || !type || name.empty()) return false;
  out.name = std::string(name);
  out.type = *type;
  out.value = *value;
  return true;
}

// One temperature list with its own discards, so that the counters the
// caller sees belong to the list it gets.
struct TemperatureList {
  bool seen = false;
  std::vector<ThermalTemperature> items;
  std::unordered_set<std::string> names;
  std::uint64_t non_finite = 0;
  std::uint64_t duplicates = 0;

  void add(ThermalTemperature&& t) {
    if (!names.insert(t.name).second) {
      ++duplicates;
      return;
    }
    items.push_back(std::move(t));
  }
};

}  // namespace

ThermalDump parse_thermalservice(std::string_view text) {
  ThermalDump out;
  TemperatureList cached;
  TemperatureList hal;
  bool status_seen = false;
  Section section = Section::other;

  scan::Lines lines(scan::strip_utf8_bom(text));
  std::string_view raw;
  while (lines.next(raw)) {
    ++out.lines;
    const std::string_view line = scan::trim(scan::strip_trailing_crs(raw));
    if (line.empty()) continue;

    if (line.starts_with(kTemperature)) {
      TemperatureList* list = section == Section::cached ? &cached : section == Section::hal ? &hal : nullptr;
      // A Temperature{ outside both lists (a vendor section) says nothing
      // about which reading it is.
      if (list == nullptr) continue;
      ThermalTemperature t;
      switch (parse_temperature(line, t)) {
        case Entry::ok: list->add(std::move(t)); break;
        case Entry::malformed: ++out.malformed_lines; break;
        case Entry::non_finite: ++list->non_finite; break;
      }
      continue;
    }
    if (line.starts_with(kCoolingDevice)) {
      if (section != Section::cooling) continue;
      ThermalCoolingDevice d;
      if (parse_cooling_device(line, d)) out.cooling_devices.push_back(std::move(d));
      else ++out.malformed_lines;
      continue;
    }

    bool header = false;
    for (const auto& h : kHeaders) {
      if (line == h.text) {
        section = h.section;
        if (h.section == Section::cached) cached.seen = true;
        if (h.section == Section::hal) hal.seen = true;
        header = true;
        break;
      }
    }
    if (header) {
      out.recognised = true;
      continue;
    }

    // Only the first of each key counts: a second dump pasted after the
    // first must not override it.
    if (line.starts_with(kStatusOverride)) {
      section = Section::other;
      out.recognised = true;
      if (out.status_override) continue;
      if (auto b = java_bool(scan::trim(line.substr(kStatusOverride.size())))) out.status_override = b;
      else ++out.malformed_lines;
    } else if (line.starts_with(kThermalStatus)) {
      section = Section::other;
      out.recognised = true;
      if (status_seen) continue;
      status_seen = true;
      const std::string_view v = scan::trim(line.substr(kThermalStatus.size()));
      if (v == kStatusNotKnown) continue;
      const auto s = scan::parse_int<int>(v);
      if (s && *s >= 0 && *s <= 6) out.status = s;
      else ++out.malformed_lines;
    } else if (line.starts_with(kHalReady)) {
      section = Section::other;
      out.recognised = true;
      if (out.hal_ready) continue;
      if (auto b = java_bool(scan::trim(line.substr(kHalReady.size())))) out.hal_ready = b;
      else ++out.malformed_lines;
    } else if (line.starts_with(kHalName)) {
      // "ThermalHAL 2.0 connected: yes", "ThermalHAL AIDL 3  connected: yes".
      const std::size_t c = line.find(kConnected);
      if (c != std::string_view::npos && out.hal.empty() &&
          scan::trim(line.substr(c + kConnected.size())) == "yes") {
        out.hal = std::string(scan::trim(line.substr(kHalName.size(), c - kHalName.size())));
      }
    } else if (line.starts_with("Permission Denial:")) {
      if (out.refusal == ThermalRefusal::none) out.refusal = ThermalRefusal::permission_denied;
    } else if (line.starts_with("Can't find service:")) {
      if (out.refusal == ThermalRefusal::none) out.refusal = ThermalRefusal::service_missing;
    }
  }

  // The HAL's answer at dump time when it has one; the callback cache
  // otherwise. Discards are reported for the list that was taken (or, when
  // neither had anything usable, for the HAL list if printed).
  TemperatureList* chosen = nullptr;
  if (!hal.items.empty()) {
    chosen = &hal;
    out.source = ThermalSource::hal;
  } else if (!cached.items.empty()) {
    chosen = &cached;
    out.source = ThermalSource::cached;
  }
  const TemperatureList& counted = chosen != nullptr ? *chosen : hal.seen ? hal : cached;
  out.non_finite_values = counted.non_finite;
  out.duplicate_names = counted.duplicates;
  if (chosen != nullptr) out.temperatures = std::move(chosen->items);
  return out;
}

std::string_view thermal_type_name(int type) {
  switch (type) {
    case 0: return "cpu";
    case 1: return "gpu";
    case 2: return "battery";
    case 3: return "skin";
    case 4: return "usb_port";
    case 5: return "power_amplifier";
    case 6: return "bcl_voltage";
    case 7: return "bcl_current";
    case 8: return "bcl_percentage";
    case 9: return "npu";
    case 10: return "tpu";
    case 11: return "display";
    case 12: return "modem";
    case 13: return "soc";
    case 14: return "wifi";
    case 15: return "camera";
    case 16: return "flashlight";
    case 17: return "speaker";
    case 18: return "ambient";
    case 19: return "pogo";
    default: return "unknown";
  }
}

std::string_view thermal_status_name(int status) {
  switch (status) {
    case 0: return "none";
    case 1: return "light";
    case 2: return "moderate";
    case 3: return "severe";
    case 4: return "critical";
    case 5: return "emergency";
    case 6: return "shutdown";
    default: return "unknown";
  }
}

}  // namespace jank::parsers

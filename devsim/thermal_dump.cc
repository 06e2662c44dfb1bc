#include "devsim/thermal_dump.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

namespace jank::devsim {
namespace {

constexpr int kSkin = 3;
constexpr std::size_t kSeverities = 7;  // none, light, moderate, severe, critical, emergency, shutdown
constexpr std::size_t kSevere = 3;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr const std::array<float, kSeverities>& kSkinHot = kSimSkinHot;

// Java's Float.toString: plain decimal between 1e-3 and 1e7, else
// computerized scientific notation ("1.0E-4"); always a fraction digit.
std::string java_float(float f) {
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f > 0 ? "Infinity" : "-Infinity";
  if (f == 0.0f) return std::signbit(f) ? "-0.0" : "0.0";
  char buf[64];
  const float a = std::fabs(f);
  if (a >= 1e-3f && a < 1e7f) {
    const auto r = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::fixed);
    std::string s(buf, r.ptr);
    if (s.find('.') == std::string::npos) s += ".0";
    return s;
  }
  const auto r = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific);
  const std::string s(buf, r.ptr);
  const std::size_t e = s.find('e');
  std::string mantissa = s.substr(0, e);
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  int exponent = 0;
  const std::string_view exp_text = std::string_view(s).substr(e + 1);
  const std::size_t skip = !exp_text.empty() && exp_text.front() == '+' ? 1 : 0;
  std::from_chars(exp_text.data() + skip, exp_text.data() + exp_text.size(), exponent);
  return mantissa + "E" + std::to_string(exponent);
}

// Arrays.toString(float[]).
std::string java_floats(const float* v, std::size_t n) {
  std::string out = "[";
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) out += ", ";
    out += java_float(v[i]);
  }
  return out + "]";
}

// String.hashCode, which orders an ArrayMap (sensor names are ASCII).
std::int32_t java_hash(const std::string& s) {
  std::uint32_t h = 0;
  for (const char c : s) h = 31u * h + static_cast<unsigned char>(c);
  return static_cast<std::int32_t>(h);
}

std::string temperature_line(const SimTemperature& t) {
  return "\tTemperature{mValue=" + java_float(static_cast<float>(t.value)) + ", mType=" + std::to_string(t.type) +
         ", mName=" + t.name + ", mStatus=" + std::to_string(t.status) + "}\n";
}

void listeners(std::string& out, const char* header, int callbacks) {
  out += header;
  out += "\n\tcallbacks: " + std::to_string(callbacks) + "\n\tkilled: false\n\tbroadcasts count: -1\n";
}

// The HAL a device of that release is simulated with: HIDL 2.0 until
// Android 12L, then the AIDL HAL at the interface version the release ships.
const char* hal_line(int sdk) {
  if (sdk <= 32) return "\tThermalHAL 2.0 connected: yes\n";
  if (sdk <= 34) return "\tThermalHAL AIDL 1  connected: yes\n";
  if (sdk == 35) return "\tThermalHAL AIDL 2  connected: yes\n";
  return "\tThermalHAL AIDL 3  connected: yes\n";
}

// One static threshold line: the HIDL struct's own toString up to Android
// 12L, the service's TemperatureThreshold{...} form for the AIDL type.
std::string threshold_line(int sdk, const std::string& name) {
  std::array<float, kSeverities> cold{};
  cold.fill(kNan);
  const std::string hot = java_floats(kSkinHot.data(), kSkinHot.size());
  const std::string cold_text = java_floats(cold.data(), cold.size());
  if (sdk <= 32) {
    return "\t{.type = SKIN, .name = " + name + ", .hotThrottlingThresholds = " + hot +
           ", .coldThrottlingThresholds = " + cold_text + ", .vrThrottlingThreshold = NaN}\n";
  }
  return "\tTemperatureThreshold{mType=" + std::to_string(kSkin) + ", mName=" + name +
         ", mHotThrottlingThresholds=" + hot + ", mColdThrottlingThresholds=" + cold_text + "}\n";
}

// The headroom each severity starts at, from the skin thresholds: SEVERE is
// 1.0 and 0.0 lies 30 degrees below it. All zero until the HAL connects
// (the array is never filled), all NaN when no skin sensor has thresholds.
std::array<float, kSeverities> headroom_thresholds(bool hal_ready, bool have_skin) {
  std::array<float, kSeverities> h{};
  if (!hal_ready) return h;
  h.fill(kNan);
  if (!have_skin) return h;
  const float severe = kSkinHot[kSevere];
  const float zero = severe - 30.0f;
  for (std::size_t s = 1; s < kSeverities; ++s) {
    if (s == kSevere) {
      h[s] = 1.0f;
      continue;
    }
    const float t = kSkinHot[s];
    h[s] = t <= zero ? 0.0f : (t - zero) / 30.0f;
  }
  return h;
}

}  // namespace

std::string format_thermalservice(int sdk, const SimThermal& thermal) {
  sdk = std::clamp(sdk, 29, 36);
  std::string out;
  out += "IsStatusOverride: ";
  out += thermal.status_override ? "true\n" : "false\n";
  listeners(out, "ThermalEventListeners:", 2);
  listeners(out, "ThermalStatusListeners:", 3);

  int status = thermal.status;
  if (sdk == 29 && thermal.temps.empty() && !thermal.status_override) status = std::numeric_limits<int>::min();
  out += "Thermal Status: " + std::to_string(status) + "\n";

  // The cache is a map by name: one entry per name (the latest reading),
  // in ArrayMap order, i.e. by ascending String.hashCode.
  std::vector<SimTemperature> cached;
  for (const auto& t : thermal.temps) {
    auto same = std::find_if(cached.begin(), cached.end(), [&](const SimTemperature& c) { return c.name == t.name; });
    if (same != cached.end()) *same = t;
    else cached.push_back(t);
  }
  std::stable_sort(cached.begin(), cached.end(), [](const SimTemperature& a, const SimTemperature& b) {
    return java_hash(a.name) < java_hash(b.name);
  });
  out += "Cached temperatures:\n";
  for (const auto& t : cached) out += temperature_line(t);

  out += "HAL Ready: ";
  out += thermal.hal_ready ? "true\n" : "false\n";
  bool have_skin = false;
  if (thermal.hal_ready) {
    out += "HAL connection:\n";
    out += hal_line(sdk);
    out += "Current temperatures from HAL:\n";
    for (const auto& t : thermal.temps) out += temperature_line(t);
    out += "Current cooling devices from HAL:\n";
    for (const auto& d : thermal.cooling) {
      out += "\tCoolingDevice{mValue=" + std::to_string(d.value) + ", mType=" + std::to_string(d.type) +
             ", mName=" + d.name + "}\n";
    }
    if (sdk >= 30) {
      out += "Temperature static thresholds from HAL:\n";
      for (const auto& t : cached) {
        if (t.type != kSkin) continue;
        have_skin = true;
        out += threshold_line(sdk, t.name);
      }
    }
  }
  if (sdk >= 35) {
    const auto h = headroom_thresholds(thermal.hal_ready, have_skin);
    out += "Temperature headroom thresholds:\n" + java_floats(h.data(), h.size()) + "\n";
  }
  return out;
}

}  // namespace jank::devsim

// Thermal state from `dumpsys thermalservice` (ThermalManagerService, Android
// 10 and later). The lines read, in every version's layout:
//   IsStatusOverride: false
//   Thermal Status: 2                      (0 none ... 6 shutdown)
//   Cached temperatures:
//   \tTemperature{mValue=41.5, mType=3, mName=skin, mStatus=1}
//   HAL Ready: true
//   HAL connection:
//   \tThermalHAL 2.0 connected: yes        ("ThermalHAL AIDL 1  connected: yes", ...)
//   Current temperatures from HAL:
//   \tTemperature{...}
//   Current cooling devices from HAL:
//   \tCoolingDevice{mValue=2, mType=2, mName=cpu-cluster0}
// Everything else (listeners, static thresholds, headroom thresholds, vendor
// additions) is skipped. docs/parsing.md lists the layouts per version.
//
// Which temperatures: the "Current temperatures from HAL" list, read from the
// HAL at dump time. The cached list holds the last value each sensor
// reported through a throttling callback, which can be minutes old; it is
// used only when the dump has no usable HAL list (HAL not ready, or a HAL
// that answered nothing).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jank::parsers {

struct ThermalTemperature {
  std::string name;
  int type = -1;     // android.os.Temperature TYPE_*, see thermal_type_name
  // Degrees Celsius, except for the bcl_* types: battery current limit
  // virtual sensors carry millivolts, milliamps or percent in the same field.
  double value = 0;
  int status = 0;    // the sensor's throttling severity, 0 none ... 6 shutdown
};

struct ThermalCoolingDevice {
  std::string name;
  int type = 0;             // android.os.CoolingDevice TYPE_* (fan, battery, cpu, ...)
  std::int64_t value = 0;   // throttle state, 0 = not throttling
};

enum class ThermalSource : std::uint8_t { none, hal, cached };

// Why a dump holds no thermal state at all.
enum class ThermalRefusal : std::uint8_t {
  none,
  permission_denied,  // "Permission Denial: can't dump ThermalManagerService ..."
  service_missing,    // dumpsys: "Can't find service: thermalservice" (no thermal service)
};

struct ThermalDump {
  // Any line of the service's own layout was seen. False for an empty answer,
  // a refusal, or text that is not this dump; then nothing else is set.
  bool recognised = false;
  ThermalRefusal refusal = ThermalRefusal::none;

  // The device's thermal status, 0 (none) ... 6 (shutdown). Unset when the
  // line is missing, malformed, or Android 10's "not known yet" value
  // (-2147483648, printed until the first temperature arrives).
  std::optional<int> status;
  std::optional<bool> status_override;  // set by `cmd thermalservice override-status`
  std::optional<bool> hal_ready;
  std::string hal;                      // "2.0", "1.1", "AIDL 3" ... when connected, else empty

  ThermalSource source = ThermalSource::none;  // which list `temperatures` came from
  std::vector<ThermalTemperature> temperatures;  // that list's order, one per name
  std::vector<ThermalCoolingDevice> cooling_devices;

  std::uint64_t lines = 0;            // lines read
  // A known key, or a Temperature{ / CoolingDevice{ entry, with a value no
  // Android prints (bad number, status outside 0..6, empty name, missing field).
  std::uint64_t malformed_lines = 0;
  // Entries of the chosen list dropped although well formed: a value that is
  // NaN or infinite (HALs report NaN for a sensor they cannot read), and a
  // second entry for a name already taken (the first one is kept).
  std::uint64_t non_finite_values = 0;
  std::uint64_t duplicate_names = 0;
};

ThermalDump parse_thermalservice(std::string_view text);

// Stable lowercase label of a temperature type: "cpu", "gpu", "battery",
// "skin", "usb_port", ... "pogo"; "unknown" for -1 and for numbers no
// Android release defines yet.
std::string_view thermal_type_name(int type);

// "none", "light", "moderate", "severe", "critical", "emergency",
// "shutdown"; "unknown" outside 0..6.
std::string_view thermal_status_name(int status);

}  // namespace jank::parsers

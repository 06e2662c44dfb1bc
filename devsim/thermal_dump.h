// The simulator's `dumpsys thermalservice`: a device's thermal state printed
// in the layout of each Android release from 10 (sdk 29) to 16 (sdk 36),
// so that the exporter's parser can be run against every one of them.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace jank::devsim {

// The hot thresholds of the simulated skin sensors, per severity (none ...
// shutdown; NaN: not used): the HAL's static thresholds, and what the model
// derives the skin's status from.
inline constexpr std::array<float, 7> kSimSkinHot = {std::numeric_limits<float>::quiet_NaN(), 37.0f, 39.0f, 41.0f,
                                                     44.0f, 47.0f, 50.0f};

struct SimTemperature {
  std::string name;
  int type = 3;        // android.os.Temperature TYPE_* (3 = skin)
  double value = 0;    // degrees Celsius (printed as a Java float)
  int status = 0;      // the sensor's throttling severity, 0 none ... 6 shutdown
};

struct SimCoolingDevice {
  std::string name;
  int type = 2;              // android.os.CoolingDevice TYPE_* (2 = cpu)
  std::int64_t value = 0;    // throttle state
};

struct SimThermal {
  int status = 0;                 // "Thermal Status:" (0 none ... 6 shutdown)
  bool status_override = false;   // set by `cmd thermalservice override-status`
  bool hal_ready = true;          // false: no HAL lists at all, only the cache
  std::vector<SimTemperature> temps;  // what the HAL reports now, in its order
  std::vector<SimCoolingDevice> cooling;
};

// What `dumpsys thermalservice` prints on that release (sdk below 29 is
// printed as 29, above 36 as 36). The cache holds the same readings as the
// HAL list, in the order Android's name map keeps them; skin sensors get a
// static threshold line where the release prints thresholds. An Android 10
// device without any temperature prints the "not known yet" status Android
// 10 uses, whatever `status` says, unless the status is overridden.
std::string format_thermalservice(int sdk, const SimThermal& thermal);

}  // namespace jank::devsim

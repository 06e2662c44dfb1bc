// A simulated phone for the simulator's own tests: one app that never
// stalls and no background lines, so every output is the test's doing.
#pragma once

#include "devsim/model.h"

namespace jank::devsim::test {

inline DeviceConfig quiet_device(int sdk = 33) {
  DeviceConfig c;
  c.sdk = sdk;
  c.noise_lines_per_sec = 0;
  AppConfig a;
  a.package = "com.example.feed";
  a.stall_prob = 0;
  c.apps.push_back(a);
  return c;
}

}  // namespace jank::devsim::test

// What the simulator's truth (docs/devsim.md, ground truth) says an exact
// reader exports: shared by the daemon tests and the fleet tier.
#pragma once

#include <cstdint>
#include <map>
#include <sstream>
#include <string>

#include "tests/rig/json.h"

namespace jank::daemon_test {

using PerPackage = std::map<std::string, double>;

// Skipped frames per package: every skip logged, less what left the ring
// unread, what a reboot or logd restart made unknown, what the ring held when
// the reader first saw the device, and what logd never held (a log.tag
// property, squashing on 8.0–11) or holds back now.
inline PerPackage exact_frames(const jank::rig::Json& dev) {
  PerPackage out;
  for (const jank::rig::Json& a : dev["apps"].arr) {
    out[a["package"].str] = static_cast<double>(a["skipped_frames_logged"].u64()) -
                            static_cast<double>(a["reader_lost_skipped_frames"].u64()) -
                            static_cast<double>(a["reader_unknown_skipped_frames"].u64()) -
                            static_cast<double>(a["reader_history_skipped_frames"].u64()) -
                            static_cast<double>(a["unheld_skipped_frames"].u64()) -
                            static_cast<double>(a["held_back_skipped_frames"].u64());
  }
  return out;
}

// The sum over packages, and the packages as "name=count " for messages.
inline double sum(const PerPackage& p) {
  double s = 0;
  for (const auto& [k, v] : p) s += v;
  return s;
}
inline std::string show(const PerPackage& p) {
  std::ostringstream o;
  for (const auto& [k, v] : p) o << k << "=" << static_cast<std::int64_t>(v) << " ";
  return o.str();
}

}  // namespace jank::daemon_test

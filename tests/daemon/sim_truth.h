// What the simulator's truth (docs/devsim.md, ground truth) says an exact
// reader exports: shared by the daemon tests and the fleet tier.
#pragma once

#include <map>
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

}  // namespace jank::daemon_test

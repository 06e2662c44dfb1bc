// The daemon's checkpoint: the whole metric model in one file under the state
// directory (and the runs in a second one), written so that a crash at any moment leaves the old or the new
// file, read back at start-up, and set aside (never silently reset) when it
// cannot be read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "app/core/shared_state.h"

namespace jank::app {

class StateFile {
 public:
  explicit StateFile(std::string state_dir);

  const std::string& path() const { return path_; }
  // Creates the state directory; false (and `error`) when it cannot be used.
  bool prepare(std::string& error) const;
  // Restores the store from the file, if there is one. Devices restored are
  // disconnected until their adb server lists them; their packages count as
  // alive from `now_ns` (dead ones expire after the grace period).
  void restore(SharedState& shared, std::int64_t now_ns) const;
  // Saves the store, then the runs; counts the checkpoint written or failed.
  bool write(SharedState& shared) const;

 private:
  void restore_runs(SharedState& shared, std::int64_t now_ns) const;

  std::string dir_, path_, runs_path_;
};

}  // namespace jank::app

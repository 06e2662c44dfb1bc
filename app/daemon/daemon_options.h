// What the daemon is started with: the loaded configuration, where it came
// from (for SIGHUP reloads) and the command line's overrides, which win over
// the file after every reload.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"

namespace jank::app {

struct DaemonOptions {
  config::Config config;
  std::string config_path;  // for SIGHUP reloads; empty when running on defaults and flags
  // Command-line overrides re-applied after every reload.
  std::vector<std::string> adb_override;
  std::string listen_override, state_dir_override, log_level_override, per_frame_override;
};

// Applies the command-line overrides to a loaded configuration.
void apply_overrides(const DaemonOptions& options, config::Config& config);

}  // namespace jank::app

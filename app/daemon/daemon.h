// The live exporter: follows the devices of one or more adb servers, keeps
// the metric model, serves it over HTTP, checkpoints it, and talks to systemd.
#pragma once

#include <memory>
#include <string>

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

// Runs until SIGTERM or SIGINT; returns the process exit status: kExitOk,
// or kExitFailure when it cannot start (app/core/exit_codes.h).
int run_daemon(DaemonOptions options);

}  // namespace jank::app

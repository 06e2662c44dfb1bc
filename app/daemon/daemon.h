// The live exporter: follows the devices of one or more adb servers, keeps
// the metric model, serves it over HTTP, checkpoints it, and talks to systemd.
#pragma once

#include "app/daemon/daemon_options.h"

namespace jank::app {

// Runs until SIGTERM or SIGINT; returns the process exit status: kExitOk,
// or kExitFailure when it cannot start (app/core/exit_codes.h).
int run_daemon(DaemonOptions options);

}  // namespace jank::app

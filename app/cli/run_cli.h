// `jank_exporter run start|stop|list|show`: a test harness's side of the runs
// API (docs/runs.md), talking to a running exporter over HTTP(S).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "app/core/exit_codes.h"

namespace jank::app {

// Exit status: kExitOk done, kExitFailure the exporter refused or did not
// answer (or a wait timed out), kExitUsage.
int run_runs_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace jank::app

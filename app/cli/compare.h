// `jank_exporter compare`: a verdict between a baseline and a candidate build
// from run results (docs/runs.md "Comparing builds"), with an exit status for CI.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "app/core/exit_codes.h"

namespace jank::app {

// `args` excludes "compare" itself. Exits kExitOk (no metric regressed),
// kExitRegression, kExitUsage, or kExitNoInput (unreadable or unusable input).
int run_compare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace jank::app

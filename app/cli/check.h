// `jank_exporter check`: run results against absolute budgets per device tier
// (docs/runs.md "Budgets"), with an exit status for CI.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "app/core/exit_codes.h"

namespace jank::app {

// `args` excludes "check" itself. Exits kExitOk (every limit held),
// kExitBudgetBreached, kExitUsage, kExitNoInput (a source unreadable or no
// finished run), kExitCantCreate (the --junit file) or kExitConfig (the
// budgets file is not valid).
int run_check(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace jank::app

// `jank_exporter compare`: a verdict between a baseline and a candidate build
// from run results (docs/runs.md "Comparing builds"), with an exit status for CI.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace jank::app {

// Exit status 1: some metric regressed. Usage errors and unreadable or
// unusable input exit with replay's kExitUsage and kExitNoInput.
inline constexpr int kExitRegression = 1;

// `args` excludes "compare" itself.
int run_compare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

void print_compare_help(std::ostream& out);

}  // namespace jank::app

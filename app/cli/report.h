// `jank_exporter report`: run results files (docs/runs.md, format 1) in, one
// self-contained HTML page out (exporters/run_report.h writes it).
#pragma once

#include <cstdio>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/core/exit_codes.h"

namespace jank::app {

// `args` excludes "report" itself. `stdin_file` is read for "-". A usage
// error exits kExitUsage, like every command's; every other failure
// (unreadable or bad input, unwritable output) kExitReportFailed. Either
// writes nothing: a CI step reads 0 as "the report is there".
int run_report(const std::vector<std::string>& args, std::FILE* stdin_file, std::ostream& out, std::ostream& err);

}  // namespace jank::app

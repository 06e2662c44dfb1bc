// `jank_exporter report`: run results files (docs/runs.md, format 1) in, one
// self-contained HTML page out (exporters/run_report.h writes it).
#pragma once

#include <cstdio>
#include <iosfwd>
#include <string>
#include <vector>

namespace jank::app {

// Every failure (usage, unreadable or bad input, unwritable output) exits 2
// and writes nothing: a CI step reads 0 as "the report is there".
inline constexpr int kExitReportFailed = 2;

// `args` excludes "report" itself. `stdin_file` is read for "-".
int run_report(const std::vector<std::string>& args, std::FILE* stdin_file, std::ostream& out, std::ostream& err);

void print_report_help(std::ostream& out);

}  // namespace jank::app

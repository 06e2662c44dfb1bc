// How `jank_exporter compare` prints its verdict: a table for CI logs, or JSON.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "metrics/run_compare.h"

namespace jank::app {

struct CompareSide {
  std::string label;  // the source or the selection, e.g. "version 1.4.2"
  std::vector<std::string> run_ids;
  std::size_t devices = 0;  // (run, device) pairs
};

struct CompareReport {
  CompareSide baseline, candidate;
  metrics::CompareOptions options;
  metrics::Comparison comparison;
  std::vector<std::string> notices;  // runs and devices left out, mixed apps
};

// A figure as compare's outputs print it: four significant digits by default
// (3.333 %, 59.97 fps, 248.7 /min, 0.41 %), whole numbers from where %g
// would switch to an exponent, "-" for NaN; `sign`: always a sign.
std::string compare_number(double v, bool sign = false, int digits = 4);

// compare --help's text after the options: the metrics, the rules, the exit statuses.
std::string compare_help_footer();

void write_compare_text(std::ostream& out, const CompareReport& report);
void write_compare_json(std::ostream& out, const CompareReport& report);
// JUnit XML (compare --junit): a testcase per work measure and per metric; a
// regression, unequal work or an underpowered metric fails its case.
std::string compare_junit(const CompareReport& report);

}  // namespace jank::app

// How `jank_exporter check` tells its outcome: a table per run and device for
// CI logs, JSON, and JUnit XML for CI systems that show test results.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "metrics/run_budgets.h"

namespace jank::app {

struct CheckReport {
  std::string budgets_file;
  metrics::Budgets budgets;
  metrics::BudgetCheck check;
  std::vector<std::string> notices;  // runs and devices left out
};

void write_check_text(std::ostream& out, const CheckReport& report);
void write_check_json(std::ostream& out, const CheckReport& report);

// One testsuite per run, one testcase per device × limit: a <failure> per
// breach, <skipped> for a metric without a value, and a skipped "tier"
// testcase for a device of no tier, so that it shows in the CI system too.
std::string check_junit(const CheckReport& report);

}  // namespace jank::app

// The budgets file of `jank_exporter check` (docs/runs.md "Budgets"): device
// tiers, each a selector (model glob, refresh rate, SDK level) and absolute
// limits on the results' metrics. Read with yaml-cpp; every error names the
// file, line, column and the key ("tiers[1].limits.sm: ...").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "metrics/run_budgets.h"

namespace jank::config {

struct BudgetsLoad {
  metrics::Budgets budgets;
  std::vector<ConfigError> errors;  // empty: `budgets` is whole
  bool ok() const { return errors.empty(); }
};

// A budgets file is a few tiers; anything near this is not one.
inline constexpr std::size_t kMaxBudgetsBytes = 1 << 20;

BudgetsLoad parse_budgets(std::string_view yaml_text, const std::string& file_name);
BudgetsLoad load_budgets_file(const std::string& path);

}  // namespace jank::config

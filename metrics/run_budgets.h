// Absolute budgets per device tier (docs/runs.md "Budgets"): which tier a
// device of a run's results falls in, and whether each of the tier's limits
// held there. Pure: the budgets file is read by config/budgets.h, the results
// by app/cli; this only judges.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/run_compare.h"

namespace jank::metrics {

// A metric a budget may limit: named as the results' `metrics` name it.
// Lower-is-better metrics take a max, higher-is-better ones (sm, fps) a min.
struct BudgetMetricDef {
  std::string_view name;
  std::string_view unit;
  Better better;
};

std::span<const BudgetMetricDef> budget_metrics();
const BudgetMetricDef* find_budget_metric(std::string_view name);

enum class LimitKind { kMax, kMin };
std::string_view limit_kind_name(LimitKind kind);  // "max", "min"

struct BudgetLimit {
  std::string metric;
  LimitKind kind = LimitKind::kMax;
  double value = 0;
};

// A closed interval, either end optional.
struct Bounds {
  std::optional<double> min, max;
  bool contains(double v) const { return (!min || v >= *min) && (!max || v <= *max); }
};

struct BudgetTier {
  std::string name;
  std::string model = "*";  // shell glob (fnmatch) on the device's model
  // An exact rate matches within ±0.5 Hz: devices report 90 Hz as 90.00001.
  std::optional<double> refresh_hz;
  std::optional<Bounds> refresh_range;
  std::optional<Bounds> sdk;
  std::vector<BudgetLimit> limits;
};

struct Budgets {
  std::vector<BudgetTier> tiers;  // in the file's order: the first match wins
};

// A device of a finished run, as the budgets see it.
struct BudgetDevice {
  std::string serial;
  std::string model;
  std::optional<double> sdk;
  std::optional<double> refresh_hz;
  std::map<std::string, double, std::less<>> metrics;  // null values left out
};

struct BudgetRun {
  std::string id;
  std::string package;
  std::vector<BudgetDevice> devices;
};

// Whether `device` is of `tier`: a selector the device cannot answer (no
// refresh_hz, no sdk) does not match.
bool tier_matches(const BudgetTier& tier, const BudgetDevice& device);

// The index of the first tier `device` matches.
std::optional<std::size_t> tier_of(const Budgets& budgets, const BudgetDevice& device);

// kNoValue: the device's results lack the metric (its source was not seen):
// listed, not a breach.
enum class LimitOutcome { kPass, kBreach, kNoValue };
std::string_view outcome_name(LimitOutcome outcome);  // "pass", "breach", "no_value"

struct LimitCheck {
  BudgetLimit limit;
  std::optional<double> value;
  LimitOutcome outcome = LimitOutcome::kPass;
};

struct DeviceCheck {
  std::string serial;
  std::string model;
  std::optional<double> sdk;
  std::optional<double> refresh_hz;
  std::optional<std::size_t> tier;  // index into Budgets::tiers; nullopt: no tier matches
  std::vector<LimitCheck> limits;
};

struct RunCheck {
  std::string id;
  std::string package;
  std::vector<DeviceCheck> devices;
};

struct BudgetCheck {
  std::vector<RunCheck> runs;
  std::size_t passes = 0, breaches = 0, no_values = 0;
  std::size_t untiered = 0;  // (run, device) pairs of no tier
  bool breached() const { return breaches > 0; }
};

// A value on the limit holds it ("no more than 2 %" allows 2 %).
LimitCheck check_limit(const BudgetLimit& limit, const BudgetDevice& device);

BudgetCheck check_budgets(const Budgets& budgets, std::span<const BudgetRun> runs);

}  // namespace jank::metrics

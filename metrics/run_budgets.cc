#include "metrics/run_budgets.h"

#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace jank::metrics {
namespace {

// What a budget may limit: shares, frame times, rates and CPU, which hold for
// a run of any length, and the counts whose budget is usually none (frozen
// frames). The work counts (frames, active_seconds) measure the test, not the app.
constexpr std::array<BudgetMetricDef, 20> kMetrics = {{
    {"janky_percent", "%", Better::kLower},
    {"slow_percent", "%", Better::kLower},
    {"frozen_percent", "%", Better::kLower},
    {"frozen_frames", "frames", Better::kLower},
    {"sf_frozen_frames", "frames", Better::kLower},
    {"frame_time_p50_ms", "ms", Better::kLower},
    {"frame_time_p90_ms", "ms", Better::kLower},
    {"frame_time_p95_ms", "ms", Better::kLower},
    {"frame_time_p99_ms", "ms", Better::kLower},
    {"max_frame_ms", "ms", Better::kLower},
    {"max_skipped_frames", "frames", Better::kLower},
    {"big_jank", "frames", Better::kLower},
    {"stutter_percent", "%", Better::kLower},
    {"sm", "frames/s", Better::kHigher},
    {"fps", "frames/s", Better::kHigher},
    {"cpu_percent", "% of a core", Better::kLower},
    {"cpu_p95_percent", "% of a core", Better::kLower},
    {"main_thread_cpu_percent", "% of a core", Better::kLower},
    {"peak_rss_bytes", "bytes", Better::kLower},
    {"throttled_percent", "%", Better::kLower},
}};

// Half a hertz either side: panels report 90 Hz as 89.99 or 90.00001.
constexpr double kRefreshSlackHz = 0.5;

}  // namespace

std::span<const BudgetMetricDef> budget_metrics() { return kMetrics; }

const BudgetMetricDef* find_budget_metric(std::string_view name) {
  for (const auto& m : kMetrics)
    if (m.name == name) return &m;
  return nullptr;
}

std::string_view limit_kind_name(LimitKind kind) { return kind == LimitKind::kMax ? "max" : "min"; }

std::string_view outcome_name(LimitOutcome outcome) {
  switch (outcome) {
    case LimitOutcome::kPass:
      return "pass";
    case LimitOutcome::kBreach:
      return "breach";
    case LimitOutcome::kNoValue:
      return "no_value";
  }
  return "";
}

bool tier_matches(const BudgetTier& tier, const BudgetDevice& device) {
  if (::fnmatch(tier.model.c_str(), device.model.c_str(), 0) != 0) return false;
  if (tier.refresh_hz || tier.refresh_range) {
    if (!device.refresh_hz) return false;
    if (tier.refresh_hz && std::fabs(*device.refresh_hz - *tier.refresh_hz) > kRefreshSlackHz) return false;
    if (tier.refresh_range && !tier.refresh_range->contains(*device.refresh_hz)) return false;
  }
  if (tier.sdk && (!device.sdk || !tier.sdk->contains(*device.sdk))) return false;
  return true;
}

std::optional<std::size_t> tier_of(const Budgets& budgets, const BudgetDevice& device) {
  for (std::size_t i = 0; i < budgets.tiers.size(); ++i)
    if (tier_matches(budgets.tiers[i], device)) return i;
  return std::nullopt;
}

LimitCheck check_limit(const BudgetLimit& limit, const BudgetDevice& device) {
  LimitCheck c{limit, std::nullopt, LimitOutcome::kNoValue};
  const auto it = device.metrics.find(limit.metric);
  if (it == device.metrics.end() || !std::isfinite(it->second)) return c;
  c.value = it->second;
  const bool held = limit.kind == LimitKind::kMax ? it->second <= limit.value : it->second >= limit.value;
  c.outcome = held ? LimitOutcome::kPass : LimitOutcome::kBreach;
  return c;
}

BudgetCheck check_budgets(const Budgets& budgets, std::span<const BudgetRun> runs) {
  BudgetCheck out;
  for (const auto& run : runs) {
    RunCheck rc{run.id, run.package, {}};
    for (const auto& d : run.devices) {
      DeviceCheck dc{d.serial, d.model, d.sdk, d.refresh_hz, tier_of(budgets, d), {}};
      if (!dc.tier) {
        ++out.untiered;
      } else {
        for (const auto& limit : budgets.tiers[*dc.tier].limits) {
          dc.limits.push_back(check_limit(limit, d));
          switch (dc.limits.back().outcome) {
            case LimitOutcome::kPass:
              ++out.passes;
              break;
            case LimitOutcome::kBreach:
              ++out.breaches;
              break;
            case LimitOutcome::kNoValue:
              ++out.no_values;
              break;
          }
        }
      }
      rc.devices.push_back(std::move(dc));
    }
    out.runs.push_back(std::move(rc));
  }
  return out;
}

}  // namespace jank::metrics

#include "metrics/run_history.h"

#include <algorithm>
#include <cmath>

#include "metrics/run_stats.h"

namespace jank::metrics {

std::vector<MetricStep> find_steps(std::span<const std::vector<CompareRun>> builds, const CompareOptions& options) {
  std::vector<MetricStep> out;
  for (const auto& def : compared_metrics()) {
    if (!options.compares(def)) continue;
    std::vector<std::vector<double>> per_build;
    std::size_t with_samples = 0;
    for (const auto& runs : builds) {
      per_build.push_back(metric_samples(def, runs, options.per_run));
      with_samples += per_build.back().empty() ? 0 : 1;
    }
    if (with_samples < 2) continue;
    MetricStep step;
    step.def = &def;
    step.threshold = options.threshold_of(def);
    for (const auto& s : per_build) step.samples_per_build.push_back(s.size());

    // Pettitt's U_t at each boundary between builds: Σ sgn(x_j − x_i) over
    // i before and j after, which is 2·U − n₁n₂ of the Mann–Whitney count U
    // of later values above earlier ones (ties half).
    std::vector<double> before, after, all;
    for (const auto& s : per_build) all.insert(all.end(), s.begin(), s.end());
    bool found = false;
    for (std::size_t b = 1; b < per_build.size(); ++b) {
      before.clear();
      after.clear();
      for (std::size_t i = 0; i < per_build.size(); ++i) {
        auto& side = i < b ? before : after;
        side.insert(side.end(), per_build[i].begin(), per_build[i].end());
      }
      if (before.size() < kMinSamples || after.size() < kMinSamples) continue;
      const double u = mann_whitney(before, after).u_b;
      const double u_t = 2 * u - static_cast<double>(before.size() * after.size());
      if (!found || std::abs(u_t) > step.k) {
        found = true;
        step.k = std::abs(u_t);
        step.step_at = b;
        step.median_before = median(before);
        step.median_after = median(after);
      }
    }
    if (found) {
      const double t = static_cast<double>(all.size());
      step.p_value = std::min(1.0, 2 * std::exp(-6 * step.k * step.k / (t * t * t + t * t)));
      step.change = step.median_after - step.median_before;
      step.relative_change = relative_change_percent(step.median_before, step.median_after);
      step.verdict = judge(def.better, step.p_value, options.alpha, step.change, step.relative_change, step.threshold);
    }
    out.push_back(step);
  }
  return out;
}

}  // namespace jank::metrics

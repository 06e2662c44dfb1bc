#include "metrics/run_calibration.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "metrics/run_stats.h"

namespace jank::metrics {
namespace {

// Fewer runs than this and a split has under two a side: no figure.
constexpr std::size_t kMinCalibrationRuns = 4;
// Steps of the search for the smallest shift seen: the answer is within
// 1/2^20 of the largest shift tried.
constexpr int kSearchSteps = 20;
// How far above the true smallest shift the search may stop, relative.
constexpr double kSearchSlack = 1e-3;

// One run's samples of a metric (one per device, or with per run their mean).
using RunSamples = std::vector<std::vector<double>>;

RunSamples samples_per_run(const MetricDef& def, std::span<const CompareRun> runs, bool per_run) {
  RunSamples out;
  for (const auto& run : runs) {
    auto s = metric_samples(def, std::span<const CompareRun>(&run, 1), per_run);
    if (!s.empty()) out.push_back(std::move(s));
  }
  return out;
}

std::vector<double> gather(const RunSamples& runs, std::span<const std::size_t> picks, double add) {
  std::vector<double> out;
  for (const auto i : picks) {
    for (const double v : runs[i]) out.push_back(v + add);
  }
  return out;
}

// The gate's verdict on one metric, the candidate's samples moved by `shift`
// the worse way.
Verdict gate(const MetricDef& def, const Threshold& threshold, const RunSamples& runs,
             std::span<const std::size_t> baseline, std::span<const std::size_t> candidate, double shift,
             double alpha) {
  const auto a = gather(runs, baseline, 0);
  const auto b = gather(runs, candidate, def.better == Better::kLower ? shift : -shift);
  if (a.size() < kMinSamples || b.size() < kMinSamples) return Verdict::kInsufficientData;
  const double change = median(b) - median(a);
  return judge(def.better, mann_whitney(a, b).p_value, alpha, change, relative_change_percent(median(a), median(b)),
               threshold);
}

// The spread the searched shifts are measured in: the interquartile range,
// or the median's size, or the threshold.
double spread_of(const std::vector<double>& all, double effect) {
  const double iqr = quantile(all, 0.75) - quantile(all, 0.25);
  if (iqr > 0) return iqr;
  if (std::abs(median(all)) > 0) return std::abs(median(all));
  return effect > 0 ? effect : 1;
}

MetricCalibration calibrate_metric(const MetricDef& def, const Threshold& threshold, const RunSamples& runs,
                                   const std::string& model, const CalibrationOptions& o) {
  MetricCalibration c;
  c.def = &def;
  c.model = model;
  c.runs = runs.size();
  std::vector<double> all;
  for (const auto& r : runs) all.insert(all.end(), r.begin(), r.end());
  c.samples = all.size();
  c.median = median(all);
  c.split_runs = runs.size() / 2;
  const double alpha = o.compare.alpha;
  std::mt19937_64 rng(o.seed);

  // Splits: the runs shuffled, one half against the other.
  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  // The test alone: p below alpha and any change (the statistics' own
  // error rate, and what a sample size can detect at all).
  const Threshold test_only{0, false};
  std::size_t regressions = 0, flagged = 0;
  for (std::size_t r = 0; r < o.resamples; ++r) {
    std::shuffle(order.begin(), order.end(), rng);
    const std::span<const std::size_t> picks(order);
    const auto a = picks.first(c.split_runs), b = picks.subspan(c.split_runs, c.split_runs);
    regressions += gate(def, threshold, runs, a, b, 0, alpha) == Verdict::kRegression;
    const auto v = gate(def, test_only, runs, a, b, 0, alpha);
    flagged += v == Verdict::kRegression || v == Verdict::kImprovement;
  }
  const auto resamples = static_cast<double>(std::max<std::size_t>(o.resamples, 1));
  c.false_regression_rate = static_cast<double>(regressions) / resamples;
  c.flagged_rate = static_cast<double>(flagged) / resamples;

  // Draws: n runs a side with replacement, the same draws for every shift
  // tried, so that detection grows with the shift.
  const double effect = configured_effect(threshold, c.median);
  const double largest = std::max(kMaxShiftSpreads * spread_of(all, effect), 4 * effect);
  std::uniform_int_distribution<std::size_t> pick(0, runs.size() - 1);
  for (const std::size_t n : o.runs_per_side) {
    std::vector<std::vector<std::size_t>> draws_a(o.resamples), draws_b(o.resamples);
    for (std::size_t r = 0; r < o.resamples; ++r) {
      for (std::size_t i = 0; i < n; ++i) {
        draws_a[r].push_back(pick(rng));
        draws_b[r].push_back(pick(rng));
      }
    }
    auto seen = [&](double shift) {
      std::size_t hits = 0;
      for (std::size_t r = 0; r < o.resamples; ++r) {
        hits += gate(def, test_only, runs, draws_a[r], draws_b[r], shift, alpha) == Verdict::kRegression;
      }
      return static_cast<double>(hits) / resamples >= o.power;
    };
    DetectableEffect e;
    e.runs_per_side = n;
    if (seen(largest)) {
      double lo = 0, hi = largest;
      for (int step = 0; step < kSearchSteps; ++step) {
        const double mid = (lo + hi) / 2;
        (seen(mid) ? hi : lo) = mid;
      }
      e.shift = hi;
    }
    c.effects.push_back(e);
  }
  return c;
}

std::vector<CompareRun> runs_on_model(std::span<const CompareRun> runs, const std::string& model) {
  std::vector<CompareRun> out;
  for (const auto& run : runs) {
    CompareRun kept = run;
    kept.devices.clear();
    for (const auto& d : run.devices) {
      if (d.model == model) kept.devices.push_back(d);
    }
    if (!kept.devices.empty()) out.push_back(std::move(kept));
  }
  return out;
}

}  // namespace

double configured_effect(const Threshold& threshold, double baseline_median) {
  return threshold.relative ? threshold.value / 100 * std::abs(baseline_median) : threshold.value;
}

std::vector<MetricCalibration> calibrate(std::span<const CompareRun> runs, const CalibrationOptions& options) {
  std::vector<MetricCalibration> out;
  std::set<std::string> models;
  for (const auto& run : runs) {
    for (const auto& d : run.devices) {
      if (!d.model.empty()) models.insert(d.model);
    }
  }
  std::vector<std::pair<std::string, std::vector<CompareRun>>> groups{{"", {runs.begin(), runs.end()}}};
  if (models.size() > 1) {
    for (const auto& m : models) groups.emplace_back(m, runs_on_model(runs, m));
  }
  for (const auto& [model, group] : groups) {
    for (const auto& def : compared_metrics()) {
      if (!options.compare.compares(def)) continue;
      const auto samples = samples_per_run(def, group, options.compare.per_run);
      if (samples.size() < kMinCalibrationRuns) continue;
      out.push_back(calibrate_metric(def, options.compare.threshold_of(def), samples, model, options));
    }
  }
  return out;
}

bool detects(const MetricCalibration& calibration, std::size_t runs_per_side, double effect) {
  const DetectableEffect* row = nullptr;
  for (const auto& e : calibration.effects) {
    if (e.runs_per_side <= runs_per_side && (row == nullptr || e.runs_per_side > row->runs_per_side)) row = &e;
  }
  // The search stops just above the smallest shift seen: a shift found equal
  // to the effect (a threshold the samples' spread does not hide) passes.
  return row != nullptr && row->shift && *row->shift <= effect * (1 + kSearchSlack);
}

void apply_power(Comparison& comparison, std::span<const MetricCalibration> calibration, std::size_t runs_per_side) {
  bool underpowered = false;
  for (auto& m : comparison.metrics) {
    if (m.verdict == Verdict::kInsufficientData || m.verdict == Verdict::kRegression) continue;
    const auto row = std::find_if(calibration.begin(), calibration.end(), [&](const MetricCalibration& c) {
      return c.model.empty() && c.def != nullptr && c.def->name == m.def->name;
    });
    if (row == calibration.end()) continue;
    m.powered = detects(*row, runs_per_side, configured_effect(m.threshold, m.median_baseline));
    underpowered |= !*m.powered;
  }
  if (underpowered && comparison.overall != Verdict::kUnequalWork && comparison.overall != Verdict::kRegression) {
    comparison.overall = Verdict::kInsufficientPower;
  }
}

}  // namespace jank::metrics

// The verdict of `jank_exporter compare`: runs of a baseline build against
// runs of a candidate build, metric by metric (docs/runs.md "Comparing
// builds"). Pure: the runs come already read from results JSON.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/run_stats.h"

namespace jank::metrics {

// What compare needs of one run's results (docs/runs.md, format 1).
struct CompareDevice {
  std::string serial;
  std::map<std::string, double, std::less<>> metrics;  // the results' `metrics`, null values left out
  std::string model = {};                              // the results' device `model` ("" unknown)
};

struct CompareRun {
  std::string id;
  std::string package;
  double duration_seconds = 0;
  std::vector<CompareDevice> devices;
};

enum class Better { kLower, kHigher };

struct Threshold {
  double value = 0;
  bool relative = false;  // value is a percentage of the baseline median
};

// How a compared metric is read from a device's results.
enum class Source {
  kDirect,     // the results key itself
  kPerMinute,  // key / duration_seconds × 60
  kPercentOf,  // key / denominator × 100
};

struct MetricDef {
  std::string_view name;  // as printed and as named by --threshold
  std::string_view unit;
  Better better;
  Source source;
  std::string_view key;
  std::string_view denominator;  // kPercentOf only
  Threshold threshold;           // the default practical threshold
};

// Every compared metric, in the order printed.
std::span<const MetricDef> compared_metrics();
const MetricDef* find_compared_metric(std::string_view name);

// One device's value of `def` in `run`, or nullopt when its source is absent
// (or the run lasted no time, or the denominator is 0).
std::optional<double> metric_value(const MetricDef& def, const CompareRun& run, const CompareDevice& device);

// Samples of `def` over `runs`: one per (run, device) with the metric, or with
// per_run one per run, the mean of its devices' values.
std::vector<double> metric_samples(const MetricDef& def, std::span<const CompareRun> runs, bool per_run);

// Fewer samples on a side: no verdict. Fewer than kFewSamples: a warning.
inline constexpr std::size_t kMinSamples = 3;
inline constexpr std::size_t kFewSamples = 10;

// kUnequalWork: the two builds did not do the same work (see WorkDef): no
// metric's change can be read as the build's. kInsufficientPower: by an A/A
// calibration (metrics/run_calibration.h) the runs could not have seen the
// change the gate is configured for, so "no regression" means nothing.
enum class Verdict { kNoChange, kImprovement, kRegression, kInsufficientData, kUnequalWork, kInsufficientPower };
std::string_view verdict_name(Verdict v);  // "no_change", "improvement", …

// How much work a run did on a device, compared between the builds before
// any metric: a candidate whose screen failed to load draws half the frames
// and would look smoother.
struct WorkDef {
  std::string_view name;  // as printed
  std::string_view key;   // the results key; "duration_seconds": the run's own
  std::string_view plus;  // a key added to it (0 when absent), or ""
};
std::span<const WorkDef> work_measures();

// Default tolerance of the work check: the candidate's median amount of a
// work measure within this percentage of the baseline's.
inline constexpr double kDefaultWorkTolerancePercent = 20;

struct WorkComparison {
  const WorkDef* def = nullptr;
  std::size_t n_baseline = 0, n_candidate = 0;
  double median_baseline = 0, median_candidate = 0;
  std::optional<double> relative_difference;  // percent of the baseline median; none from 0
  bool unequal = false;                       // beyond the tolerance (from 0: any difference)
};

struct CompareOptions {
  double alpha = 0.05;
  double work_tolerance_percent = kDefaultWorkTolerancePercent;  // < 0: no work check
  bool per_run = false;
  std::map<std::string, Threshold, std::less<>> thresholds;  // overrides of the defaults
  std::vector<std::string> metrics;                          // empty: every metric

  // Whether `def` is compared (metrics names it, or names none).
  bool compares(const MetricDef& def) const;
  // The threshold of `def`: the override given, else its default.
  Threshold threshold_of(const MetricDef& def) const;
};

struct MetricComparison {
  const MetricDef* def = nullptr;
  Threshold threshold;
  std::size_t n_baseline = 0, n_candidate = 0;
  double median_baseline = 0, median_candidate = 0;
  double change = 0;                       // median_candidate − median_baseline
  std::optional<double> relative_change;   // percent of the baseline median
  std::optional<ShiftEstimate> shift;      // candidate − baseline, interval at 1 − alpha
  RankTest test;
  Verdict verdict = Verdict::kInsufficientData;
  bool few_samples = false;  // computed, but on fewer than kFewSamples on a side
  // With a calibration: whether these runs could see the configured change
  // (nullopt: not calibrated, or a regression, which was seen).
  std::optional<bool> powered;
};

struct Comparison {
  std::vector<MetricComparison> metrics;  // those with a sample on either side
  std::vector<WorkComparison> work;       // the work measures with a sample on both sides
  // kUnequalWork if a work measure differs beyond the tolerance, else
  // kRegression if any metric regressed, else (with a calibration)
  // kInsufficientPower if a judged metric could not have seen its change,
  // else kImprovement if any improved, else kNoChange if any metric had
  // enough samples, else kInsufficientData.
  Verdict overall = Verdict::kInsufficientData;
};

// The verdict on one metric: a regression (or an improvement) needs both
// p < alpha and a change of the medians in the worse (better) direction at
// least as large as the threshold.
Verdict judge(Better better, double p_value, double alpha, double change, std::optional<double> relative_change,
              Threshold threshold);

Comparison compare_runs(std::span<const CompareRun> baseline, std::span<const CompareRun> candidate,
                        const CompareOptions& options);

}  // namespace jank::metrics

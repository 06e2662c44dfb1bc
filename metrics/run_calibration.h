// A/A calibration of `jank_exporter compare` (docs/runs.md, "Calibrating
// the gate"): runs of one build, split again and again into two made-up
// builds, show how often the gate cries wolf (its false-regression rate), and
// runs drawn again and again with a shift added to one side show the smallest
// change it sees with a given number of runs per side (its minimum detectable
// effect). Runs are resampled whole, so what a run's devices share (a hot
// room, a slow network) stays in the figures. Pure and deterministic: the
// same runs and seed give the same figures.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "metrics/run_compare.h"

namespace jank::metrics {

struct CalibrationOptions {
  CompareOptions compare;          // alpha, per run, thresholds: the gate being calibrated
  std::size_t resamples = 400;     // splits (and draws per shift) per figure
  std::uint64_t seed = 1;
  double power = 0.8;              // the detection rate the minimum detectable effect is defined by
  std::vector<std::size_t> runs_per_side = {3, 5, 10, 15, 20, 30};
};

struct DetectableEffect {
  std::size_t runs_per_side = 0;
  // The smallest shift (in the metric's unit, the worse way) the test finds
  // (p < alpha, the worse way) in at least `power` of the draws; none when
  // even a shift of kMaxShiftSpreads spreads of the samples is not found that
  // often. The practical threshold is left out: it decides whether a change
  // matters, this whether the runs can see one of that size at all.
  std::optional<double> shift;
};

struct MetricCalibration {
  const MetricDef* def = nullptr;
  std::string model;             // "" for every device together
  std::size_t runs = 0;          // runs with a sample of the metric
  std::size_t samples = 0;
  double median = 0;
  std::size_t split_runs = 0;    // runs per side in the splits (half the runs)
  double false_regression_rate = 0;  // splits the gate (test and threshold) judged a regression
  double flagged_rate = 0;           // splits the test alone found different (p < alpha, either way)
  std::vector<DetectableEffect> effects;  // per CalibrationOptions::runs_per_side
};

// The largest shift tried, in spreads (interquartile range, or the median's
// size when the samples have none) of the metric's samples.
inline constexpr double kMaxShiftSpreads = 8;

// Every compared metric with samples in at least four runs, for every device
// together and then per device model (by `CompareDevice::model`, models with
// at least four runs).
std::vector<MetricCalibration> calibrate(std::span<const CompareRun> runs, const CalibrationOptions& options);

// The change a gate with `threshold` is configured to catch at
// `baseline_median`: the threshold, a relative one taken of that median.
double configured_effect(const Threshold& threshold, double baseline_median);

// Whether a gate with `runs_per_side` runs a side sees `effect`, by the
// calibration's table: the row of the largest run count at most
// `runs_per_side` must have a detectable shift at most `effect`. False below
// the table's smallest run count.
bool detects(const MetricCalibration& calibration, std::size_t runs_per_side, double effect);

// Marks each judged metric of `comparison` that was not a regression as
// powered or not by its calibration (the row of every device together, same
// name), for a gate of `runs_per_side` runs a side, and makes the overall
// verdict kInsufficientPower when one was not (unequal work and a regression
// still come first). Metrics without a calibration row are left unmarked.
void apply_power(Comparison& comparison, std::span<const MetricCalibration> calibration, std::size_t runs_per_side);

}  // namespace jank::metrics

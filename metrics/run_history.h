// `jank_exporter compare --history`: the runs of a series of builds, oldest
// first, and per metric the build where it stepped (docs/runs.md, "A series
// of builds"), so that a slow drift over ten builds, each within the gate of
// the one before, is still seen. The step is found with Pettitt's
// non-parametric change-point test (A. N. Pettitt, "A non-parametric approach
// to the change-point problem", Applied Statistics 28(2), 1979), its split
// points limited to the boundaries between builds. Pure.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "metrics/run_compare.h"

namespace jank::metrics {

struct MetricStep {
  const MetricDef* def = nullptr;
  Threshold threshold;
  std::vector<std::size_t> samples_per_build;
  // The first build after the most likely step (1 … builds − 1), with
  // Pettitt's statistic K = max |U_t| over build boundaries and its p-value
  // (the approximation 2·exp(−6K² / (T³ + T²)), T samples in all).
  std::size_t step_at = 0;
  double k = 0;
  double p_value = 1;
  double median_before = 0, median_after = 0;
  double change = 0;
  std::optional<double> relative_change;
  // As compare judges a change: p below alpha and the threshold met, the
  // worse way a regression; kInsufficientData when fewer than two builds or
  // kMinSamples samples on either side of every boundary.
  Verdict verdict = Verdict::kInsufficientData;
};

// One entry per compared metric with samples in at least two builds; builds
// in order, each its runs.
std::vector<MetricStep> find_steps(std::span<const std::vector<CompareRun>> builds, const CompareOptions& options);

}  // namespace jank::metrics

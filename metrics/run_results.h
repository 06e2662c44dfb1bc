// A run's results on one device (docs/runs.md "metrics"): what its counted
// growth means. Every value is optional: absent when its source never
// reported on that device during the run.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "metrics/run_book.h"

namespace jank::metrics {

struct RunHistogram {
  std::span<const double> bounds;
  std::vector<std::uint64_t> counts;  // bounds.size() + 1 (the last is +Inf), per bucket
};

struct RunDeviceResults {
  double duration_seconds = 0;
  std::map<std::string, std::optional<double>> metrics;  // docs/runs.md names; nullopt: none
  std::map<std::string, std::uint64_t> jank_causes;      // gfxinfo
  std::map<std::string, std::uint64_t> ft_jank_types;    // FrameTimeline
  std::map<std::string, RunHistogram> histograms;
};

// The order docs/runs.md lists the metrics in (CSV columns, tables).
std::span<const std::string_view> run_metric_names();

// Seconds a run measured: from its baseline to the stop request (or to `now_ns` while open).
double run_duration_seconds(const Run& run, std::int64_t now_ns);

RunDeviceResults run_results(const Run& run, const RunDevice& device, std::int64_t now_ns);

// A time step's app CPU (the resource poll) as a percent of one core;
// nullopt for a step without a measurement or without length.
std::optional<double> step_cpu_percent(const RunStep& step);

// The upper bound of the bucket that holds rank ⌈q·n⌉ (the last finite bound
// for the +Inf bucket); nullopt without observations.
std::optional<double> bucket_quantile(std::span<const double> bounds, const std::vector<std::uint64_t>& counts,
                                      double q);

}  // namespace jank::metrics

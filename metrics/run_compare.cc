#include "metrics/run_compare.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace jank::metrics {
namespace {

constexpr Threshold kPoints1{1, false};
constexpr Threshold kTenPercent{10, true};

// Rates are per minute of the run so that runs of different lengths compare;
// percentages and per-second figures (SM, FPS) get absolute thresholds, since
// a relative one would shrink to nothing near 0 % and mean little near 60 fps.
constexpr std::array kMetrics{
    MetricDef{"janky_percent", "%", Better::kLower, Source::kDirect, "janky_percent", "", kPoints1},
    MetricDef{"frame_time_p90_ms", "ms", Better::kLower, Source::kDirect, "frame_time_p90_ms", "", kTenPercent},
    MetricDef{"frame_time_p95_ms", "ms", Better::kLower, Source::kDirect, "frame_time_p95_ms", "", kTenPercent},
    MetricDef{"frame_time_p99_ms", "ms", Better::kLower, Source::kDirect, "frame_time_p99_ms", "", kTenPercent},
    MetricDef{"max_frame_ms", "ms", Better::kLower, Source::kDirect, "max_frame_ms", "", kTenPercent},
    MetricDef{"skipped_frames_per_minute", "/min", Better::kLower, Source::kPerMinute, "skipped_frames", "",
              kTenPercent},
    MetricDef{"max_skipped_frames", "frames", Better::kLower, Source::kDirect, "max_skipped_frames", "",
              kTenPercent},
    MetricDef{"sm", "fps", Better::kHigher, Source::kDirect, "sm", "", kPoints1},
    MetricDef{"davey_frames_per_minute", "/min", Better::kLower, Source::kPerMinute, "davey_frames", "",
              kTenPercent},
    MetricDef{"fps", "fps", Better::kHigher, Source::kDirect, "fps", "", kPoints1},
    MetricDef{"jank_per_minute", "/min", Better::kLower, Source::kPerMinute, "jank", "", kTenPercent},
    MetricDef{"big_jank_per_minute", "/min", Better::kLower, Source::kPerMinute, "big_jank", "", kTenPercent},
    MetricDef{"stutter_percent", "%", Better::kLower, Source::kDirect, "stutter_percent", "", kTenPercent},
    MetricDef{"ft_janky_percent", "%", Better::kLower, Source::kPercentOf, "ft_janky_frames", "ft_frames",
              kPoints1},
};

// What two builds must have in common for their jank to compare, measured
// so that jank itself does not change it: the run's length, and the frames
// the app was asked for, drawn or skipped (Choreographer's count: a stall
// moves frames from drawn to skipped, a screen that never loaded has
// neither). Frames drawn alone, FrameTimeline's and SurfaceFlinger's
// frames and the active time all fall when a build janks, and would call a
// real regression unequal work.
constexpr std::array kWork{
    WorkDef{"duration_seconds", "duration_seconds", ""},
    WorkDef{"frame_slots", "frames", "skipped_frames"},
};

std::optional<double> lookup(const CompareDevice& device, std::string_view key) {
  const auto it = device.metrics.find(key);
  if (it == device.metrics.end()) return std::nullopt;
  return it->second;
}

// One sample per (run, device) that has a value, or with per_run one per
// run: the mean of its devices' values.
template <typename Value>
std::vector<double> samples_of(std::span<const CompareRun> runs, bool per_run, Value value) {
  std::vector<double> out;
  for (const auto& run : runs) {
    double sum = 0;
    std::size_t count = 0;
    for (const auto& device : run.devices) {
      const std::optional<double> v = value(run, device);
      if (!v) continue;
      if (per_run) {
        sum += *v;
        ++count;
      } else {
        out.push_back(*v);
      }
    }
    if (per_run && count > 0) out.push_back(sum / static_cast<double>(count));
  }
  return out;
}

bool threshold_met(double change, std::optional<double> relative_change, Threshold t) {
  if (!t.relative) return std::abs(change) >= t.value;
  return !relative_change || std::abs(*relative_change) >= t.value;  // from 0: an unbounded change
}

}  // namespace

bool CompareOptions::compares(const MetricDef& def) const {
  return metrics.empty() || std::find(metrics.begin(), metrics.end(), def.name) != metrics.end();
}

Threshold CompareOptions::threshold_of(const MetricDef& def) const {
  const auto it = thresholds.find(def.name);
  return it != thresholds.end() ? it->second : def.threshold;
}

std::span<const MetricDef> compared_metrics() { return kMetrics; }
std::span<const WorkDef> work_measures() { return kWork; }

const MetricDef* find_compared_metric(std::string_view name) {
  for (const auto& m : kMetrics)
    if (m.name == name) return &m;
  return nullptr;
}

std::optional<double> metric_value(const MetricDef& def, const CompareRun& run, const CompareDevice& device) {
  const auto value = lookup(device, def.key);
  if (!value) return std::nullopt;
  switch (def.source) {
    case Source::kDirect:
      return value;
    case Source::kPerMinute:
      if (!(run.duration_seconds > 0)) return std::nullopt;
      return *value / run.duration_seconds * 60;
    case Source::kPercentOf: {
      const auto whole = lookup(device, def.denominator);
      if (!whole || !(*whole > 0)) return std::nullopt;
      return *value / *whole * 100;
    }
  }
  return std::nullopt;
}

std::vector<double> metric_samples(const MetricDef& def, std::span<const CompareRun> runs, bool per_run) {
  return samples_of(runs, per_run,
                    [&](const CompareRun& run, const CompareDevice& device) { return metric_value(def, run, device); });
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kNoChange:
      return "no_change";
    case Verdict::kImprovement:
      return "improvement";
    case Verdict::kRegression:
      return "regression";
    case Verdict::kInsufficientData:
      return "insufficient_data";
    case Verdict::kUnequalWork:
      return "unequal_work";
    case Verdict::kInsufficientPower:
      return "insufficient_power";
  }
  return "insufficient_data";
}

Verdict judge(Better better, double p_value, double alpha, double change, std::optional<double> relative_change,
              Threshold threshold) {
  if (!(p_value < alpha) || change == 0 || !threshold_met(change, relative_change, threshold))
    return Verdict::kNoChange;
  const bool worse = better == Better::kLower ? change > 0 : change < 0;
  return worse ? Verdict::kRegression : Verdict::kImprovement;
}

namespace {

// A work measure's samples, taken as the metrics' are.
std::vector<double> work_samples(const WorkDef& def, std::span<const CompareRun> runs, bool per_run) {
  return samples_of(runs, per_run, [&](const CompareRun& run, const CompareDevice& device) {
    auto v = def.key == "duration_seconds" ? std::optional<double>(run.duration_seconds) : lookup(device, def.key);
    if (v && !def.plus.empty()) *v += lookup(device, def.plus).value_or(0);
    return v;
  });
}

std::vector<WorkComparison> compare_work(std::span<const CompareRun> baseline, std::span<const CompareRun> candidate,
                                         const CompareOptions& options) {
  std::vector<WorkComparison> out;
  for (const auto& def : kWork) {
    const auto a = work_samples(def, baseline, options.per_run);
    const auto b = work_samples(def, candidate, options.per_run);
    if (a.empty() || b.empty()) continue;  // a source one side lacks is the metrics' business
    WorkComparison w;
    w.def = &def;
    w.n_baseline = a.size();
    w.n_candidate = b.size();
    w.median_baseline = median(a);
    w.median_candidate = median(b);
    w.relative_difference = relative_change_percent(w.median_baseline, w.median_candidate);
    if (options.work_tolerance_percent >= 0) {
      w.unequal = w.relative_difference ? std::abs(*w.relative_difference) > options.work_tolerance_percent
                                        : w.median_candidate != w.median_baseline;
    }
    out.push_back(w);
  }
  return out;
}

}  // namespace

Comparison compare_runs(std::span<const CompareRun> baseline, std::span<const CompareRun> candidate,
                        const CompareOptions& options) {
  Comparison result;
  result.work = compare_work(baseline, candidate, options);
  bool any_judged = false, any_improved = false, any_regressed = false;
  for (const auto& def : kMetrics) {
    if (!options.compares(def)) continue;
    const auto a = metric_samples(def, baseline, options.per_run);
    const auto b = metric_samples(def, candidate, options.per_run);
    if (a.empty() && b.empty()) continue;
    MetricComparison mc;
    mc.def = &def;
    mc.threshold = options.threshold_of(def);
    mc.n_baseline = a.size();
    mc.n_candidate = b.size();
    mc.median_baseline = median(a);
    mc.median_candidate = median(b);
    if (a.size() >= kMinSamples && b.size() >= kMinSamples) {
      mc.change = mc.median_candidate - mc.median_baseline;
      mc.relative_change = relative_change_percent(mc.median_baseline, mc.median_candidate);
      mc.test = mann_whitney(a, b);
      mc.shift = hodges_lehmann(a, b, options.alpha);
      mc.few_samples = a.size() < kFewSamples || b.size() < kFewSamples;
      mc.verdict = judge(def.better, mc.test.p_value, options.alpha, mc.change, mc.relative_change, mc.threshold);
      any_judged = true;
      any_improved |= mc.verdict == Verdict::kImprovement;
      any_regressed |= mc.verdict == Verdict::kRegression;
    }
    result.metrics.push_back(mc);
  }
  const bool unequal = std::any_of(result.work.begin(), result.work.end(), [](const auto& w) { return w.unequal; });
  result.overall = unequal        ? Verdict::kUnequalWork
                   : any_regressed  ? Verdict::kRegression
                   : any_improved ? Verdict::kImprovement
                   : any_judged   ? Verdict::kNoChange
                                  : Verdict::kInsufficientData;
  return result;
}

}  // namespace jank::metrics

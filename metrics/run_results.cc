#include "metrics/run_results.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "metrics/histogram.h"
#include "parsers/proc_stat.h"
#include "parsers/time_units.h"

namespace jank::metrics {
namespace {

constexpr std::array<std::string_view, 36> kNames = {
    "frames",        "janky_frames",      "janky_percent",     "slow_frames",       "slow_percent",
    "frozen_frames", "frozen_percent",    "frame_time_p50_ms", "frame_time_p90_ms",
    "frame_time_p95_ms", "frame_time_p99_ms", "max_frame_ms",   "framestats_frames", "framestats_janky_frames",
    "framestats_janky_frames_legacy",
    "skipped_frames", "skip_events",      "max_skipped_frames", "sm",               "davey_frames",
    "sf_frames",     "active_seconds",    "fps",               "jank",              "big_jank",
    "stutter_percent", "sf_slow_frames",  "sf_frozen_frames",  "ft_frames",         "ft_janky_frames",
    "cpu_percent",   "cpu_p95_percent",   "main_thread_cpu_percent", "peak_rss_bytes", "throttled_seconds",
    "throttled_percent"};

// The nearest-rank p-quantile of the steps' CPU shares.
std::optional<double> steps_cpu_quantile(const RunDevice& d, double q) {
  std::vector<double> shares;
  for (const RunStep& s : d.steps) {
    if (const auto v = step_cpu_percent(s)) shares.push_back(*v);
  }
  if (shares.empty()) return std::nullopt;
  std::sort(shares.begin(), shares.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(shares.size())));
  return shares[std::clamp<std::size_t>(rank, 1, shares.size()) - 1];
}

std::optional<double> as_double(std::optional<std::uint64_t> v) {
  if (!v) return std::nullopt;
  return static_cast<double>(*v);
}

}  // namespace

std::span<const std::string_view> run_metric_names() { return kNames; }

std::optional<double> step_cpu_percent(const RunStep& s) {
  if (!s.has_cpu || s.span_ns <= 0) return std::nullopt;
  return 100.0 * static_cast<double>(s.cpu_ticks) / static_cast<double>(parsers::kProcTicksPerSecond) /
         parsers::units::seconds_of_ns(s.span_ns);
}

double run_duration_seconds(const Run& run, std::int64_t now_ns) {
  if (run.state == RunState::starting) return 0;
  // The span the counts cover: from the baseline to the final counts, which
  // come after the stop (docs/runs.md, "How the results stay exact"). Ending
  // at the stop request instead overstated every rate by the settle time (a
  // tenth in a 10 s run).
  const std::int64_t end = run.state == RunState::finished ? run.finished_ns : now_ns;
  return parsers::units::seconds_of_ns(std::max<std::int64_t>(0, end - run.started_ns));
}

std::optional<double> bucket_quantile(std::span<const double> bounds, const std::vector<std::uint64_t>& counts,
                                      double q) {
  std::uint64_t n = 0;
  for (const auto c : counts) n += c;
  if (n == 0 || bounds.empty()) return std::nullopt;
  const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(n)));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    seen += counts[i];
    if (seen >= std::max<std::uint64_t>(rank, 1)) return bounds[std::min(i, bounds.size() - 1)];
  }
  return bounds.back();
}

RunDeviceResults run_results(const Run& run, const RunDevice& d, std::int64_t now_ns) {
  RunDeviceResults out;
  const AppCounters& c = d.counted;
  const double seconds = run_duration_seconds(run, now_ns);
  out.duration_seconds = seconds;
  auto& m = out.metrics;
  for (const auto name : kNames) m[std::string(name)] = std::nullopt;

  const auto frames = c.total("frames");
  const auto janky = c.total("janky_frames");
  m["frames"] = as_double(frames);
  m["janky_frames"] = as_double(janky);
  if (frames && janky && *frames > 0) m["janky_percent"] = 100.0 * static_cast<double>(*janky) / static_cast<double>(*frames);
  // Android vitals: shares of the run's frames, as the Play Console reports them.
  for (const auto& [count, percent] : {std::pair{"slow_frames", "slow_percent"}, std::pair{"frozen_frames", "frozen_percent"}}) {
    const auto n = c.total(count);
    m[count] = as_double(n);
    if (frames && n && *frames > 0) m[percent] = 100.0 * static_cast<double>(*n) / static_cast<double>(*frames);
  }
  const auto durations = c.total_buckets(kRunFrameDuration);
  const auto frame_bounds = buckets::frame_duration_seconds();
  if (durations.size() == frame_bounds.size() + 1) {
    for (const auto& [key, q] : {std::pair{"frame_time_p50_ms", 0.50}, std::pair{"frame_time_p90_ms", 0.90},
                                 std::pair{"frame_time_p95_ms", 0.95}, std::pair{"frame_time_p99_ms", 0.99}}) {
      if (const auto v = bucket_quantile(frame_bounds, durations, q)) m[key] = std::round(*v * 1e6) / 1e3;
    }
    out.histograms[std::string(kRunFrameDuration)] = {frame_bounds, durations};
  }
  const auto fs_frames = c.total("framestats_frames");
  m["framestats_frames"] = as_double(fs_frames);
  m["framestats_janky_frames"] = as_double(c.total("framestats_janky_frames"));
  m["framestats_janky_frames_legacy"] = as_double(c.total("framestats_janky_frames_legacy"));
  if (fs_frames && *fs_frames > 0) m["max_frame_ms"] = parsers::units::ms_of_ns(d.max_frame_ns);

  const auto skipped = c.total("skipped_frames");
  m["skipped_frames"] = as_double(skipped);
  m["skip_events"] = as_double(c.total("skip_events"));
  if (skipped) m["max_skipped_frames"] = static_cast<double>(d.max_skip_frames);
  // Choreographer is always read: without a process series the app skipped nothing.
  const double skipped_total = static_cast<double>(skipped.value_or(0));
  if (seconds > 0) m["sm"] = std::clamp(d.refresh_hz - skipped_total / seconds, 0.0, d.refresh_hz);
  m["davey_frames"] = as_double(c.total("davey_frames"));
  const auto skips = c.total_buckets(kRunSkipSize);
  if (skips.size() == buckets::skip_size_frames().size() + 1) {
    out.histograms[std::string(kRunSkipSize)] = {buckets::skip_size_frames(), skips};
  }

  const auto sf = c.total("sf_frames");
  m["sf_frames"] = as_double(sf);
  if (sf) {
    const double active = parsers::units::seconds_of_ns(c.total("active_ns").value_or(0));
    m["active_seconds"] = active;
    // Frame intervals over the time they span: counting presents would add
    // one frame per active stretch. Runs kept from before the intervals
    // were counted have no FPS rather than a biased one.
    const auto intervals = c.total("sf_intervals");
    if (intervals && active > 0) m["fps"] = static_cast<double>(*intervals) / active;
    if (active > 0) {
      m["stutter_percent"] = 100.0 * parsers::units::seconds_of_ns(c.total("jank_ns").value_or(0)) / active;
    }
    m["jank"] = as_double(c.total("jank"));
    m["big_jank"] = as_double(c.total("big_jank"));
    m["sf_slow_frames"] = as_double(c.total("sf_slow_frames"));
    m["sf_frozen_frames"] = as_double(c.total("sf_frozen_frames"));
  }
  m["ft_frames"] = as_double(c.total("ft_frames"));
  m["ft_janky_frames"] = as_double(c.total("ft_janky_frames"));
  // What the phone was doing (the resource poll): CPU as a percent of one
  // core (a busy game passes 100), its p95 over the run's time steps, the
  // main process's peak resident memory, the time a CPU cluster was capped.
  if (const auto ticks = c.total("cpu_ticks"); ticks && seconds > 0) {
    const double tick_s = static_cast<double>(parsers::kProcTicksPerSecond);
    m["cpu_percent"] = 100.0 * static_cast<double>(*ticks) / tick_s / seconds;
    m["cpu_p95_percent"] = steps_cpu_quantile(d, 0.95);
    if (const auto main = c.total("main_thread_ticks")) {
      m["main_thread_cpu_percent"] = 100.0 * static_cast<double>(*main) / tick_s / seconds;
    }
  }
  if (d.peak_rss_bytes > 0) m["peak_rss_bytes"] = static_cast<double>(d.peak_rss_bytes);
  if (const auto capped = c.largest("throttled_ns")) {
    m["throttled_seconds"] = parsers::units::seconds_of_ns(*capped);
    if (seconds > 0) m["throttled_percent"] = std::min(100.0, 100.0 * parsers::units::seconds_of_ns(*capped) / seconds);
  }
  out.jank_causes = c.totals_with_prefix("cause:");
  out.ft_jank_types = c.totals_with_prefix("ft_type:");
  return out;
}

}  // namespace jank::metrics

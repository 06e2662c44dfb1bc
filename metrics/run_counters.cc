#include "metrics/run_counters.h"

#include <algorithm>
#include <set>

#include "metrics/sources/clocks.h"
#include "metrics/sources/cpu.h"
#include "metrics/sources/frametimeline.h"
#include "metrics/sources/gfxinfo.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/skips.h"
#include "metrics/state_io.h"

namespace jank::metrics {
namespace {

std::string_view metric_of(std::string_view key) { return key.substr(0, key.rfind('@')); }

void put(AppCounters& c, std::string_view metric, std::string_view source, std::uint64_t value) {
  std::string key(metric);
  key += '@';
  key += source;
  c.values[std::move(key)] = value;
}

void put_buckets(AppCounters& c, std::string_view histogram, std::string_view source, const Histogram& h) {
  std::string key(histogram);
  key += '@';
  key += source;
  c.buckets[std::move(key)] = h.counts();
}

// Counts every snapshot of their source holds (a layer's, a framestats
// window's), added by later releases of the exporter: absent from a baseline
// that has the source, they were not counted yet, and the run counts them
// from the next snapshot on, never their whole lifetime.
bool always_with_source(std::string_view metric) {
  return metric == "sf_intervals" || metric == "sf_slow_frames" || metric == "sf_frozen_frames" ||
         metric == "framestats_janky_frames_legacy";
}

constexpr std::size_t kMaxKeys = 4096;     // a package has a handful of processes and layers
constexpr std::size_t kMaxBuckets = 256;   // the widest layout has ~30

}  // namespace

std::optional<std::uint64_t> AppCounters::total(std::string_view metric) const {
  std::optional<std::uint64_t> sum;
  for (const auto& [key, v] : values) {
    if (metric_of(key) == metric) sum = sum.value_or(0) + v;
  }
  return sum;
}

std::optional<std::uint64_t> AppCounters::largest(std::string_view metric) const {
  std::optional<std::uint64_t> most;
  for (const auto& [key, v] : values) {
    if (metric_of(key) == metric) most = std::max(most.value_or(0), v);
  }
  return most;
}

std::vector<std::uint64_t> AppCounters::total_buckets(std::string_view histogram) const {
  std::vector<std::uint64_t> sum;
  for (const auto& [key, counts] : buckets) {
    if (metric_of(key) != histogram) continue;
    if (sum.size() < counts.size()) sum.resize(counts.size());
    for (std::size_t i = 0; i < counts.size(); ++i) sum[i] += counts[i];
  }
  return sum;
}

std::map<std::string, std::uint64_t> AppCounters::totals_with_prefix(std::string_view prefix) const {
  std::map<std::string, std::uint64_t> out;
  for (const auto& [key, v] : values) {
    const std::string_view metric = metric_of(key);
    if (metric.substr(0, prefix.size()) == prefix) out[std::string(metric.substr(prefix.size()))] += v;
  }
  return out;
}

void AppCounters::save(StateWriter& w) const {
  w.u64(values.size());
  for (const auto& [key, v] : values) w.str(key).u64(v);
  w.u64(buckets.size());
  for (const auto& [key, counts] : buckets) {
    w.str(key).u64(counts.size());
    for (const auto n : counts) w.u64(n);
  }
}

bool AppCounters::load(StateReader& r) {
  values.clear();
  buckets.clear();
  const std::uint64_t n = r.count(kMaxKeys);
  for (std::uint64_t i = 0; i < n && !r.fail(); ++i) {
    std::string key = r.str();
    values[std::move(key)] = r.u64();
  }
  const std::uint64_t h = r.count(kMaxKeys);
  for (std::uint64_t i = 0; i < h && !r.fail(); ++i) {
    std::string key = r.str();
    std::vector<std::uint64_t> counts(r.count(kMaxBuckets));
    for (auto& c : counts) c = r.u64();
    buckets[std::move(key)] = std::move(counts);
  }
  return !r.fail();
}

AppCounters snapshot_app(const DeviceMetrics& device, std::string_view package) {
  AppCounters c;
  for (const auto& [name, p] : device.packages) {
    if (base_package(name) != package) continue;
    static const AppSkipState kNoSkips;  // an app without skip or Davey lines counts zeros
    const AppSkipState* found = skips_of(p);
    const AppSkipState& s = found == nullptr ? kNoSkips : *found;
    put(c, "skipped_frames", name, s.skipped_frames);
    put(c, "skip_events", name, s.skip_events);
    put(c, "davey_frames", name, s.davey_frames);
    put_buckets(c, kRunSkipSize, name, s.skip_size);
    const AppGfxinfoState* gfx = gfxinfo_of(p);
    if (gfx != nullptr && gfx->has_gfxinfo) {
      const GfxinfoTracker& g = gfx->gfxinfo;
      put(c, "frames", name, g.frames_rendered());
      put(c, "janky_frames", name, g.janky_frames());
      for (std::size_t i = 0; i < kJankCauses; ++i) {
        if (!g.causes_seen()[i]) continue;
        put(c, "cause:" + std::string(jank_cause_name(static_cast<JankCause>(i))), name, g.causes()[i]);
      }
      put_buckets(c, kRunFrameDuration, name, g.frame_duration());
      // Android vitals' counts need the HISTOGRAM (Android 7+): none rather than 0 without it.
      if (g.has_histogram()) {
        put(c, "slow_frames", name, g.slow_frames());
        put(c, "frozen_frames", name, g.frozen_frames());
      }
    }
    if (gfx != nullptr && gfx->has_framestats) {
      const FramestatsTracker& fs = gfx->framestats;
      put(c, "framestats_frames", name, fs.frames());
      put(c, "framestats_janky_frames", name, fs.janky_frames());
      put(c, "framestats_janky_frames_legacy", name, fs.janky_frames_legacy());
    }
    if (const AppCpuState* cpu = app_cpu_of(p); cpu != nullptr && cpu->pid != 0) {
      put(c, "cpu_ticks", name, cpu->user + cpu->system);
      if (const auto main = cpu->threads.find("main"); main != cpu->threads.end()) {
        put(c, "main_thread_ticks", name, main->second);
      }
    }
    if (const FrameTimelineCounts* ft = frametimeline_of(p)) {
      put(c, "ft_frames", name, ft->frames);
      put(c, "ft_janky_frames", name, ft->janky);
      // Index 0 is "None": a frame on time is not a cause.
      for (std::size_t i = 1; i < kJankLabels; ++i) {
        if (ft->by_label[i] > 0) put(c, "ft_type:" + std::string(jank_label(i)), name, ft->by_label[i]);
      }
    }
  }
  // The device's clocks: the time each policy was capped (the app's context, not the app's own).
  if (const ClockState* clocks = clocks_of(device)) {
    for (const auto& [first, policy] : clocks->policies) {
      put(c, "throttled_ns", "policy" + std::to_string(first), static_cast<std::uint64_t>(policy.throttled_ns));
    }
  }
  for (const auto& [stable, l] : layers_of(device)) {
    if (base_package(l.package) != package) continue;
    const std::string source = "layer:" + stable;
    put(c, "sf_frames", source, l.presents.frames());
    // FPS's numerator: intervals within active time (a stretch's first frame adds none).
    put(c, "sf_intervals", source, l.presents.frame_time().count());
    put(c, "active_ns", source, static_cast<std::uint64_t>(std::max<std::int64_t>(0, l.presents.active_ns())));
    put(c, "jank", source, l.presents.jank());
    put(c, "big_jank", source, l.presents.big_jank());
    put(c, "sf_slow_frames", source, l.presents.slow_frames());
    put(c, "sf_frozen_frames", source, l.presents.frozen_frames());
    put(c, "jank_ns", source, static_cast<std::uint64_t>(std::max<std::int64_t>(0, l.presents.jank_ns())));
  }
  return c;
}

std::uint64_t add_growth(AppCounters& sum, const AppCounters& before, const AppCounters& now) {
  std::set<std::string_view> restarted;  // sources, not keys: one restart drops all of a source's values
  auto source_of = [](std::string_view key) { return key.substr(key.rfind('@') + 1); };
  std::set<std::string_view> sources_before;
  for (const auto& [key, v] : before.values) sources_before.insert(source_of(key));
  for (const auto& [key, v] : now.values) {
    std::uint64_t growth = v;
    if (const auto it = before.values.find(key); it == before.values.end()) {
      if (always_with_source(metric_of(key)) && sources_before.contains(source_of(key))) growth = 0;
    } else {
      if (v >= it->second) {
        growth = v - it->second;
      } else {
        restarted.insert(source_of(key));
      }
    }
    if (sum.values.size() < kMaxKeys || sum.values.contains(key)) sum.values[key] += growth;
  }
  for (const auto& [key, counts] : now.buckets) {
    std::vector<std::uint64_t> growth = counts;
    if (const auto it = before.buckets.find(key); it != before.buckets.end() && it->second.size() == counts.size()) {
      bool fell = false;
      for (std::size_t i = 0; i < counts.size(); ++i) fell = fell || counts[i] < it->second[i];
      if (fell) {
        restarted.insert(source_of(key));
      } else {
        for (std::size_t i = 0; i < counts.size(); ++i) growth[i] = counts[i] - it->second[i];
      }
    }
    if (sum.buckets.size() >= kMaxKeys && !sum.buckets.contains(key)) continue;
    auto& into = sum.buckets[key];
    if (into.size() < growth.size()) into.resize(growth.size());
    for (std::size_t i = 0; i < growth.size(); ++i) into[i] += growth[i];
  }
  return restarted.size();
}

}  // namespace jank::metrics

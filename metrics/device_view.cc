#include "metrics/device_view.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <string_view>
#include <vector>

#include "metrics/sources/clocks.h"
#include "metrics/sources/cpu.h"
#include "metrics/sources/gfxinfo.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/memory.h"
#include "metrics/sources/power.h"
#include "metrics/sources/skips.h"
#include "metrics/sources/thermal.h"

namespace jank::metrics {
namespace {

// The live ring's frame-time bucket of each bucket of gfxinfo's exported
// layout (its +Inf bucket last): a bucket counts frames at or below its
// bound, so it goes to the first live bound at or above that.
const std::vector<std::size_t>& live_frame_time_bucket() {
  static const std::vector<std::size_t> map = [] {
    std::vector<std::size_t> out;
    for (const double bound : buckets::frame_duration_seconds()) {
      out.push_back(static_cast<std::size_t>(
          std::lower_bound(kLiveFrameTimeBounds.begin(), kLiveFrameTimeBounds.end(), bound) -
          kLiveFrameTimeBounds.begin()));
    }
    out.push_back(kLiveFrameTimeBounds.size());
    return out;
  }();
  return map;
}

// What the resource poll read (metrics/sources/cpu.h, memory.h, clocks.h):
// the cores' and the measured apps' CPU counters, the apps' current
// resident memory, and whether a cpufreq policy is capped now.
void read_resources(const DeviceMetrics& d, std::int64_t now_ns, LiveReading& r) {
  LiveTotals& t = r.totals;
  if (const CpuState* cpu = cpu_of(d); cpu != nullptr && !cpu->cores.empty()) {
    constexpr std::size_t kIdle = 3, kIowait = 4;  // kCpuModes
    static_assert(kCpuModes[kIdle] == "idle" && kCpuModes[kIowait] == "iowait");
    for (const auto& [core, c] : cpu->cores) {
      for (std::size_t m = 0; m < c.counted.size(); ++m) {
        t.cpu_ticks += c.counted[m];
        if (m != kIdle && m != kIowait) t.cpu_busy_ticks += c.counted[m];
      }
    }
    // The device's clock: the lowest-numbered core's time in every mode.
    for (const std::uint64_t ticks : cpu->cores.begin()->second.counted) t.cpu_clock_ticks += ticks;
  }
  std::uint64_t rss = 0;
  bool any_rss = false;
  for (const auto& [name, p] : d.packages) {
    if (const AppCpuState* a = app_cpu_of(p); a != nullptr && a->pid != 0) {
      LiveAppCpu& app = t.apps.emplace_back();
      app.key = std::hash<std::string_view>{}(name);
      app.ticks = a->user + a->system;
      if (const auto main = a->threads.find("main"); main != a->threads.end()) app.main_thread_ticks = main->second;
    }
    const AppMemoryState* m = app_memory_of(p);
    if (m != nullptr && m->rss_bytes && reading_current(d, m->fresh_until_ns, now_ns)) {
      rss += *m->rss_bytes;
      any_rss = true;
    }
  }
  if (any_rss) r.app_rss_bytes = rss;
  if (const ClockState* clocks = clocks_of(d); clocks != nullptr && reading_current(d, clocks->fresh_until_ns, now_ns)) {
    for (const auto& [first, policy] : clocks->policies) {
      const parsers::CpufreqPolicy& p = policy.reading;
      if (!p.max_khz || !p.hw_max_khz) continue;
      r.cpu_capped = r.cpu_capped.value_or(false) || *p.max_khz < *p.hw_max_khz;
    }
  }
}

}  // namespace

std::optional<parsers::ScreenPower> screen_power(const DeviceMetrics& d) {
  const PowerState* p = power_of(d);
  return p == nullptr ? std::nullopt : p->screen;
}

bool screen_dark(const DeviceMetrics& d) {
  const auto screen = screen_power(d);
  return screen && (*screen == parsers::ScreenPower::off || *screen == parsers::ScreenPower::doze);
}

bool screen_not_on_within(const DeviceMetrics& d, std::int64_t now_ns, std::int64_t span_ns) {
  const PowerState* p = power_of(d);
  return p != nullptr && p->not_on_ns != 0 && now_ns != 0 && now_ns - p->not_on_ns <= span_ns;
}

bool power_lines_read(const DeviceMetrics& d) {
  const PowerState* p = power_of(d);
  return p != nullptr && p->lines > 0;
}

bool surfaceflinger_read(const DeviceMetrics& d) {
  const LayersState* s = layers_state_of(d);
  const bool own = s != nullptr && (!s->layers.empty() || s->input.list_lines > 0 || s->input.latency_lines > 0);
  return own || power_lines_read(d);
}

std::optional<std::string_view> activity_state(const DeviceMetrics& d) {
  if (screen_dark(d)) return "off";
  if (!screen_power(d) && layers_of(d).empty()) return std::nullopt;
  for (const auto& [name, l] : layers_of(d)) {
    if (l.presenting) return "active";
  }
  return "idle";
}

std::optional<double> device_sm(const DeviceMetrics& d, std::int64_t now_ns, parsers::units::Seconds span) {
  if (screen_dark(d) || span.count() <= 0) return std::nullopt;
  const DeviceSkipState* skips = skips_of(d);
  return smoothness(d.refresh_hz, skips == nullptr ? 0 : skips->window.frames(now_ns), span);
}

namespace {

// An app skipped frames, or a layer presented, within the window.
bool drew_within(const DeviceMetrics& d, std::int64_t now_ns, std::chrono::seconds window) {
  if (const DeviceSkipState* skips = skips_of(d); skips != nullptr && skips->window.frames(now_ns) > 0) return true;
  const std::int64_t window_ns = parsers::units::to_ns(window);
  const Layers& layers = layers_of(d);
  return std::any_of(layers.begin(), layers.end(), [&](const auto& entry) {
    const LayerMetrics& l = entry.second;
    return l.presenting || (l.last_presented_ns != 0 && now_ns - l.last_presented_ns < window_ns);
  });
}

}  // namespace

LiveStatus live_status(const DeviceMetrics& d, std::int64_t now_ns, std::chrono::seconds sm_window) {
  switch (d.live.state) {
    case DeviceState::following: {
      const auto activity = activity_state(d);
      if (activity == "off") return LiveStatus::off;
      if (activity == "idle" && !drew_within(d, now_ns, sm_window)) return LiveStatus::idle;
      return LiveStatus::following;
    }
    case DeviceState::starting: return LiveStatus::starting;
    case DeviceState::stalled: return LiveStatus::stalled;
    case DeviceState::unsupported: return LiveStatus::unsupported;
    case DeviceState::unauthorized: return LiveStatus::unauthorized;
    case DeviceState::offline: return LiveStatus::offline;
    case DeviceState::disconnected: return LiveStatus::disconnected;
  }
  return LiveStatus::starting;
}

DeviceTotals device_totals(const DeviceMetrics& d) {
  DeviceTotals t;
  for (const auto& [name, p] : d.packages) {
    // Only the series /metrics writes (a package without skips has no skip series).
    if (const AppSkipState* s = skips_of(p)) {
      if (s->skip_events > 0) t.skipped_frames += s->skipped_frames;
      t.davey_frames += s->davey_frames;
    }
    const AppGfxinfoState* g = gfxinfo_of(p);
    if (g != nullptr && g->has_gfxinfo && g->gfxinfo.has_histogram()) {
      t.frozen_frames = t.frozen_frames.value_or(0) + g->gfxinfo.frozen_frames();
    }
  }
  if (!layers_of(d).empty()) {
    t.big_jank = 0;
    t.layer_frozen_frames = 0;
    for (const auto& [name, l] : layers_of(d)) {
      *t.big_jank += l.presents.big_jank();
      *t.layer_frozen_frames += l.presents.frozen_frames();
    }
  }
  return t;
}

LiveReading live_reading(const DeviceMetrics& d, std::int64_t now_ns, std::chrono::seconds sm_window) {
  LiveReading r;
  const DeviceTotals sums = device_totals(d);
  LiveTotals& t = r.totals;
  t.skipped_frames = sums.skipped_frames;
  t.davey_frames = sums.davey_frames;
  t.big_jank = sums.big_jank.value_or(0);
  r.has_layers = sums.big_jank.has_value();
  for (const auto& [kind, cost] : d.live.command_costs) {
    t.commands += cost.runs;
    t.command_bytes += cost.output_bytes;
  }
  for (const auto& [name, l] : layers_of(d)) {
    t.frame_intervals += l.presents.frame_time().count();
    t.active_ns += static_cast<std::uint64_t>(std::max<std::int64_t>(l.presents.active_ns(), 0));
  }
  const auto& bucket = live_frame_time_bucket();
  for (const auto& [name, p] : d.packages) {
    const AppGfxinfoState* app = gfxinfo_of(p);
    if (app == nullptr || !app->has_gfxinfo) continue;
    r.has_gfxinfo = true;
    const GfxinfoTracker& g = app->gfxinfo;
    t.rendered_frames += g.frames_rendered();
    t.janky_frames += g.janky_frames();
    const auto& counts = g.frame_duration().counts();
    for (std::size_t i = 0; i < counts.size() && i < bucket.size(); ++i) t.frame_time[bucket[i]] += counts[i];
    for (std::size_t c = 0; c < kJankCauses; ++c) {
      if (!g.causes_seen()[c]) continue;
      t.jank_causes[c] += g.causes()[c];
      r.jank_causes_seen = static_cast<std::uint8_t>(r.jank_causes_seen | (1u << c));
    }
  }
  r.sm = device_sm(d, now_ns, sm_window);
  r.refresh_hz = d.refresh_hz;
  r.status = live_status(d, now_ns, sm_window);
  r.thermal_status = thermal_status(d, now_ns);
  read_resources(d, now_ns, r);
  return r;
}

}  // namespace jank::metrics

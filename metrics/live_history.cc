#include "metrics/live_history.h"

#include <algorithm>
#include <cmath>

#include "metrics/gfxinfo_tracker.h"
#include "parsers/proc_stat.h"

namespace jank::metrics {

static_assert(sizeof(LiveSample) == 88, "docs/live-view.md and the header give a sample's size");
static_assert(kLiveJankCauses == kJankCauses);

namespace {

template <typename T>
T saturate(std::uint64_t v) {
  constexpr auto kMax = std::numeric_limits<T>::max();
  return v > kMax ? kMax : static_cast<T>(v);
}

// What a cumulative total added; one that went down (a series expired) adds 0.
std::uint64_t grew(std::uint64_t before, std::uint64_t now) { return now > before ? now - before : 0; }

std::int64_t milliseconds(std::int64_t ns) { return ns >= 0 ? ns / 1'000'000 : -((-ns + 999'999) / 1'000'000); }

// A measured resource value, rounded, saturating below kLiveUnmeasured.
std::uint16_t measured(double v) {
  constexpr double kMost = kLiveUnmeasured - 1;
  return static_cast<std::uint16_t>(std::clamp(std::round(v), 0.0, kMost));
}

std::optional<double> tenths(std::uint16_t permille) {
  if (permille == kLiveUnmeasured) return std::nullopt;
  return permille / 10.0;
}

const LiveAppCpu* find_app(const std::vector<LiveAppCpu>& apps, std::uint64_t key) {
  const auto it = std::find_if(apps.begin(), apps.end(), [key](const LiveAppCpu& a) { return a.key == key; });
  return it == apps.end() ? nullptr : &*it;
}

// The interval's CPU shares. Polls and samples keep their own paces, so an
// interval may hold no poll, one, or two: the apps' time is taken over the
// time the device's clock (its first core's ticks) advanced between the
// polls it holds, and an interval that held none is not measured, rather
// than 0 (and the next one twice the truth). Without the cores (a device
// that refuses /proc/stat) the host's span stands in. An app seen for the
// first time is its own baseline: its process's earlier time is not this
// interval's.
void cpu_growth(const LiveTotals& a, const LiveTotals& b, std::uint16_t span_ms, LiveSample& s) {
  const bool cores = a.cpu_ticks > 0 && b.cpu_ticks > 0;
  if (cores) {
    const std::uint64_t all = grew(a.cpu_ticks, b.cpu_ticks);
    const std::uint64_t busy = std::min(grew(a.cpu_busy_ticks, b.cpu_busy_ticks), all);
    if (all > 0) s.device_cpu = measured(1000.0 * static_cast<double>(busy) / static_cast<double>(all));
  }
  const double elapsed = cores ? static_cast<double>(grew(a.cpu_clock_ticks, b.cpu_clock_ticks))
                               : span_ms * static_cast<double>(parsers::kProcTicksPerSecond) / 1000.0;
  if (elapsed <= 0) return;
  std::uint64_t apps = 0, busiest_main = 0;
  bool any_app = false, any_main = false;
  for (const LiveAppCpu& now : b.apps) {
    const LiveAppCpu* before = find_app(a.apps, now.key);
    if (before == nullptr) continue;
    any_app = true;
    apps += grew(before->ticks, now.ticks);
    if (before->main_thread_ticks && now.main_thread_ticks) {
      any_main = true;
      busiest_main = std::max(busiest_main, grew(*before->main_thread_ticks, *now.main_thread_ticks));
    }
  }
  if (any_app) s.app_cpu = measured(1000.0 * static_cast<double>(apps) / elapsed);
  if (any_main) s.main_thread_cpu = measured(1000.0 * static_cast<double>(busiest_main) / elapsed);
}

}  // namespace

std::string_view live_status_name(LiveStatus status) {
  switch (status) {
    case LiveStatus::following: return "following";
    case LiveStatus::idle: return "idle";
    case LiveStatus::off: return "off";
    case LiveStatus::stalled: return "stalled";
    case LiveStatus::starting: return "starting";
    case LiveStatus::unauthorized: return "unauthorized";
    case LiveStatus::offline: return "offline";
    case LiveStatus::disconnected: return "disconnected";
    case LiveStatus::unsupported: return "unsupported";
  }
  return "starting";
}

std::optional<double> LiveSample::sm_value() const {
  if (std::isnan(sm)) return std::nullopt;
  return static_cast<double>(sm);
}

std::optional<int> LiveSample::thermal() const {
  if (thermal_status < 0) return std::nullopt;
  return thermal_status;
}

std::optional<double> LiveSample::app_cpu_percent() const { return tenths(app_cpu); }
std::optional<double> LiveSample::main_thread_cpu_percent() const { return tenths(main_thread_cpu); }
std::optional<double> LiveSample::device_cpu_percent() const { return tenths(device_cpu); }

std::optional<std::uint32_t> LiveSample::app_rss() const {
  if (app_rss_mib == kLiveUnmeasured) return std::nullopt;
  return app_rss_mib;
}

std::optional<bool> LiveSample::cpu_capped() const {
  if ((bits & 32u) == 0) return std::nullopt;
  return (bits & 64u) != 0;
}

std::optional<double> LiveSample::fps() const {
  if (frame_intervals == 0 || active_ms == 0) return std::nullopt;
  return frame_intervals * 1000.0 / active_ms;
}

std::optional<double> LiveSample::commands_per_second() const {
  if (span_ms == 0) return std::nullopt;
  return commands * 1000.0 / span_ms;
}

std::optional<double> LiveSample::command_kib_per_second() const {
  if (span_ms == 0) return std::nullopt;
  return command_kib * 1000.0 / span_ms;
}

std::optional<double> LiveSample::jank_percent() const {
  if (rendered_frames == 0) return std::nullopt;
  return janky_frames * 100.0 / rendered_frames;
}

std::size_t live_capacity(std::int64_t history_seconds, std::int64_t sample_seconds) {
  sample_seconds = std::max<std::int64_t>(sample_seconds, 1);
  const std::int64_t n = (std::max<std::int64_t>(history_seconds, 0) + sample_seconds - 1) / sample_seconds;
  return static_cast<std::size_t>(std::max<std::int64_t>(n, 1));
}

void LiveHistory::configure(std::size_t capacity, std::int64_t sample_ms) {
  if (capacity == samples_.size() && sample_ms == sample_ms_) return;
  std::vector<LiveSample>(capacity).swap(samples_);  // exactly `capacity`, the old memory released
  sample_ms_ = sample_ms;
  head_ = 0;
  count_ = 0;
  previous_.reset();
  causes_seen_ = 0;
}

const LiveSample& LiveHistory::at(std::size_t i) const {
  return samples_[(head_ + samples_.size() - count_ + i) % samples_.size()];
}

std::vector<LiveSample> LiveHistory::copy() const {
  std::vector<LiveSample> out;
  out.reserve(count_);
  for (std::size_t i = 0; i < count_; ++i) out.push_back(at(i));
  return out;
}

void LiveHistory::record(std::int64_t now_ns, const LiveReading& r) {
  if (samples_.empty()) return;
  LiveSample s;
  s.t_ms = milliseconds(now_ns);
  if (const LiveSample* last = newest(); last != nullptr && previous_) {
    const LiveTotals& a = *previous_;
    const LiveTotals& b = r.totals;
    s.span_ms = saturate<std::uint16_t>(static_cast<std::uint64_t>(std::max<std::int64_t>(s.t_ms - last->t_ms, 0)));
    s.skipped_frames = saturate<std::uint32_t>(grew(a.skipped_frames, b.skipped_frames));
    s.davey_frames = saturate<std::uint16_t>(grew(a.davey_frames, b.davey_frames));
    if (r.has_layers) {
      s.frame_intervals = saturate<std::uint32_t>(grew(a.frame_intervals, b.frame_intervals));
      s.active_ms = saturate<std::uint32_t>(grew(a.active_ns, b.active_ns) / 1'000'000);
      s.big_jank = saturate<std::uint16_t>(grew(a.big_jank, b.big_jank));
    }
    if (r.has_gfxinfo) {
      s.rendered_frames = saturate<std::uint32_t>(grew(a.rendered_frames, b.rendered_frames));
      s.janky_frames = saturate<std::uint16_t>(grew(a.janky_frames, b.janky_frames));
      for (std::size_t i = 0; i < kLiveFrameTimeBuckets; ++i) {
        s.frame_time[i] = saturate<std::uint16_t>(grew(a.frame_time[i], b.frame_time[i]));
      }
      for (std::size_t i = 0; i < kLiveJankCauses; ++i) {
        s.jank_causes[i] = saturate<std::uint16_t>(grew(a.jank_causes[i], b.jank_causes[i]));
      }
    }
    cpu_growth(a, b, s.span_ms, s);
    s.commands = saturate<std::uint16_t>(grew(a.commands, b.commands));
    s.command_kib = saturate<std::uint16_t>(grew(a.command_bytes, b.command_bytes) / 1024);
  }
  if (r.sm) s.sm = static_cast<float>(*r.sm);
  s.refresh_hz = static_cast<float>(r.refresh_hz);
  if (r.thermal_status) s.thermal_status = static_cast<std::int8_t>(std::clamp(*r.thermal_status, 0, 127));
  if (r.app_rss_bytes) s.app_rss_mib = measured(static_cast<double>(*r.app_rss_bytes) / (1024.0 * 1024.0));
  s.bits = static_cast<std::uint8_t>(static_cast<unsigned>(r.status) | (r.has_layers ? 8u : 0u) |
                                     (r.has_gfxinfo ? 16u : 0u) | (r.cpu_capped ? 32u : 0u) |
                                     (r.cpu_capped.value_or(false) ? 64u : 0u));
  samples_[head_] = s;
  head_ = (head_ + 1) % samples_.size();
  count_ = std::min(count_ + 1, samples_.size());
  previous_ = r.totals;
  causes_seen_ |= r.jank_causes_seen;
}

LiveWindow LiveHistory::window(std::int64_t window_ms) const {
  LiveWindow w;
  if (count_ == 0) return w;
  const std::int64_t from = newest()->t_ms - window_ms;
  std::uint64_t span = 0, skipped = 0, davey = 0, big_jank = 0, intervals = 0, active = 0, rendered = 0, janky = 0;
  bool layers = false;
  for (std::size_t i = count_; i-- > 0;) {
    const LiveSample& s = at(i);
    if (s.t_ms <= from) break;
    span += s.span_ms;
    skipped += s.skipped_frames;
    davey += s.davey_frames;
    big_jank += s.big_jank;
    intervals += s.frame_intervals;
    active += s.active_ms;
    rendered += s.rendered_frames;
    janky += s.janky_frames;
    layers = layers || s.has_layers();
  }
  if (intervals > 0 && active > 0) w.fps = static_cast<double>(intervals) * 1000.0 / static_cast<double>(active);
  if (rendered > 0) w.jank_percent = static_cast<double>(janky) * 100.0 / static_cast<double>(rendered);
  if (span > 0) {
    const auto per_minute = [span](std::uint64_t n) { return static_cast<double>(n) * 60'000.0 / static_cast<double>(span); };
    w.skipped_per_minute = per_minute(skipped);
    w.davey_per_minute = per_minute(davey);
    if (layers) w.big_jank_per_minute = per_minute(big_jank);
  }
  return w;
}

}  // namespace jank::metrics

#include "metrics/spike_rules.h"

#include <algorithm>

#include "metrics/sources/layers.h"
#include "metrics/sources/skips.h"
#include "metrics/sources/traces.h"
#include "parsers/time_units.h"

namespace jank::metrics {
namespace {

// A line read this long after it was logged (a log caught up after a
// reconnect) is history: a trace taken now would not show it.
constexpr std::int64_t kMaxLineAgeNs = 10'000'000'000;
// Samples kept per series: bounds memory whatever the windows.
constexpr std::size_t kMaxSamples = 2048;

// Drops series no longer in `present`.
template <typename Map, typename Keep>
void forget_gone(Map& histories, Keep&& present) {
  std::erase_if(histories, [&](const auto& entry) { return !present(entry.first); });
}

// Appends a sample; a counter that went down starts the history anew.
template <typename History, typename Sample>
void append(History& h, Sample s) {
  if (!h.empty() && (s.a < h.back().a || s.b < h.back().b)) h.clear();
  h.push_back(s);
  if (h.size() > kMaxSamples) h.pop_front();
}

}  // namespace

std::string_view spike_rule_name(SpikeRule rule) {
  switch (rule) {
    case SpikeRule::skip: return "skip";
    case SpikeRule::davey: return "davey";
    case SpikeRule::sm: return "sm";
    case SpikeRule::fps: return "fps";
    case SpikeRule::big_jank: return "big_jank";
    case SpikeRule::frozen: return "frozen";
  }
  return "?";
}

SpikeDetector::SpikeDetector(SpikeRuleLimits limits) : limits_(limits) {}

void SpikeDetector::configure(DeviceMetrics& device) const {
  auto& asked = trace_state(device).spike_lines;
  asked.min_skip_frames = limits_.skip_frames;
  asked.min_davey_ms = limits_.davey_ms;
}

std::vector<Spike> SpikeDetector::examine(const DeviceMetrics& device, std::int64_t now_ns) {
  std::vector<Spike> out;
  lines(device, now_ns, out);
  if (limits_.sm_below > 0) sm(device, now_ns, out);
  if (limits_.fps_below > 0 || limits_.big_jank_count > 0 || limits_.frozen_frames > 0) layers(device, now_ns, out);
  return out;
}

void SpikeDetector::lines(const DeviceMetrics& device, std::int64_t now_ns, std::vector<Spike>& out) {
  static const SpikeLines kNone;
  const DeviceTraceState* traces = traces_of(device);
  const SpikeLines& kept = traces != nullptr ? traces->spike_lines : kNone;
  if (!lines_started_) {
    lines_started_ = true;
    next_line_ = kept.next_seq;  // lines kept before this detector are someone else's
    return;
  }
  for (const auto& line : kept.lines) {
    if (line.seq < next_line_ || now_ns - line.host_ns > kMaxLineAgeNs) continue;
    const bool fires = line.davey ? limits_.davey_ms > 0 && line.value >= limits_.davey_ms
                                  : limits_.skip_frames > 0 && line.value >= limits_.skip_frames;
    if (!fires) continue;
    const ExemplarCounter counter = line.davey ? ExemplarCounter::davey_frames : ExemplarCounter::skipped_frames;
    out.push_back({line.davey ? SpikeRule::davey : SpikeRule::skip, {counter, line.package, ""}, line.value,
                   line.host_ns});
  }
  next_line_ = kept.next_seq;
}

void SpikeDetector::sm(const DeviceMetrics& device, std::int64_t now_ns, std::vector<Spike>& out) {
  forget_gone(sm_, [&](const std::string& p) { return device.packages.contains(p); });
  for (const auto& [name, pkg] : device.packages) {
    if (name == kOverflowPackage) continue;
    auto& h = sm_[name];
    const AppSkipState* skips = skips_of(pkg);
    append(h, Sample{now_ns, skips == nullptr ? 0.0 : static_cast<double>(skips->skipped_frames), 0});
    // The newest sample at least a window old: SM over the window from it.
    const std::int64_t from = now_ns - limits_.sm_window.count();
    while (h.size() > 1 && h[1].at_ns <= from) h.pop_front();
    if (h.size() < 2 || h.front().at_ns > from) continue;  // not a whole window yet
    const double seconds = parsers::units::seconds_of_ns(now_ns - h.front().at_ns);
    const double sm_value = std::max(0.0, device.refresh_hz - (h.back().a - h.front().a) / seconds);
    if (sm_value >= limits_.sm_below) continue;
    out.push_back({SpikeRule::sm, {ExemplarCounter::skipped_frames, name, ""}, sm_value, now_ns});
    h.erase(h.begin(), h.end() - 1);  // the next spike needs a window of its own
  }
}

void SpikeDetector::layers(const DeviceMetrics& device, std::int64_t now_ns, std::vector<Spike>& out) {
  const auto present = [&](const std::string& l) { return layers_of(device).contains(l); };
  forget_gone(fps_, present);
  forget_gone(big_jank_, present);
  forget_gone(frozen_, present);
  for (const auto& [key, layer] : layers_of(device)) {
    const auto& p = layer.presents;
    if (limits_.fps_below > 0) {
      auto& h = fps_[key];
      // Frame intervals, not presents: a burst's first frame adds no active time.
      append(h, Sample{now_ns, static_cast<double>(p.frame_time().count()), static_cast<double>(p.active_ns())});
      // The newest sample with at least the rule's active time after it.
      const double need = static_cast<double>(limits_.fps_active.count());
      while (h.size() > 1 && h.back().b - h[1].b >= need) h.pop_front();
      if (h.size() >= 2 && h.back().b - h.front().b >= need) {
        const double fps = (h.back().a - h.front().a) / ((h.back().b - h.front().b) / 1e9);
        if (fps < limits_.fps_below) {
          out.push_back({SpikeRule::fps, {ExemplarCounter::layer_frames_presented, layer.package, key}, fps, now_ns});
          h.erase(h.begin(), h.end() - 1);
        }
      }
    }
    if (limits_.big_jank_count > 0) {
      auto& h = big_jank_[key];
      append(h, Sample{now_ns, static_cast<double>(p.big_jank()), 0});
      // Counted from the newest sample at or before the window's start (or the baseline).
      const std::int64_t from = now_ns - limits_.big_jank_window.count();
      while (h.size() > 1 && h[1].at_ns <= from) h.pop_front();
      const double burst = h.back().a - h.front().a;
      if (h.size() >= 2 && burst >= limits_.big_jank_count) {
        out.push_back({SpikeRule::big_jank, {ExemplarCounter::layer_big_jank, layer.package, key}, burst, now_ns});
        h.erase(h.begin(), h.end() - 1);
      }
    }
    if (limits_.frozen_frames > 0) {
      // The first sight is a baseline; a count that went down, a new one.
      const std::uint64_t now_frozen = p.frozen_frames();
      const auto [it, first] = frozen_.try_emplace(key, now_frozen);
      const std::uint64_t before = it->second;
      it->second = now_frozen;
      if (!first && now_frozen >= before && now_frozen - before >= limits_.frozen_frames) {
        out.push_back({SpikeRule::frozen, {ExemplarCounter::layer_frozen_frames, layer.package, key},
                       static_cast<double>(now_frozen - before), now_ns});
      }
    }
  }
}

}  // namespace jank::metrics

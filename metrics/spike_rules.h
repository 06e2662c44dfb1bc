// The flight recorder's rules (docs/traces.md, "Rules"): which jank spikes
// deserve a trace, decided on what the metric model already counts. Pure:
// fed the device's model and the host time, no device and no clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/store.h"
#include "metrics/trace_status.h"

namespace jank::metrics {

enum class SpikeRule : std::uint8_t { skip, davey, sm, fps, big_jank, frozen };
std::string_view spike_rule_name(SpikeRule rule);

// Thresholds; 0 turns a rule off.
struct SpikeRuleLimits {
  std::uint32_t skip_frames = 0;
  double davey_ms = 0;
  double sm_below = 0;
  std::chrono::nanoseconds sm_window = std::chrono::seconds(5);
  double fps_below = 0;
  std::chrono::nanoseconds fps_active = std::chrono::seconds(5);  // of the layer's active time
  std::uint32_t big_jank_count = 0;
  std::chrono::nanoseconds big_jank_window = std::chrono::seconds(10);
  std::uint32_t frozen_frames = 0;  // a layer's frozen frames (> 700 ms) since the previous examination
};

struct Spike {
  SpikeRule rule = SpikeRule::skip;
  ExemplarKey series;        // the counter series the trace's exemplar goes on
  double value = 0;          // frames, ms, SM, FPS, BigJank or frozen frames
  std::int64_t host_ns = 0;  // when it was seen
};

// One per device session. A series seen for the first time is only a
// baseline (counts from before the exporter watched are no spike), and a
// counter that went down (a restarted layer) starts a new baseline.
class SpikeDetector {
 public:
  explicit SpikeDetector(SpikeRuleLimits limits);

  // Sets what the store keeps of single lines for the skip and davey rules.
  void configure(DeviceMetrics& device) const;
  // The spikes since the previous call, oldest first.
  std::vector<Spike> examine(const DeviceMetrics& device, std::int64_t now_ns);

 private:
  struct Sample {
    std::int64_t at_ns;
    double a;  // skipped frames; frame intervals (fps); BigJank frames
    double b;  // active ns (fps)
  };
  using History = std::deque<Sample>;
  void lines(const DeviceMetrics& device, std::int64_t now_ns, std::vector<Spike>& out);
  void sm(const DeviceMetrics& device, std::int64_t now_ns, std::vector<Spike>& out);
  void layers(const DeviceMetrics& device, std::int64_t now_ns, std::vector<Spike>& out);

  SpikeRuleLimits limits_;
  bool lines_started_ = false;
  std::uint64_t next_line_ = 0;
  std::map<std::string, History, std::less<>> sm_;        // by package
  std::map<std::string, History, std::less<>> fps_;       // by layer
  std::map<std::string, History, std::less<>> big_jank_;  // by layer
  std::map<std::string, std::uint64_t, std::less<>> frozen_;  // by layer: frozen frames seen
};

}  // namespace jank::metrics

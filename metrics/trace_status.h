// The flight recorder's state as the metrics see it (docs/traces.md): the
// exemplars that link counter series to stored traces, the per-device
// recorder counts, and the trace directory's totals. Set by app/ (the
// recorder and the trace store), exported by exporters/.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace jank::metrics {

// Which counter family a trace's exemplar decorates.
enum class ExemplarCounter : std::uint8_t {
  skipped_frames,          // android_choreographer_skipped_frames_total{serial,package}
  davey_frames,            // android_hwui_davey_frames_total{serial,package}
  layer_frames_presented,  // android_layer_frames_presented_total{serial,package,layer,kind}
  layer_big_jank,          // android_layer_perfdog_big_jank_total{serial,package,layer,kind}
  layer_frozen_frames,     // android_layer_frozen_frames_total{serial,package,layer,kind}
};

// The series an exemplar belongs to: `package` is the key of
// DeviceMetrics::packages, `layer` the key of DeviceMetrics::layers ("" for
// the package counters).
struct ExemplarKey {
  ExemplarCounter counter = ExemplarCounter::skipped_frames;
  std::string package;
  std::string layer;
  auto operator<=>(const ExemplarKey&) const = default;
};

struct TraceExemplar {
  std::string trace_id;     // [A-Za-z0-9._-]+ (docs/traces.md)
  double value = 0;         // what fired: skip frames, Davey ms, SM, FPS, BigJank or frozen frames
  std::int64_t time_ns = 0; // host wall time of the trigger
};

// Single log lines big enough to fire a trace rule (skip, davey), kept for
// the recorder to read (metrics/spike_rules.h). Off (nothing kept) while
// both minimums are 0, so a device without traces pays nothing.
struct SpikeLine {
  std::uint64_t seq = 0;
  bool davey = false;   // else a Choreographer skip
  std::string package;  // the DeviceMetrics::packages key
  double value = 0;     // frames, or milliseconds
  std::int64_t host_ns = 0;  // the line's time on the host's timeline (else when it was read)
};
struct SpikeLines {
  static constexpr std::size_t kMax = 64;  // a reader more than this behind sees the newest only
  std::uint32_t min_skip_frames = 0;       // 0: skips are not kept
  double min_davey_ms = 0;                 // 0: Davey lines are not kept
  std::uint64_t next_seq = 0;
  std::deque<SpikeLine> lines;
};

// A device's recorder: exported as jank_exporter_trace_* (docs/traces.md).
struct DeviceTraceStatus {
  bool armed = false;
  std::map<std::string, std::uint64_t> sessions;    // by result: armed, adopted, expired, arm_failed, unsupported
  std::map<std::string, std::uint64_t> taken;       // by rule
  std::map<std::string, std::uint64_t> failed;      // by reason
  std::map<std::string, std::uint64_t> suppressed;  // by reason
};

// One stored trace, as its metadata file says.
struct StoredTrace {
  std::string id, serial, package, rule, model;
  double value = 0;
  std::int64_t triggered_at_ns = 0;  // Unix ns, UTC
  std::uint64_t bytes = 0;
  int sdk = 0;
};

// The trace directory as a whole.
struct TraceStoreStatus {
  bool enabled = false;  // a store is open (traces.enabled): its families are exported
  std::uint64_t stored = 0;
  std::uint64_t stored_bytes = 0;
  std::map<std::string, std::uint64_t> dropped;  // by reason: count, bytes, age
  std::vector<StoredTrace> recent;               // newest first, at most kRecentTraces
};
inline constexpr std::size_t kRecentTraces = 20;

}  // namespace jank::metrics

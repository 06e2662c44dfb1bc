// The live view's history ring (docs/live-view.md, "The history ring"): per
// device, one fixed-size sample every live_view.sample_seconds, holding what
// the interval added to the device's counters and its gauges at the sample.
// Pure: the caller passes the host time and the device's reading
// (metrics/device_view.h reads it from the model); it keeps no clock and is
// never checkpointed.
//
// Memory: a sample is 88 bytes (static_assert in live_history.cc); a ring of
// 180 (the defaults) is 15 840 bytes of heap, plus sizeof(LiveHistory), 304
// bytes, in the device (the previous totals and the ring's bookkeeping), and
// the previous totals' measured apps, 32 bytes each, on the heap.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

namespace jank::metrics {

// The live view's status of a device (docs/live-view.md, "status").
enum class LiveStatus : std::uint8_t {
  following,
  idle,
  off,
  stalled,
  starting,
  unauthorized,
  offline,
  disconnected,
  unsupported,
};
std::string_view live_status_name(LiveStatus status);

// gfxinfo's frame-time histogram in the ring: 7 bounds of the exported
// layout (metrics/histogram.h, so re-bucketing is exact): one frame at
// 120, 90 and 60 Hz, two and three at 60 Hz, 100 ms, and a Davey's 700 ms.
inline constexpr std::array<double, 7> kLiveFrameTimeBounds = {0.008, 0.011, 0.017, 0.034, 0.053, 0.101, 0.700};
inline constexpr std::size_t kLiveFrameTimeBuckets = kLiveFrameTimeBounds.size() + 1;
inline constexpr std::size_t kLiveJankCauses = 7;  // metrics::kJankCauses (checked in live_history.cc)

// A 16-bit resource field of a sample that was not measured; measured
// values saturate one below it.
inline constexpr std::uint16_t kLiveUnmeasured = std::numeric_limits<std::uint16_t>::max();

// One measured app's CPU counters (metrics/sources/cpu.h), in clock ticks.
struct LiveAppCpu {
  std::uint64_t key = 0;    // the package's name, hashed: the same app at the next sample
  std::uint64_t ticks = 0;  // its processes' user and system time (android_app_cpu_seconds_total)
  std::optional<std::uint64_t> main_thread_ticks;  // android_app_thread_cpu_seconds_total{thread="main"}
};

// A device's cumulative counts at one moment, as /metrics would sum its series.
struct LiveTotals {
  std::uint64_t skipped_frames = 0;    // android_choreographer_skipped_frames_total
  std::uint64_t davey_frames = 0;      // android_hwui_davey_frames_total
  std::uint64_t big_jank = 0;          // android_layer_perfdog_big_jank_total
  std::uint64_t frame_intervals = 0;   // android_layer_frame_time_seconds_count: FPS's numerator
  std::uint64_t active_ns = 0;         // android_layer_active_seconds_total, in ns
  std::uint64_t rendered_frames = 0;   // android_gfxinfo_frames_rendered_total
  std::uint64_t janky_frames = 0;      // android_gfxinfo_janky_frames_total
  std::array<std::uint64_t, kLiveFrameTimeBuckets> frame_time{};  // android_gfxinfo_frame_duration_seconds, per bucket
  std::array<std::uint64_t, kLiveJankCauses> jank_causes{};       // android_gfxinfo_jank_causes_total
  // The resource poll's CPU time in clock ticks (android_cpu_seconds_total):
  // every online core's in every mode, the busy part of it (every mode but
  // idle and iowait), and the lowest-numbered core's in every mode, which is
  // the device's own clock of the time its polls covered (Android never
  // takes cpu0 offline). All 0 until the cores were read.
  std::uint64_t cpu_ticks = 0;
  std::uint64_t cpu_busy_ticks = 0;
  std::uint64_t cpu_clock_ticks = 0;
  std::vector<LiveAppCpu> apps;  // each app whose process was read, in the store's order
  // The exporter's own commands on the device and the bytes they brought back
  // (jank_exporter_device_command_runs_total, _output_bytes_total, every kind).
  std::uint64_t commands = 0;
  std::uint64_t command_bytes = 0;
};

// What the sampler reads from a device at a sample.
struct LiveReading {
  LiveTotals totals;
  bool has_layers = false;   // SurfaceFlinger layers are followed (else FPS and BigJank are null)
  bool has_gfxinfo = false;  // an app's gfxinfo was read (else rendered and janky are null)
  std::uint8_t jank_causes_seen = 0;  // bit c: cause c was printed by a dump
  std::optional<double> sm;  // android_choreographer_device_sm (none while the screen is dark)
  double refresh_hz = 0;
  LiveStatus status = LiveStatus::starting;
  std::optional<int> thermal_status;
  // The measured apps' resident memory summed over their current readings
  // (android_app_memory_rss_bytes); none without one.
  std::optional<std::uint64_t> app_rss_bytes;
  // A cpufreq policy allowed less than its hardware's highest clock (a
  // thermal or power cap); none without a current reading of both.
  std::optional<bool> cpu_capped;
};

// One interval: 88 bytes.
struct LiveSample {
  std::int64_t t_ms = 0;               // host wall time of the sample
  std::uint32_t skipped_frames = 0;    // what the interval added (saturating, as every count here)
  std::uint32_t frame_intervals = 0;  // present-to-present intervals within active time
  std::uint32_t active_ms = 0;         // the layers' active time: FPS's denominator
  std::uint32_t rendered_frames = 0;
  float sm = std::numeric_limits<float>::quiet_NaN();  // NaN: none
  float refresh_hz = 0;
  std::uint16_t span_ms = 0;  // the interval's length; 0 for a ring's first sample, which counts nothing
  std::uint16_t janky_frames = 0;
  std::uint16_t davey_frames = 0;
  std::uint16_t big_jank = 0;
  std::array<std::uint16_t, kLiveFrameTimeBuckets> frame_time{};
  std::array<std::uint16_t, kLiveJankCauses> jank_causes{};
  std::int8_t thermal_status = -1;  // -1: none
  std::uint8_t bits = 0;  // LiveStatus in bits 0-2, then has_layers, has_gfxinfo, cpufreq read, a policy capped
  // What the phone did in the interval (kLiveUnmeasured: not measured). CPU
  // in permille, over the time the device's clock says the interval's polls
  // covered: the measured apps' processes and the busiest app's main thread
  // as shares of one core, the busy share of all cores; the measured apps'
  // resident memory at the sample in MiB.
  std::uint16_t app_cpu = kLiveUnmeasured;
  std::uint16_t main_thread_cpu = kLiveUnmeasured;
  std::uint16_t device_cpu = kLiveUnmeasured;
  std::uint16_t app_rss_mib = kLiveUnmeasured;
  // What measuring cost the device in the interval: the exporter's commands
  // and the KiB they brought back.
  std::uint16_t commands = 0;
  std::uint16_t command_kib = 0;

  LiveStatus status() const { return static_cast<LiveStatus>(bits & 7u); }
  bool has_layers() const { return (bits & 8u) != 0; }
  bool has_gfxinfo() const { return (bits & 16u) != 0; }
  std::optional<double> sm_value() const;
  std::optional<int> thermal() const;
  // The resources as percents and MiB: none when not measured.
  std::optional<double> app_cpu_percent() const;
  std::optional<double> main_thread_cpu_percent() const;
  std::optional<double> device_cpu_percent() const;
  std::optional<std::uint32_t> app_rss() const;  // MiB
  std::optional<bool> cpu_capped() const;
  // Over the sample's own interval: null when nothing was presented (rendered) in it.
  std::optional<double> fps() const;
  std::optional<double> jank_percent() const;
  // The exporter's commands and KiB a second over the interval: none for a ring's first sample.
  std::optional<double> commands_per_second() const;
  std::optional<double> command_kib_per_second() const;
};

// Rates over the newest samples (docs/live-view.md): null when unknown.
struct LiveWindow {
  std::optional<double> fps;           // frame intervals / active seconds
  std::optional<double> jank_percent;  // janky / rendered × 100
  std::optional<double> skipped_per_minute, davey_per_minute;
  std::optional<double> big_jank_per_minute;  // null unless a sample in it had layers
};

// Samples a ring of `history_seconds` holds at one per `sample_seconds` (at least 1).
std::size_t live_capacity(std::int64_t history_seconds, std::int64_t sample_seconds);

class LiveHistory {
 public:
  // Sizes the ring (allocated in full). A new capacity or sample interval
  // empties it: samples of another spacing would not chart alike.
  void configure(std::size_t capacity, std::int64_t sample_ms);
  std::size_t capacity() const { return samples_.size(); }

  // A sample at host time `now_ns`: the growth of `reading`'s totals since
  // the previous sample (a total that went down adds 0, an app's first
  // totals are its baseline), and its gauges. The ring's first sample is the
  // baseline: it counts nothing. No-op while the capacity is 0.
  void record(std::int64_t now_ns, const LiveReading& reading);

  std::size_t size() const { return count_; }
  const LiveSample& at(std::size_t i) const;  // 0: the oldest
  const LiveSample* newest() const { return count_ == 0 ? nullptr : &at(count_ - 1); }
  std::vector<LiveSample> copy() const;  // oldest first
  std::uint8_t jank_causes_seen() const { return causes_seen_; }

  // Over the samples taken within `window_ms` before (and at) the newest.
  LiveWindow window(std::int64_t window_ms) const;

 private:
  std::vector<LiveSample> samples_;  // the ring
  std::size_t head_ = 0;             // where the next sample goes
  std::size_t count_ = 0;
  std::int64_t sample_ms_ = 0;
  std::optional<LiveTotals> previous_;  // the totals at the newest sample
  std::uint8_t causes_seen_ = 0;
};

}  // namespace jank::metrics

// The simulated device: apps that render frames and skip some, Choreographer
// and HWUI log lines, logd buffers, system properties and the counters behind
// `dumpsys gfxinfo`. Pure state machine: time comes from a Clock, randomness
// from a seeded engine, nothing here touches a socket.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "devsim/clock.h"
#include "devsim/log_buffer.h"

namespace jank::devsim {

// Stall lengths (skipped frames) are drawn uniformly from a band chosen by weight.
struct SkipBand {
  std::uint32_t lo = 1, hi = 1;
  double weight = 1;
};

struct AppConfig {
  std::string package;
  double stall_prob = 0.012;  // per rendered frame
  std::vector<SkipBand> bands = {{1, 9, 0.55}, {10, 44, 0.33}, {45, 120, 0.12}};
  double crash_per_min = 0;
};

struct DeviceConfig {
  std::string name = "sim0";
  std::string model = "JankSim 0";
  std::string product = "janksim";
  std::string device = "janksim";
  int sdk = 33;
  std::string release = "13";
  double refresh_hz = 60;
  bool root_build = false;
  std::size_t log_buffer_bytes = 256 * 1024;
  double noise_lines_per_sec = 2;  // background system chatter
  std::int32_t tz_offset_s = 0;
  std::uint64_t seed = 1;
  std::int64_t initial_uptime_ns = 3'600'000'000'000;  // an hour since boot
  std::vector<AppConfig> apps;
};

// What really happened, per package, summed over all its processes.
struct AppTruth {
  std::uint64_t frames_rendered = 0;
  std::uint64_t skipped_frames = 0;         // every stall, logged or not
  std::uint64_t skip_events = 0;
  std::uint64_t skip_lines = 0;             // Choreographer lines written to logd
  std::uint64_t skipped_frames_logged = 0;  // sum of N over those lines
  std::uint64_t skip_lines_lost = 0;        // of those, pruned by the ring-buffer wrap (read or not)
  std::uint64_t davey = 0;
  std::uint64_t crashes = 0;
  std::uint64_t starts = 0;
  // Lost to the resuming reader (LogBuffers::open_reader): what a reader
  // that never double-counts cannot count.
  std::uint64_t reader_lost_skip_lines = 0;
  std::uint64_t reader_lost_skipped_frames = 0;
  std::uint64_t reader_lost_davey = 0;
  // gfxinfo totals as last dumped, summed over processes (and resets): what
  // a poller that never double-counts can have added up.
  std::uint64_t gfx_dumped_before = 0;  // earlier processes / before a reset
  std::uint64_t gfx_last_dumped = 0;    // the current process, at its last dump
};

// HWUI's frame-time histogram labels: 5..32 step 1, 34..48 step 2, 53..133 step 4, 150..4950 step 50.
inline constexpr std::size_t kHistBins = 154;
inline constexpr std::size_t kGpuHistBins = 26;
std::array<std::uint32_t, kHistBins> histogram_labels();

struct GfxCounters {
  std::int64_t since_mono_ns = 0;
  std::uint64_t total = 0, janky = 0, janky_legacy = 0, missed_vsync = 0, slow_ui = 0;
  std::uint64_t high_input = 0, slow_draw = 0;
  std::array<std::uint64_t, kHistBins> hist{};
  std::array<std::uint64_t, kGpuHistBins> gpu_hist{};
};

struct FrameRecord {
  std::uint64_t vsync_id = 0;
  std::int64_t intended = 0;    // IntendedVsync
  std::int64_t start = 0;       // when the main thread ran it (Vsync)
  std::int64_t duration = 0;    // FrameCompleted - IntendedVsync
  std::int64_t interval = 0;
  std::int64_t gpu = 0;
};

struct AppState {
  AppConfig cfg;
  std::int32_t uid = 10000;
  std::int32_t pid = 0;  // 0 while dead
  std::int32_t threshold = 30;
  std::int64_t next_frame = 0;
  std::uint32_t pending_skip = 0;       // the frame at next_frame is late by this many frames
  std::int64_t pending_intended = 0;
  std::uint32_t forced_skip = 0;        // control channel: next frame stalls this much
  std::int64_t next_crash = -1;
  std::int64_t restart_at = -1;
  std::uint64_t vsync_id = 1;
  std::uint32_t view_root = 0;
  GfxCounters gfx;
  std::deque<FrameRecord> recent;  // last 120 frames for framestats
  AppTruth truth;
};

struct SetpropResult {
  int exit = 0;
  std::string err;
};

class Device {
 public:
  Device(DeviceConfig cfg, const Clock& clock);

  const DeviceConfig& config() const { return cfg_; }
  std::int64_t now_mono() const { return clock_.mono_ns() + mono_offset_; }
  std::int64_t wall_of(std::int64_t mono) const { return mono + wall_offset_; }

  // Simulates everything up to the clock's now. While paused, time passes
  // without frames (so that tests can compare outputs with the truth).
  void advance();
  void set_paused(bool p);
  bool paused() const { return paused_; }

  LogBuffers& logs() { return logs_; }
  const LogBuffers& logs() const { return logs_; }
  // Appends a line stamped now.
  void log(LogId id, char prio, std::int32_t pid, std::int32_t tid, std::int32_t uid,
           std::string tag, std::string msg);

  std::optional<std::string> getprop(std::string_view key) const;
  const std::map<std::string, std::string, std::less<>>& props() const { return props_; }
  SetpropResult setprop(std::string_view key, std::string_view value);
  bool is_root() const { return cfg_.root_build; }

  // Control-channel hooks; false when the package is unknown.
  // pid > 0: the new process gets that pid (pid reuse).
  bool restart_app(std::string_view pkg, std::int32_t pid = 0);
  // Logs `lines` background lines now (forces a buffer wrap).
  void flood(std::size_t lines);
  bool crash_app(std::string_view pkg);
  bool force_skip(std::string_view pkg, std::uint32_t frames);
  void restart_zygote();
  void set_refresh_hz(double hz);
  double refresh_hz() const { return refresh_hz_; }

  const std::vector<AppState>& apps() const { return apps_; }
  const AppState* app(std::string_view pkg) const;

  // Shell outputs.
  std::string dumpsys_gfxinfo(const std::vector<std::string>& args, int* exit_code);
  std::string dumpsys_display() const;
  std::string dumpsys_surfaceflinger() const;
  std::string ps() const;

  // Lines lost to ring-buffer wrap, over all buffers.
  std::uint64_t lines_lost() const;
  // Lines lost to the resuming reader (LogBuffers::open_reader).
  std::uint64_t reader_lost_lines() const { return reader_lost_lines_; }
  // {"name":…,"refresh_hz":…,"lines_lost":…,"apps":[…]} (no port: the transport adds it).
  std::string truth_json() const;

 private:
  void start_app(AppState& a, std::int32_t pid = 0);
  void kill_app(AppState& a, std::string_view reason, bool restart_soon);
  void frame(std::size_t idx, std::int64_t t);
  void noise(std::int64_t t);
  void log_at(std::int64_t mono, LogId id, char prio, std::int32_t pid, std::int32_t tid,
              std::int32_t uid, std::string tag, std::string msg, std::int32_t app = -1,
              std::uint32_t skipped = 0, bool davey = false);
  std::int64_t interval_ns() const;
  std::int64_t exp_delay(double per_sec);
  std::uint32_t sample_skip(const AppConfig& c);
  std::string gfx_block(const AppState& a, bool window) const;

  DeviceConfig cfg_;
  const Clock& clock_;
  std::int64_t mono_offset_;
  std::int64_t wall_offset_;
  std::int64_t sim_time_;
  bool paused_ = false;
  double refresh_hz_;
  std::mt19937_64 rng_;
  LogBuffers logs_;
  std::map<std::string, std::string, std::less<>> props_;
  std::vector<AppState> apps_;
  std::int32_t next_pid_;
  std::int64_t next_noise_ = 0;
  std::int64_t last_log_mono_ = 0;
  std::int32_t system_server_pid_;
  std::int32_t zygote_pid_;
  std::uint64_t reader_lost_lines_ = 0;
  // Per buffer, the header of the newest entry (see log_at).
  struct Header {
    std::int64_t wall_us = -1;
    std::int32_t pid = 0, tid = 0;
    char prio = 0;
    std::string tag;
  };
  std::array<Header, kLogIdCount> last_header_{};
};

}  // namespace jank::devsim

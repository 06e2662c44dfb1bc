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
#include <tuple>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "devsim/battery_dump.h"
#include "devsim/clock.h"
#include "devsim/cpu_model.h"
#include "devsim/timestats_dump.h"
#include "devsim/log_buffer.h"
#include "devsim/perfetto.h"
#include "devsim/procfs.h"
#include "devsim/thermal_dump.h"

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
  // > 0: a game: it also draws through a SurfaceView (a BLAST child layer
  // that gfxinfo never sees) at this many frames per second, with hitches.
  double game_fps = 0;
  double hitch_prob = 0.02;  // per game frame: the next one comes 3 to 10 refresh periods late
  // HWUI's "Profile data in ms" table on for this app whatever debug.hwui.profile says.
  bool hwui_profile = false;
  // Titles of further windows ("pkg/pkg.SettingsActivity", "PopupWindow:1"):
  // with the main activity's, they draw the app's frames in turn.
  std::vector<std::string> extra_windows;
  // The installed build (dumpsys package) until an `install` replaces it.
  std::string version_name = "1.0";
  std::int64_t version_code = 1;
};

// Scripted throttling episodes (--thermal-episodes): the last `length_s` of
// every `every_s` seconds since the device started, it is at thermal status
// `status`, as with the control channel's `thermal`.
struct ThermalEpisodes {
  double every_s = 0;  // 0: none
  double length_s = 0;
  int status = 4;
};

// What the panel does (dumpsys power; SurfaceFlinger presents nothing for
// apps unless it is on).
enum class Screen : std::uint8_t { on, off, doze };

// SurfaceFlinger's FrameTracker ring of one layer: the newest 127 frames as
// {desiredPresent, actualPresent, frameReady} (ns, monotonic); an actual
// present still in the future prints INT64_MAX (fence not signalled yet).
struct SimLayer {
  std::uint32_t id = 0;  // the layer id: the name's suffix from Android 13
  std::deque<std::array<std::int64_t, 3>> rows;
};

// What a perfect reader of a layer's presents counts (PerfDog's Jank and
// BigJank, the refresh-aware jank, active time), kept over the layer's
// instances: a recreated layer continues the same series.
struct LayerTruth {
  std::uint64_t presented = 0;
  std::uint64_t jank = 0, big_jank = 0, refresh_jank = 0;
  // Gaps over 1.2 s the app was busy through (a freeze: one frame), and
  // Android vitals' slow (rendered > 16 ms: gap − period), slow at the
  // panel's rate (two periods or more) and frozen (> 700 ms) frames.
  std::uint64_t freezes = 0, slow = 0, slow_refresh = 0, frozen = 0;
  std::int64_t active_ns = 0, jank_ns = 0;
  std::int64_t last_present = 0;  // 0: none in this instance
  std::deque<std::int64_t> recent;
};

// SurfaceFlinger's FrameTimeline (Android 12+): each app frame as a
// SurfaceFrame of the display frame (composition) it presented in, with
// SurfaceFlinger's predictions and actuals and its verdict (parsers::JankBit
// values). Times are ns on the device's monotonic clock.
// Jank bits as SurfaceFlinger keeps them (libs/gui JankInfo.h).
namespace ft_jank {
inline constexpr std::uint32_t kDisplayHal = 0x1, kSfCpu = 0x2, kSfGpu = 0x4, kAppDeadline = 0x8,
                               kPredictionError = 0x10, kSfScheduling = 0x20, kBufferStuffing = 0x40,
                               kUnknown = 0x80, kSfStuffing = 0x100, kDropped = 0x200;
}  // namespace ft_jank

struct SimSurfaceFrame {
  std::size_t app = 0;
  bool game = false;  // a SurfaceView buffer without a vsync id (token -1, never judged)
  std::uint32_t layer_id = 0;
  std::int32_t pid = 0;
  std::int64_t token = -1;
  std::int64_t expected_start = 0, expected_end = 0, expected_present = 0;
  std::int64_t actual_start = 0, actual_end = 0, actual_present = 0;  // present 0: dropped
  std::int64_t last_latch = 0;
  std::uint32_t jank = 0;
  bool dropped = false;
};
struct SimDisplayFrame {
  std::int64_t expected_present = 0, actual_present = 0;
  std::uint32_t jank = 0;  // SurfaceFlinger's own miss, if any
  std::vector<SimSurfaceFrame> surface_frames;
  // SurfaceFlinger starts composing one period before the present.
  std::int64_t start(std::int64_t period) const { return actual_present - period; }
};
// What a perfect reader of FrameTimeline counts for an app's window layer:
// frames with a vsync id, each once with its verdict.
struct FrameTimelineTruth {
  std::uint64_t frames = 0;
  std::uint64_t janky = 0;  // TimeStats' definition (display HAL, SF CPU/GPU, app deadline, prediction, SF scheduling)
  std::array<std::uint64_t, 11> by_label{};  // 0: none; i + 1: bit 1 << i
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
  ThermalEpisodes thermal_episodes;
  std::size_t log_buffer_bytes = 256 * 1024;
  double noise_lines_per_sec = 2;  // background system chatter
  std::int32_t tz_offset_s = 0;
  std::uint64_t seed = 1;
  std::int64_t initial_uptime_ns = 3'600'000'000'000;  // an hour since boot
  // Per composition: SurfaceFlinger misses its deadline and presents one
  // period late (its CPU 60 %, GPU 25 %, the display HAL 15 % of the time).
  double sf_miss_prob = 0.002;
  // Per app frame that must wait behind a queued buffer: dropped instead.
  double drop_prob = 0;
  std::vector<AppConfig> apps;
  // CPU, memory, clocks, GPU and battery current (devsim/resources.cc):
  // the GPU's driver, the SELinux labels its vendor gave the GPU's and the
  // battery's sysfs nodes, and the sign of current_now while discharging
  // (negative by default, as upstream documents it since 2020).
  GpuKind gpu = GpuKind::adreno;
  SysfsLabel gpu_label = SysfsLabel::automatic;
  SysfsLabel battery_label = SysfsLabel::sysfs_batteryinfo;
  bool current_positive_discharging = false;
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
  // What the reader (Device's follow streams, see docs/devsim.md) cannot
  // count: lost (left the ring unread), unknown (vanished unread with logd)
  // and history (written before the reader first looked).
  std::uint64_t reader_lost_skip_lines = 0;
  std::uint64_t reader_lost_skipped_frames = 0;
  std::uint64_t reader_lost_davey = 0;
  std::uint64_t reader_unknown_skip_lines = 0;
  std::uint64_t reader_unknown_skipped_frames = 0;
  std::uint64_t reader_unknown_davey = 0;
  std::uint64_t reader_history_skip_lines = 0;
  std::uint64_t reader_history_skipped_frames = 0;
  std::uint64_t reader_history_davey = 0;
  // Logged but never held by logd as entries, so no reader can count them:
  // refused by a log.tag property (in the app's liblog from 7.0, in logd on
  // 6.0 or for writers that bypass liblog), or squashed into a chatty
  // summary (8.0–11).
  std::uint64_t unheld_skip_lines = 0;
  std::uint64_t unheld_skipped_frames = 0;
  std::uint64_t unheld_davey = 0;
  // Per buffer, what this package wrote to it (for the history at first sight).
  struct Written {
    std::uint64_t skip_lines = 0, skipped_frames = 0, davey = 0;
  };
  std::array<Written, kLogIdCount> written_to{};
  // gfxinfo totals as last dumped, summed over processes (and resets): what
  // a poller that never double-counts can have added up.
  std::uint64_t gfx_dumped_before = 0;  // earlier processes / before a reset
  std::uint64_t gfx_last_dumped = 0;    // the current process, at its last dump
  std::uint64_t gfx_janky_dumped_before = 0, gfx_janky_last_dumped = 0;  // the same for janky frames
};

// HWUI's frame-time histogram labels: 5..32 step 1, 34..48 step 2, 53..133 step 4, 150..4950 step 50.
inline constexpr std::size_t kHistBins = 154;
inline constexpr std::size_t kGpuHistBins = 26;
std::array<std::uint32_t, kHistBins> histogram_labels();

struct GfxCounters {
  std::int64_t since_mono_ns = 0;
  std::uint64_t total = 0, janky = 0, janky_legacy = 0, missed_vsync = 0, slow_ui = 0;
  std::uint64_t high_input = 0, slow_draw = 0;
  // Truth only, never printed: Android vitals' slow (over 16 ms) and frozen
  // (over 700 ms) frames in whole milliseconds, as HWUI's histogram takes them
  // (libs/hwui/ProfileData.cpp, frameCountIndexForFrameTime: ns2ms truncates).
  std::uint64_t vitals_slow = 0, vitals_frozen = 0;
  std::array<std::uint64_t, kHistBins> hist{};
  std::array<std::uint64_t, kGpuHistBins> gpu_hist{};
};

// One GraphicsStatsService record (Android 7+): the counts a buffer or a
// file holds and the wall-clock span (System.currentTimeMillis, ms) of the
// buffers merged into it (frameworks/base services/core/java/com/android/
// server/GraphicsStatsService.java, BufferInfo).
struct GraphicsStatsRecord {
  std::int64_t start_ms = 0, end_ms = 0;
  std::int64_t version_code = 0;
  GfxCounters counts;
  // A running buffer's frames and janky frames when a dump last printed it:
  // what a reboot loses beyond them no reader can have counted.
  std::uint64_t dumped_frames = 0, dumped_janky = 0;
};

struct FrameRecord {
  std::uint64_t vsync_id = 0;
  std::int64_t intended = 0;    // IntendedVsync
  std::int64_t start = 0;       // when the main thread ran it (Vsync)
  std::int64_t duration = 0;    // FrameCompleted - IntendedVsync
  std::int64_t interval = 0;
  std::int64_t gpu = 0;
};

// What a reader of every dump of one window's "Profile data in ms" table
// counts, over the app's processes: profiled frames drawn, rows printed,
// profiled frames that left the device's buffer unprinted (ring wrap, reset,
// process death), and the printed cells summed in hundredths of a ms (as
// printed: draw, prepare, process, execute).
struct ProfileTruth {
  std::uint64_t frames = 0, rows = 0, lost = 0;
  std::array<std::uint64_t, 4> centi_ms{};
};

// One window (view root) of an app. HWUI gives each its own renderer: its
// own "Window:" counters, framestats ring and profile buffer.
struct SimWindow {
  std::string title;                 // "pkg/pkg.MainActivity": the Window: line, the view root's name
  std::uint32_t view_root = 0;       // ViewRootImpl@hex, new with each process
  GfxCounters gfx;                   // this process's frames of the window
  std::uint64_t frames = 0, janky = 0;  // truth over processes; janky: over one refresh interval
  std::deque<FrameRecord> recent;    // its last 120 frames
  std::int64_t profile_logged = 0;   // 6+: IntendedVsync of the newest profile row printed
  std::vector<std::optional<FrameRecord>> slots;  // 4.x/5.x: the profile buffer since the last dump
  std::size_t slot = 0;              // the slot the next frame takes
  ProfileTruth profile;
};

struct AppState {
  AppConfig cfg;
  // The installed build: its version, when it was installed (wall ns) and
  // how much it janks (1: as configured; install's JANK_FACTOR).
  std::string version_name;
  std::int64_t version_code = 1;
  std::int64_t first_install_wall = 0, last_update_wall = 0;
  double jank_factor = 1;
  std::int32_t uid = 10000;
  std::int32_t pid = 0;  // 0 while dead
  std::int32_t threshold = 30;
  std::int64_t next_frame = 0;
  std::optional<std::int64_t> stall_began;  // a stalled frame's vsync; the stall ends at next_frame
  std::uint32_t forced_skip = 0;        // control channel: next frame stalls this much
  std::int64_t game_frozen_at = 0;      // control channel: the game loop froze here (0: running)
  std::int64_t next_crash = -1;
  std::int64_t restart_at = -1;
  std::uint32_t view_root = 0;
  bool profiling = false;           // "Profile data in ms" tables: read when the process starts
  std::vector<SimWindow> windows;   // [0]: the main activity
  GfxCounters gfx;
  std::deque<FrameRecord> recent;  // last 120 frames of all its windows (each prints its own)
  AppTruth truth;
  FrameTimelineTruth ft_truth;
  // SurfaceFlinger: the window's buffer layer and, for a game, its
  // SurfaceView layer (both recreated with the process), their truth, and
  // the union of their active spans.
  bool idle = false;  // a static screen: the app draws nothing
  std::int64_t next_game = 0;
  SimLayer window_layer, game_layer;
  LayerTruth window_truth, game_truth;
  std::map<std::int64_t, std::int64_t> active_spans;  // recent ones, begin → end
  std::int64_t active_ns = 0;
  // GraphicsStatsService: the running process's buffer (none while dead or
  // below Android 7), and per version code the frames and janky frames the
  // service was given, less those a reboot lost with a buffer never saved
  // that no dump had printed (what a reader of every dump can count).
  std::optional<GraphicsStatsRecord> gs_buffer;
  std::map<std::int64_t, std::pair<std::uint64_t, std::uint64_t>> gs_truth;
  // The `cpu` control: the main thread's and RenderThread's busy share
  // (ppm) whatever the app draws; nullopt: the model's.
  std::optional<std::uint32_t> cpu_main_ppm, cpu_render_ppm;
  // The observer's cost (`command-cost`): a gfxinfo dump holds this app's
  // RenderThread until here (device monotonic ns), and the frames that
  // turned janky only because they waited for it.
  std::int64_t render_busy_until = 0;
  std::uint64_t observer_janky = 0;
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
  // The instant the model has reached (device monotonic ns): a shell
  // script's files all describe it.
  std::int64_t sim_now() const { return sim_time_; }
  std::int64_t wall_of(std::int64_t mono) const { return mono + wall_offset_; }
  std::int64_t wall_now() const { return wall_of(now_mono()); }
  // The device's wall clock minus the host's, now.
  std::int64_t clock_offset_ns() const { return wall_now() - clock_.wall_ns(); }

  // Simulates everything up to the clock's now. While paused, time passes
  // without frames (so that tests can compare outputs with the truth).
  // While held, nothing happens: a shell script runs in one instant.
  void advance();
  void hold(bool on) { held_ += on ? 1 : -1; }

  // The wall clock jumps (monotonic time goes on); later lines carry the new time.
  void clock_step(std::int64_t ns);
  // Only the next line written is stamped ns off; the clock stays.
  void clock_glitch(std::int64_t ns);

  // logd dies and init starts a new one: rings and statistics from zero.
  void logd_restart();
  // A reboot at once: logd and every app start again, monotonic time from
  // `uptime_ns`, the wall clock at the host's plus clock_offset_ns, properties
  // but persist.* back to their boot values, a new boot id.
  void reboot(std::int64_t clock_offset_ns, std::int64_t uptime_ns = 3'000'000'000);
  const std::string& boot_id() const { return boot_id_; }
  std::int32_t logd_pid() const { return logd_pid_; }
  // When this logd started (device monotonic ns): Android 5.x's `logcat -S`
  // prints the time since.
  std::int64_t logd_started_ns() const { return logd_started_ns_; }
  // Changes whenever logd's memory is gone (restart, reboot).
  std::uint64_t logd_generation() const { return logd_gen_; }
  std::uint64_t reboots() const { return reboots_; }
  std::uint64_t logd_restarts() const { return logd_restarts_; }
  // Pids of processes with that name (pidof); empty when none.
  std::vector<std::int32_t> pids_of(std::string_view name) const;
  // A process of the platform or an app has this pid now (perfetto's own aside).
  bool pid_in_use(std::int32_t pid) const;
  // /proc/PID/cmdline of a live process (each argument ended by NUL).
  std::optional<std::string> cmdline_of(std::int32_t pid) const;

  // Perfetto: sessions, triggers and trace files (devsim/perfetto.h).
  Perfetto& perfetto() { return perfetto_; }
  const Perfetto& perfetto() const { return perfetto_; }

  // A shell service the host opened ran: a command (its stdout and stderr
  // `output_bytes` long, a streamed file included) or a stream that follows
  // (logcat). What measuring costs the device, for the truth.
  // What a command costs the device's frames (the `command-cost` control,
  // devsim/observer_cost.cc): the work one gfxinfo dump does on the dumped
  // app's RenderThread and one SurfaceFlinger dump on SurfaceFlinger's main
  // thread. 0: free, as by default.
  void set_command_cost(std::optional<std::int64_t> app_ns, std::optional<std::int64_t> sf_ns);
  // A gfxinfo dump of this app, or a SurfaceFlinger dump, runs now.
  void gfxinfo_dumped(AppState& a);
  void surfaceflinger_dumped();
  // The work those dumps did on the device, in all (ns): a script's
  // $EPOCHREALTIME moves by it.
  std::int64_t command_work_ns() const { return command_work_ns_; }

  void note_shell(bool stream, std::uint64_t output_bytes) {
    if (stream) {
      ++shell_streams_;
    } else {
      ++shell_commands_;
      shell_output_bytes_ += output_bytes;
    }
  }

  // The reader, for the truth. A follow stream of these buffers opened.
  void reader_follow(LogMask mask);
  // A stream wrote the entry of logd generation `gen`, buffer `id`, index
  // `index` into its output: it is on its way to the host. Until the host
  // takes it (note_read) or the stream dies first (note_undelivered), the
  // ring dropping it decides nothing: logd already handed it over.
  void note_in_flight(std::uint64_t gen, LogId id, std::uint64_t index, std::uint64_t first_line_hash);
  // The host took that entry.
  void note_read(std::uint64_t gen, LogId id, std::uint64_t index);
  // The stream carrying that entry died before the host took it.
  void note_undelivered(std::uint64_t gen, LogId id, std::uint64_t index);
  // The reader went back to a checkpoint (never forward). False when no
  // follow stream ever read this buffer.
  bool reader_rollback(LogId id, std::uint64_t index);
  // The reader says it counted this buffer up to `index`, the entry whose
  // first line hashes to `hash` (0: not said). The hash names the entry when
  // a stream wrote it out lately: the reader's own count of an entry lags
  // logd's when logd skipped entries it never saw (logcat -c under a live
  // stream), and only a later resume tells it by how many. Then back (a
  // rollback), or forward as far as streams ever wrote out (it got entries
  // the host never acknowledged: the connection died after the adb server
  // passed them on). Never past what was written out.
  void reader_declared(LogId id, std::uint64_t index, std::uint64_t hash);
  // logd's index of the entry a reader names by its own count and the hash
  // of its first line: the hash wins when a stream wrote that entry out lately.
  std::uint64_t reader_index_of(LogId id, std::uint64_t index, std::uint64_t hash) const;
  std::uint64_t read_upto(LogId id) const { return reader_[static_cast<std::size_t>(id)].read_upto; }
  void set_paused(bool p);
  bool paused() const { return paused_; }

  LogBuffers& logs() { return logs_; }
  const LogBuffers& logs() const { return logs_; }
  // Appends a line stamped now, written through liblog (which refuses what
  // a log.tag property forbids before it reaches logd, from Android 7.0).
  void log(LogId id, char prio, std::int32_t pid, std::int32_t tid, std::int32_t uid,
           std::string tag, std::string msg);
  // The same, written straight to logd's socket (/dev/socket/logdw) as a
  // writer that bypasses liblog's check: logd's own check (6.0+) counts a
  // refused line in Total without holding it.
  void log_to_logd(LogId id, char prio, std::int32_t pid, std::int32_t tid, std::int32_t uid,
                   std::string tag, std::string msg);
  // The app's RenderThread logs `lines` identical lines now, a millisecond
  // apart (OpenGLRenderer W `message`): squashed by logd 8.0–11.
  bool repeat_line(std::string_view pkg, std::size_t lines, std::string message);
  // __android_log_is_loggable with this device's log.tag properties (always
  // true before Android 6.0, which has no such check).
  bool loggable(char prio, std::string_view tag) const;
  // "uid=U(NAME) COMM" as logd 8.0–11 prints a summary of this thread's lines.
  std::string summary_names(std::int32_t uid, std::int32_t pid, std::int32_t tid) const;
  // Lines logd counted without holding them, since the simulator started:
  // refused by logd's log.tag check, squashed; and lines the writers' liblog
  // refused (never counted).
  std::uint64_t lines_filtered() const { return lines_filtered_; }
  std::uint64_t lines_squashed() const { return lines_squashed_; }
  std::uint64_t lines_refused() const { return lines_refused_; }

  std::optional<std::string> getprop(std::string_view key) const;
  const std::map<std::string, std::string, std::less<>>& props() const { return props_; }
  SetpropResult setprop(std::string_view key, std::string_view value);
  bool is_root() const { return cfg_.root_build; }

  // Control-channel hooks; false when the package is unknown.
  // pid > 0: the new process gets that pid (pid reuse).
  bool restart_app(std::string_view pkg, std::int32_t pid = 0);
  // A new build of the app installed over the old one (adb install -r): the
  // process restarts (new pid, death and start lines), the version changes,
  // and its jank scales by `jank_factor` (> 0; stall probability and length,
  // frames over budget). False when the package is unknown.
  bool install_app(std::string_view pkg, std::string version_name, std::int64_t version_code, double jank_factor);
  // A build whose ro.product.model is `model`, any bytes (vendors ship
  // Latin-1 and cut UTF-8 names): getprop and the connection banner say it
  // from now on, and after a reboot.
  void set_model(std::string model);
  // Logs `lines` background lines now (forces a buffer wrap).
  void flood(std::size_t lines);
  bool crash_app(std::string_view pkg);
  bool force_skip(std::string_view pkg, std::uint32_t frames);
  // The whole app stops for `seconds` (a lock, a long GC): its main thread
  // stalls that long from its next vsync and its game loop, if any, from now.
  bool freeze(std::string_view pkg, double seconds);
  void restart_zygote();
  void set_refresh_hz(double hz);
  double refresh_hz() const { return refresh_hz_; }
  void set_screen(Screen screen);
  Screen screen() const { return screen_; }
  // A static screen (nothing drawn) for the app, or drawing again.
  bool set_idle(std::string_view pkg, bool idle);

  // Thermal state (devsim/thermal.cc). A throttling episode: the device is at
  // thermal status `status` (0..6) for `seconds` (< 0: until ended), its
  // skin heating towards that severity; from 3 (severe) on, app frames take
  // longer (throttle()).
  void thermal_episode(int status, double seconds);
  void end_thermal_episode();
  int thermal_status() const { return thermal_status_at(sim_time_); }
  // How much longer frame work takes now (1: not throttled).
  double throttle() const { return throttle_at(sim_time_); }
  // What dumpsys thermalservice prints now.
  SimThermal thermal() const;

  // Battery (devsim/battery.cc): the fuel gauge drains while unplugged and
  // fills from a charger. What dumpsys battery prints now; the control's
  // `battery` (returns an error message, empty when applied).
  SimBattery battery() const;
  std::string set_battery(const BatteryControl& control);
  std::string dumpsys_battery() const { return format_battery(cfg_.sdk, battery()); }

  const std::vector<AppState>& apps() const { return apps_; }
  const AppState* app(std::string_view pkg) const;

  // CPU, memory, clocks, GPU and battery current (devsim/resources.cc; the
  // files: devsim/procfs.cc). Every thread's and core's time, the cpufreq
  // policies, the answers given.
  CpuModel& cpu() { return cpu_; }
  const CpuModel& cpu() const { return cpu_; }
  KernelVersion kernel() const { return kernel_of(cfg_.sdk); }
  // The labels in force (`automatic` resolved for this release and GPU).
  SysfsLabel gpu_label() const;
  SysfsLabel battery_label() const { return battery_label_; }
  // The `sysfs-label` control: either label from now on.
  void set_sysfs_labels(std::optional<SysfsLabel> gpu, std::optional<SysfsLabel> battery);
  // The GPU's load now (ppm; 0 while the screen is not on) and whether it is powered.
  std::uint32_t gpu_load_ppm() const;
  bool gpu_powered() const { return screen_ == Screen::on && !paused_; }
  // current_now (µA) of the battery now: the gauge's rate times its capacity.
  std::int64_t battery_current_ua() const;
  // Platform processes (and perfetto's) the CPU model has not seen yet get
  // their threads; those that ended leave it. Called before /proc is read.
  void sync_platform_processes();
  // A process's memory now (kB), its high-water mark moved up to it.
  struct Memory {
    std::uint64_t size_kb = 0, peak_kb = 0, rss_kb = 0, hwm_kb = 0, anon_kb = 0, file_kb = 0, shmem_kb = 0;
    std::uint64_t swap_kb = 0, data_kb = 0, stack_kb = 0, exe_kb = 0, lib_kb = 0, pte_kb = 0;
  };
  Memory memory_of(SimProc& p);
  // Controls (empty string: applied; else why not). `cpu`: the busy share
  // of the app's main thread and RenderThread (nullopt: leave; a negative
  // value: the model's again).
  std::string set_cpu_busy(std::string_view pkg, std::optional<double> main, std::optional<double> render);
  // `cpufreq`: cap policy N's scaling_max_freq (0: no cap).
  std::string set_cpufreq_cap(int policy, std::uint32_t khz);
  // `cpu-online`: hotplug a core.
  std::string set_core_online(int core, bool on);

  // A test fixture, no release's behaviour: every shell script fails at its
  // first command as a broken build would ("can't execute", exit 126).
  void set_failing(bool on) { failing_ = on; }
  bool failing() const { return failing_; }

  // The app in front (its main activity resumed, its window focused): the
  // first app of the list until `foreground` says otherwise. False when the
  // package is unknown; nullopt: no app in front.
  bool set_foreground(std::optional<std::string_view> pkg);
  // The app in front, if its process lives (a dead one's window is gone).
  const AppState* focused_app() const;
  // `dumpsys window [windows|displays]` in the release's layout
  // (devsim/window_dump.cc).
  std::string dumpsys_window(const std::vector<std::string>& args) const;

  // Shell outputs.
  std::string dumpsys_gfxinfo(const std::vector<std::string>& args, int* exit_code);
  // `dumpsys graphicsstats` (devsim/graphicsstats.cc); exit 0 with the
  // service missing below Android 7, as dumpsys prints it.
  std::string dumpsys_graphicsstats();
  std::string dumpsys_display() const;
  // Every process the device runs: user, pid, parent pid, name.
  struct Process {
    std::string user;
    std::int32_t pid, ppid;
    std::string name;
  };
  std::vector<Process> processes() const;
  // dumpsys package PKG in the release's layout (devsim/package_dump.cc);
  // `Unable to find package: PKG` for one not installed.
  std::string dumpsys_package(std::string_view pkg) const;
  std::string dumpsys_surfaceflinger() const;
  std::string surfaceflinger_list() const;                      // --list
  std::string surfaceflinger_latency(std::string_view layer) const;  // --latency <exact name>
  std::string dumpsys_power() const;
  // --frametimeline with -all and/or -jank (Android 12+; older releases print nothing).
  std::string surfaceflinger_frametimeline(bool all, bool jank);
  // --timestats with its flags, handled as TimeStats::parseArgs does:
  // -disable, then -dump, then -clear, then -enable, whatever their order.
  std::string surfaceflinger_timestats(const std::vector<std::string>& flags);
  // A statsd pull of TimeStats' global (true) or layer (false) atom: clears
  // that scope as onPullAtom does, then enables TimeStats.
  void timestats_pull(bool global);
  bool timestats_enabled() const { return ts_enabled_; }
  // The FrameTimeline token (vsync id) of a vsync at `t`: grows with time,
  // shared by every app drawing on that vsync, lower again after a reboot.
  static std::int64_t token_of(std::int64_t t) { return t / 100'000; }
  // A layer's exact name as --list prints it, unwrapped.
  std::string layer_name(const AppState& a, bool game) const;
  // The same for the layer instance with this id (the app may have made a new one since).
  std::string layer_name(const AppState& a, bool game, std::uint32_t id) const;
  // `ps ARGS` as the release's ps answers (docs/devsim.md, "Releases"):
  // toybox from 8.0, toolbox before. Sets `exit`.
  std::string ps(const std::vector<std::string>& args, int* exit) const;
  std::string ps() const { int exit = 0; return ps({"-A"}, &exit); }

  // Lines lost to ring-buffer wrap, over all buffers, since the device started.
  std::uint64_t lines_lost() const { return lines_pruned_; }
  std::uint64_t lines_written() const;
  // A reader asked logd for its statistics (`logcat -S`): the unread lines
  // that left the ring so far are now known to it as lost.
  void statistics_read();
  // Lines the reader cannot count (see AppTruth).
  std::uint64_t reader_lost_lines() const { return reader_lost_lines_; }
  // Unread lines that left the ring since the reader last asked logd for
  // its statistics: lost once it asks, unknown if logd restarts first.
  std::uint64_t reader_pending_lines() const;
  std::uint64_t reader_unknown_lines() const { return reader_unknown_lines_; }
  std::uint64_t reader_history_lines() const { return reader_history_lines_; }
  // The ground truth (docs/devsim.md): {"name":…,"refresh_hz":…,"lines_lost":…,
  // "apps":[…],"thermal":{…},"perfetto":{…}} (no port: the transport adds it).
  nlohmann::ordered_json truth() const;
  std::string truth_json() const;  // truth() as one line of JSON

 private:
  void start_app(AppState& a, std::int32_t pid = 0);
  void kill_app(AppState& a, std::string_view reason, bool restart_soon);
  void frame(std::size_t idx, std::int64_t t);
  void game_frame(std::size_t idx, std::int64_t t);
  // A frame queued for `layer` at `ready`, presented at `present` (ns) or
  // later (behind a queued buffer, or when SurfaceFlinger misses). Returns
  // the present and the display frame it went into.
  struct Presented {
    std::int64_t present = 0;
    std::int64_t last_latch = 0;  // when the layer's previous buffer was latched (0: none)
    SimDisplayFrame* display = nullptr;
  };
  // `busy_since`: when the app began the stall this frame ends (0: none).
  Presented queue_present(AppState& a, bool game, std::int64_t desired, std::int64_t ready, std::int64_t present,
                          std::int64_t busy_since);
  // The display frame presenting near `present`, made (and its SurfaceFlinger miss drawn) on first use.
  SimDisplayFrame& display_frame(std::int64_t present);
  void prune_display_frames(std::map<std::int64_t, SimDisplayFrame>::const_iterator keep);
  // SurfaceFlinger's verdict on an app frame (FrameTimeline's classification).
  std::uint32_t classify(const SimSurfaceFrame& f, std::uint32_t display_jank) const;
  void count_ft_truth(AppState& a, std::uint32_t jank);
  // TimeStats' share of a judged app window frame, while it is enabled.
  void count_timestats(const AppState& a, const SimSurfaceFrame& f);
  bool draws(const AppState& a) const { return screen_ == Screen::on && !a.idle && !paused_; }
  // Thermal (devsim/thermal.cc): sensors approach their targets over
  // [thermal_at_, now] with the load of that moment.
  void init_thermal();
  void update_thermal(std::int64_t now);
  std::optional<int> thermal_episode_at(std::int64_t t) const;
  int thermal_status_at(std::int64_t t) const;
  double throttle_at(std::int64_t t) const;
  nlohmann::ordered_json thermal_truth() const;
  // Battery (devsim/battery.cc): the gauge moves over [battery_.at, now].
  void init_battery();
  void update_battery(std::int64_t now);
  double battery_rate_pct_per_hour() const;  // signed: < 0 draining
  void battery_broadcast(std::int64_t now);  // what ACTION_BATTERY_CHANGED last carried
  nlohmann::ordered_json battery_truth() const;
  // CPU model hooks (devsim/resources.cc): an app's process starts or ends,
  // the apps' threads' busy shares follow the state (drawing, idle, paused,
  // controls), a reboot starts every count again.
  void cpu_app_started(AppState& a);
  void cpu_app_ended(AppState& a);
  void sync_cpu();
  void cpu_reboot();
  nlohmann::ordered_json proc_truth(std::size_t app) const;
  nlohmann::ordered_json resources_truth() const;
  void new_layers(AppState& a);
  void noise(std::int64_t t);
  void log_at(std::int64_t mono, LogId id, char prio, std::int32_t pid, std::int32_t tid,
              std::int32_t uid, std::string tag, std::string msg, std::int32_t app = -1,
              std::uint32_t skipped = 0, bool davey = false);
  std::int64_t interval_ns() const;
  std::int64_t exp_delay(double per_sec);
  std::uint32_t sample_skip(const AppConfig& c, double jank_factor = 1);
  std::string gfx_block(const GfxCounters& g) const;
  // GraphicsStatsService's side of an app's frames (devsim/graphicsstats.cc):
  // the buffer the frame drawn at `t` goes to (rotated at midnight UTC;
  // nullptr below Android 7), a process's start, its death (the buffer
  // saved into its day's file) and the three newest days of files kept.
  GfxCounters* graphicsstats_counts(AppState& a, std::int64_t t);
  void graphicsstats_start(AppState& a, std::int64_t t);
  void graphicsstats_save(AppState& a, std::int64_t t);
  // Files per (day at midnight UTC in ms, package, version code).
  std::map<std::tuple<std::int64_t, std::string, std::int64_t>, GraphicsStatsRecord> gs_files_;
  std::string profile_table(SimWindow& w);
  // The app's profiled frames still in its buffers are gone (death, reset).
  void drop_profile_buffers(AppState& a);
  enum class Uncounted : std::uint8_t { lost, unknown, pending };
  struct Gone;
  void uncounted(Uncounted kind, LogId id, const Gone& g);
  void dropped(const LogEntry& e, DropReason why);
  void logd_reset();
  std::string new_boot_id();

  DeviceConfig cfg_;
  const Clock& clock_;
  std::int64_t mono_offset_;
  std::int64_t wall_offset_;
  std::int64_t sim_time_;
  bool paused_ = false;
  double refresh_hz_;
  Screen screen_ = Screen::on;
  std::uint32_t next_layer_id_ = 40;
  std::mt19937_64 rng_;
  LogBuffers logs_;
  std::map<std::string, std::string, std::less<>> props_;
  std::vector<AppState> apps_;
  std::optional<std::size_t> foreground_;  // index into apps_
  bool failing_ = false;
  std::int32_t next_pid_;
  std::int64_t next_noise_ = 0;
  std::int64_t last_log_mono_ = 0;
  std::int32_t system_server_pid_;
  std::int32_t zygote_pid_;
  std::uint64_t reader_lost_lines_ = 0;
  std::uint64_t shell_commands_ = 0, shell_streams_ = 0, shell_output_bytes_ = 0;  // note_shell
  // The observer's cost (set_command_cost): compositions a SurfaceFlinger
  // dump still holds up (the next ones made miss), and those it made miss.
  std::int64_t cost_app_ns_ = 0, cost_sf_ns_ = 0;
  std::uint64_t sf_owed_misses_ = 0, sf_observer_misses_ = 0;
  std::int64_t command_work_ns_ = 0;
  // The delay a held RenderThread adds to a frame that starts at `t` with
  // `own` work (0: none).
  std::int64_t render_wait(const AppState& a, std::int64_t t, std::int64_t own) const;
  nlohmann::ordered_json observer_truth() const;
  void settle_pending(Uncounted kind);
  std::uint64_t reader_unknown_lines_ = 0;
  std::uint64_t reader_history_lines_ = 0;
  std::uint64_t lines_pruned_ = 0;
  std::array<std::uint64_t, kLogIdCount> lines_ever_{};  // held per buffer since the device started
  std::uint64_t lines_filtered_ = 0, lines_squashed_ = 0, lines_refused_ = 0;
  bool bypass_liblog_ = false;  // the line being logged goes straight to logd's socket
  // What a stored (held) line adds to the truth: per buffer and per package.
  void count_stored(const LogEntry& e);
  // A line of a package that logd never holds.
  void count_unheld(std::int32_t app, std::uint32_t skipped, bool davey);
  int held_ = 0;
  std::int64_t glitch_ns_ = 0;
  std::mt19937_64 id_rng_;  // ids only (boot id, logd pid), so that the model's draws stay as they were
  std::mt19937_64 game_rng_;  // game frames only, likewise
  std::mt19937_64 ft_rng_;    // SurfaceFlinger misses and drops only, likewise
  std::map<std::int64_t, SimDisplayFrame> display_frames_;  // by expected present
  // SurfaceFlinger's TimeStats: off until enabled; statsStart in unix
  // seconds (0: never enabled); rows by (refresh, render, uid, layer name).
  bool ts_enabled_ = false;
  std::int64_t ts_stats_start_ = 0;
  std::map<std::pair<std::int32_t, std::int32_t>, SimTimeStatsGlobal> ts_global_;
  std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t, std::string>, SimTimeStatsLayer> ts_layers_;
  std::string boot_id_;
  std::int32_t logd_pid_ = 0;
  std::int64_t logd_started_ns_ = 0;
  std::uint64_t logd_gen_ = 1;
  std::uint64_t reboots_ = 0, logd_restarts_ = 0;
  std::map<std::string, std::string, std::less<>> boot_props_;
  std::mt19937_64 thermal_rng_;  // thermal constants only, likewise
  struct ThermalSensor {
    const char* name;
    int type;                     // android.os.Temperature TYPE_*
    double on, off;               // above ambient with nothing drawing, screen on / not on
    double per_load;              // more per unit of load (an app drawing 1, a game 3)
    double tau_s;                 // time constant of the approach
    double value = 0;             // degrees Celsius
  };
  std::vector<ThermalSensor> sensors_;  // skin first
  double ambient_ = 25, heat_scale_ = 1;
  std::int64_t thermal_at_ = 0;         // the sensors' values are as of this time
  std::int64_t thermal_origin_ = 0;     // scripted episodes count from here
  int episode_status_ = -1;             // control channel episode (-1: none)
  std::optional<std::int64_t> episode_until_;  // its end (none: until ended)
  struct BatteryModel {
    double charge_pct = 80;             // the fuel gauge, 0..100
    SimPlug plugged = SimPlug::none;
    std::optional<double> fixed_celsius;  // control `temp=`; else the thermal model's battery sensor
    std::optional<double> rate;           // control `rate=` (% per hour, either way)
    std::int64_t at = 0;                  // charge_pct is as of this time
    // The last battery changed broadcast (BatteryService.rateLimitBatteryChangedBroadcast).
    bool broadcast = false;
    SimBattery sent;
    std::int64_t current_sent_at = 0, voltage_sent_at = 0;
  };
  BatteryModel battery_;
  // Per buffer: has a follow stream read it (first sight), the index of the
  // newest entry it wrote out, the first-sight index in this logd (history
  // ends there), and entries dropped after being read (a rollback may turn
  // them into lost ones; bounded).
  struct Gone {
    std::uint64_t index = 0;
    std::int32_t app = -1;
    std::uint32_t skipped = 0;
    bool davey = false;
  };
  struct ReaderBuffer {
    bool seen = false;
    std::uint64_t read_upto = 0;
    std::uint64_t floor = 0;
    std::uint64_t sent_upto = 0;                     // newest index a stream wrote out (this logd)
    std::deque<Gone> gone;                           // ascending index
    std::map<std::uint64_t, int> in_flight;          // index → streams carrying it
    std::map<std::uint64_t, Gone> dropped_in_flight;  // dropped while on its way: undecided
    // Dropped unread: lost once the reader asks logd for its statistics,
    // unknown if this logd is gone before it does.
    std::map<std::uint64_t, Gone> pending;
    // Entries written out lately, by first-line hash (bounded, oldest first out).
    std::unordered_map<std::uint64_t, std::uint64_t> sent_by_hash;
    std::deque<std::uint64_t> sent_hashes;
  };
  // Entries a stream still carried when their logd died: read if the host
  // takes them after all, unknown if every stream carrying them dies first
  // (logd's ring is gone: no reader can learn of them). By logd generation,
  // buffer and index.
  struct Orphan {
    Gone gone;
    int streams = 0;
  };
  std::map<std::tuple<std::uint64_t, std::size_t, std::uint64_t>, Orphan> orphans_;
  // An entry on its way when logd dies (logd_reset): an orphan. False when
  // no stream carries it.
  bool orphan(std::size_t id, ReaderBuffer& r, const Gone& g);
  void remember_gone(ReaderBuffer& r, const Gone& g);
  // Entries of `undecided` at or below read_upto were read, then dropped.
  void read_through(ReaderBuffer& r, std::map<std::uint64_t, Gone>& undecided);
  std::array<ReaderBuffer, kLogIdCount> reader_{};
  // Per buffer, the header of the newest entry (see log_at).
  struct Header {
    std::int64_t wall_us = -1;
    std::int32_t pid = 0, tid = 0;
    char prio = 0;
    std::string tag;
  };
  std::array<Header, kLogIdCount> last_header_{};
  CpuModel cpu_;
  SysfsLabel gpu_label_ = SysfsLabel::automatic, battery_label_ = SysfsLabel::sysfs_batteryinfo;
  std::int64_t zygote_started_ns_ = 0;  // when zygote (and system_server) last started
  Perfetto perfetto_{*this};  // last: it reads the config when constructed
};

}  // namespace jank::devsim

// The metric model: per device and per process ("package") state fed by the
// parsers, with no knowledge of sockets or of Prometheus. Exporters read it.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "metrics/app_version.h"
#include "metrics/device_clock.h"
#include "metrics/histogram.h"
#include "metrics/live_history.h"
#include "metrics/process_names.h"
#include "metrics/source_state.h"
#include "parsers/logcat_cursor.h"
#include "parsers/logcat_stream.h"

namespace jank::metrics {

struct StoreOptions {
  double default_refresh_hz = 60;
  // The refresh rate that judges frames by the interval (framestats rows
  // without FrameInterval, the gfxinfo refresh-aware slow frames). 0: the
  // device's rate when the dump is recorded (live). Replay fixes it before
  // any input so that no input's result depends on those before it.
  double judge_refresh_hz = 0;
  std::chrono::seconds sm_window{60};  // choreographer.sm_window_seconds: SM and worst skip are over it
  std::size_t max_packages_per_device = 200;
  std::size_t max_thermal_sensors_per_device = 32;
  std::size_t max_pids_per_device = 65536;
  std::size_t max_layers_per_device = 32;
  std::size_t max_windows_per_package = 8;  // window series per app (framestats)
};

// Label value for events beyond the per-device package cap.
inline constexpr std::string_view kOverflowPackage = "_other_";
// Label value when neither a pid nor a name is known (raw layout).
inline constexpr std::string_view kUnknownPackage = "unknown";

struct PackageMetrics {
  // Host time the process was last known alive (an event, a dump, a process
  // listing); 0 when the store is not told the time (replays never expire).
  std::int64_t last_alive_ns = 0;

  // The largest skip and the longest framestats frame since a run last took
  // its baseline (metrics/run_book.h): a run's maxima cannot come from counters.
  struct Peaks {
    std::uint32_t skip_frames = 0;
    std::int64_t frame_ns = 0;
  } peaks;
  // Per-app state of the source modules (metrics/source.h), one slot each.
  SourceStates sources;
};

// What the exporter is doing with a device (jank_exporter_device_state).
enum class DeviceState : std::uint8_t {
  starting,      // a session is setting up (facts, threshold, display, the log stream's preamble)
  following,     // the log stream runs and its position is known: the device is counted
  stalled,       // commands or the stream failed or timed out; a new session comes after a backoff
  unsupported,   // its Android release cannot be followed exactly; asked again every 30 minutes
  unauthorized,  // the adb server lists it, but the device has not accepted this host's key
  offline,       // the adb server lists it in another state (offline, recovery, sideload, …)
  disconnected,  // the adb server no longer lists it
};
inline constexpr std::array<DeviceState, 7> kDeviceStates = {
    DeviceState::starting,     DeviceState::following, DeviceState::stalled,     DeviceState::unsupported,
    DeviceState::unauthorized, DeviceState::offline,   DeviceState::disconnected};
std::string_view device_state_name(DeviceState state);

struct DeviceMetrics {
  DeviceMetrics(std::string serial, const StoreOptions& options);

  std::string serial;
  // The display's refresh rate every frame rule judges by; recorded by the
  // display module (metrics/sources/display.h), always plausible_refresh_hz.
  double refresh_hz;
  bool refresh_is_fallback = true;  // no measured rate: the configured default is used
  parsers::LineCounts lines;
  std::uint64_t package_overflow_events = 0;
  // Newest and oldest timestamps seen in this device's input (wall clock
  // ns, or 0): a replay's SM divides by the span between them.
  std::int64_t latest_time_ns = 0;
  std::int64_t earliest_time_ns = 0;  // not checkpointed: the daemon's windows are on host time
  bool has_time = false;

  std::map<std::string, PackageMetrics, std::less<>> packages;
  // Apps an open run measures (base package names): their process and layer
  // series never expire while it is open, so its counters never restart.
  std::set<std::string, std::less<>> pinned_packages;
  ProcessNames pid_names;  // from process start and death lines and ps
  // Where this device's log was counted up to (parsers/logcat_cursor.h).
  parsers::LogCursor log_cursor;
  // What happened to the log between streams (docs/metrics.md).
  struct LogContinuity {
    std::uint64_t lost_lines = 0;           // left logd's ring before they were read (wrap, logcat -c)
    std::uint64_t resumes_with_loss = 0;    // streams that found lost lines
    std::uint64_t reboots = 0;              // new boot ids seen
    std::uint64_t logd_restarts = 0;        // new logd instances seen (same boot)
    std::uint64_t unconfirmed_resumes = 0;  // resumes whose last counted line was not found by content
    std::uint64_t unheld_lines = 0;         // counted in logd's Total, never read as entries (filtered, squashed)
  } continuity;
  // The device clock against the host's: windows are kept on host time.
  DeviceClock clock;
  // The data source modules' state (metrics/source.h), by slot.
  SourceStates sources;

  // Live status, set by the daemon (replays leave `live` false and export none of it).
  struct Live {
    bool live = false;
    bool up = false;                              // a session runs (see state for whether it counts)
    DeviceState state = DeviceState::starting;
    // Why the device is stalled or unsupported (the failure and what the
    // device said); empty otherwise.
    std::string state_reason;
    double command_deadline_seconds = 0;          // the deadline device commands get now (adapts to slow devices)
    std::map<std::string, std::string> info;      // model, manufacturer, sdk, release, fingerprint
    int skip_threshold_frames = 30;               // the threshold believed in effect for running apps
    std::uint64_t sessions = 0;                   // sessions started (first connection and reconnects)
    std::uint64_t logcat_streams = 0;             // logcat streams opened
    std::map<std::string, std::uint64_t> gfxinfo_polls;   // by result
    std::int64_t gfxinfo_round_begun_ns = 0;      // host time the newest finished gfxinfo round began
    std::map<std::pair<std::string, std::string>, std::uint64_t> surfaceflinger_polls;  // by command, result
    std::map<std::string, std::uint64_t> commands;        // device commands by result
    // What the exporter's own commands cost the device, by kind (app/session/command_kind.h).
    struct CommandCost {
      std::uint64_t runs = 0;
      double seconds = 0;  // host time from sending to the whole answer
      std::uint64_t output_bytes = 0;
      // Shell v2: the commands the device's shell timed and their time on it.
      std::uint64_t timed = 0;
      double device_seconds = 0;
    };
    std::map<std::string, CommandCost, std::less<>> command_costs;
    // Answered shell v2 commands without a device time, by why: unstamped,
    // implausible (the device's clock moved during the command).
    std::map<std::string, std::uint64_t, std::less<>> untimed_commands;
    std::uint64_t budget_waits = 0;     // commands that waited for the device's command budget
    double budget_wait_seconds = 0;     // and how long, together
    std::map<std::string, std::uint64_t> package_polls;   // dumpsys package (app versions) by result
    double ingest_lag_seconds = 0;                // host time at receipt − the newest line's time
    std::int64_t last_line_time_ns = 0;           // the newest line's own time (device clock)
    std::int64_t down_since_ns = 0;               // host time the device went away (0 while up)
    std::optional<std::string> foreground;        // the focused app, as dumpsys window last told
    // Every watched app polled frame by frame now (app/session/per_frame_policy.h);
    // unset until a session decided.
    std::optional<bool> per_frame_polling;
  } live;

  // The live view's recent samples (docs/live-view.md), filled by the
  // daemon's sampler; empty in replays. Not checkpointed.
  LiveHistory history;
};

class Store {
 public:
  explicit Store(StoreOptions options = {});

  DeviceMetrics& device(std::string_view serial);
  void erase_device(std::string_view serial);
  const std::map<std::string, std::unique_ptr<DeviceMetrics>, std::less<>>& devices() const { return devices_; }
  const StoreOptions& options() const { return options_; }

  // The series for `name` on this device, or the shared overflow series once
  // the device has max_packages_per_device packages.
  PackageMetrics& package(DeviceMetrics& device, std::string_view name);

  void record_process(DeviceMetrics& device, const parsers::ProcessEvent& event);
  // A process listing (ps) of the device, then its running packages marked alive.
  void record_process_list(DeviceMetrics& device, const ProcessListing& processes);
  void note_time(DeviceMetrics& device, std::int64_t time_ns);

  // The daemon tells the store the host time before feeding it, so that
  // packages know when they were last alive. Replays never call it.
  void set_host_time(std::int64_t now_ns) { host_now_ns_ = now_ns; }
  std::int64_t host_time() const { return host_now_ns_; }
  // Marks alive the packages of running processes (pid_names' running ones),
  // including the "pid:N" series of pids still running.
  void mark_running_packages_alive(DeviceMetrics& device);
  // Removes package series not alive for `grace_ns`, and what the source
  // modules keep by age (layers not polled for as long), and what they keep
  // of packages left without series (versions); returns how many packages.
  std::size_t expire_packages(DeviceMetrics& device, std::int64_t grace_ns);

  // Name used for a process: the pid's known name, else the name printed in
  // the line (Android Studio layouts), else "pid:N".
  static std::string package_label(const DeviceMetrics& device, std::int32_t pid, std::string_view printed);

  // The whole model as text (the daemon's checkpoint), and back. load()
  // replaces the store's devices only when the text is well-formed; within
  // it, a record holding a value that cannot be true (a count near 2^64, a
  // log position beyond any logd's) is dropped on its own and reported.
  struct LoadReport {
    std::uint64_t version = 0;
    // "<serial>: <record>: <why>", one per dropped record.
    std::vector<std::string> rejected;
    // Per record kind (package, device_counters, log_cursor, device_clock).
    std::map<std::string, std::uint64_t> rejected_by_record;
  };
  std::string save() const;
  bool load(std::string_view text, std::string& error, LoadReport* report = nullptr);

 private:
  PackageMetrics& find_or_add_package(DeviceMetrics& device, std::string_view name);

  StoreOptions options_;
  std::int64_t host_now_ns_ = 0;
  std::map<std::string, std::unique_ptr<DeviceMetrics>, std::less<>> devices_;
};

// Whether any series of `package` (its base package, or a ":suffix" process
// of it) is on the device.
bool has_package_series(const DeviceMetrics& device, std::string_view package);

// The refresh interval frames recorded now are judged by on `device`:
// StoreOptions::judge_refresh_hz when set (replay), else the device's rate.
std::int64_t judge_interval_ns(const Store& store, const DeviceMetrics& device);

// A rate a display can have (hertz): what DeviceMetrics::refresh_hz may hold.
bool plausible_refresh_hz(double hz);


}  // namespace jank::metrics

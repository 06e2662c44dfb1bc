// jank_exporter's YAML configuration: every key has a default, so the daemon
// runs with no file at all. Loading collects every error before reporting,
// each as "file:line:col: message".
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/log_patterns.h"
#include "parsers/time_units.h"

namespace jank::config {

struct BasicAuth {
  std::string username;
  std::string password_file;  // file holding the password (not in the config itself)
};

struct TlsFiles {
  std::string certificate_file;  // PEM, the certificate then any intermediates
  std::string key_file;          // PEM private key
  friend bool operator==(const TlsFiles&, const TlsFiles&) = default;
};

// Each duration keeps the unit its key is written in, with a double count
// where the key takes fractions (0.5 seconds), so the schema stores a value
// as the file wrote it and consumers convert with std::chrono.
using parsers::units::Days;
using parsers::units::Milliseconds;
using parsers::units::Seconds;

struct Config {
  std::string listen_address = ":9789";
  std::vector<std::string> adb_servers;  // empty: $ADB_SERVER_SOCKET or 127.0.0.1:5037
  std::string state_dir = "/var/lib/jank_exporter";
  std::string log_level = "info";
  Seconds checkpoint_interval_seconds{5};

  // devices
  std::vector<std::string> include_serials = {"*"};
  std::vector<std::string> exclude_serials;
  std::size_t max_packages_per_device = 200;
  Seconds device_grace_seconds{300};   // series of a vanished device are kept this long

  // series (docs/metrics.md, "Series budget")
  std::vector<std::string> series_detailed;  // detailed groups on top of the default profile; "all": every one
  std::size_t series_max_per_device = 2000;  // 0: no cap
  Seconds process_grace_seconds{300};  // series of a dead process likewise

  // choreographer
  int skipwarning_frames = 1;
  bool restart_zygote = false;  // needs root; kills every app once
  std::chrono::seconds sm_window_seconds{60};

  // display
  double default_refresh_rate_hertz = 60;
  Seconds display_poll_interval_seconds{60};
  Seconds power_poll_interval_seconds{5};  // dumpsys power: is the panel on?

  // thermal: dumpsys thermalservice (Android 10+), a few KiB that change slowly
  bool thermal_enabled = true;
  Seconds thermal_poll_interval_seconds{30};

  // battery: dumpsys battery (every release), under 1 KiB; a farm's phones
  // sit on chargers, which heats them
  bool battery_enabled = true;
  Seconds battery_poll_interval_seconds{30};

  // graphicsstats: dumpsys graphicsstats (Android 7+), every app's daily
  // frame statistics, cumulative: any cadence loses nothing
  bool graphicsstats_enabled = true;
  Seconds graphicsstats_poll_interval_seconds{60};

  // resources: CPU time, app memory, clocks, GPU and battery current from
  // /proc and sysfs, one shell command per device and poll (a few KiB)
  bool resources_enabled = true;
  Seconds resources_poll_interval_seconds{5};
  Seconds resources_memory_interval_seconds{30};
  std::size_t resources_max_apps = 8;  // apps measured per device
  // Threads measured by name besides the main thread: HWUI's and the common game engines'.
  std::vector<std::string> resources_threads{"RenderThread", "UnityMain", "UnityGfxDeviceW", "GameThread",
                                             "RHIThread"};

  // per_frame: when frames are polled one by one (SurfaceFlinger --latency,
  // --frametimeline, gfxinfo framestats: commands several times a second,
  // work on SurfaceFlinger's main thread and the app's RenderThread). The
  // cumulative sources (graphicsstats, gfxinfo's aggregate, TimeStats, logcat)
  // run always and lose nothing at any cadence (docs/config.md, "Per-frame polling").
  std::string per_frame_mode = "needed";  // "needed": during runs, after spikes, for the named apps; "always"
  std::vector<std::string> per_frame_apps;  // polled per frame whenever they run
  std::uint32_t per_frame_spike_skipped_frames = 30;  // a Choreographer skip this large is a spike
  Seconds per_frame_after_spike_seconds{60};

  // budget: shell commands the exporter starts on a device per second at
  // most, bursts of a second's worth (app/session/command_budget.h); 0: no cap
  double budget_max_commands_per_second = 10;

  // surfaceflinger: presented frames per app layer (dumpsys SurfaceFlinger --latency)
  bool surfaceflinger_enabled = true;
  // While a layer presents, its ~127-frame table covers ~1 s at 120 Hz: poll
  // well within that; a resting layer is polled less often.
  Seconds surfaceflinger_fast_poll_interval_seconds{0.5};
  Seconds surfaceflinger_idle_poll_interval_seconds{2};
  Seconds surfaceflinger_list_interval_seconds{10};
  std::size_t surfaceflinger_max_layers = 16;           // followed per device
  double surfaceflinger_max_commands_per_second = 10;  // per device, every SurfaceFlinger and power command
  bool surfaceflinger_frametimeline = true;  // --frametimeline -all on Android 12+
  bool surfaceflinger_timestats = false;     // --timestats -dump -enable: changes device state, opt-in
  Seconds surfaceflinger_timestats_interval_seconds{10};

  // gfxinfo
  std::vector<std::string> gfxinfo_packages;
  bool gfxinfo_discover = true;
  Seconds gfxinfo_poll_interval_seconds{10};
  Seconds gfxinfo_fast_poll_interval_seconds{2};
  std::size_t gfxinfo_max_windows = 8;  // window series per app
  bool gfxinfo_reset_after_poll = false;  // `framestats reset`: zeroes the app's stats for every other reader too

  // packages: versionName/versionCode of the polled apps (dumpsys package)
  Seconds packages_version_poll_interval_seconds{300};

  // logcat
  std::size_t logcat_max_line_bytes = 16 * 1024;
  // A quiet logcat stream is read at most this often (a busy one at once):
  // fewer, larger reads cost far less CPU than one per trickle of lines, for
  // at most this much more latency.
  std::chrono::milliseconds logcat_read_batch_ms{200};

  // log_patterns: custom log counters (docs/config.md, "Custom log counters")
  std::vector<parsers::LogPatternSpec> log_patterns;
  std::size_t log_patterns_max_values = 50;  // label values per pattern and device
  // Compiled from log_patterns when the file is loaded, then shared
  // read-only by every log stream; null when there are none.
  std::shared_ptr<const parsers::LogPatternSet> log_pattern_set;

  // timeouts
  Seconds connect_timeout_seconds{5};
  Seconds command_timeout_seconds{20};
  // A device that answers slowly gets longer deadlines, up to this.
  Seconds command_timeout_max_seconds{120};

  // runs (docs/runs.md)
  std::size_t runs_max_open = 64;
  std::size_t runs_max_kept = 500;
  Days runs_max_age_days{30};
  Seconds runs_step_seconds{5};
  Seconds runs_settle_timeout_seconds{30};

  // live_view: the history ring behind / and /api/devices (docs/live-view.md)
  std::chrono::seconds live_view_sample_seconds{5};
  std::chrono::minutes live_view_history_minutes{15};

  // traces: the Perfetto flight recorder (docs/traces.md); opt-in
  bool traces_enabled = false;
  std::vector<std::string> traces_devices = {"*"};  // serial globs
  int traces_min_sdk = 29;                           // trigger_perfetto and text configs: Android 10
  std::string traces_config_file;                    // "": the default config
  std::string traces_config_text;                    // its contents, read and checked at load
  std::size_t traces_buffer_kb = 32 * 1024;
  Seconds traces_session_timeout_seconds{3600};  // the session's trigger_timeout_ms; re-armed after
  std::chrono::milliseconds traces_stop_delay_ms{2000};  // trace this long past the trigger
  Seconds traces_check_interval_seconds{10};
  Seconds traces_finish_timeout_seconds{60};
  Seconds traces_pull_timeout_seconds{120};
  std::uint64_t traces_max_trace_bytes = 256ull << 20;
  std::uint32_t traces_rule_skip_frames = 60;
  Milliseconds traces_rule_davey_ms{0};
  double traces_rule_sm_below = 0;
  Seconds traces_rule_sm_seconds{5};
  double traces_rule_fps_below = 0;
  Seconds traces_rule_fps_seconds{5};
  std::uint32_t traces_rule_big_jank_count = 3;
  Seconds traces_rule_big_jank_window_seconds{10};
  std::uint32_t traces_rule_frozen_frames = 1;
  Seconds traces_min_interval_seconds{300};  // per device
  std::uint32_t traces_max_per_hour = 12;    // every device together
  std::string traces_dir;                    // "": STATE_DIR/traces
  std::size_t traces_max_count = 100;
  std::uint64_t traces_max_bytes = 2ull << 30;
  Days traces_max_age_days{7};

  // http
  std::optional<BasicAuth> basic_auth;
  std::optional<TlsFiles> tls;  // HTTPS instead of HTTP on listen_address
};

struct ConfigError {
  std::string file;
  int line = 0;    // 1-based; 0 when the error has no position
  int column = 0;  // 1-based
  std::string message;
  std::string to_string() const;
};

struct LoadResult {
  Config config;
  std::vector<ConfigError> errors;
  bool ok() const { return errors.empty(); }
};

LoadResult parse_config(std::string_view yaml_text, const std::string& file_name);
LoadResult load_config_file(const std::string& path);

// Every key, dotted ("gfxinfo.poll_interval_seconds"), from the schema
// (config/schema.h).
std::vector<std::string> known_keys();

}  // namespace jank::config

#include "config/schema.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ingest/endpoint.h"
#include "metrics/series.h"
#include "parsers/names.h"
#include "parsers/text_scan.h"
#include "parsers/time_units.h"

namespace jank::config {
namespace {

using Check = std::string (*)(const std::string&);

std::string format_number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

std::string show_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", \"" : "\"") + items[i] + "\"";
  return out + "]";
}

std::optional<bool> parse_bool(std::string_view text) {
  const std::string word = parsers::scan::to_lower(text);
  if (word == "true" || word == "yes" || word == "on") return true;
  if (word == "false" || word == "no" || word == "off") return false;
  return std::nullopt;
}

// Validators, shared with the code that uses the values at run time.
std::string check_listen_address(const std::string& v) {
  const auto colon = v.rfind(':');
  if (colon == std::string::npos) return "'" + v + "' is not HOST:PORT";
  const std::string host = v.substr(0, colon);
  const std::string port = v.substr(colon + 1);
  const bool bracketed = host.size() > 2 && host.front() == '[' && host.back() == ']';
  if (!bracketed && host.find(':') != std::string::npos) {
    return "'" + v + "' is ambiguous: write an IPv6 address in brackets ([::1]:9789)";
  }
  const auto n = parsers::scan::parse_finite(port);
  if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos || !n || *n > 65535) {
    return "'" + v + "' has no valid port (0-65535)";
  }
  return "";
}

std::string check_adb_server(const std::string& v) {
  if (ingest::parse_endpoint(v)) return "";
  return "'" + v + "' is not HOST:PORT, [IPv6]:PORT or tcp:PORT with a port of 1-65535";
}

std::string check_per_frame_mode(const std::string& v) {
  return v == "needed" || v == "always" ? "" : "'" + v + "' is not one of needed, always";
}

std::string check_log_level(const std::string& v) {
  for (const char* l : {"debug", "info", "warning", "error"}) {
    if (v == l) return "";
  }
  return "'" + v + "' is not one of debug, info, warning, error";
}

// A thread's comm: 1 to 15 bytes (TASK_COMM_LEN 16 with its NUL), printable.
std::string check_thread_name(const std::string& v) {
  if (v.empty() || v.size() > 15) return "a thread name is 1 to 15 bytes, as /proc shows it";
  for (const char c : v) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "a thread name holds no control characters";
  }
  return "";
}

std::string check_series_group(const std::string& v) {
  if (v == "all" || (metrics::series_group_named(v) && v != "core")) return "";
  std::string names;
  for (std::size_t g = 1; g < metrics::kSeriesGroups; ++g) {
    names += std::string(metrics::series_group_name(static_cast<metrics::SeriesGroup>(g))) + ", ";
  }
  return "not a detailed series group: one of " + names + "or all";
}

std::string check_package(const std::string& v) {
  if (parsers::valid_package_name(v)) return "";
  return "'" + v + "' is not a valid package name ([A-Za-z0-9._:-]+, at most 255, no leading '-')";
}

std::string check_glob(const std::string& v) {
  if (v.empty() || v.size() > 255) return "a serial pattern must have 1 to 255 characters";
  return "";
}

std::string check_path(const std::string& v) {
  if (v.empty()) return "a path must not be empty";
  if (v.find('\0') != std::string::npos) return "a path must not hold NUL";
  return "";
}

// An optional path: empty means the default.
std::string check_optional_path(const std::string& v) {
  return v.find('\0') != std::string::npos ? "a path must not hold NUL" : "";
}

Setting text(std::string key, std::string Config::*member, std::string help, Check check = nullptr) {
  Setting s;
  s.key = std::move(key);
  s.type = ValueType::string;
  s.help = std::move(help);
  if (check) s.check = check;
  s.apply = [member](const RawValue& v, Config& c) -> std::string {
    if (v.is_list) return "expected a string";
    c.*member = v.scalar;
    return "";
  };
  s.show = [member](const Config& c) { return c.*member; };
  return s;
}

Setting flag(std::string key, bool Config::*member, std::string help) {
  Setting s;
  s.key = std::move(key);
  s.type = ValueType::boolean;
  s.help = std::move(help);
  s.apply = [member](const RawValue& v, Config& c) -> std::string {
    const auto b = v.is_list ? std::nullopt : parse_bool(v.scalar);
    if (!b) return "expected true or false";
    c.*member = *b;
    return "";
  };
  s.show = [member](const Config& c) { return std::string(c.*member ? "true" : "false"); };
  return s;
}

// A number's count as the file writes it: the value itself, or a
// duration's count in the unit of the member's type (its key's unit).
template <typename T>
struct Count {
  using Rep = T;
  static T make(Rep n) { return n; }
  static Rep of(T v) { return v; }
};
template <typename R, typename P>
struct Count<std::chrono::duration<R, P>> {
  using Rep = R;
  static std::chrono::duration<R, P> make(Rep n) { return std::chrono::duration<R, P>(n); }
  static Rep of(std::chrono::duration<R, P> v) { return v.count(); }
};

template <typename T>
Setting number(std::string key, T Config::*member, double min, double max, std::string unit, std::string help) {
  using Rep = typename Count<T>::Rep;
  Setting s;
  s.key = std::move(key);
  s.type = std::is_integral_v<Rep> ? ValueType::integer : ValueType::number;
  s.min = min;
  s.max = max;
  s.unit = std::move(unit);
  s.help = std::move(help);
  s.apply = [member, min, max](const RawValue& v, Config& c) -> std::string {
    const auto n = v.is_list ? std::nullopt : parsers::scan::parse_finite(v.scalar);
    if (!n) return "expected a number";
    if (*n < min || *n > max) return format_number(*n) + " is out of range [" + format_number(min) + ", " + format_number(max) + "]";
    if (std::is_integral_v<Rep> && *n != std::floor(*n)) return "expected a whole number";
    c.*member = Count<T>::make(static_cast<Rep>(*n));
    return "";
  };
  s.show = [member](const Config& c) { return format_number(static_cast<double>(Count<T>::of(c.*member))); };
  return s;
}

Setting list(std::string key, std::vector<std::string> Config::*member, std::string help, Check check) {
  Setting s;
  s.key = std::move(key);
  s.type = ValueType::string_list;
  s.help = std::move(help);
  s.check = check;
  s.apply = [member](const RawValue& v, Config& c) -> std::string {
    if (!v.is_list) return "expected a list";
    c.*member = v.items;
    return "";
  };
  s.show = [member](const Config& c) { return show_list(c.*member); };
  return s;
}

// A member of an optional group (http.basic_auth, http.tls): setting one
// creates the group; the group's completeness is a cross-key check.
template <typename Group>
Setting group_path(std::string key, std::optional<Group> Config::*group, std::string Group::*member, std::string help) {
  Setting s;
  s.key = std::move(key);
  s.type = ValueType::string;
  s.help = std::move(help);
  s.check = check_path;
  s.apply = [group, member](const RawValue& v, Config& c) -> std::string {
    if (v.is_list) return "expected a string";
    if (!(c.*group)) (c.*group).emplace();
    (*(c.*group)).*member = v.scalar;
    return "";
  };
  s.show = [group, member](const Config& c) { return c.*group ? (*(c.*group)).*member : std::string(); };
  return s;
}

// A field of the newest log_patterns item (the loader starts one per item).
Setting pattern_field(std::string field, ValueType type, std::string help,
                      std::function<std::string(const RawValue&, parsers::LogPatternSpec&)> apply,
                      std::function<std::string(const std::string&)> check = nullptr) {
  Setting s;
  s.key = "log_patterns[]." + std::move(field);
  s.type = type;
  s.help = std::move(help);
  s.check = std::move(check);
  s.apply = [apply = std::move(apply)](const RawValue& v, Config& c) -> std::string {
    if (c.log_patterns.empty()) return "outside a log_patterns item";
    if (v.is_list && apply == nullptr) return "expected a string";
    return apply(v, c.log_patterns.back());
  };
  s.show = [](const Config&) { return std::string(); };  // no default: per item
  return s;
}

// A string field of a log pattern.
std::function<std::string(const RawValue&, parsers::LogPatternSpec&)> pattern_text(
    std::string parsers::LogPatternSpec::*member) {
  return [member](const RawValue& v, parsers::LogPatternSpec& p) -> std::string {
    if (v.is_list) return "expected a string";
    p.*member = v.scalar;
    return "";
  };
}

std::vector<Setting> log_pattern_settings() {
  Setting list;
  list.key = "log_patterns";
  list.type = ValueType::mapping_list;
  list.help = "custom log counters: RE2 patterns counted per device, app and pattern (docs/config.md)";
  list.apply = [](const RawValue&, Config& c) -> std::string {
    if (c.log_patterns.size() >= parsers::kMaxLogPatterns) {
      return "at most " + std::to_string(parsers::kMaxLogPatterns) + " log patterns";
    }
    c.log_patterns.emplace_back();
    return "";
  };
  list.show = [](const Config& c) {
    std::vector<std::string> names;
    for (const auto& p : c.log_patterns) names.push_back(p.name);
    return show_list(names);
  };
  auto tag = [](const RawValue& v, parsers::LogPatternSpec& p) -> std::string {
    if (!v.is_list) {
      if (std::string e = parsers::check_log_tag(v.scalar); !e.empty()) return e;
      p.tags = {v.scalar};
      return "";
    }
    if (v.items.empty()) return "an empty list matches no tag: leave tag out to match any";
    p.tags = v.items;
    return "";
  };
  auto priority = [](const RawValue& v, parsers::LogPatternSpec& p) -> std::string {
    if (v.is_list) return "expected a string";
    p.min_priority = v.scalar[0];  // checked: one of V D I W E F
    return "";
  };
  return {
      std::move(list),
      pattern_field("name", ValueType::string,
                    "required: the pattern label of its series ([A-Za-z_][A-Za-z0-9_]*, unique)",
                    pattern_text(&parsers::LogPatternSpec::name),
                    [](const std::string& v) { return parsers::check_log_pattern_name(v); }),
      pattern_field("tag", ValueType::string_list, "exact log tag, or a list of them; left out: any tag (slower)", tag,
                    [](const std::string& v) { return parsers::check_log_tag(v); }),
      pattern_field("priority", ValueType::string, "lowest priority counted: V, D, I, W, E or F (left out: any)",
                    priority, [](const std::string& v) { return parsers::check_log_priority(v); }),
      pattern_field("regex", ValueType::string, "required: RE2 searched in the message (single-quote it in YAML)",
                    pattern_text(&parsers::LogPatternSpec::regex)),
      pattern_field("label_group", ValueType::string,
                    "capture group (number or name) whose text becomes the series' value label",
                    pattern_text(&parsers::LogPatternSpec::label_group)),
      pattern_field("value_group", ValueType::string,
                    "capture group (number or name) whose number is summed (android_log_pattern_value_sum_total)",
                    pattern_text(&parsers::LogPatternSpec::value_group)),
      number("log_patterns_max_values", &Config::log_patterns_max_values, 1, 10000, "",
             "label values per pattern and device; further ones count under value=\"_other_\""),
  };
}

std::vector<Setting> build() {
  constexpr auto kDay = static_cast<double>(parsers::units::kSecondsPerDay);
  return {
      text("listen_address", &Config::listen_address,
           "HTTP address of /metrics, /, /healthz, /readyz (:PORT for every interface)", check_listen_address),
      list("adb_servers", &Config::adb_servers,
           "adb servers to follow; empty: $ADB_SERVER_SOCKET, else 127.0.0.1:$ANDROID_ADB_SERVER_PORT or :5037",
           check_adb_server),
      text("state_dir", &Config::state_dir, "checkpoint directory (counters and log positions)", check_path),
      text("log_level", &Config::log_level, "debug, info, warning or error", check_log_level),
      number("checkpoint_interval_seconds", &Config::checkpoint_interval_seconds, 1, 3600, "seconds",
             "how often the state is written"),
      list("devices.include", &Config::include_serials, "shell globs on serials: followed when one matches",
           check_glob),
      list("devices.exclude", &Config::exclude_serials, "… and none of these does", check_glob),
      number("devices.max_packages", &Config::max_packages_per_device, 1, 100000, "",
             "package series per device; further ones count under package=\"_other_\""),
      number("devices.grace_seconds", &Config::device_grace_seconds, 0, 30 * kDay, "seconds",
             "series of a device that went away are removed after this long"),
      list("series.detailed", &Config::series_detailed,
           "detailed series groups exported besides the default profile (stages, windows, distributions, "
           "jank_types; all: the detailed profile)", check_series_group),
      number("series.max_per_device", &Config::series_max_per_device, 0, 1000000, "",
             "series per device at most: a device over it loses its detailed series, then whole apps (counted in "
             "jank_exporter_device_series_dropped); 0: no cap"),
      number("processes.grace_seconds", &Config::process_grace_seconds, 0, 30 * kDay, "seconds",
             "series of a process that died are removed after this long"),
      number("choreographer.skipwarning_frames", &Config::skipwarning_frames, 1, 1000, "frames",
             "debug.choreographer.skipwarning set on every device"),
      flag("choreographer.restart_zygote", &Config::restart_zygote,
           "restart zygote once so running apps use the threshold (root; kills every app)"),
      number("choreographer.sm_window_seconds", &Config::sm_window_seconds, 1, kDay, "seconds",
             "window of the SM and worst-skip gauges"),
      number("display.default_refresh_rate_hertz", &Config::default_refresh_rate_hertz, 1, 1000, "hertz",
             "refresh rate when the device does not tell it"),
      number("display.poll_interval_seconds", &Config::display_poll_interval_seconds, 1, kDay, "seconds",
             "how often the refresh rate and the process list are read again"),
      number("display.power_poll_interval_seconds", &Config::power_poll_interval_seconds, 0.5, kDay, "seconds",
             "how often dumpsys power tells whether the panel is on, off or dozing"),
      flag("thermal.enabled", &Config::thermal_enabled,
           "read the thermal status and temperatures (dumpsys thermalservice, Android 10+)"),
      number("thermal.poll_interval_seconds", &Config::thermal_poll_interval_seconds, 1, kDay, "seconds",
             "how often dumpsys thermalservice is read"),
      flag("battery.enabled", &Config::battery_enabled,
           "read the battery's level, temperature, voltage and charging state (dumpsys battery)"),
      number("battery.poll_interval_seconds", &Config::battery_poll_interval_seconds, 1, kDay, "seconds",
             "how often dumpsys battery is read"),
      flag("graphicsstats.enabled", &Config::graphicsstats_enabled,
           "read every app's frame statistics as the system keeps them per day (dumpsys graphicsstats, Android 7+)"),
      number("graphicsstats.poll_interval_seconds", &Config::graphicsstats_poll_interval_seconds, 1, kDay, "seconds",
             "how often dumpsys graphicsstats is read"),
      flag("resources.enabled", &Config::resources_enabled,
           "read CPU time (per core, per app and thread), app memory, CPU and GPU clocks and the battery's current "
           "from /proc and sysfs, one shell command per poll"),
      number("resources.poll_interval_seconds", &Config::resources_poll_interval_seconds, 1, kDay, "seconds",
             "how often CPU time, clocks and the battery's current are read"),
      number("resources.memory_interval_seconds", &Config::resources_memory_interval_seconds, 1, kDay, "seconds",
             "how often the measured apps' memory is read (with the next poll due)"),
      number("resources.max_apps", &Config::resources_max_apps, 0, 64, "",
             "apps measured per device: the configured, the foreground and the discovered ones, as gfxinfo polls"),
      list("resources.threads", &Config::resources_threads,
           "thread names (comm, as /proc shows them) measured besides each app's main thread", check_thread_name),
      text("per_frame.mode", &Config::per_frame_mode,
           "needed: frames are polled one by one (--latency, --frametimeline, framestats) only during runs, after "
           "a spike and for per_frame.apps; always: on every watched app all the time",
           check_per_frame_mode),
      list("per_frame.apps", &Config::per_frame_apps, "packages polled per frame whenever they run (mode needed)",
           check_package),
      number("per_frame.spike_skipped_frames", &Config::per_frame_spike_skipped_frames, 1, 1e6, "frames",
             "a Choreographer skip of this many frames (or a Davey line) turns per-frame polling on for the device"),
      number("per_frame.after_spike_seconds", &Config::per_frame_after_spike_seconds, 0, kDay, "seconds",
             "per-frame polling stays on this long after the spike left the SM window"),
      number("budget.max_commands_per_second", &Config::budget_max_commands_per_second, 0, 1000, "",
             "shell commands the exporter starts on a device per second at most (bursts of a second's worth); over "
             "it a command waits its turn; 0: no cap"),
      flag("surfaceflinger.enabled", &Config::surfaceflinger_enabled,
           "follow the presented frames of the watched apps' layers (dumpsys SurfaceFlinger --latency)"),
      number("surfaceflinger.fast_poll_interval_seconds", &Config::surfaceflinger_fast_poll_interval_seconds, 0.1, 60,
             "seconds", "poll interval of a layer that presented frames in its last poll"),
      number("surfaceflinger.idle_poll_interval_seconds", &Config::surfaceflinger_idle_poll_interval_seconds, 0.1,
             3600, "seconds", "poll interval of a layer that presented nothing in its last poll"),
      number("surfaceflinger.list_interval_seconds", &Config::surfaceflinger_list_interval_seconds, 1, kDay,
             "seconds", "how often dumpsys SurfaceFlinger --list finds the watched apps' layers"),
      number("surfaceflinger.max_layers", &Config::surfaceflinger_max_layers, 1, 256, "",
             "layers followed per device"),
      number("surfaceflinger.max_commands_per_second", &Config::surfaceflinger_max_commands_per_second, 0.1, 1000,
             "", "per device: SurfaceFlinger and power commands are spaced at least 1/this apart"),
      flag("surfaceflinger.frametimeline", &Config::surfaceflinger_frametimeline,
           "count every app frame by SurfaceFlinger's jank type (dumpsys SurfaceFlinger --frametimeline -all, "
           "Android 12+)"),
      flag("surfaceflinger.timestats", &Config::surfaceflinger_timestats,
           "read SurfaceFlinger's TimeStats jank counters (dumpsys SurfaceFlinger --timestats -dump -enable, "
           "Android 12+); turns TimeStats on where it is off"),
      number("surfaceflinger.timestats_interval_seconds", &Config::surfaceflinger_timestats_interval_seconds, 1, kDay,
             "seconds", "how often TimeStats is read"),
      list("gfxinfo.packages", &Config::gfxinfo_packages, "packages always polled with dumpsys gfxinfo framestats",
           check_package),
      flag("gfxinfo.discover", &Config::gfxinfo_discover,
           "also poll the foreground app and apps that logged skipped frames"),
      number("gfxinfo.poll_interval_seconds", &Config::gfxinfo_poll_interval_seconds, 0.5, kDay, "seconds",
             "gfxinfo poll interval"),
      number("gfxinfo.fast_poll_interval_seconds", &Config::gfxinfo_fast_poll_interval_seconds, 0.5, kDay, "seconds",
             "poll interval while framestats windows overflow between polls"),
      number("gfxinfo.max_windows", &Config::gfxinfo_max_windows, 1, 256, "",
             "window series per app; further windows count under window=\"_other_\""),
      flag("gfxinfo.reset_after_poll", &Config::gfxinfo_reset_after_poll,
           "reset each polled app's gfxinfo stats after reading them (dumpsys gfxinfo <pkg> framestats reset)"),
      number("packages.version_poll_interval_seconds", &Config::packages_version_poll_interval_seconds, 10, kDay,
             "seconds", "how often a polled app's version (dumpsys package) is read again; also at its process start"),
      number("logcat.max_line_bytes", &Config::logcat_max_line_bytes, 1024, 1 << 20, "bytes",
             "longer lines are discarded and counted"),
      number("logcat.read_batch_milliseconds", &Config::logcat_read_batch_ms, 0, 1000, "milliseconds",
             "a quiet stream is read at most this often (0: at once)"),
      number("timeouts.connect_seconds", &Config::connect_timeout_seconds, 0.1, 600, "seconds",
             "connecting to an adb server and opening a device service"),
      number("timeouts.command_seconds", &Config::command_timeout_seconds, 0.1, 3600, "seconds",
             "a device command's deadline to begin with"),
      number("timeouts.command_max_seconds", &Config::command_timeout_max_seconds, 0.1, 3600, "seconds",
             "the longest deadline a slow device's commands get"),
      group_path("http.basic_auth.username", &Config::basic_auth, &BasicAuth::username,
                 "with password_file: HTTP basic auth on /metrics, /api/ and the pages (not the probes)"),
      group_path("http.basic_auth.password_file", &Config::basic_auth, &BasicAuth::password_file,
                 "file holding only the password"),
      group_path("http.tls.certificate_file", &Config::tls, &TlsFiles::certificate_file,
                 "with key_file: HTTPS on listen_address (PEM, certificate then intermediates)"),
      group_path("http.tls.key_file", &Config::tls, &TlsFiles::key_file, "PEM private key of the certificate"),
      number("runs.max_open", &Config::runs_max_open, 1, 10000, "", "runs open at once (more are refused: 429)"),
      number("runs.max_kept", &Config::runs_max_kept, 1, 100000, "",
             "finished runs kept; the oldest are dropped first (counted)"),
      number("runs.max_age_days", &Config::runs_max_age_days, 0.01, 3650, "days",
             "finished runs older than this are dropped (counted)"),
      number("runs.step_seconds", &Config::runs_step_seconds, 1, 3600, "seconds",
             "time step of a run's series (the report's charts); doubles past 360 steps"),
      number("runs.settle_timeout_seconds", &Config::runs_settle_timeout_seconds, 1, 600, "seconds",
             "how long a run's start or stop waits for a fresh gfxinfo poll of each device"),
      number("live_view.sample_seconds", &Config::live_view_sample_seconds, 1, 60, "seconds",
             "one live-view history sample per device this often (also the pages' refresh)"),
      number("live_view.history_minutes", &Config::live_view_history_minutes, 1, 60, "minutes",
             "how far back the live view's history goes"),
      flag("traces.enabled", &Config::traces_enabled,
           "keep a Perfetto ring buffer on the chosen devices and pull a trace on a jank spike"),
      list("traces.devices", &Config::traces_devices, "serial globs of the devices traced", check_glob),
      number("traces.min_sdk", &Config::traces_min_sdk, 29, 1000, "",
             "lowest Android API level traced (29: trigger_perfetto came with Android 10)"),
      text("traces.config_file", &Config::traces_config_file,
           "Perfetto text config (buffers and data sources) replacing the default", check_optional_path),
      number("traces.buffer_kb", &Config::traces_buffer_kb, 1024, 4 << 20, "KiB",
             "ring buffer of the default config"),
      number("traces.session_timeout_seconds", &Config::traces_session_timeout_seconds, 60, kDay, "seconds",
             "a session with no trigger ends after this (trigger_timeout_ms) and is armed again"),
      number("traces.stop_delay_ms", &Config::traces_stop_delay_ms, 0, 60000, "milliseconds",
             "tracing goes on this long after the trigger"),
      number("traces.check_interval_seconds", &Config::traces_check_interval_seconds, 1, 3600, "seconds",
             "how often an armed session is checked to be running"),
      number("traces.finish_timeout_seconds", &Config::traces_finish_timeout_seconds, 1, 3600, "seconds",
             "how long after the stop delay Perfetto may take to write the trace"),
      number("traces.pull_timeout_seconds", &Config::traces_pull_timeout_seconds, 1, 3600, "seconds",
             "deadline of the trace's transfer"),
      number("traces.max_trace_bytes", &Config::traces_max_trace_bytes, 1 << 20, 16.0 * (1ull << 30), "bytes",
             "a larger trace is not kept (counted as too_large)"),
      number("traces.rules.skip_frames", &Config::traces_rule_skip_frames, 0, 100000, "frames",
             "trigger on one skip of this many frames or more (0: off)"),
      number("traces.rules.davey_ms", &Config::traces_rule_davey_ms, 0, 600000, "milliseconds",
             "trigger on one Davey! frame this long or longer (0: off)"),
      number("traces.rules.sm_below", &Config::traces_rule_sm_below, 0, 1000, "",
             "trigger when an app's SM stays below this for sm_seconds (0: off)"),
      number("traces.rules.sm_seconds", &Config::traces_rule_sm_seconds, 1, 3600, "seconds",
             "window of the SM rule"),
      number("traces.rules.fps_below", &Config::traces_rule_fps_below, 0, 1000, "",
             "trigger when a layer's FPS over active time stays below this for fps_seconds (0: off)"),
      number("traces.rules.fps_seconds", &Config::traces_rule_fps_seconds, 1, 3600, "seconds",
             "active time the FPS rule looks at"),
      number("traces.rules.big_jank_count", &Config::traces_rule_big_jank_count, 0, 100000, "",
             "trigger on this many BigJank frames of one layer within big_jank_window_seconds (0: off)"),
      number("traces.rules.big_jank_window_seconds", &Config::traces_rule_big_jank_window_seconds, 1, 3600,
             "seconds", "window of the BigJank rule"),
      number("traces.rules.frozen_frames", &Config::traces_rule_frozen_frames, 0, 100000, "frames",
             "trigger when one layer shows this many new frozen frames (over 700 ms) at once (0: off)"),
      number("traces.min_interval_seconds", &Config::traces_min_interval_seconds, 0, kDay, "seconds",
             "a device is triggered at most once per this"),
      number("traces.max_per_hour", &Config::traces_max_per_hour, 1, 3600, "",
             "traces triggered per rolling hour, every device together"),
      text("traces.dir", &Config::traces_dir, "where traces are kept (empty: STATE_DIR/traces)",
           check_optional_path),
      number("traces.max_count", &Config::traces_max_count, 1, 1000000, "", "traces kept; the oldest go first"),
      number("traces.max_bytes", &Config::traces_max_bytes, 1 << 20, 1024.0 * (1ull << 30), "bytes",
             "bytes of traces kept; the oldest go first"),
      number("traces.max_age_days", &Config::traces_max_age_days, 0.01, 3650, "days",
             "traces older than this are removed"),
  };
}

std::vector<Setting> build_all() {
  std::vector<Setting> all = build();
  for (auto& s : log_pattern_settings()) all.push_back(std::move(s));
  return all;
}

}  // namespace

std::string value_type_name(ValueType type) {
  switch (type) {
    case ValueType::string: return "string";
    case ValueType::boolean: return "boolean";
    case ValueType::number: return "number";
    case ValueType::integer: return "integer";
    case ValueType::string_list: return "list of strings";
    case ValueType::mapping_list: return "list of mappings";
  }
  return "?";
}

std::string Setting::range_text() const {
  if (type != ValueType::number && type != ValueType::integer) return "";
  return "[" + format_number(min) + ", " + format_number(max) + "]" + (unit.empty() ? "" : " " + unit);
}

const std::vector<Setting>& schema() {
  static const std::vector<Setting> settings = build_all();
  return settings;
}

const Setting* find_setting(const std::string& key) {
  for (const auto& s : schema()) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

std::vector<KeyError> cross_key_errors(const Config& c) {
  std::vector<KeyError> out;
  if (c.gfxinfo_fast_poll_interval_seconds > c.gfxinfo_poll_interval_seconds) {
    out.push_back({"gfxinfo.fast_poll_interval_seconds",
                   "gfxinfo.fast_poll_interval_seconds must not exceed gfxinfo.poll_interval_seconds"});
  }
  if (c.surfaceflinger_fast_poll_interval_seconds > c.surfaceflinger_idle_poll_interval_seconds) {
    out.push_back({"surfaceflinger.fast_poll_interval_seconds",
                   "surfaceflinger.fast_poll_interval_seconds must not exceed surfaceflinger.idle_poll_interval_seconds"});
  }
  if (c.basic_auth && (c.basic_auth->username.empty() || c.basic_auth->password_file.empty())) {
    out.push_back({"http.basic_auth", "http.basic_auth: needs both username and password_file"});
  }
  if (c.tls && (c.tls->certificate_file.empty() || c.tls->key_file.empty())) {
    out.push_back({"http.tls", "http.tls: needs both certificate_file and key_file"});
  }
  return out;
}

std::vector<KeyError> compile_log_patterns(Config& c) {
  std::vector<KeyError> out;
  c.log_pattern_set.reset();
  if (c.log_patterns.empty()) return out;
  std::vector<parsers::LogPatternSet::Error> errors;
  auto set = parsers::LogPatternSet::compile(c.log_patterns, errors);
  for (const auto& e : errors) {
    const std::string key = "log_patterns[" + std::to_string(e.index) + "]" + (e.field.empty() ? "" : "." + e.field);
    out.push_back({key, key + ": " + e.message});
  }
  if (errors.empty()) c.log_pattern_set = std::move(set);
  return out;
}

std::string describe_schema() {
  std::ostringstream out;
  for (const auto& s : schema()) {
    out << "  " << s.key << " (" << value_type_name(s.type) << ", default " << s.default_text();
    if (const std::string r = s.range_text(); !r.empty()) out << ", " << r;
    out << ")\n      " << s.help << "\n";
  }
  return out.str();
}

std::vector<KeyError> read_trace_config(Config& c, const std::string& config_path) {
  c.traces_config_text.clear();
  if (c.traces_config_file.empty()) return {};
  const std::string key = "traces.config_file";
  std::filesystem::path path(c.traces_config_file);
  if (path.is_relative() && !config_path.empty()) path = std::filesystem::path(config_path).parent_path() / path;
  std::ifstream in(path, std::ios::binary);
  if (!in) return {{key, key + ": cannot read " + path.string()}};
  std::string text(kMaxTraceConfigBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxTraceConfigBytes) {
    return {{key, key + ": " + path.string() + " is larger than " + std::to_string(kMaxTraceConfigBytes) + " bytes"}};
  }
  for (const char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') {
      return {{key, key + ": " + path.string() + " is not a text config (control byte " + std::to_string(u) + ")"}};
    }
  }
  if (text.find("data_sources") == std::string::npos) {
    return {{key, key + ": " + path.string() + " has no data_sources"}};
  }
  for (const char* own : {"trigger_config", "unique_session_name", "duration_ms"}) {
    if (text.find(own) != std::string::npos) {
      return {{key, key + ": " + path.string() + " sets " + own + ", which the exporter adds itself (docs/traces.md)"}};
    }
  }
  c.traces_config_text = std::move(text);
  return {};
}

}  // namespace jank::config

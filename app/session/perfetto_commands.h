// The device commands of the flight recorder (docs/traces.md, "How it works
// on a device") and the reading of their answers: pure text, so the exact
// commands are tested without a device.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jank::app::perfetto {

inline constexpr std::string_view kTracePath = "/data/misc/perfetto-traces/jank_exporter.pftrace";
inline constexpr std::string_view kTriggerName = "jank_exporter";
inline constexpr std::string_view kSessionName = "jank_exporter";

struct SessionOptions {
  std::string user_config;      // traces.config_file's text; "" for the default
  std::size_t buffer_kb = 32768;
  int sdk = 0;
  std::vector<std::string> apps;  // atrace apps; empty: every app
  std::chrono::milliseconds timeout{3'600'000};  // trigger_timeout_ms
  std::chrono::milliseconds stop_delay{2000};     // the trigger's stop_delay_ms
};

// The whole text config on one line: comments dropped, newlines folded.
std::string session_config(const SessionOptions& options);
// A text config on one line: `#` comments outside strings dropped, line
// breaks and runs of blanks made one space.
std::string one_line(std::string_view pbtxt);
// Single-quoted for the device's shell.
std::string shell_quote(std::string_view text);

std::string arm_command(const SessionOptions& options);
std::string alive_command(std::int32_t pid);
std::string trigger_command();
std::string pull_command();
std::string list_command();  // pidof perfetto
std::string kill_command(std::int32_t pid);

// The background pid perfetto printed, if any.
std::optional<std::int32_t> parse_pid(std::string_view output);
// pidof's pids (at most `max`).
std::vector<std::int32_t> parse_pids(std::string_view output, std::size_t max = 16);
// Whether a /proc/PID/cmdline answer is our session's.
bool is_our_session(std::string_view cmdline);
// A shell that has no such command (Android 9 has no trigger_perfetto).
bool is_unsupported(std::optional<int> exit_code, std::string_view output);

}  // namespace jank::app::perfetto

#include "app/session/perfetto_commands.h"

#include <charconv>

namespace jank::app::perfetto {
namespace {

void append_default_sources(std::string& out, const SessionOptions& o) {
  out += "buffers { size_kb: " + std::to_string(o.buffer_kb) + " fill_policy: RING_BUFFER } ";
  out += "buffers { size_kb: 2048 fill_policy: RING_BUFFER } ";
  // Interned data in a ring buffer stays decodable only if it is re-emitted.
  out += "incremental_state_config { clear_period_ms: 5000 } ";
  out += "data_sources { config { name: \"linux.ftrace\" ftrace_config { ";
  for (const char* e : {"sched/sched_switch", "sched/sched_wakeup", "power/cpu_frequency", "power/suspend_resume"}) {
    out += "ftrace_events: \"" + std::string(e) + "\" ";
  }
  for (const char* c : {"gfx", "view", "input", "am", "wm", "dalvik"}) out += "atrace_categories: \"" + std::string(c) + "\" ";
  if (o.apps.empty()) {
    out += "atrace_apps: \"*\" ";
  } else {
    for (const auto& a : o.apps) out += "atrace_apps: \"" + a + "\" ";
  }
  out += "} } } ";
  if (o.sdk >= 31) out += "data_sources { config { name: \"android.surfaceflinger.frametimeline\" } } ";
  out += "data_sources { config { name: \"linux.process_stats\" target_buffer: 1 "
         "process_stats_config { scan_all_processes_on_start: true } } } ";
}

}  // namespace

std::string one_line(std::string_view pbtxt) {
  std::string out;
  bool in_string = false, comment = false, blank = false;
  char quote = 0;
  for (std::size_t i = 0; i < pbtxt.size(); ++i) {
    const char c = pbtxt[i];
    if (comment) {
      if (c == '\n') comment = false;
      else continue;
    }
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < pbtxt.size()) out += pbtxt[++i];
      else if (c == quote) in_string = false;
      continue;
    }
    if (c == '#') {
      comment = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out += ' ';
    blank = false;
    if (c == '"' || c == '\'') {
      in_string = true;
      quote = c;
    }
    out += c;
  }
  return out;
}

std::string session_config(const SessionOptions& o) {
  std::string out;
  if (o.user_config.empty()) {
    append_default_sources(out, o);
  } else {
    out = one_line(o.user_config) + " ";
  }
  out += "unique_session_name: \"" + std::string(kSessionName) + "\" ";
  out += "trigger_config { trigger_mode: STOP_TRACING trigger_timeout_ms: " + std::to_string(o.timeout.count()) +
         " triggers { name: \"" + std::string(kTriggerName) + "\" stop_delay_ms: " + std::to_string(o.stop_delay.count()) +
         " } }";
  return out;
}

std::string shell_quote(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string arm_command(const SessionOptions& o) {
  // A file left by an earlier session would be pulled as this one's.
  return "rm -f " + std::string(kTracePath) + "; printf %s " + shell_quote(session_config(o)) +
         " | perfetto --background --txt -c - -o " + std::string(kTracePath);
}

std::string alive_command(std::int32_t pid) { return "cat /proc/" + std::to_string(pid) + "/cmdline"; }
std::string trigger_command() { return "trigger_perfetto " + std::string(kTriggerName); }
std::string pull_command() { return "cat " + std::string(kTracePath); }
std::string list_command() { return "pidof perfetto"; }
std::string kill_command(std::int32_t pid) { return "kill " + std::to_string(pid); }

std::optional<std::int32_t> parse_pid(std::string_view output) {
  std::optional<std::int32_t> pid;
  std::size_t at = 0;
  while (at < output.size()) {
    const std::size_t end = std::min(output.find('\n', at), output.size());
    std::string_view line = output.substr(at, end - at);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    std::int32_t v = 0;
    const auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
    if (!line.empty() && ec == std::errc() && p == line.data() + line.size() && v > 0) pid = v;
    at = end + 1;
  }
  return pid;
}

std::vector<std::int32_t> parse_pids(std::string_view output, std::size_t max) {
  std::vector<std::int32_t> out;
  std::size_t at = 0;
  while (at < output.size() && out.size() < max) {
    while (at < output.size() && (output[at] == ' ' || output[at] == '\n' || output[at] == '\r')) ++at;
    std::size_t end = at;
    while (end < output.size() && output[end] != ' ' && output[end] != '\n' && output[end] != '\r') ++end;
    std::int32_t v = 0;
    const auto [p, ec] = std::from_chars(output.data() + at, output.data() + end, v);
    if (end > at && ec == std::errc() && p == output.data() + end && v > 0) out.push_back(v);
    at = end;
  }
  return out;
}

bool is_our_session(std::string_view cmdline) {
  return cmdline.find("perfetto") != std::string_view::npos && cmdline.find(kTracePath) != std::string_view::npos;
}

bool is_unsupported(std::optional<int> exit_code, std::string_view output) {
  return exit_code == 127 || output.find("not found") != std::string_view::npos ||
         output.find("unrecognized option") != std::string_view::npos;
}

}  // namespace jank::app::perfetto

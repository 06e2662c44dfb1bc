// Message extractors. All work on views of an already parsed line; the checks
// are deliberately exact on the fixed parts of each message so that lookalikes
// (stack frames, "Frame time is … in the future", kernel "init: Skipped …",
// "IMountServiceListener has died!") never count.
#include "parsers/logcat_events.h"

#include <array>
#include <cstddef>
#include <limits>

#include "parsers/text_scan.h"

namespace jank::parsers {
namespace {

using std::size_t;
using std::string_view;

using scan::all_digits;
using scan::is_digit;

// Unsigned decimal prefix of v (at least one digit, no overflow of `max`).
bool consume_uint(string_view& v, std::uint64_t max, std::uint64_t& out) {
  size_t i = 0;
  std::uint64_t x = 0;
  while (i < v.size() && is_digit(v[i])) {
    const auto d = static_cast<std::uint64_t>(v[i] - '0');
    if (x > (max - d) / 10) return false;
    x = x * 10 + d;
    ++i;
  }
  if (i == 0) return false;
  v.remove_prefix(i);
  out = x;
  return true;
}

// Signed int64 covering the whole of v.
bool to_int64(string_view v, std::int64_t& out) {
  bool neg = false;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
    neg = v[0] == '-';
    v.remove_prefix(1);
  }
  std::uint64_t x = 0;
  const std::uint64_t max =
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + (neg ? 1 : 0);
  if (!consume_uint(v, max, x) || !v.empty()) return false;
  if (neg) {
    out = x == max ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(x);
  } else {
    out = static_cast<std::int64_t>(x);
  }
  return true;
}

bool to_pid(string_view v, std::int32_t& out) {
  std::uint64_t x = 0;
  if (!consume_uint(v, static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()), x) ||
      !v.empty()) {
    return false;
  }
  out = static_cast<std::int32_t>(x);
  return true;
}

// A process name as ActivityManager prints it: no spaces, no '/' (that
// separates the uid), no ',' (event-log field separator).
bool valid_process_name(string_view v) {
  if (v.empty()) return false;
  for (char c : v) {
    if (scan::is_blank_or_cr(c) || c == '/' || c == ',' || c == '[' || c == ']') return false;
  }
  return true;
}

std::optional<ProcessEvent> make_event(ProcessEvent::Kind kind, string_view pid,
                                       string_view name) {
  ProcessEvent ev;
  ev.kind = kind;
  if (!to_pid(pid, ev.pid) || !valid_process_name(name)) return std::nullopt;
  ev.process = name;
  return ev;
}

// "PID:NAME/UID" (Start proc, Killing); the name may itself hold ':'
// ("com.foo:remote"), so split on the first ':' and the first '/'.
std::optional<ProcessEvent> pid_name_uid(ProcessEvent::Kind kind, string_view v) {
  size_t colon = v.find(':');
  if (colon == string_view::npos) return std::nullopt;
  size_t slash = v.find('/', colon + 1);
  size_t space = v.find(' ', colon + 1);
  if (slash == string_view::npos || (space != string_view::npos && space < slash)) {
    return std::nullopt;
  }
  return make_event(kind, v.substr(0, colon), v.substr(colon + 1, slash - colon - 1));
}

// Splits the "[a,b,c,…]" payload of an event-log line into its first fields.
struct Fields {
  std::array<string_view, 4> f;
  int n = 0;
};
bool split_payload(string_view msg, Fields& out) {
  msg = scan::trim_blank_or_cr(msg);
  if (msg.size() < 2 || msg.front() != '[' || msg.back() != ']') return false;
  msg = msg.substr(1, msg.size() - 2);
  out.n = 0;
  while (out.n < 4) {
    size_t c = msg.find(',');
    out.f[static_cast<size_t>(out.n++)] = msg.substr(0, c);
    if (c == string_view::npos) break;
    msg.remove_prefix(c + 1);
  }
  return true;
}

std::optional<ProcessEvent> parse_event_log(string_view tag, string_view msg) {
  Fields p;
  if (!split_payload(msg, p)) return std::nullopt;
  if (tag == "am_proc_start") {
    // [user,pid,uid,name,type,component]; before Android 4.2 [pid,uid,name,…].
    if (p.n >= 4 && all_digits(p.f[0]) && all_digits(p.f[1]) && all_digits(p.f[2])) {
      return make_event(ProcessEvent::Kind::start, p.f[1], p.f[3]);
    }
    if (p.n >= 3 && all_digits(p.f[0]) && all_digits(p.f[1])) {
      return make_event(ProcessEvent::Kind::start, p.f[0], p.f[2]);
    }
    return std::nullopt;
  }
  if (tag == "am_proc_died" || tag == "am_kill") {
    // [user,pid,name,…]; before Android 4.2 [pid,name,…].
    if (p.n >= 3 && all_digits(p.f[0]) && all_digits(p.f[1])) {
      return make_event(ProcessEvent::Kind::death, p.f[1], p.f[2]);
    }
    if (p.n >= 2 && all_digits(p.f[0])) {
      return make_event(ProcessEvent::Kind::death, p.f[0], p.f[1]);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::uint32_t> parse_skipped_frames(std::string_view tag, std::string_view message) {
  if (scan::trim_blank_or_cr(tag) != "Choreographer") return std::nullopt;
  string_view m = scan::trim_blank_or_cr(message);
  if (!scan::consume_prefix(m, "Skipped ")) return std::nullopt;
  std::uint64_t n = 0;
  if (!consume_uint(m, std::numeric_limits<std::uint32_t>::max(), n) || n == 0) {
    return std::nullopt;
  }
  if (!scan::consume_prefix(m, " frames!")) return std::nullopt;
  // Choreographer prints two spaces; accept any run of blanks, the final
  // period being optional (one capture lacks it).
  const string_view rest = scan::trim_blank_or_cr(m);
  constexpr string_view kTail = "The application may be doing too much work on its main thread";
  if (!rest.empty() && rest != kTail &&
      !(rest.size() == kTail.size() + 1 && rest.substr(0, kTail.size()) == kTail &&
        rest.back() == '.')) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(n);
}

std::optional<DaveyFrame> parse_davey(std::string_view tag, std::string_view message) {
  const string_view t = scan::trim_blank_or_cr(tag);
  if (t != "OpenGLRenderer" && t != "HWUI") return std::nullopt;
  string_view m = scan::trim_blank_or_cr(message);
  if (!scan::consume_prefix(m, "Davey! duration=")) return std::nullopt;
  std::uint64_t dur = 0;
  if (!consume_uint(m, static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()), dur)) {
    return std::nullopt;
  }
  if (!scan::consume_prefix(m, "ms;")) return std::nullopt;
  DaveyFrame d;
  d.duration_ms = static_cast<std::int64_t>(dur);
  constexpr std::int64_t kUnsignalled = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kOneHourMs = 3'600'000;
  // "Key=Value, Key=Value, " — the key set varies by release, so look keys up
  // by name and ignore the rest. A malformed pair is skipped, not fatal.
  while (!m.empty()) {
    size_t comma = m.find(',');
    string_view pair = scan::trim_blank_or_cr(m.substr(0, comma));
    m = comma == string_view::npos ? string_view{} : m.substr(comma + 1);
    size_t eq = pair.find('=');
    if (eq == string_view::npos) continue;
    string_view key = pair.substr(0, eq);
    std::int64_t value = 0;
    if (!to_int64(pair.substr(eq + 1), value)) continue;
    if (key == "Flags") {
      d.flags = value;
    } else if (key == "IntendedVsync") {
      d.intended_vsync = value;
    } else if (key == "FrameCompleted") {
      d.frame_completed = value;
      if (value == kUnsignalled) d.duration_valid = false;
    } else if (key == "GpuCompleted") {
      if (value == kUnsignalled) d.duration_valid = false;
    }
  }
  if (d.duration_ms > kOneHourMs) d.duration_valid = false;
  return d;
}

std::optional<ProcessEvent> parse_process_event(std::string_view tag, std::string_view message) {
  const string_view t = scan::trim_blank_or_cr(tag);
  if (t.size() > 3 && t.substr(0, 3) == "am_") return parse_event_log(t, message);
  // Only ActivityManager (system_server) speaks for process lifecycle; other
  // tags say "has died" about binder listeners and the like.
  if (t != "ActivityManager") return std::nullopt;
  string_view m = scan::trim_blank_or_cr(message);
  if (scan::consume_prefix(m, "Start proc ")) {
    // N+: "Start proc PID:NAME/UID for …"
    if (!m.empty() && is_digit(m[0])) {
      size_t i = 0;
      while (i < m.size() && is_digit(m[i])) ++i;
      if (i < m.size() && m[i] == ':') return pid_name_uid(ProcessEvent::Kind::start, m);
    }
    // Older: "Start proc NAME for TYPE COMPONENT: pid=PID uid=UID gids={…}"
    size_t sp = m.find(' ');
    if (sp == string_view::npos) return std::nullopt;
    string_view name = m.substr(0, sp);
    size_t at = m.find(" pid=", sp);
    if (at == string_view::npos) return std::nullopt;
    string_view rest = m.substr(at + 5);
    size_t end = 0;
    while (end < rest.size() && is_digit(rest[end])) ++end;
    return make_event(ProcessEvent::Kind::start, rest.substr(0, end), name);
  }
  if (scan::consume_prefix(m, "Killing ")) {
    // "Killing PID:NAME/UID (adj N): reason"
    return pid_name_uid(ProcessEvent::Kind::death, m);
  }
  if (scan::consume_prefix(m, "Process ")) {
    // "Process NAME (pid PID) has died[: state]"
    size_t open = m.find(" (pid ");
    if (open == string_view::npos) return std::nullopt;
    string_view name = m.substr(0, open);
    string_view rest = m.substr(open + 6);
    size_t close = rest.find(')');
    if (close == string_view::npos) return std::nullopt;
    string_view pid = rest.substr(0, close);
    constexpr string_view kDied = ") has died";
    if (rest.substr(close, kDied.size()) != kDied) return std::nullopt;
    return make_event(ProcessEvent::Kind::death, pid, name);
  }
  return std::nullopt;
}

}  // namespace jank::parsers

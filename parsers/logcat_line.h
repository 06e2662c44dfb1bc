// Pure parsing of one logcat line in any layout that `logcat -v` prints, plus
// the layouts people paste from Android Studio, Eclipse/DDMS, LogcatApp and
// `flutter run`. No I/O, no allocation, no exceptions: the result views point
// into the caller's line.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace jank::parsers {

enum class LogLayout : std::uint8_t {
  unknown,
  brief,         // I/Tag(  123): msg
  process,       // I(  123) msg  (Tag)
  tag,           // I/Tag: msg
  thread,        // I(  123:  456) msg
  raw,           // msg   (never auto-detected: it has no header)
  time,          // 01-02 03:04:05.678 I/Tag(  123): msg      (also Eclipse "…678: I/…")
  threadtime,    // 01-02 03:04:05.678  123  456 I Tag     : msg
  long_header,   // [ 01-02 03:04:05.678   123:  456 I/Tag      ]   (message on the next lines)
  studio,        // 2024-01-02 03:04:05.678  123-456  Tag   com.pkg   I  msg   (Android Studio Dolphin+)
  studio_legacy, // 01-02 03:04:05.678  123-456/com.pkg I/Tag: msg   (Studio 1.x–3.x, also "﹕")
  logcatapp,     // [01-02 03:04:05.678 123:456 I/Tag]   (LogcatApp export; message on the next line)
};


// Which clock a timestamp is on.
enum class TimeBase : std::uint8_t { none, wall, monotonic };

struct LogTime {
  TimeBase base = TimeBase::none;
  // wall: nanoseconds since the Unix epoch, UTC (a zone suffix is applied; a
  // time without zone is taken as UTC; a time without year gets the year the
  // caller supplies). monotonic: nanoseconds since boot.
  std::int64_t ns = 0;
};

struct LogLine {
  LogLayout layout = LogLayout::unknown;
  LogTime time;
  char priority = 0;           // V D I W E F A S, or 0 when the layout has none
  std::int32_t pid = -1;       // -1 when the layout has none
  std::int32_t tid = -1;
  std::int64_t uid = -1;       // numeric uid from `-v uid`, -1 when absent or a name
  std::string_view uid_name;   // `-v uid` names such as "root", "shell", "u0_a12"
  std::string_view tag;        // trimmed
  std::string_view package;    // Studio layouts only; "?" and "pid-N" style values are left as printed
  std::string_view message;    // for long_header / logcatapp: empty (message follows)
};

struct ParseOptions {
  int default_year = 1970;     // year for timestamps printed without one
  // When set, a timestamp printed without a year takes the year that puts it
  // nearest this instant (ns since the epoch) instead of default_year.
  std::optional<std::int64_t> yearless_near_ns;
};

// Parses `line` (no trailing newline or CR) assuming `layout`. Returns nullopt
// when the line does not have that layout's header.
std::optional<LogLine> parse_log_line(std::string_view line, LogLayout layout,
                                      const ParseOptions& options = {});

// Tries every layout that has a header (not raw), most specific first, and
// returns the first that parses.
std::optional<LogLine> detect_log_line(std::string_view line, const ParseOptions& options = {});

// `flutter run -v` prefixes every line with a timing column such as
// "[ +652 ms] " or "[        ] ". Returns the line without it (unchanged when absent).
std::string_view strip_tool_prefix(std::string_view line);

// The first wall-clock timestamp of a logcat capture, in any layout (lines
// without a time, such as buffer dividers or a tool's banner, are passed
// over); nullopt when no line has one.
std::optional<std::int64_t> first_wall_time(std::string_view text, const ParseOptions& options = {});

// "--------- beginning of main" / "--------- switch to system": returns the buffer name.
std::optional<std::string_view> buffer_separator(std::string_view line);

}  // namespace jank::parsers

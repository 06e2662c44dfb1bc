// A very small /system/bin/sh for the commands the exporter and the tests run:
// `;` `&&` `||`, POSIX quoting, `export`/`exec`, redirection to /dev/null, a
// pipe into grep or perfetto, and the builtins and tools of a device
// (logcat, dumpsys, getprop, setprop, ps, perfetto, kill …).
#pragma once

#include <array>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "devsim/log_buffer.h"
#include "devsim/model.h"

namespace jank::devsim {

// An endless `logcat` (no -d): the transport pumps it whenever the device logs.
struct LogcatFollow {
  LogMask mask = kDefaultLogMask;
  LogFormat format;
  std::uint64_t next_seq = 0;
  std::array<bool, kLogIdCount> begun{};  // "--------- beginning of X" printed
  char default_min = 'V';
  std::vector<std::pair<std::string, char>> tag_min;  // tag:prio filter specs
  std::int32_t pid = -1;                               // --pid
  std::int64_t max_count = -1;                         // -m
  bool dump = false;                                   // -d/-t: stop at the end of the buffer
  bool dividers = false;                               // -D: "--------- switch to X" on buffer changes
  int last_printed = -1;                               // buffer of the last line printed
  // logd's reader state (LogTimeEntry::mLastTid): per buffer, the thread of
  // the last entry it sent; a chatty summary says "identical" right after
  // its own thread's entry, else "expire" (LogBuffer.cpp:1162-1172 @ 8.0).
  std::array<std::int32_t, kLogIdCount> last_tid{};
  // -T TIME: logd's first flush (the entries held when the stream opened,
  // seq < first_pass_end) skips those stamped at or before start_time.
  std::int64_t start_time = INT64_MIN;
  std::uint64_t first_pass_end = 0;
  std::uint64_t logd_gen = 0;  // the logd this stream reads from (Device::logd_generation)
  // Set with *done when the stream ends on its own: logcat's exit status and stderr.
  int exit = 0;
  std::string err;
};

// One entry a pump wrote: its text ends at byte `end` of the pump's output.
struct WrittenEntry {
  std::size_t end = 0;
  LogId id = LogId::main;
  std::uint64_t index = 0;
  std::uint64_t first_line_hash = 0;  // first_line_hash() of its first printed line
};

// FNV-1a (64-bit) of a printed log line without its newline, never 0: how a
// reader's cursor declaration names its last counted entry.
std::uint64_t first_line_hash(std::string_view line);

// A file too big to hold in memory, streamed after `out` (then the exit):
// its first `length` bytes.
struct FileStream {
  TraceBytes content;
  std::uint64_t length = 0;
};

struct ShellResult {
  std::string out, err;
  // stderr a command wrote while its stdout held this many bytes *out of
  // its buffer* (the tool's buffering taken into account): where each lands
  // when both go to one file (2>&1). Otherwise it is stderr, before `err`.
  std::vector<std::pair<std::size_t, std::string>> err_at;
  int exit = 0;
  std::optional<LogcatFollow> follow;  // set: the command keeps streaming
  std::optional<FileStream> file;      // set: the output goes on with these bytes
  bool hang = false;                   // the command never answers (nor exits)
};

// A `cat` of a file at most this big answers at once; a bigger one is
// streamed and ends the script (as an endless logcat does).
inline constexpr std::uint64_t kInlineFileMax = 4 * 1024 * 1024;

// Splits a command line into words the way sh does (quotes removed). Operators
// ; && || are returned as separate words prefixed with '\0' so that quoted
// text never mistakes for them.
std::vector<std::string> shell_words(std::string_view line, bool* ok);
// The same, and per word which of its bytes were unquoted ('1') or quoted
// ('0'): only unquoted * ? [ are pathname patterns.
std::vector<std::string> shell_words(std::string_view line, bool* ok, std::vector<std::string>* unquoted);

// mksh's pathname expansion of one word (eval.c glob/globit @ mksh-R50):
// each component with an unquoted * ? or [...] is matched against the
// directory's entries (a leading '.' only by a leading '.'), a literal
// component after a pattern must exist (lstat), matches come sorted by
// strcmp; no match leaves the word as it is.
std::vector<std::string> expand_glob(Device& dev, const std::string& word, const std::string& unquoted);

// grep [-HhFs] [-e P]… [--line-buffered] [P] [FILE…] (devsim/shell_files.cc).
int run_grep(Device& dev, const std::vector<std::string>& w, const std::string* input, bool tty, ShellResult& r);

// Runs a script on the device. `tty`: its stdout is a terminal (adbd's PTY
// for `shell:` without shell_v2), which makes the tools' stdio line-buffered.
ShellResult run_shell(Device& dev, std::string_view script, bool tty = false);

// Formats entries that are new for `f` (at most about max_bytes of output).
// Sets *done when a -d/-m logcat has printed everything it will, or when its
// logd went away (then f.exit and f.err say how logcat ended). `written`, if
// given, gets every entry printed.
std::string pump_logcat(const Device& dev, LogcatFollow& f, std::size_t max_bytes, bool* done,
                        std::vector<WrittenEntry>* written = nullptr);

// Parses logcat's -T/-t argument. A count sets *count; a time sets *wall_ns.
bool parse_logcat_start(std::string_view arg, std::int32_t tz_offset_s, std::int64_t now_wall_ns,
                        std::optional<std::size_t>* count, std::optional<std::int64_t>* wall_ns);

}  // namespace jank::devsim

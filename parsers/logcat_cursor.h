// Where a device's log was counted up to, in logd's own terms, and how a new
// logcat stream continues exactly after it whatever the device's clock did.
//
// logd numbers nothing it prints, but `logcat -S` tells, per buffer, how many
// lines were ever written to it ("Total") and how many the ring holds ("Now").
// The exporter keeps, per buffer, the Total-index of the last entry it counted
// and that entry's content hash. A new stream prints the boot id, logd's pid
// and those statistics, then the whole ring and what follows. Because a reader
// reads in logd's merged sequence order, what it has counted is a prefix of
// that order: the entries still held that were counted are the first ones the
// new stream prints, and how many they are follows from the statistics; the
// last of them is confirmed by its hash. What left the ring unread (wrap,
// `logcat -c`) is exactly Total − Now − index. A new boot id or a new logd
// (its pid, or totals that went down) means a new log: all of it is new.
// Device timestamps play no part.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/logcat_line.h"
#include "parsers/logd_statistics.h"

namespace jank::parsers {

struct BufferCursor {
  // logd's Total of this buffer when the last counted entry was written: the
  // count of lines written to it up to and including that entry.
  std::uint64_t index = 0;
  // log_line_hash() of that entry's first line; 0 when unknown.
  std::uint64_t last_hash = 0;
  bool operator==(const BufferCursor&) const = default;
};

struct LogCursor {
  bool valid = false;        // false: this device's log was never read
  std::string boot_id;       // /proc/sys/kernel/random/boot_id; "" when unknown
  std::int64_t logd_pid = 0;  // 0 when unknown
  std::map<std::string, BufferCursor, std::less<>> buffers;
  std::string last_buffer;   // the buffer of the newest counted entry
  bool operator==(const LogCursor&) const = default;
};

// The lines a stream prints before its log: boot id, logd's pid, `logcat -S`.
struct StreamPreamble {
  std::string boot_id;
  std::int64_t logd_pid = 0;
  std::map<std::string, LogdBufferLines, std::less<>> lines;
};
// nullopt when the statistics lack one of `buffers` or are garbled.
std::optional<StreamPreamble> parse_stream_preamble(std::string_view text, const std::vector<std::string>& buffers);

enum class ResumeKind : std::uint8_t {
  first_sight,   // never read: what the ring holds is history, count from now
  resume,        // same boot, same logd: continue after the last counted entry
  reboot,        // new boot id: the whole ring is new
  logd_restart,  // same boot, new logd (pid changed or totals went down): the whole ring is new
};
std::string_view resume_kind_name(ResumeKind kind);

struct ResumePlan {
  ResumeKind kind = ResumeKind::first_sight;
  // Entries at the head of the stream that were counted already (or, on
  // first sight, are history): dropped.
  std::uint64_t counted_entries = 0;
  // Hash of the last of them, when known: seeing it confirms the position
  // (it ends the dropped run early if logd pruned some meanwhile).
  std::uint64_t anchor_hash = 0;
  // Entries the ring held when the stream started: once past them the stream
  // reads what is being written now.
  std::uint64_t held_entries = 0;
  // Per buffer, lines that left the ring before they were read.
  std::map<std::string, std::uint64_t, std::less<>> lost;
  // The cursor the stream's first new entry continues.
  LogCursor cursor;

  std::uint64_t lost_total() const;
};

ResumePlan plan_resume(const LogCursor& saved, const StreamPreamble& now, const std::vector<std::string>& buffers);

// Follows one stream of `logcat -D -v threadtime -v epoch -v usec` output that
// starts with a preamble ending in a marker line: reads the preamble, plans
// the resume, drops what was counted and passes every new line on, in order,
// with the device time of its entry. It only tracks entries: parsing what
// they say is the caller's (LogcatStream's) job.
class LogcatFollower {
 public:
  struct Line {
    std::string_view text;          // with its '\n'
    std::optional<std::int64_t> device_ns;  // wall-clock stamp of the line's entry
    bool new_entry = false;         // the first line of an entry
  };
  using LineSink = std::function<void(const Line&)>;

  LogcatFollower(LogCursor saved, std::vector<std::string> buffers, std::string_view end_marker,
                 std::size_t max_line_bytes, LineSink sink);

  void feed(std::string_view bytes);

  enum class State : std::uint8_t {
    preamble,    // reading the preamble
    failed,      // the preamble was unusable (see error()); nothing is passed on
    catching_up, // dropping the counted entries
    following,   // passing every line on
  };
  State state() const { return state_; }
  const std::string& error() const { return error_; }
  // Set once the preamble is read.
  const std::optional<ResumePlan>& plan() const { return plan_; }
  // Where the passed-on lines end (the plan's cursor before any).
  const LogCursor& cursor() const { return cursor_; }
  // Lines dropped because they were counted already (or history on first sight).
  std::uint64_t dropped_lines() const { return dropped_lines_; }
  // Entries past the preamble, dropped or passed on.
  std::uint64_t entries() const { return entries_; }
  // The dropped run ended on the anchor's hash (true), or by count only:
  // then the position was not confirmed by content (only meaningful when the
  // plan had an anchor).
  bool anchor_seen() const { return anchor_seen_; }

 private:
  void line(std::string_view text);
  void read_preamble_line(std::string_view text);
  void log_line(std::string_view text);
  void start_following();

  LogCursor saved_;
  std::vector<std::string> buffers_;
  std::string end_marker_;
  std::size_t max_line_bytes_;
  LineSink sink_;

  State state_ = State::preamble;
  std::string error_;
  std::string preamble_;
  std::optional<ResumePlan> plan_;
  LogCursor cursor_;

  std::string partial_;
  bool overlong_ = false;  // the partial line passed the cap: only its head is kept

  LogLayout layout_ = LogLayout::unknown;
  std::string buffer_;  // from the last divider
  struct EntryKey {
    std::int64_t ns = 0;
    std::int32_t pid = 0, tid = 0;
    char priority = 0;
    std::string tag;
    bool operator==(const EntryKey&) const = default;
  };
  std::optional<EntryKey> entry_;
  std::optional<std::int64_t> entry_ns_;
  bool dropping_entry_ = false;  // the current entry belongs to the dropped run
  std::uint64_t dropped_entries_ = 0;
  std::uint64_t dropped_lines_ = 0;
  std::uint64_t entries_ = 0;
  bool anchor_seen_ = false;
};

}  // namespace jank::parsers

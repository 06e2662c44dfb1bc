// Where a device's log was counted up to, in logd's own terms, and how a new
// logcat stream continues exactly after it whatever the device's clock did.
//
// logd numbers nothing it prints, but `logcat -S` tells, per buffer, how many
// lines were ever written to it ("Total") and how many the ring holds ("Now").
// The exporter keeps, per buffer, the Total-index of the last entry it counted
// and that entry's content hash. A new stream prints the boot id, logd's pid
// and those statistics, then the whole ring and what follows. A reader reads
// in logd's merged order, so what it counted of one buffer is a prefix of
// that buffer: the held entries up to the one with the saved hash were
// counted, the rest are new, and the held entries' places follow from the
// statistics (the first held entry of a buffer is number Total − Now + 1).
// If the saved entry is not held, every held entry is new and the lines in
// between left the ring unread (wrap, `logcat -c`): exactly
// Total − Now − index. A new boot id or a new logd (its pid, or totals that
// went down) means a new log: all of it is new. Device timestamps play no
// part.
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

// Identity of a log line (FNV-1a over its bytes, never 0).
std::uint64_t log_line_hash(std::string_view line);

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
  resume,        // same boot, same logd: continue after the last counted entries
  reboot,        // new boot id: the whole ring is new
  logd_restart,  // same boot, new logd (pid changed or totals went down): the whole ring is new
};
std::string_view resume_kind_name(ResumeKind kind);

// How the held entries of one buffer are told apart.
struct BufferPlan {
  std::uint64_t held = 0;         // entries the ring holds (Now)
  std::uint64_t first_index = 0;  // logd index of the first held entry (Total − Now + 1)
  // The last counted entry's hash: held entries up to it were counted. 0: none known.
  std::uint64_t anchor_hash = 0;
  // Without an anchor: how many held entries were counted, from the indices.
  std::uint64_t counted = 0;
  std::uint64_t saved_index = 0;  // the cursor's index
};

struct ResumePlan {
  ResumeKind kind = ResumeKind::first_sight;
  std::map<std::string, BufferPlan, std::less<>> buffers;
  std::uint64_t held_entries = 0;  // over all buffers: once past them the stream reads what is written now
  std::string boot_id;
  std::int64_t logd_pid = 0;
};

ResumePlan plan_resume(const LogCursor& saved, const StreamPreamble& now, const std::vector<std::string>& buffers);

// Follows one stream of `logcat -D -v threadtime -v epoch -v usec` output that
// starts with a preamble ending in a marker line: reads the preamble, plans
// the resume, drops what was counted and passes every new line on, in order,
// with the device time of its entry. While a buffer's last counted entry is
// looked for, the stream's entries are held (in order, bounded); they are
// passed on once every buffer is settled. It only tracks entries: parsing
// what they say is the caller's (LogcatStream's) job.
class LogcatFollower {
 public:
  struct Line {
    std::string_view text;                  // with its '\n'
    std::optional<std::int64_t> device_ns;  // wall-clock stamp of the line's entry
    bool new_entry = false;                 // the first line of an entry
  };
  using LineSink = std::function<void(const Line&)>;

  LogcatFollower(LogCursor saved, std::vector<std::string> buffers, std::string_view end_marker,
                 std::size_t max_line_bytes, LineSink sink);

  void feed(std::string_view bytes);
  // Stamps printed without a year (`-v threadtime` without `-v epoch`, before
  // Android 7.0) take the year that puts them nearest this host wall time (ns).
  void set_yearless_reference(std::int64_t host_wall_ns) { parse_.yearless_near_ns = host_wall_ns; }
  // Settles every buffer still looking for its last counted entry as "not
  // held" and passes the held entries on: for a stream that stays quiet
  // before it has printed what the statistics promised (logd pruned in
  // between). Counts as unconfirmed.
  void settle();

  enum class State : std::uint8_t {
    preamble,     // reading the preamble
    failed,       // the preamble was unusable (see error()); nothing is passed on
    catching_up,  // telling counted held entries from new ones
    following,    // passing every line on
  };
  State state() const { return state_; }
  const std::string& error() const { return error_; }
  // Set once the preamble is read.
  const std::optional<ResumePlan>& plan() const { return plan_; }
  // Every buffer knows which held entries were counted: plan outcomes
  // (lost(), unconfirmed()) are final and the cursor has moved.
  bool settled() const { return settled_; }
  // Where the passed-on lines end (the saved cursor until settled()).
  const LogCursor& cursor() const { return cursor_; }
  // Once settled: per buffer, lines that left the ring before they were read.
  const std::map<std::string, std::uint64_t, std::less<>>& lost() const { return lost_; }
  std::uint64_t lost_total() const;
  // Once settled: buffers whose last counted entry was expected but not
  // found by its content (their position came from the indices alone).
  std::uint64_t unconfirmed() const { return unconfirmed_; }
  // Once settled: whether `buffer`'s last counted entry was found by its
  // content (the loss figure for it is then exact).
  bool anchor_found(std::string_view buffer) const;
  // A live stream that logd skipped ahead (it prunes under a slow reader)
  // lags the true index by what it skipped; a check that measured it moves
  // the cursor on by that many.
  void skip_ahead(std::string_view buffer, std::uint64_t lines);
  // Lines dropped because they were counted already (or history on first sight).
  std::uint64_t dropped_lines() const { return dropped_lines_; }
  // Entries past the preamble, dropped, held or passed on.
  std::uint64_t entries() const { return entries_; }

 private:
  struct HeldEntry {
    std::string buffer;
    std::string lines;  // the entry's lines, each with its '\n'
    std::optional<std::int64_t> device_ns;
    std::uint64_t hash = 0;
    bool drop = false;
  };
  struct Search {  // one buffer while catching up
    BufferPlan plan;
    std::uint64_t seen = 0;  // held entries of this buffer so far
    bool settled = false;
    bool found = false;         // settled on the anchor's content
    std::uint64_t counted = 0;  // of them, counted before
    BufferCursor last;          // the last counted entry, once settled
  };

  void line(std::string_view text);
  void read_preamble_line(std::string_view text);
  void log_line(std::string_view text);
  void hold_entry(std::string_view buffer, std::string_view text, std::optional<std::int64_t> ns, std::uint64_t hash);
  void settle_buffer(const std::string& name, Search& s, bool anchor_found, bool forced);
  void flush();
  void pass(std::string_view buffer, std::string_view text, std::optional<std::int64_t> ns, bool new_entry,
            std::uint64_t hash);

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
  std::map<std::string, std::uint64_t, std::less<>> lost_;
  std::uint64_t unconfirmed_ = 0;

  std::map<std::string, Search, std::less<>> search_;
  std::vector<HeldEntry> held_;
  std::size_t held_bytes_ = 0;
  bool settled_ = false;       // every buffer knows its counted entries: the cursor has moved
  bool last_dropped_ = false;  // the verdict of the last entry let out while catching up

  std::string partial_;
  bool overlong_ = false;  // the partial line passed the cap: only its head is kept

  LogLayout layout_ = LogLayout::unknown;
  ParseOptions parse_;
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
  std::uint64_t dropped_lines_ = 0;
  std::uint64_t entries_ = 0;
};

}  // namespace jank::parsers

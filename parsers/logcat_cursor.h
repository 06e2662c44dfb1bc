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
// A new boot id or a new logd (its pid, or totals that went down) means a new
// log: all of it is new. Device timestamps play no part.
//
// Total also counts lines logd never holds as entries of their own: lines a
// log.tag property refused in logd itself (Android 6.0 always; from 7.0 liblog
// refuses them in the writing process first, so only writers that bypass it),
// and on 8.0–11 the middle of a run of identical lines, which logd keeps as
// one `chatty` summary entry ("… identical N lines", itself not counted). So
// the indices drift from the entries read. What each case does:
//
// - The saved entry is found by content: every held entry after it is new and
//   nothing was lost, whatever the indices say. Logd's count past the cursor
//   is lines it counted but the stream never read as entries ("unheld":
//   filtered, squashed, or skipped under a live stream, which logd's counts
//   cannot tell apart); the cursor rebases on logd's totals. No double count
//   (content decides what was counted), no loss invented.
// - The saved entry is not held and the indices put it before the ring
//   (saved index < Total − Now + 1): it left the ring (wrap, `logcat -c`);
//   every held entry is new and Total − Now − index lines are lost: exact
//   without unheld lines, otherwise an upper bound (unheld lines since the
//   last rebase are in it).
// - The saved entry is not held although the indices put it in the ring
//   (Total − Now + 1 ≤ saved index ≤ Total): the cursor's index never runs
//   ahead of logd's count, so with the boot id or logd's pid unreadable this
//   ring is not the log counted — a reboot or logd restart they could not
//   show. Every held entry is new (dropping some would lose them; what the old
//   log held past the cursor is unknown, as after a reboot), no loss is made
//   up. With both read and unchanged it is the same log and the entry was
//   pruned in place (logd 7.x–11 prunes a spammy uid's entries into one
//   "expire" summary): the indices decide, counted as unconfirmed.
// - No hash (0): the indices alone decide, as before hashes were kept.
// - A ring that printed fewer entries than its statistics said (logd pruned
//   between the two) is settled when told to: what was printed is the newest
//   of it, all new.
//
// While following, a `chatty` summary line stands for its N lines of logd's
// count, so the cursor keeps pace with Total through squashing (a summary is
// no anchor: logd writes its text when printing it). In a ring dump every
// entry counts one: the rebase on Total − Now + 1 already holds the rest.
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

// How many lines of logd's Total a `chatty` summary entry stands for (tag
// chatty, priority I, message "uid=U[(NAME)][ COMM] identical|expire N
// line[s]"): N; 0 for any other entry. logd prints "identical" (a squashed
// run, 8.0–11) only right after an entry of the same thread, so such a line
// from another thread is taken as an ordinary entry; "expire" (entries of a
// spammy uid pruned into one) stands anywhere.
std::uint64_t chatty_summary_lines(char priority, std::string_view tag, std::string_view message, bool same_thread);

struct BufferCursor {
  // logd's Total of this buffer when the last counted entry was written: the
  // count of lines written to it up to and including that entry.
  std::uint64_t index = 0;
  // log_line_hash() of that entry's first line; 0 when unknown.
  std::uint64_t last_hash = 0;
  // The hash of the entry at which `index` was last set from logd's totals
  // (a stream's start, a check of the ring); 0 when unknown. logd prunes
  // oldest first: while the ring still holds it, logd pruned nothing unread
  // since, so a shortfall of the count is lines logd never held, not lost.
  std::uint64_t rebase_hash = 0;
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
  // found by its content: held where logd's totals put it (counted as a new
  // log, see new_log_buffers()), or in a ring settled before it printed all
  // it held.
  std::uint64_t unconfirmed() const { return unconfirmed_; }
  // Once settled: buffers whose last counted entry logd's totals put in the
  // ring but whose content is not there: every held entry was counted as new.
  const std::vector<std::string>& new_log_buffers() const { return new_log_buffers_; }
  // Once settled: whether `buffer`'s last counted entry was found by its
  // content (nothing of that buffer was lost then).
  bool anchor_found(std::string_view buffer) const;
  // Lines logd counted in Total that no stream read as entries of their own,
  // per buffer: at the resume (logd's count past the found anchor), while
  // following (chatty summaries: N identical lines counted, one entry
  // printed) and from checks (skip_ahead with Gap::unheld).
  const std::map<std::string, std::uint64_t, std::less<>>& unheld() const { return unheld_; }
  std::uint64_t unheld_total() const;
  // Of `buffer`'s ring entries passed on after the anchor, what chatty
  // summaries among them add to logd's count beyond one entry each (a check
  // of the ring subtracts it: the live stream counts those itself).
  std::uint64_t ring_summary_excess(std::string_view buffer) const;
  // A check of the ring: whether it printed the entry with this hash of
  // `buffer` (set before feeding; see watch()).
  void watch(std::string_view buffer, std::uint64_t hash);
  bool watched_held(std::string_view buffer) const;
  // A check of the ring measured that the cursor lagged logd's count by
  // `lines` at the entry with hash `at`: the cursor moves on by that many,
  // and that entry becomes the rebase point. `why`: logd skipped the live
  // stream ahead (pruned under a slow reader: the caller counts the loss),
  // or lines logd counted but never held.
  enum class Gap : std::uint8_t { skipped, unheld };
  void skip_ahead(std::string_view buffer, std::uint64_t lines, Gap why, std::uint64_t at);
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
    std::uint64_t summary = 0;  // a chatty summary of this many lines; 0: an entry
    bool in_ring = false;       // printed as part of the ring (Now), not after it
  };
  // The entry that was new last in a buffer (logd prints "identical" only
  // right after an entry of the same thread).
  struct Source {
    std::int32_t pid = -1, tid = -1;
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
  void hold_entry(HeldEntry e);
  // Boot id and logd's pid were read both when the cursor was saved and now.
  bool identity_known() const;
  void settle_buffer(const std::string& name, Search& s, bool anchor_found, bool forced);
  void flush();
  // `summary`: the entry is a chatty summary of that many lines; `in_ring`:
  // printed as part of the ring dump.
  void pass(std::string_view buffer, std::string_view text, std::optional<std::int64_t> ns, bool new_entry,
            std::uint64_t hash, std::uint64_t summary = 0, bool in_ring = false,
            std::optional<std::string_view> deferred = std::nullopt);
  void feed_lines(std::string_view bytes);
  void hash_deferred();

  // A buffer's last counted entry while following, hashed once a feed ends
  // rather than for every entry: only the last one of each buffer stays in
  // the cursor, and hashing every line was a sixth of the daemon's logcat
  // work at 500 devices (issue 31).
  struct Deferred {
    std::string buffer;  // a key of cursor_.buffers
    std::string text;
    bool set = false;
  };
  std::vector<Deferred> deferred_;

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
  std::map<std::string, std::uint64_t, std::less<>> unheld_;
  std::map<std::string, std::uint64_t, std::less<>> ring_excess_;
  std::map<std::string, std::uint64_t, std::less<>> watch_;
  std::map<std::string, bool, std::less<>> watched_held_;
  std::map<std::string, std::uint64_t, std::less<>> printed_;  // entries per buffer since the preamble
  std::map<std::string, Source, std::less<>> last_source_;
  std::vector<std::string> new_log_buffers_;
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
  };
  // The current entry's key; kept (its tag's storage reused) while
  // `has_entry_` is false, so that a line costs no allocation.
  EntryKey entry_;
  bool has_entry_ = false;
  std::optional<std::int64_t> entry_ns_;
  std::uint64_t dropped_lines_ = 0;
  std::uint64_t entries_ = 0;
};

}  // namespace jank::parsers

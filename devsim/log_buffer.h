// logd as seen through logcat: per-buffer rings that prune their oldest
// entries like logd, readers that merge the selected buffers by arrival order,
// and liblog's `-v` line layouts.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jank::devsim {

enum class LogId : std::uint8_t { main, radio, events, system, crash, stats, security, kernel };
inline constexpr std::size_t kLogIdCount = 8;
using LogMask = std::uint32_t;
inline constexpr LogMask mask_of(LogId id) { return LogMask{1} << static_cast<unsigned>(id); }
// logcat's mask when no -b is given.
inline constexpr LogMask kDefaultLogMask =
    mask_of(LogId::main) | mask_of(LogId::system) | mask_of(LogId::crash) | mask_of(LogId::kernel);

std::string_view log_id_name(LogId id);

// A log priority's rank as liblog orders them (V 2 … F 7, S 9 silences);
// -1 for a letter that is none.
constexpr int prio_rank(char p) {
  switch (p) {
    case 'V': return 2;
    case 'D': return 3;
    case 'I': return 4;
    case 'W': return 5;
    case 'E': return 6;
    case 'F': return 7;
    case 'S': return 9;
    default: return -1;
  }
}
// Parses one -b argument (comma list; "default", "all"). nullopt names the bad word in *bad.
std::optional<LogMask> parse_log_mask(std::string_view arg, std::string* bad);

struct LogEntry {
  std::uint64_t seq = 0;    // arrival order over all buffers of a device
  std::uint64_t index = 0;  // logd's Total of its buffer when it was written (1-based)
  LogId id = LogId::main;
  std::int64_t wall_ns = 0;
  std::int64_t mono_ns = 0;
  std::int32_t pid = 0, tid = 0, uid = 0;
  char prio = 'I';
  std::string tag;
  std::string msg;
  // Ground-truth bookkeeping: which simulated app logged a skip line, and N.
  std::int32_t app = -1;
  std::uint32_t skipped = 0;
  bool davey = false;
  // A chatty summary (logd 8.0–11, a squashed run of identical lines): how
  // many lines it stands for; 0 for an ordinary entry. `msg` then holds
  // "uid=U(NAME) COMM" and the reader completes it when printing
  // (" identical N lines" right after an entry of the same thread, else
  // " expire N lines": LogBufferElement::populateDroppedMessage).
  std::uint32_t summary = 0;
  // logd accounts the payload: priority byte, tag and message with their
  // NULs; a summary has no payload of its own (getMsgLen() is 0).
  std::size_t size() const { return summary > 0 ? 0 : tag.size() + msg.size() + 3; }
};

// What logd 8.0–11 did with one line it was sent (LogBuffer::log).
enum class LogdVerdict : std::uint8_t {
  stored,     // held in the ring (with whatever an earlier held-back line released)
  held_back,  // identical to the line before: kept aside until the run ends
};

// logd's statistics of one buffer since logd started (`logcat -S`): Total
// counts what was ever written, Now what the ring holds. Prune and clear only
// lower Now, as LogStatistics::Subtract does.
struct BufferStats {
  std::size_t capacity = 256 * 1024;
  std::size_t used = 0;           // Now, bytes
  std::uint64_t pruned = 0;       // entries dropped by wrap
  std::uint64_t cleared = 0;      // entries dropped by logcat -c
  std::uint64_t written = 0;      // Total, lines
  std::uint64_t written_bytes = 0;  // Total, bytes
  std::uint64_t unheld = 0;       // of Total: lines never held (refused in logd, squashed)
  std::uint64_t summaries = 0;    // chatty summaries stored (held, not in Total)
};

enum class DropReason : std::uint8_t { wrap, clear };

class LogBuffers {
 public:
  explicit LogBuffers(std::size_t capacity_bytes = 256 * 1024);

  // Called for every entry that leaves a ring by wrap or `logcat -c`, before
  // it goes (not for reset(): logd's memory simply vanishes).
  void set_drop_observer(std::function<void(const LogEntry&, DropReason)> f) { on_drop_ = std::move(f); }

  // Called for every held-back line logd then counts without holding it
  // (squashed: stored false), or stores as the last of its run (stored true,
  // before it is appended).
  void set_squash_observer(std::function<void(const LogEntry&, bool stored)> f) { on_squash_ = std::move(f); }

  // Appends (numbering the entry) and prunes the oldest entries when full.
  void append(LogEntry e);
  // logd counts a line in Total without holding it (a log.tag property
  // refusing it in logd: LogBuffer.cpp stats.add + stats.subtract).
  void count_unheld(LogId id, std::size_t bytes);
  // A line as logd 8.0–11 takes it (LogBuffer::log): a run of identical
  // lines of one thread (same uid, pid, tid, priority, tag and message, each
  // within 60 s of the one before) is held as its first line, one chatty
  // summary of the lines in between and its last; every line is counted in
  // Total, the summary is not. The run's last line is held back until a
  // different line comes to that buffer. `names`: the summary's
  // "uid=U(NAME) COMM" as logd would print it for this line's thread.
  LogdVerdict log_squashing(LogEntry e, const std::string& names);
  // Lines logd holds back now (one per buffer at most).
  const LogEntry* held_back(LogId id) const;
  void clear(LogMask mask);
  // False when the size is outside logd's accepted range (64 KiB … 256 MiB).
  bool set_capacity(LogMask mask, std::size_t bytes);
  // A new logd: empty rings, statistics from zero, the configured sizes again
  // (`logcat -G` lives in logd's memory). Sequence numbers keep growing: they
  // are never printed, and following streams of the old logd must not mistake
  // new entries for theirs.
  void reset();
  const BufferStats& stats(LogId id) const { return stats_[static_cast<std::size_t>(id)]; }
  const std::deque<LogEntry>& entries(LogId id) const { return bufs_[static_cast<std::size_t>(id)]; }

  std::uint64_t next_seq() const { return next_seq_; }
  // Up to `max` entries of the selected buffers with seq >= from, in seq order.
  std::vector<const LogEntry*> read(LogMask mask, std::uint64_t from, std::size_t max) const;
  // The seq from which the last `count` entries of the selected buffers start.
  std::uint64_t seq_of_last(LogMask mask, std::size_t count, std::int32_t pid = -1) const;
  // logd's start for `-T TIME` (LogReader): in sequence order, the first entry
  // of the selected buffers stamped at or after wall_ns; next_seq() if none.
  std::uint64_t seq_at_time(LogMask mask, std::int64_t wall_ns, std::int32_t pid = -1) const;
  std::size_t entry_count(LogMask mask) const;

 private:
  void drop_front(std::size_t i, DropReason why);

  std::size_t default_capacity_;
  std::array<std::deque<LogEntry>, kLogIdCount> bufs_;
  std::array<BufferStats, kLogIdCount> stats_;
  std::uint64_t next_seq_ = 1;
  std::function<void(const LogEntry&, DropReason)> on_drop_;
  std::function<void(const LogEntry&, bool)> on_squash_;
  // LogBuffer::log's state per buffer: the last line (a copy of the stored
  // one, or the held-back one), and the summary in the making (count 0: a
  // copy of the run's first line, state 1).
  struct Squash {
    std::optional<LogEntry> last;
    bool last_held_back = false;
    std::optional<LogEntry> dropped;
    std::string dropped_names;
    std::string last_names;
  };
  std::array<Squash, kLogIdCount> squash_{};
  void store_summary(LogEntry e, std::uint32_t count, const std::string& names);
};

enum class LogVerb : std::uint8_t { brief, process, tag, thread, raw, time, threadtime, long_ };

struct LogFormat {
  LogVerb verb = LogVerb::threadtime;
  bool epoch = false, monotonic = false, uid = false, usec = false, nsec = false;
  bool utc = false, year = false, zone = false;
  // Parses one -v argument (comma list of verbs and adverbs). False on unknown words.
  bool apply(std::string_view arg);
};

// Formats one entry exactly as liblog does (one output line per message line).
// tz_offset_s is the device's local time zone offset from UTC.
std::string format_entry(const LogEntry& e, const LogFormat& f, std::int32_t tz_offset_s);

}  // namespace jank::devsim

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
// Parses one -b argument (comma list; "default", "all"). nullopt names the bad word in *bad.
std::optional<LogMask> parse_log_mask(std::string_view arg, std::string* bad);

struct LogEntry {
  std::uint64_t seq = 0;       // arrival order over all buffers of a device
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
  // Reader bookkeeping for the truth, not logd state: the `-T TIME` stream
  // that last asked for this entry (0: none yet) and whether it got it.
  mutable std::uint64_t asker = 0;
  mutable bool delivered = false;
  // logd accounts the payload: priority byte, tag and message with their NULs.
  std::size_t size() const { return tag.size() + msg.size() + 3; }
};

struct BufferStats {
  std::size_t capacity = 256 * 1024;
  std::size_t used = 0;
  std::uint64_t pruned = 0;   // entries dropped by wrap
  std::uint64_t cleared = 0;  // entries dropped by logcat -c
  std::uint64_t written = 0;
  std::uint64_t written_bytes = 0;
};

// An entry the reader will never get (see LogBuffers::open_reader).
struct LostEntry {
  LogId id = LogId::main;
  std::int64_t wall_ns = 0;
  std::int32_t app = -1;
  std::uint32_t skipped = 0;
  bool davey = false;
};

class LogBuffers {
 public:
  explicit LogBuffers(std::size_t capacity_bytes = 256 * 1024);

  // Appends and prunes; calls on_prune for every entry lost to the wrap.
  template <typename OnPrune>
  void append(LogEntry e, OnPrune&& on_prune) {
    e.seq = next_seq_++;
    e.asker = askers_[static_cast<std::size_t>(e.id)];
    e.delivered = false;
    auto& b = bufs_[static_cast<std::size_t>(e.id)];
    auto& st = stats_[static_cast<std::size_t>(e.id)];
    st.used += e.size();
    ++st.written;
    st.written_bytes += e.size();
    b.push_back(std::move(e));
    if (st.used > st.capacity) {
      // logd prunes down to 90% of the limit, oldest first.
      const std::size_t target = st.capacity / 10 * 9;
      while (st.used > target && !b.empty()) {
        on_prune(b.front());
        removed(b.front());
        st.used -= b.front().size();
        ++st.pruned;
        b.pop_front();
      }
    }
  }
  void append(LogEntry e) {
    append(std::move(e), [](const LogEntry&) {});
  }

  void clear(LogMask mask);
  // False when the size is outside logd's accepted range (64 KiB … 256 MiB).
  bool set_capacity(LogMask mask, std::size_t bytes);
  const BufferStats& stats(LogId id) const { return stats_[static_cast<std::size_t>(id)]; }

  std::uint64_t next_seq() const { return next_seq_; }
  // Up to `max` entries of the selected buffers with seq >= from, in seq order.
  std::vector<const LogEntry*> read(LogMask mask, std::uint64_t from, std::size_t max) const;
  // The seq from which the last `count` entries of the selected buffers start.
  std::uint64_t seq_of_last(LogMask mask, std::size_t count) const;
  // The seq of the first entry strictly newer than wall_ns (logd's -T time).
  std::uint64_t seq_after_time(LogMask mask, std::int64_t wall_ns) const;
  std::size_t entry_count(LogMask mask) const;

  // What a resuming reader can lose. A follow stream started with `-T TIME`
  // asks for every entry of its buffers newer than TIME, present or future,
  // until the next such stream asks again. An entry is lost to the reader
  // when the stream that last asked for it never got it before the ring
  // dropped it, or when a later stream asks again for an entry already
  // dropped (the reader restarted from an older position). Entries within
  // TIME's millisecond that the previous stream delivered are the reader's
  // de-duplication window, not asked again. Returns the stream's reader id.
  std::uint64_t open_reader(LogMask mask, std::int64_t after_wall_ns);
  // The stream `reader` passed `e` (wrote it out).
  void note_delivered(std::uint64_t reader, const LogEntry& e) const {
    if (reader != 0 && e.asker == reader) e.delivered = true;
  }
  void set_loss_observer(std::function<void(const LostEntry&)> f) { on_loss_ = std::move(f); }

 private:
  void removed(const LogEntry& e);

  std::array<std::deque<LogEntry>, kLogIdCount> bufs_;
  std::array<BufferStats, kLogIdCount> stats_;
  std::uint64_t next_seq_ = 1;
  std::array<std::uint64_t, kLogIdCount> askers_{};
  std::uint64_t next_reader_ = 1;
  // Dropped entries not (yet) lost: a later stream may still ask for them.
  std::array<std::deque<LostEntry>, kLogIdCount> gone_;
  std::function<void(const LostEntry&)> on_loss_;
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

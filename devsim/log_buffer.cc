#include "devsim/log_buffer.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace jank::devsim {
namespace {

constexpr std::array<std::string_view, kLogIdCount> kNames = {
    "main", "radio", "events", "system", "crash", "stats", "security", "kernel"};

// First index in `b` whose seq >= from (deques are sorted by seq).
std::size_t lower_seq(const std::deque<LogEntry>& b, std::uint64_t from) {
  auto it = std::lower_bound(b.begin(), b.end(), from,
                             [](const LogEntry& e, std::uint64_t s) { return e.seq < s; });
  return static_cast<std::size_t>(it - b.begin());
}

// Short passwd names print as names in `-v uid`; longer ones (system, u0_aN) as numbers.
const char* short_uid_name(std::int32_t uid) {
  switch (uid) {
    case 0: return "root";
    case 1007: return "log";
    case 2000: return "shell";
    default: return nullptr;
  }
}

}  // namespace

std::string_view log_id_name(LogId id) { return kNames[static_cast<std::size_t>(id)]; }

std::optional<LogMask> parse_log_mask(std::string_view arg, std::string* bad) {
  LogMask mask = 0;
  while (!arg.empty()) {
    std::size_t c = arg.find(',');
    std::string_view w = arg.substr(0, c);
    arg = c == std::string_view::npos ? std::string_view{} : arg.substr(c + 1);
    if (w.empty()) continue;
    if (w == "all") {
      mask |= (LogMask{1} << kLogIdCount) - 1;
      continue;
    }
    if (w == "default") {
      mask |= mask_of(LogId::main) | mask_of(LogId::system) | mask_of(LogId::crash);
      continue;
    }
    auto it = std::find(kNames.begin(), kNames.end(), w);
    if (it == kNames.end()) {
      if (bad) *bad = std::string(w);
      return std::nullopt;
    }
    mask |= LogMask{1} << static_cast<unsigned>(it - kNames.begin());
  }
  return mask;
}

LogBuffers::LogBuffers(std::size_t capacity_bytes) : default_capacity_(capacity_bytes) {
  for (auto& s : stats_) s.capacity = capacity_bytes;
}

void LogBuffers::drop_front(std::size_t i, DropReason why) {
  auto& b = bufs_[i];
  if (on_drop_) on_drop_(b.front(), why);
  stats_[i].used -= b.front().size();
  ++(why == DropReason::wrap ? stats_[i].pruned : stats_[i].cleared);
  b.pop_front();
}

void LogBuffers::append(LogEntry e) {
  const auto i = static_cast<std::size_t>(e.id);
  auto& st = stats_[i];
  e.seq = next_seq_++;
  e.index = ++st.written;
  st.used += e.size();
  st.written_bytes += e.size();
  bufs_[i].push_back(std::move(e));
  if (st.used > st.capacity) {
    // Like logd before Android 12: down to 90% of the limit, oldest first.
    const std::size_t target = st.capacity / 10 * 9;
    while (st.used > target && !bufs_[i].empty()) drop_front(i, DropReason::wrap);
  }
}

void LogBuffers::count_unheld(LogId id, std::size_t bytes) {
  auto& st = stats_[static_cast<std::size_t>(id)];
  ++st.written;
  ++st.unheld;
  st.written_bytes += bytes;
}

void LogBuffers::store_summary(LogEntry e, std::uint32_t count, const std::string& names) {
  const auto i = static_cast<std::size_t>(e.id);
  auto& st = stats_[i];
  e.seq = next_seq_++;
  e.index = st.written;  // not counted: the lines it stands for were
  e.summary = count;
  e.prio = 'I';
  e.tag = "chatty";
  e.msg = names;
  e.app = -1;
  e.skipped = 0;
  e.davey = false;
  ++st.summaries;
  bufs_[i].push_back(std::move(e));  // no payload: prunes nothing
}

const LogEntry* LogBuffers::held_back(LogId id) const {
  const Squash& q = squash_[static_cast<std::size_t>(id)];
  return q.last && q.last_held_back ? &*q.last : nullptr;
}

namespace {

// LogBuffer.cpp identical(): the same source, within a minute of the line
// before, the same payload (events' liblog sums and audit lines aside).
bool identical(const LogEntry& e, const LogEntry& last) {
  return e.uid == last.uid && e.pid == last.pid && e.tid == last.tid &&
         e.wall_ns <= last.wall_ns + 60'000'000'000 && e.prio == last.prio && e.tag == last.tag && e.msg == last.msg;
}

}  // namespace

LogdVerdict LogBuffers::log_squashing(LogEntry e, const std::string& names) {
  Squash& q = squash_[static_cast<std::size_t>(e.id)];
  if (q.last) {
    const std::uint32_t count = q.dropped ? q.dropped->summary : 0;
    if (identical(e, *q.last)) {
      std::uint32_t n = count;
      if (q.dropped) {
        if (n == 65535) {  // USHRT_MAX: this summary is full, a new one starts
          store_summary(*q.dropped, n, q.dropped_names);
          n = 1;
        } else {
          ++n;
        }
      }
      if (n > 0) {
        // The held-back line is counted and becomes the summary.
        count_unheld(q.last->id, q.last->size());
        if (on_squash_) on_squash_(*q.last, false);
        q.dropped = std::move(q.last);
        q.dropped->summary = n;
        q.dropped_names = q.last_names;
      } else {
        q.dropped = *q.last;  // a copy of the run's first line: state 1
        q.dropped->summary = 0;
      }
      q.last = std::move(e);
      q.last_held_back = true;
      q.last_names = names;
      return LogdVerdict::held_back;
    }
    if (q.dropped) {
      if (count > 0) store_summary(*q.dropped, count, q.dropped_names);
      q.dropped.reset();
      // The run's last line, stored now with its own stamp.
      LogEntry last = std::move(*q.last);
      if (on_squash_) on_squash_(last, true);
      append(std::move(last));
    }
  }
  q.last = e;
  q.last_held_back = false;
  q.last_names = names;
  append(std::move(e));
  return LogdVerdict::stored;
}

void LogBuffers::clear(LogMask mask) {
  for (std::size_t i = 0; i < kLogIdCount; ++i) {
    if (!(mask & (LogMask{1} << i))) continue;
    while (!bufs_[i].empty()) drop_front(i, DropReason::clear);
  }
}

bool LogBuffers::set_capacity(LogMask mask, std::size_t bytes) {
  if (bytes < 64 * 1024 || bytes > 256u * 1024 * 1024) return false;
  for (std::size_t i = 0; i < kLogIdCount; ++i) {
    if (!(mask & (LogMask{1} << i))) continue;
    stats_[i].capacity = bytes;
    while (stats_[i].used > bytes && !bufs_[i].empty()) drop_front(i, DropReason::wrap);
  }
  return true;
}

void LogBuffers::reset() {
  for (std::size_t i = 0; i < kLogIdCount; ++i) {
    bufs_[i].clear();
    squash_[i] = Squash{};
    stats_[i] = BufferStats{};
    stats_[i].capacity = default_capacity_;
  }
}

std::vector<const LogEntry*> LogBuffers::read(LogMask mask, std::uint64_t from,
                                              std::size_t max) const {
  std::array<std::size_t, kLogIdCount> pos{};
  for (std::size_t i = 0; i < kLogIdCount; ++i) {
    pos[i] = (mask & (LogMask{1} << i)) ? lower_seq(bufs_[i], from) : bufs_[i].size();
  }
  std::vector<const LogEntry*> out;
  while (out.size() < max) {
    std::size_t best = kLogIdCount;
    for (std::size_t i = 0; i < kLogIdCount; ++i) {
      if (pos[i] < bufs_[i].size() &&
          (best == kLogIdCount || bufs_[i][pos[i]].seq < bufs_[best][pos[best]].seq)) {
        best = i;
      }
    }
    if (best == kLogIdCount) break;
    out.push_back(&bufs_[best][pos[best]++]);
  }
  return out;
}

std::size_t LogBuffers::entry_count(LogMask mask) const {
  std::size_t n = 0;
  for (std::size_t i = 0; i < kLogIdCount; ++i) {
    if (mask & (LogMask{1} << i)) n += bufs_[i].size();
  }
  return n;
}

std::uint64_t LogBuffers::seq_of_last(LogMask mask, std::size_t count, std::int32_t pid) const {
  // Walk back from the newest entries of the selected buffers.
  std::array<std::size_t, kLogIdCount> pos{};
  for (std::size_t i = 0; i < kLogIdCount; ++i) {
    pos[i] = (mask & (LogMask{1} << i)) ? bufs_[i].size() : 0;
  }
  std::uint64_t seq = next_seq_;
  for (std::size_t n = 0; n < count;) {
    std::size_t best = kLogIdCount;
    for (std::size_t i = 0; i < kLogIdCount; ++i) {
      if (pos[i] > 0 &&
          (best == kLogIdCount || bufs_[i][pos[i] - 1].seq > bufs_[best][pos[best] - 1].seq)) {
        best = i;
      }
    }
    if (best == kLogIdCount) break;
    const LogEntry& e = bufs_[best][--pos[best]];
    // logd's tail counts only the entries the reader's --pid lets through.
    if (pid >= 0 && e.pid != pid) continue;
    seq = e.seq;
    ++n;
  }
  return seq;
}

std::uint64_t LogBuffers::seq_at_time(LogMask mask, std::int64_t wall_ns, std::int32_t pid) const {
  // Stamps need not grow with the sequence (clock steps), so every selected
  // entry is looked at; the earliest sequence that qualifies wins.
  std::uint64_t seq = next_seq_;
  for (std::size_t i = 0; i < kLogIdCount; ++i) {
    if (!(mask & (LogMask{1} << i))) continue;
    for (const auto& e : bufs_[i]) {
      if (e.seq >= seq) break;
      if (e.wall_ns >= wall_ns && (pid < 0 || e.pid == pid)) {
        seq = e.seq;
        break;
      }
    }
  }
  return seq;
}

bool LogFormat::apply(std::string_view arg) {
  while (!arg.empty()) {
    std::size_t c = arg.find_first_of(", ");
    std::string_view w = arg.substr(0, c);
    arg = c == std::string_view::npos ? std::string_view{} : arg.substr(c + 1);
    if (w.empty()) continue;
    if (w == "brief") verb = LogVerb::brief;
    else if (w == "process") verb = LogVerb::process;
    else if (w == "tag") verb = LogVerb::tag;
    else if (w == "thread") verb = LogVerb::thread;
    else if (w == "raw") verb = LogVerb::raw;
    else if (w == "time") verb = LogVerb::time;
    else if (w == "threadtime") verb = LogVerb::threadtime;
    else if (w == "long") verb = LogVerb::long_;
    else if (w == "epoch") epoch = true;
    else if (w == "monotonic") monotonic = true;
    else if (w == "uid") uid = true;
    else if (w == "usec") usec = true;
    else if (w == "nsec") nsec = true;
    else if (w == "UTC") utc = true;
    else if (w == "year") year = true;
    else if (w == "zone") zone = true;
    else if (w == "color" || w == "printable" || w == "descriptive") continue;  // no effect here
    else return false;
  }
  return true;
}

std::string format_entry(const LogEntry& e, const LogFormat& f, std::int32_t tz_offset_s) {
  char ts[64];
  const std::int64_t t_ns = f.monotonic ? e.mono_ns : e.wall_ns;
  const std::int64_t secs = t_ns / 1'000'000'000;
  const std::int64_t frac_ns = t_ns % 1'000'000'000;
  int n = 0;
  if (f.epoch) {
    n = std::snprintf(ts, sizeof ts, "%19lld", static_cast<long long>(secs));
  } else if (f.monotonic) {
    n = std::snprintf(ts, sizeof ts, "%6lld", static_cast<long long>(secs));
  } else {
    const std::int32_t off = f.utc ? 0 : tz_offset_s;
    std::time_t tt = static_cast<std::time_t>(secs + off);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    n = static_cast<int>(std::strftime(ts, sizeof ts, f.year ? "%Y-%m-%d %H:%M:%S" : "%m-%d %H:%M:%S", &tm));
  }
  std::size_t len = static_cast<std::size_t>(n);
  if (f.nsec) {
    len += static_cast<std::size_t>(std::snprintf(ts + len, sizeof ts - len, ".%09lld", static_cast<long long>(frac_ns)));
  } else if (f.usec) {
    len += static_cast<std::size_t>(std::snprintf(ts + len, sizeof ts - len, ".%06lld", static_cast<long long>(frac_ns / 1000)));
  } else {
    len += static_cast<std::size_t>(std::snprintf(ts + len, sizeof ts - len, ".%03lld", static_cast<long long>(frac_ns / 1'000'000)));
  }
  if (f.zone && !f.epoch && !f.monotonic) {
    const std::int32_t off = f.utc ? 0 : tz_offset_s;
    const std::int32_t a = off < 0 ? -off : off;
    std::snprintf(ts + len, sizeof ts - len, " %c%02d%02d", off < 0 ? '-' : '+', a / 3600, a / 60 % 60);
  }

  // "%5s:" / "%5d:" before the pid; unknown uid prints six spaces.
  char uidbuf[24] = "";
  if (f.uid) {
    if (e.uid < 0) {
      std::snprintf(uidbuf, sizeof uidbuf, "      ");
    } else if (const char* nm = short_uid_name(e.uid)) {
      std::snprintf(uidbuf, sizeof uidbuf, "%5s:", nm);
    } else {
      std::snprintf(uidbuf, sizeof uidbuf, "%5d:", e.uid);
    }
  }
  std::string uid_tt = uidbuf;  // threadtime uses a space instead of the colon
  if (!uid_tt.empty() && uid_tt.back() == ':') uid_tt.back() = ' ';

  const int tl = static_cast<int>(e.tag.size());
  const char* tag = e.tag.c_str();
  std::string out;
  std::string_view msg = e.msg;
  char pre[512];
  // liblog repeats the prefix for every line of a multi-line message.
  do {
    std::size_t nl = msg.find('\n');
    std::string_view line = msg.substr(0, nl);
    msg = nl == std::string_view::npos ? std::string_view{} : msg.substr(nl + 1);
    int p = 0;
    switch (f.verb) {
      case LogVerb::brief:
        p = std::snprintf(pre, sizeof pre, "%c/%-8.*s(%s%5d): ", e.prio, tl, tag, uidbuf, e.pid);
        break;
      case LogVerb::process:
        p = std::snprintf(pre, sizeof pre, "%c(%s%5d) ", e.prio, uidbuf, e.pid);
        break;
      case LogVerb::tag:
        p = std::snprintf(pre, sizeof pre, "%c/%-8.*s: ", e.prio, tl, tag);
        break;
      case LogVerb::thread:
        p = std::snprintf(pre, sizeof pre, "%c(%s%5d:%5d) ", e.prio, uidbuf, e.pid, e.tid);
        break;
      case LogVerb::raw:
        break;
      case LogVerb::time:
        p = std::snprintf(pre, sizeof pre, "%s %c/%-8.*s(%s%5d): ", ts, e.prio, tl, tag, uidbuf, e.pid);
        break;
      case LogVerb::threadtime:
        p = std::snprintf(pre, sizeof pre, "%s %s%5d %5d %c %-8.*s: ", ts, uid_tt.c_str(), e.pid, e.tid,
                          e.prio, tl, tag);
        break;
      case LogVerb::long_:
        p = std::snprintf(pre, sizeof pre, "[ %s %s%5d:%5d %c/%-8.*s ]\n", ts, uidbuf, e.pid, e.tid, e.prio, tl, tag);
        break;
    }
    out.append(pre, static_cast<std::size_t>(std::clamp(p, 0, static_cast<int>(sizeof pre) - 1)));
    out.append(line);
    if (f.verb == LogVerb::process) {
      out += "  (";
      out += e.tag;
      out += ")";
    }
    out += f.verb == LogVerb::long_ ? "\n\n" : "\n";
  } while (!msg.empty());
  return out;
}

}  // namespace jank::devsim

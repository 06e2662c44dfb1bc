#include "parsers/logcat_cursor.h"

#include <algorithm>
#include <cstring>

#include "parsers/text_scan.h"

namespace jank::parsers {
namespace {

constexpr std::size_t kMaxPreambleBytes = 1 << 20;
// The held entries of one catch-up: the ring logd keeps is at most 256 MiB
// per buffer, but what a device is set to is a few MiB; beyond this the
// indices settle it.
constexpr std::size_t kMaxHeldBytes = 64 << 20;

// 8-4-4-4-12 hex digits, as the kernel prints boot_id.
bool is_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !scan::is_hex_digit(s[i])) return false;
  }
  return true;
}

// `pidof` prints one or more pids separated by spaces: the first.
std::optional<std::int64_t> leading_pid(std::string_view s) {
  const auto space = s.find(' ');
  const std::string_view first = s.substr(0, space);
  const auto pid = scan::parse_int<std::int64_t>(first);
  if (!pid || *pid <= 0 || *pid > (1 << 22)) return std::nullopt;
  for (char c : s.substr(first.size())) {
    if (c != ' ' && !scan::is_digit(c)) return std::nullopt;
  }
  return pid;
}

}  // namespace

std::uint64_t log_line_hash(std::string_view line) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : line) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h == 0 ? 1 : h;  // 0 means "unknown" in a cursor
}

std::uint64_t chatty_summary_lines(char priority, std::string_view tag, std::string_view message, bool same_thread) {
  if (priority != 'I' || tag != "chatty" || message.substr(0, 4) != "uid=" || message.size() < 5 ||
      message[4] < '0' || message[4] > '9') {
    return 0;
  }
  // From the end: " identical 3 lines" / " expire 1 line".
  std::string_view m = message;
  if (m.ends_with(" lines")) {
    m.remove_suffix(6);
  } else if (m.ends_with(" line")) {
    m.remove_suffix(5);
  } else {
    return 0;
  }
  const auto space = m.rfind(' ');
  if (space == std::string_view::npos) return 0;
  const auto n = scan::parse_int<std::uint64_t>(m.substr(space + 1));
  if (!n || *n == 0 || *n > 65535) return 0;
  m = m.substr(0, space);
  if (m.ends_with(" identical")) return same_thread ? *n : 0;
  return m.ends_with(" expire") ? *n : 0;
}

std::optional<StreamPreamble> parse_stream_preamble(std::string_view text, const std::vector<std::string>& buffers) {
  StreamPreamble p;
  scan::Lines lines(text);
  std::string_view raw;
  while (lines.next(raw)) {
    const std::string_view line = scan::trim(raw);
    if (p.boot_id.empty() && is_uuid(line)) {
      p.boot_id = scan::to_lower(line);
    } else if (p.logd_pid == 0) {
      if (auto pid = leading_pid(line)) p.logd_pid = *pid;
    }
    if (line.rfind("size/num", 0) == 0) break;  // the statistics start
  }
  p.lines = parse_logd_statistics(text);
  for (const auto& b : buffers) {
    const auto it = p.lines.find(b);
    if (it == p.lines.end() || it->second.now > it->second.total) return std::nullopt;
  }
  return p;
}

std::string_view resume_kind_name(ResumeKind kind) {
  switch (kind) {
    case ResumeKind::first_sight: return "first_sight";
    case ResumeKind::resume: return "resume";
    case ResumeKind::reboot: return "reboot";
    case ResumeKind::logd_restart: return "logd_restart";
  }
  return "unknown";
}

ResumePlan plan_resume(const LogCursor& saved, const StreamPreamble& now, const std::vector<std::string>& buffers) {
  ResumePlan plan;
  plan.boot_id = now.boot_id;
  plan.logd_pid = now.logd_pid;
  auto lines_of = [&](const std::string& b) {
    const auto it = now.lines.find(b);
    return it == now.lines.end() ? LogdBufferLines{} : it->second;
  };
  auto saved_of = [&](const std::string& b) {
    const auto it = saved.buffers.find(b);
    return it == saved.buffers.end() ? BufferCursor{} : it->second;
  };
  const bool new_boot = saved.valid && !saved.boot_id.empty() && !now.boot_id.empty() && saved.boot_id != now.boot_id;
  bool new_logd = saved.valid && saved.logd_pid != 0 && now.logd_pid != 0 && saved.logd_pid != now.logd_pid;
  for (const auto& b : buffers) new_logd = new_logd || (saved.valid && lines_of(b).total < saved_of(b).index);
  plan.kind = !saved.valid ? ResumeKind::first_sight
              : new_boot   ? ResumeKind::reboot
              : new_logd   ? ResumeKind::logd_restart
                           : ResumeKind::resume;
  for (const auto& b : buffers) {
    const auto l = lines_of(b);
    BufferPlan& p = plan.buffers[b];
    p.held = l.now;
    p.first_index = l.total - l.now + 1;
    plan.held_entries += l.now;
    switch (plan.kind) {
      case ResumeKind::first_sight:  // what is held is history
        p.counted = l.now;
        p.saved_index = l.total;
        break;
      case ResumeKind::reboot:
      case ResumeKind::logd_restart:  // a new log: nothing of it was counted
        break;
      case ResumeKind::resume: {
        const BufferCursor c = saved_of(b);
        const std::uint64_t unread = l.total - c.index;
        p.saved_index = c.index;
        p.anchor_hash = c.last_hash;
        p.counted = unread >= l.now ? 0 : l.now - unread;
        break;
      }
    }
  }
  return plan;
}

LogcatFollower::LogcatFollower(LogCursor saved, std::vector<std::string> buffers, std::string_view end_marker,
                               std::size_t max_line_bytes, LineSink sink)
    : saved_(std::move(saved)),
      buffers_(std::move(buffers)),
      end_marker_(end_marker),
      max_line_bytes_(max_line_bytes),
      sink_(std::move(sink)),
      cursor_(saved_) {
  // Whether the ring still holds each buffer's rebase entry decides a shortfall.
  for (const auto& [buffer, b] : saved_.buffers) watch(buffer, b.rebase_hash);
}

std::uint64_t LogcatFollower::lost_total() const {
  std::uint64_t n = 0;
  for (const auto& [buffer, lines] : lost_) n += lines;
  return n;
}

std::uint64_t LogcatFollower::unheld_total() const {
  std::uint64_t n = 0;
  for (const auto& [buffer, lines] : unheld_) n += lines;
  return n;
}

std::uint64_t LogcatFollower::ring_summary_excess(std::string_view buffer) const {
  const auto it = ring_excess_.find(buffer);
  return it == ring_excess_.end() ? 0 : it->second;
}

void LogcatFollower::watch(std::string_view buffer, std::uint64_t hash) {
  if (hash != 0) watch_[std::string(buffer)] = hash;
}

bool LogcatFollower::watched_held(std::string_view buffer) const {
  const auto it = watched_held_.find(buffer);
  return it != watched_held_.end() && it->second;
}

void LogcatFollower::feed(std::string_view bytes) {
  feed_lines(bytes);
  hash_deferred();
}

void LogcatFollower::hash_deferred() {
  for (Deferred& d : deferred_) {
    if (!d.set) continue;
    d.set = false;
    if (const auto it = cursor_.buffers.find(d.buffer); it != cursor_.buffers.end()) {
      it->second.last_hash = log_line_hash(d.text);
    }
  }
}

void LogcatFollower::feed_lines(std::string_view bytes) {
  while (!bytes.empty()) {
    const void* nl = std::memchr(bytes.data(), '\n', bytes.size());
    const std::size_t upto = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - bytes.data()) + 1 : bytes.size();
    // Only a line's head matters for its identity; an overlong line keeps
    // enough of it for the parser downstream to see that it is too long.
    const std::size_t keep = max_line_bytes_ + 2;
    std::string_view piece = bytes.substr(0, upto);
    bytes.remove_prefix(upto);
    if (nl == nullptr) {
      if (partial_.size() < keep) partial_.append(piece.substr(0, keep - partial_.size()));
      if (partial_.size() >= keep) overlong_ = true;
      return;
    }
    if (partial_.empty() && !overlong_) {
      line(piece);
      continue;
    }
    if (partial_.size() < keep) partial_.append(piece.substr(0, std::min(piece.size(), keep - partial_.size())));
    if (partial_.back() != '\n') partial_.push_back('\n');
    std::string whole = std::move(partial_);
    partial_.clear();
    overlong_ = false;
    line(whole);
  }
}

void LogcatFollower::line(std::string_view text) {
  switch (state_) {
    case State::preamble: return read_preamble_line(text);
    case State::failed: return;
    case State::catching_up:
    case State::following: return log_line(text);
  }
}

void LogcatFollower::read_preamble_line(std::string_view text) {
  const std::string_view bare = scan::trim(scan::strip_trailing_crs(text.substr(0, text.size() - 1)));
  if (bare != end_marker_) {
    if (preamble_.size() + text.size() > kMaxPreambleBytes) {
      state_ = State::failed;
      error_ = "no end marker in the first " + std::to_string(kMaxPreambleBytes) + " bytes";
      preamble_.clear();
      return;
    }
    preamble_.append(text);
    return;
  }
  auto parsed = parse_stream_preamble(preamble_, buffers_);
  preamble_.clear();
  if (!parsed) {
    state_ = State::failed;
    error_ = "logd statistics (logcat -S) missing or unreadable";
    return;
  }
  plan_ = plan_resume(saved_, *parsed, buffers_);
  state_ = State::catching_up;
  for (const auto& [name, p] : plan_->buffers) {
    Search& s = search_[name];
    s.plan = p;
    // Without an anchor, or with nothing held, the indices decide at once.
    if (p.anchor_hash == 0 || p.held == 0) settle_buffer(name, s, false, false);
  }
  flush();
}

bool LogcatFollower::identity_known() const {
  return !saved_.boot_id.empty() && !plan_->boot_id.empty() && saved_.logd_pid != 0 && plan_->logd_pid != 0;
}

void LogcatFollower::settle_buffer(const std::string& name, Search& s, bool anchor_found, bool forced) {
  s.settled = true;
  s.found = anchor_found;
  const BufferPlan& p = s.plan;
  if (anchor_found) {
    s.counted = s.seen;
  } else if (forced && p.anchor_hash != 0 && s.seen < p.held) {
    // Told to settle before the ring printed all it held: logd pruned some
    // between its statistics and the dump, the last counted one with them.
    // What was printed is the newest of what it held.
    s.counted = 0;
    ++unconfirmed_;
    const std::uint64_t first_printed = p.first_index + (p.held - s.seen);
    if (first_printed - 1 > p.saved_index) lost_[name] = first_printed - 1 - p.saved_index;
    s.last.index = first_printed - 1;
    s.last.last_hash = 0;
    s.last.rebase_hash = 0;
    return;
  } else if (p.anchor_hash != 0 && p.saved_index >= p.first_index && !identity_known()) {
    // logd's totals put the last counted entry in the ring and its content is
    // not there, and neither boot id nor logd's pid could be compared. The
    // cursor never runs ahead of logd's count (it misses what logd counted
    // without holding), so this is not the log that was counted: a reboot or
    // logd restart the preamble could not show. Every held entry is new; the
    // old log's unread tail is unknown, not lost. (With the same boot and
    // logd known, the entry was pruned in place, logd 7.x–11 turning a
    // spammy uid's entries into one "expire" summary: the indices decide.)
    s.counted = 0;
    ++unconfirmed_;
    new_log_buffers_.push_back(name);
    s.last.index = p.first_index - 1;
    s.last.last_hash = 0;
    s.last.rebase_hash = 0;
    return;
  } else {
    s.counted = p.counted;
    if (p.anchor_hash != 0 && p.saved_index >= p.first_index) ++unconfirmed_;  // pruned in place, see above
  }
  const std::uint64_t last_counted = p.first_index - 1 + s.counted;
  if (anchor_found) {
    // Every held entry after the anchor is new: nothing of this buffer was
    // lost. What logd counted beyond the cursor it never held as entries
    // (or a live stream never read them): rebased on its totals.
    // What logd counted past the cursor is lines it never held as entries,
    // as long as the ring still holds the entry the count was last rebased
    // at (nothing unread was pruned since); otherwise logd may have skipped
    // a live stream ahead: lost, an upper bound.
    if (last_counted > p.saved_index) {
      (watched_held(name) ? unheld_ : lost_)[name] += last_counted - p.saved_index;
    }
  } else if (last_counted > p.saved_index) {
    // What lies between the last counted entry and the first held one that
    // was not counted left the ring unread (wrap, logcat -c), unheld lines
    // among them (an upper bound then).
    lost_[name] = last_counted - p.saved_index;
  }
  s.last.index = last_counted;
  s.last.last_hash = anchor_found ? p.anchor_hash : 0;
  // Verdicts for what is held of this buffer already.
  std::uint64_t pos = 0;
  for (auto& e : held_) {
    if (e.buffer != name) continue;
    ++pos;
    e.drop = pos <= s.counted;
    if (pos == s.counted) s.last.last_hash = e.summary ? 0 : e.hash;
  }
  s.last.rebase_hash = s.last.last_hash;
}

bool LogcatFollower::anchor_found(std::string_view buffer) const {
  const auto it = search_.find(buffer);
  return settled_ && it != search_.end() && it->second.found;
}

void LogcatFollower::skip_ahead(std::string_view buffer, std::uint64_t lines, Gap why, std::uint64_t at) {
  if (!settled_) return;
  const auto it = cursor_.buffers.find(buffer);
  if (it == cursor_.buffers.end()) return;
  it->second.index += lines;
  it->second.rebase_hash = at;
  if (why == Gap::unheld && lines > 0) unheld_[it->first] += lines;
}

void LogcatFollower::settle() {
  if (state_ != State::catching_up) return;
  for (auto& [name, s] : search_) {
    if (!s.settled) settle_buffer(name, s, false, true);
  }
  flush();
}

// Once every buffer knows its counted entries, the cursor moves (all at
// once: one taken while catching up is still the saved one), the held
// entries go out in order, and once past the counted ones the stream follows.
void LogcatFollower::flush() {
  for (const auto& [name, s] : search_) {
    if (!s.settled) return;
  }
  if (!settled_) {
    settled_ = true;
    cursor_.valid = true;
    cursor_.boot_id = plan_->boot_id;
    cursor_.logd_pid = plan_->logd_pid;
    for (const auto& [name, s] : search_) cursor_.buffers[name] = s.last;
  }
  std::vector<HeldEntry> held = std::move(held_);
  held_.clear();
  held_bytes_ = 0;
  for (const auto& e : held) {
    std::string_view rest = e.lines;
    bool first = true;
    while (!rest.empty()) {
      const std::string_view one = rest.substr(0, rest.find('\n') + 1);
      rest.remove_prefix(one.size());
      if (e.drop) {
        ++dropped_lines_;
      } else {
        pass(e.buffer, one, e.device_ns, first && e.hash != 0, e.hash, first ? e.summary : 0, e.in_ring);
      }
      first = false;
    }
    last_dropped_ = e.drop;
  }
  for (const auto& [name, s] : search_) {
    if (s.seen < s.counted) return;
  }
  state_ = State::following;
}

void LogcatFollower::pass(std::string_view buffer, std::string_view text, std::optional<std::int64_t> ns,
                          bool new_entry, std::uint64_t hash, std::uint64_t summary, bool in_ring,
                          std::optional<std::string_view> deferred) {
  if (new_entry) {
    if (auto it = cursor_.buffers.find(buffer); it != cursor_.buffers.end()) {
      // A summary read after the ring stands for its lines of logd's count;
      // in the ring, the rebase on Total − Now already holds them.
      const std::uint64_t weight = summary > 0 && !in_ring ? summary : 1;
      it->second.index += weight;
      if (weight > 1) unheld_[it->first] += weight - 1;
      if (summary > 0 && in_ring) ring_excess_[it->first] += summary - 1;
      // logd writes a summary's text as it prints it: no anchor.
      it->second.last_hash = summary > 0 ? 0 : hash;
      Deferred* d = nullptr;
      for (Deferred& x : deferred_) {
        if (x.buffer == it->first) d = &x;
      }
      if (summary == 0 && deferred) {
        if (d == nullptr) d = &deferred_.emplace_back(Deferred{it->first, {}, false});
        d->text.assign(*deferred);
        d->set = true;
      } else if (d != nullptr) {
        d->set = false;
      }
    }
  }
  sink_(Line{text, ns, new_entry});
}

void LogcatFollower::log_line(std::string_view text) {
  const std::string_view bare = scan::strip_trailing_crs(text.substr(0, text.size() - 1));
  if (auto b = buffer_separator(bare)) {
    buffer_.assign(*b);
    has_entry_ = false;
    if (state_ == State::following) {
      pass(buffer_, text, std::nullopt, false, 0);
    } else {
      ++dropped_lines_;  // dividers are not entries; a stream prints its own
    }
    return;
  }
  std::optional<LogLine> header;
  if (bare.size() <= max_line_bytes_) {
    if (layout_ != LogLayout::unknown && layout_ != LogLayout::raw) header = parse_log_line(bare, layout_, parse_);
    if (!header) {
      header = detect_log_line(bare, parse_);
      if (header) layout_ = header->layout;
    }
  }
  bool new_entry = false;
  std::uint64_t summary = 0;
  bool in_ring = false;
  if (header && header->time.base == TimeBase::wall) {
    if (!has_entry_ || entry_.ns != header->time.ns || entry_.pid != header->pid || entry_.tid != header->tid ||
        entry_.priority != header->priority || entry_.tag != header->tag) {
      has_entry_ = true;
      entry_.ns = header->time.ns;
      entry_.pid = header->pid;
      entry_.tid = header->tid;
      entry_.priority = header->priority;
      entry_.tag.assign(header->tag);
      entry_ns_ = header->time.ns;
      new_entry = true;
      ++entries_;
      Source& last = last_source_[buffer_];
      summary = chatty_summary_lines(header->priority, header->tag, header->message,
                                     last.pid == header->pid && last.tid == header->tid);
      last = Source{header->pid, header->tid};
      const auto plan = plan_->buffers.find(buffer_);
      in_ring = plan != plan_->buffers.end() && ++printed_[buffer_] <= plan->second.held;
    }
  }
  // Following, an entry's hash matters only if it is its buffer's last one
  // when the feed ends (hash_deferred), or if the ring's content is checked.
  const bool defer = new_entry && state_ == State::following && !in_ring;
  const std::uint64_t hash = new_entry && !defer ? log_line_hash(bare) : 0;
  if (in_ring) {
    if (const auto w = watch_.find(buffer_); w != watch_.end() && w->second == hash) watched_held_[buffer_] = true;
  }
  if (state_ == State::following) {
    pass(buffer_, text, has_entry_ ? entry_ns_ : std::nullopt, new_entry, hash, summary, in_ring,
         defer ? std::optional<std::string_view>(bare) : std::nullopt);
    return;
  }
  // Catching up: entries are held until each buffer knows which of its held
  // entries were counted.
  if (new_entry) {
    hold_entry(HeldEntry{buffer_, std::string(text), entry_ns_, hash, false, summary, in_ring});
    if (held_bytes_ > kMaxHeldBytes) settle();
    return;
  }
  if (!held_.empty()) {
    held_.back().lines.append(text);  // a continuation line, or one without a header
    held_bytes_ += text.size();
  } else if (last_dropped_ || !settled_) {
    ++dropped_lines_;
  } else {
    pass(buffer_, text, has_entry_ ? entry_ns_ : std::nullopt, false, 0);
  }
}

void LogcatFollower::hold_entry(HeldEntry e) {
  held_bytes_ += e.lines.size() + e.buffer.size() + sizeof e;
  const std::uint64_t hash = e.hash;
  const auto it = search_.find(e.buffer);
  if (it == search_.end()) {  // a buffer not asked for: nothing of it was counted
    held_.push_back(std::move(e));
    return flush();
  }
  Search& s = it->second;
  ++s.seen;
  if (s.settled) {
    e.drop = s.seen <= s.counted;
    if (e.drop && s.seen == s.counted) {
      // The newest history entry on first sight: an anchor for the next stream.
      s.last.last_hash = e.summary ? 0 : hash;
      s.last.rebase_hash = s.last.last_hash;
      if (settled_) {
        cursor_.buffers[it->first].last_hash = s.last.last_hash;
        cursor_.buffers[it->first].rebase_hash = s.last.last_hash;
      }
    }
    held_.push_back(std::move(e));
    return flush();
  }
  held_.push_back(std::move(e));
  if (hash == s.plan.anchor_hash) {
    settle_buffer(it->first, s, true, false);
  } else if (s.seen >= s.plan.held) {
    settle_buffer(it->first, s, false, false);  // every held entry seen: the last counted one is gone
  }
  flush();
}

}  // namespace jank::parsers

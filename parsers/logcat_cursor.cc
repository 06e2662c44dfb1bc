#include "parsers/logcat_cursor.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace jank::parsers {
namespace {

constexpr std::size_t kMaxPreambleBytes = 1 << 20;

std::string_view strip_cr(std::string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// 8-4-4-4-12 hex digits, as the kernel prints boot_id.
bool is_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !is_hex(s[i])) return false;
  }
  return true;
}

// `pidof` prints one or more pids separated by spaces: the first.
std::optional<std::int64_t> leading_pid(std::string_view s) {
  const auto space = s.find(' ');
  const std::string_view first = s.substr(0, space);
  std::int64_t pid = 0;
  const auto [end, ec] = std::from_chars(first.data(), first.data() + first.size(), pid);
  if (ec != std::errc() || end != first.data() + first.size() || pid <= 0 || pid > (1 << 22)) return std::nullopt;
  for (char c : s.substr(first.size())) {
    if (c != ' ' && (c < '0' || c > '9')) return std::nullopt;
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

std::optional<StreamPreamble> parse_stream_preamble(std::string_view text, const std::vector<std::string>& buffers) {
  StreamPreamble p;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    const std::string_view line = trim(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    if (p.boot_id.empty() && is_uuid(line)) {
      p.boot_id.assign(line);
      std::transform(p.boot_id.begin(), p.boot_id.end(), p.boot_id.begin(),
                     [](char c) { return static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c); });
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

std::uint64_t ResumePlan::lost_total() const {
  std::uint64_t n = 0;
  for (const auto& [buffer, lines] : lost) n += lines;
  return n;
}

ResumePlan plan_resume(const LogCursor& saved, const StreamPreamble& now, const std::vector<std::string>& buffers) {
  ResumePlan plan;
  plan.cursor.valid = true;
  plan.cursor.boot_id = now.boot_id;
  plan.cursor.logd_pid = now.logd_pid;
  for (const auto& b : buffers) {
    if (const auto it = now.lines.find(b); it != now.lines.end()) plan.held_entries += it->second.now;
  }
  auto lines_of = [&](const std::string& b) {
    const auto it = now.lines.find(b);
    return it == now.lines.end() ? LogdBufferLines{} : it->second;
  };
  auto saved_of = [&](const std::string& b) {
    const auto it = saved.buffers.find(b);
    return it == saved.buffers.end() ? BufferCursor{} : it->second;
  };

  if (!saved.valid) {
    plan.kind = ResumeKind::first_sight;
    for (const auto& b : buffers) {
      const auto l = lines_of(b);
      plan.counted_entries += l.now;
      plan.cursor.buffers[b].index = l.total;
    }
    return plan;
  }

  const bool new_boot = !saved.boot_id.empty() && !now.boot_id.empty() && saved.boot_id != now.boot_id;
  bool new_logd = saved.logd_pid != 0 && now.logd_pid != 0 && saved.logd_pid != now.logd_pid;
  for (const auto& b : buffers) new_logd = new_logd || lines_of(b).total < saved_of(b).index;
  if (new_boot || new_logd) {
    // Everything this logd holds is new; what it dropped before the stream
    // was never read. What the old log held past our cursor is unknowable.
    plan.kind = new_boot ? ResumeKind::reboot : ResumeKind::logd_restart;
    for (const auto& b : buffers) {
      const auto l = lines_of(b);
      plan.cursor.buffers[b].index = l.total - l.now;
      if (l.total > l.now) plan.lost[b] = l.total - l.now;
    }
    return plan;
  }

  plan.kind = ResumeKind::resume;
  std::vector<std::string> anchors;  // buffers whose last counted entry is still held
  for (const auto& b : buffers) {
    const auto l = lines_of(b);
    const BufferCursor c = saved_of(b);
    const std::uint64_t unread = l.total - c.index;
    BufferCursor& next = plan.cursor.buffers[b];
    if (unread >= l.now) {
      // Every held line is unread; those before them left unread.
      next.index = l.total - l.now;
      if (unread > l.now) plan.lost[b] = unread - l.now;
    } else {
      next = c;
      plan.counted_entries += l.now - unread;
      if (c.last_hash != 0) anchors.push_back(b);
    }
  }
  // The newest counted entry still held ends the counted run: the cursor's
  // last buffer when its entry is held, else the only other candidate.
  if (std::find(anchors.begin(), anchors.end(), saved.last_buffer) != anchors.end()) {
    plan.anchor_hash = saved.buffers.at(saved.last_buffer).last_hash;
    plan.cursor.last_buffer = saved.last_buffer;
  } else if (anchors.size() == 1) {
    plan.anchor_hash = saved.buffers.at(anchors.front()).last_hash;
    plan.cursor.last_buffer = anchors.front();
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
      cursor_(saved_) {}

void LogcatFollower::feed(std::string_view bytes) {
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
      else overlong_ = true;
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
  const std::string_view bare = trim(strip_cr(text.substr(0, text.size() - 1)));
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
  cursor_ = plan_->cursor;
  if (plan_->counted_entries == 0) {
    start_following();
  } else {
    state_ = State::catching_up;
  }
}

void LogcatFollower::start_following() {
  state_ = State::following;
  dropping_entry_ = false;
}

void LogcatFollower::log_line(std::string_view text) {
  const std::string_view bare = strip_cr(text.substr(0, text.size() - 1));
  if (auto b = buffer_separator(bare)) {
    buffer_.assign(*b);
    entry_.reset();
    if (state_ == State::catching_up) {
      ++dropped_lines_;
    } else {
      sink_(Line{text, std::nullopt, false});
    }
    return;
  }
  std::optional<LogLine> header;
  if (bare.size() <= max_line_bytes_) {
    if (layout_ != LogLayout::unknown && layout_ != LogLayout::raw) header = parse_log_line(bare, layout_);
    if (!header) {
      header = detect_log_line(bare);
      if (header) layout_ = header->layout;
    }
  }
  bool new_entry = false;
  if (header && header->time.base == TimeBase::wall) {
    EntryKey key{header->time.ns, header->pid, header->tid, header->priority, std::string(header->tag)};
    if (!entry_ || !(*entry_ == key)) {
      entry_ = std::move(key);
      entry_ns_ = header->time.ns;
      new_entry = true;
      ++entries_;
    }
  }
  if (state_ == State::catching_up) {
    if (new_entry) {
      // The previous entry ended the counted run: this one is new.
      if (dropping_entry_ && (anchor_seen_ || dropped_entries_ >= plan_->counted_entries)) {
        start_following();
      } else {
        ++dropped_entries_;
        dropping_entry_ = true;
        if (plan_->anchor_hash != 0 && log_line_hash(bare) == plan_->anchor_hash) anchor_seen_ = true;
      }
    }
    if (state_ == State::catching_up) {
      ++dropped_lines_;
      return;
    }
  }
  if (new_entry) {
    if (auto it = cursor_.buffers.find(buffer_); it != cursor_.buffers.end()) {
      ++it->second.index;
      it->second.last_hash = log_line_hash(bare);
      cursor_.last_buffer = buffer_;
    }
  }
  sink_(Line{text, new_entry || entry_ ? entry_ns_ : std::nullopt, new_entry});
}

}  // namespace jank::parsers

#include "parsers/logcat_stream.h"

#include <algorithm>
#include <cstring>

#include "parsers/text_scan.h"

namespace jank::parsers {
namespace {

constexpr std::size_t kEncodingProbeBytes = 64;

// A metric message on a line whose header could not be read: worth reporting
// as a discard rather than as ordinary unmatched traffic.
bool looks_like_metric_message(std::string_view line) {
  std::size_t at = line.find("Skipped ");
  if (at != std::string_view::npos) {
    std::size_t p = at + 8;
    std::size_t digits = 0;
    while (p < line.size() && scan::is_digit(line[p])) ++p, ++digits;
    if (digits > 0 && line.substr(p, 8) == " frames!") return true;
  }
  return line.find("Davey! duration=") != std::string_view::npos;
}

}  // namespace

std::string_view discard_reason_name(DiscardReason reason) {
  switch (reason) {
    case DiscardReason::too_long: return "too_long";
    case DiscardReason::binary: return "binary";
    case DiscardReason::no_header: return "no_header";
    case DiscardReason::malformed: return "malformed";
    case DiscardReason::count_: break;
  }
  return "unknown";
}

std::uint64_t LineCounts::discarded_total() const {
  std::uint64_t total = 0;
  for (auto n : discarded) total += n;
  return total;
}

LineCounts& LineCounts::operator+=(const LineCounts& other) {
  received += other.received;
  duplicates += other.duplicates;
  parsed += other.parsed;
  unmatched += other.unmatched;
  for (std::size_t i = 0; i < discarded.size(); ++i) discarded[i] += other.discarded[i];
  return *this;
}

namespace {

// The start of the line holding region[at].
std::size_t line_start(std::string_view region, std::size_t at) {
  const void* nl = at == 0 ? nullptr : memrchr(region.data(), '\n', at);
  return nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - region.data()) + 1 : 0;
}

// The end (its '\n') of the line holding region[at]; the region ends with one.
std::size_t line_end(std::string_view region, std::size_t at) {
  const void* nl = std::memchr(region.data() + at, '\n', region.size() - at);
  return nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - region.data()) : region.size() - 1;
}

unsigned line_flags(std::string_view line) {
  unsigned flags = kLineExtra;
  if (line_has_trigger(line)) flags |= kLineTrigger;
  if (std::memchr(line.data(), '\0', line.size()) != nullptr) flags |= kLineNul;
  return flags;
}

}  // namespace

ScanResult scan_lines_for(std::string_view region, std::size_t max_line_bytes, LineVisitor& visitor,
                          const LogPatternSet* patterns) {
  if (patterns == nullptr || patterns->prefilter().empty()) return scan_lines(region, max_line_bytes, visitor);
  const PatternPrefilter& filter = patterns->prefilter();
  // The vector scan flags the trigger, NUL and other non-plain lines as
  // always; the candidates are merged in by address, in line order.
  struct Flagged final : LineVisitor {
    std::vector<std::pair<const char*, unsigned>> lines;
    void visit(std::string_view line, unsigned flags) override { lines.emplace_back(line.data(), flags); }
  } flagged;
  ScanResult result = scan_lines(region, max_line_bytes, flagged);
  std::size_t next = 0;
  // Visits the flagged lines before `p` as the scan saw them.
  auto flush = [&](const char* p) {
    while (next < flagged.lines.size() && flagged.lines[next].first < p) {
      const char* q = flagged.lines[next].first;
      const std::size_t end = line_end(region, static_cast<std::size_t>(q - region.data()));
      visitor.visit(std::string_view(q, static_cast<std::size_t>(region.data() + end - q)), flagged.lines[next++].second);
    }
  };
  // Visits the candidate line at `at` (with its flags and kLineExtra) after
  // the flagged lines before it; returns where the next line starts.
  auto emit = [&](std::size_t at) {
    const char* p = region.data() + at;
    flush(p);
    const std::size_t end = line_end(region, at);
    unsigned flags = kLineExtra;
    if (next < flagged.lines.size() && flagged.lines[next].first == p) {
      flags |= flagged.lines[next++].second;
    } else {
      --result.plain_lines;  // a plain line, visited after all
    }
    visitor.visit(region.substr(at, end - at), flags);
    return end + 1;
  };
  if (filter.every_line) {
    for (std::size_t at = 0; at < region.size();) at = emit(at);
    flush(region.data() + region.size());
    return result;
  }
  // The candidate lines, by their start: those holding a tag (one memmem
  // pass per distinct tag), and those after a line that starts with '['.
  std::vector<std::size_t> starts;
  for (const std::string& word : filter.words) {
    for (std::size_t at = 0; at < region.size();) {
      const void* hit = memmem(region.data() + at, region.size() - at, word.data(), word.size());
      if (hit == nullptr) break;
      const auto pos = static_cast<std::size_t>(static_cast<const char*>(hit) - region.data());
      starts.push_back(line_start(region, pos));
      at = line_end(region, pos) + 1;
    }
  }
  for (std::size_t at = 0; at < region.size();) {
    if (region[at] == '[') {
      const std::size_t after = line_end(region, at) + 1;
      if (after < region.size()) starts.push_back(after);
    }
    const void* nl = memmem(region.data() + at, region.size() - at, "\n[", 2);
    if (nl == nullptr) break;
    at = static_cast<std::size_t>(static_cast<const char*>(nl) - region.data()) + 1;
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  for (const std::size_t start : starts) emit(start);
  flush(region.data() + region.size());
  return result;
}

LogcatStream::LogcatStream(LogcatSink& sink, LogcatStreamOptions options)
    : sink_(sink), options_(options) {}

// Decides the encoding from the bytes held back so far and feeds them on,
// without their byte-order mark.
void LogcatStream::settle_encoding() {
  encoding_known_ = true;
  encoding_ = detect_encoding(head_);
  std::string head = std::move(head_);
  head_.clear();
  std::string_view data = head;
  if (encoding_ == Encoding::utf8_bom) data.remove_prefix(3);
  if (encoding_ == Encoding::utf16le_bom) data.remove_prefix(2);
  if (!data.empty()) feed(data);
}

void LogcatStream::feed(std::string_view bytes) {
  if (!encoding_known_) {
    head_.append(bytes);
    if (head_.size() >= kEncodingProbeBytes) settle_encoding();
    return;
  }
  if (encoding_ == Encoding::utf16le || encoding_ == Encoding::utf16le_bom) {
    decoded_.clear();
    utf16_.feed(bytes, decoded_);
    feed_utf8(decoded_);
    decoded_.clear();
    return;
  }
  feed_utf8(bytes);
}

void LogcatStream::finish() {
  if (!encoding_known_) settle_encoding();
  if (!partial_.empty() && !skipping_long_) {
    std::string last = std::move(partial_);
    partial_.clear();
    process_line(last);
  }
  partial_.clear();
  skipping_long_ = false;
}

void LogcatStream::feed_utf8(std::string_view text) {
  const std::size_t max = options_.max_line_bytes;
  // Complete the line left over from the previous chunk.
  if (!partial_.empty() || skipping_long_) {
    const void* nl = std::memchr(text.data(), '\n', text.size());
    std::size_t upto = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) : text.size();
    if (!skipping_long_) {
      // One byte of slack for the CR of a CRLF line; process_line checks exactly.
      if (partial_.size() + upto > max + 1) {
        partial_.clear();
        skipping_long_ = true;
        ++counts_.received;
        discard(DiscardReason::too_long);
      } else {
        partial_.append(text.substr(0, upto));
      }
    }
    if (nl == nullptr) return;
    text.remove_prefix(upto + 1);
    if (skipping_long_) {
      skipping_long_ = false;
    } else {
      std::string line = std::move(partial_);
      partial_.clear();
      process_line(line);
    }
  }
  const char* last_nl = static_cast<const char*>(memrchr(text.data(), '\n', text.size()));
  if (last_nl != nullptr) {
    std::size_t region_len = static_cast<std::size_t>(last_nl - text.data()) + 1;
    std::string_view region = text.substr(0, region_len);
    ScanResult scanned = scan_lines_for(region, max, *this, options_.patterns);
    counts_.received += scanned.plain_lines;
    counts_.unmatched += scanned.plain_lines;
    // The newest timestamp costs one header parse per chunk, not one per line.
    std::string_view body = region.substr(0, region.size() - 1);
    const char* prev_nl = static_cast<const char*>(memrchr(body.data(), '\n', body.size()));
    note_time(prev_nl ? body.substr(static_cast<std::size_t>(prev_nl - body.data()) + 1) : body);
    text.remove_prefix(region_len);
  }
  if (text.size() > max + 1) {
    skipping_long_ = true;
    ++counts_.received;
    discard(DiscardReason::too_long);
  } else {
    partial_.assign(text);
  }
}

namespace {
struct RegionCollector : LineVisitor {
  ScannedRegion* out;
  void visit(std::string_view line, unsigned flags) override { out->lines.emplace_back(line, flags); }
};
}  // namespace

ScannedRegion scan_region(std::string_view region, std::size_t max_line_bytes, const LogPatternSet* patterns) {
  ScannedRegion out;
  RegionCollector collector;
  collector.out = &out;
  out.plain_lines = scan_lines_for(region, max_line_bytes, collector, patterns).plain_lines;
  std::string_view body = region.substr(0, region.empty() ? 0 : region.size() - 1);
  const char* prev_nl = static_cast<const char*>(memrchr(body.data(), '\n', body.size()));
  out.last_line = prev_nl ? body.substr(static_cast<std::size_t>(prev_nl - body.data()) + 1) : body;
  return out;
}

void LogcatStream::assume_utf8() {
  if (encoding_known_) return;
  encoding_known_ = true;
  encoding_ = Encoding::utf8;
  std::string head = std::move(head_);
  head_.clear();
  if (!head.empty()) feed_utf8(head);
}

void LogcatStream::feed_scanned(const ScannedRegion& region) {
  for (const auto& [line, flags] : region.lines) handle(line, flags);
  counts_.received += region.plain_lines;
  counts_.unmatched += region.plain_lines;
  note_time(region.last_line);
}

void LogcatStream::process_line(std::string_view line) {
  if (scan::strip_cr(line).size() > options_.max_line_bytes) {
    ++counts_.received;
    discard(DiscardReason::too_long);
    return;
  }
  unsigned flags = line_flags(line);
  // One line: no pre-filter needed to let the patterns see it.
  if (options_.patterns == nullptr || options_.patterns->size() == 0) flags &= ~unsigned{kLineExtra};
  handle(line, flags);
  if ((flags & ~unsigned{kLineExtra}) == 0) note_time(line);
}

void LogcatStream::visit(std::string_view line, unsigned flags) { handle(line, flags); }

std::optional<LogLine> LogcatStream::header_for(std::string_view line) {
  if (layout_ != LogLayout::unknown && layout_ != LogLayout::raw) {
    if (auto parsed = parse_log_line(line, layout_, options_.parse)) return parsed;
  }
  auto parsed = detect_log_line(line, options_.parse);
  if (parsed) layout_ = parsed->layout;
  return parsed;
}

void LogcatStream::note_time(std::string_view last_line) {
  if (!options_.track_last_time) return;
  last_line = strip_tool_prefix(scan::strip_cr(last_line));
  if (last_line.empty() || layout_ == LogLayout::unknown || layout_ == LogLayout::raw) return;
  if (auto parsed = parse_log_line(last_line, layout_, options_.parse)) {
    if (parsed->time.base != TimeBase::none) last_time_ = parsed->time;
  }
}

void LogcatStream::handle(std::string_view raw_line, unsigned flags) {
  std::string_view line = scan::strip_cr(raw_line);
  ++counts_.received;
  if (line.size() > options_.max_line_bytes) {
    discard(DiscardReason::too_long);
    return;
  }
  if ((flags & kLineNul) != 0) {
    discard(DiscardReason::binary);
    return;
  }
  if (line.empty()) {
    pending_header_ = false;  // ends a `-v long` record
    ++counts_.unmatched;
    return;
  }
  line = strip_tool_prefix(line);
  if (!line.empty() && line.front() == '[') {
    for (LogLayout layout : {LogLayout::long_header, LogLayout::logcatapp}) {
      if (auto header = parse_log_line(line, layout, options_.parse)) {
        pending_ = *header;
        pending_tag_.assign(header->tag);
        pending_package_.assign(header->package);
        pending_uid_name_.assign(header->uid_name);
        pending_.tag = pending_tag_;
        pending_.package = pending_package_;
        pending_.uid_name = pending_uid_name_;
        pending_header_ = true;
        layout_ = layout;
        if (header->time.base != TimeBase::none) last_time_ = header->time;
        ++counts_.unmatched;
        return;
      }
    }
  }
  if ((flags & (kLineTrigger | kLineExtra)) == 0) {
    ++counts_.unmatched;
    return;
  }

  LogLine entry;
  if (auto header = header_for(line)) {
    entry = *header;
    pending_header_ = false;
  } else if (pending_header_) {
    entry = pending_;
    entry.message = line;
  } else if (layout_ == LogLayout::unknown || layout_ == LogLayout::raw) {
    // `logcat -v raw`: no header at all.
    entry.layout = LogLayout::raw;
    entry.message = line;
    if (emit_untagged(entry)) {
      layout_ = LogLayout::raw;
    } else if (looks_like_metric_message(line)) {
      discard(DiscardReason::no_header);
    } else {
      ++counts_.unmatched;
    }
    return;
  } else {
    if (looks_like_metric_message(line)) {
      discard(DiscardReason::no_header);
    } else {
      ++counts_.unmatched;
    }
    return;
  }

  if (entry.layout == LogLayout::thread && entry.tag.empty()) {
    // `logcat -v thread` prints no tag.
    if (entry.time.base != TimeBase::none) last_time_ = entry.time;
    const bool matched = match_patterns(entry);  // before emit_untagged names a tag
    if (!emit_untagged(entry)) {
      if (looks_like_metric_message(entry.message)) {
        discard(DiscardReason::malformed);
      } else {
        ++(matched ? counts_.parsed : counts_.unmatched);
      }
    }
    return;
  }
  if (entry.time.base != TimeBase::none) last_time_ = entry.time;
  bool counted = true;
  if (auto frames = parse_skipped_frames(entry.tag, entry.message)) {
    ++counts_.parsed;
    sink_.on_skipped_frames(entry, *frames);
  } else if (auto davey = parse_davey(entry.tag, entry.message)) {
    ++counts_.parsed;
    sink_.on_davey(entry, *davey);
  } else if (auto event = parse_process_event(entry.tag, entry.message)) {
    ++counts_.parsed;
    sink_.on_process_event(entry, *event);
  } else if ((entry.tag == "Choreographer" && entry.message.starts_with("Skipped ")) ||
             ((entry.tag == "OpenGLRenderer" || entry.tag == "HWUI") && entry.message.starts_with("Davey!"))) {
    discard(DiscardReason::malformed);
  } else {
    counted = false;
  }
  // A line is counted once: parsed when a pattern matched it and nothing else did.
  if (match_patterns(entry) && !counted) {
    ++counts_.parsed;
  } else if (!counted) {
    ++counts_.unmatched;
  }
}

// Every configured pattern that matches the line, to the sink.
bool LogcatStream::match_patterns(const LogLine& entry) {
  if (options_.patterns == nullptr || options_.patterns->match(entry, hits_) == 0) return false;
  for (const auto& hit : hits_) sink_.on_pattern(entry, hit);
  return true;
}

// Without a tag only the Choreographer and Davey messages are specific enough
// to be trusted on their own.
bool LogcatStream::emit_untagged(LogLine& entry) {
  if (auto frames = parse_skipped_frames("Choreographer", entry.message)) {
    entry.tag = "Choreographer";
    ++counts_.parsed;
    sink_.on_skipped_frames(entry, *frames);
    return true;
  }
  if (auto davey = parse_davey("HWUI", entry.message)) {
    entry.tag = "HWUI";
    ++counts_.parsed;
    sink_.on_davey(entry, *davey);
    return true;
  }
  return false;
}

}  // namespace jank::parsers

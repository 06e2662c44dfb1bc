// Turns a logcat byte stream (any layout, any of the encodings people save)
// into the events jank_exporter counts, and accounts for every line:
// received = parsed + unmatched + discarded{reason}.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/line_scan.h"
#include "parsers/log_patterns.h"
#include "parsers/logcat_events.h"
#include "parsers/logcat_line.h"
#include "parsers/text_input.h"

namespace jank::parsers {

enum class DiscardReason : std::uint8_t {
  too_long,   // longer than the line cap (no real log entry is: logd caps entries at 5 KiB)
  binary,     // NUL bytes inside the line
  no_header,  // a metric message whose line has no recognisable header
  malformed,  // a metric message whose values do not parse (e.g. N out of range)
  count_
};
inline constexpr std::size_t kDiscardReasons = static_cast<std::size_t>(DiscardReason::count_);
std::string_view discard_reason_name(DiscardReason reason);

struct LineCounts {
  std::uint64_t received = 0;
  // Lines dropped on resume because an earlier connection already counted
  // them (not part of received).
  std::uint64_t duplicates = 0;
  std::uint64_t parsed = 0;     // lines that produced an event
  std::uint64_t unmatched = 0;  // well-formed or not, nothing to count in them
  std::array<std::uint64_t, kDiscardReasons> discarded{};

  std::uint64_t discarded_total() const;
  LineCounts& operator+=(const LineCounts& other);
};

// Receives what the stream finds, in input order.
class LogcatSink {
 public:
  virtual ~LogcatSink() = default;
  virtual void on_skipped_frames(const LogLine& line, std::uint32_t frames) = 0;
  virtual void on_davey(const LogLine& line, const DaveyFrame& davey) = 0;
  virtual void on_process_event(const LogLine& line, const ProcessEvent& event) = 0;
  // A configured log pattern matched the line (LogcatStreamOptions::patterns).
  virtual void on_pattern(const LogLine& line, const LogPatternHit& hit) {
    (void)line;
    (void)hit;
  }
};

struct LogcatStreamOptions {
  std::size_t max_line_bytes = 16 * 1024;
  ParseOptions parse;
  // Keep last_time() (one header parse per chunk): replays need it; the
  // live daemon, fed line by line, knows each entry's time already.
  bool track_last_time = true;
  // Custom log counters, or null. Not owned: it outlives the stream (the
  // configuration holds it).
  const LogPatternSet* patterns = nullptr;
};

// scan_lines(), also visiting (flagged kLineExtra) the lines the patterns'
// pre-filter wants: every line, or those holding one of its tags and the
// line after a `[ header ]` line (`-v long` prints the message below it).
ScanResult scan_lines_for(std::string_view region, std::size_t max_line_bytes, LineVisitor& visitor,
                          const LogPatternSet* patterns);

// The lines of a region that need a full parse, found by scan_region() —
// which touches no stream state, so big inputs can be scanned on several
// threads and then fed, in order, with LogcatStream::feed_scanned().
struct ScannedRegion {
  std::vector<std::pair<std::string_view, unsigned>> lines;  // line, LineFlag bits
  std::uint64_t plain_lines = 0;
  std::string_view last_line;  // for the newest timestamp
};
// `region` must end with '\n' and be UTF-8; the views point into it.
ScannedRegion scan_region(std::string_view region, std::size_t max_line_bytes,
                          const LogPatternSet* patterns = nullptr);

class LogcatStream final : private LineVisitor {
 public:
  LogcatStream(LogcatSink& sink, LogcatStreamOptions options = {});

  // Any chunking of the input gives the same result.
  void feed(std::string_view bytes);
  // End of input: a last line without newline is processed.
  void finish();

  // For inputs known to be UTF-8 without a byte-order mark (the caller
  // stripped it): no bytes are held back to detect the encoding.
  void assume_utf8();
  // See ParseOptions::yearless_near_ns.
  void set_yearless_reference(std::int64_t host_wall_ns) { options_.parse.yearless_near_ns = host_wall_ns; }
  // A region scanned by scan_region(); the stream must hold no partial line
  // (feed it whole regions, ending with '\n').
  void feed_scanned(const ScannedRegion& region);

  const LineCounts& counts() const { return counts_; }
  // Layout of the last line whose header parsed (unknown before any).
  LogLayout layout() const { return layout_; }
  // Time of the newest line with a timestamp seen at a chunk boundary or in a
  // parsed line (TimeBase::none before any).
  LogTime last_time() const { return last_time_; }
  std::size_t buffered_bytes() const { return partial_.size() + decoded_.size(); }

 private:
  void settle_encoding();
  void feed_utf8(std::string_view text);
  void process_line(std::string_view line);
  void visit(std::string_view line, unsigned flags) override;
  void handle(std::string_view line, unsigned flags);
  bool emit_untagged(LogLine& entry);
  bool match_patterns(const LogLine& entry);
  void note_time(std::string_view last_line);
  std::optional<LogLine> header_for(std::string_view line);
  void discard(DiscardReason reason) { ++counts_.discarded[static_cast<std::size_t>(reason)]; }

  LogcatSink& sink_;
  LogcatStreamOptions options_;
  LineCounts counts_;
  LogLayout layout_ = LogLayout::unknown;
  LogTime last_time_;

  // Encoding, decided on the first bytes.
  bool encoding_known_ = false;
  Encoding encoding_ = Encoding::utf8;
  std::string head_;      // first bytes until the encoding is known
  Utf16leDecoder utf16_;
  std::string decoded_;   // scratch for transcoded chunks

  std::string partial_;   // an incomplete last line
  bool skipping_long_ = false;

  // `-v long` and LogcatApp put the message on the lines after the header.
  bool pending_header_ = false;
  LogLine pending_;
  std::string pending_tag_;
  std::string pending_package_;
  std::string pending_uid_name_;

  std::vector<LogPatternHit> hits_;  // scratch of match_patterns
};

}  // namespace jank::parsers

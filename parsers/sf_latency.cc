#include "parsers/sf_latency.h"

#include <limits>

#include "parsers/text_scan.h"

namespace jank::parsers {

namespace {

// SurfaceFlinger prints 127 rows; the cap only guards against hostile input.
constexpr std::size_t kMaxRows = 4096;

// Splits on runs of blanks (TAB in real dumps, spaces after copy/paste) into
// at most `max` integers. Returns how many were parsed, or -1 on a non-integer
// token or more than `max` tokens.
template <std::size_t N>
int split_ints(std::string_view line, std::array<std::int64_t, N>& out) {
  std::size_t count = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && scan::is_blank(line[i])) ++i;
    if (i >= line.size()) break;
    std::size_t start = i;
    while (i < line.size() && !scan::is_blank(line[i])) ++i;
    if (count >= N) return -1;
    auto v = scan::to_int<std::int64_t>(line.substr(start, i - start));
    if (!v) return -1;
    out[count++] = *v;
  }
  return static_cast<int>(count);
}

}  // namespace

SfLatency parse_sf_latency(std::string_view text) {
  SfLatency out;
  scan::Lines lines(scan::strip_utf8_bom(text));
  std::string_view raw;
  std::array<std::int64_t, 3> cells{};
  constexpr std::int64_t kPending = std::numeric_limits<std::int64_t>::max();
  while (lines.next(raw)) {
    std::string_view line = scan::trim(raw);
    if (line.empty()) continue;
    int n = split_ints(line, cells);
    if (n == 1 && !out.refresh_period_ns && out.rows.empty()) {
      out.refresh_period_ns = cells[0];
      continue;
    }
    // Rows before the period line are accepted too: the period may have been
    // cut off an excerpt, the rows still describe frames.
    if (n != 3 || out.rows.size() >= kMaxRows) {
      ++out.malformed_lines;
      continue;
    }
    if (cells[0] == 0 && cells[1] == 0 && cells[2] == 0) ++out.zero_rows;
    if (cells[0] == kPending || cells[1] == kPending || cells[2] == kPending) ++out.pending_rows;
    out.rows.push_back(cells);
  }
  return out;
}

}  // namespace jank::parsers

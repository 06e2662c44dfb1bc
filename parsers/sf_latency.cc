#include "parsers/sf_latency.h"

#include <limits>

#include "parsers/text_scan.h"

namespace jank::parsers {

namespace {

// SurfaceFlinger prints 127 rows; the cap only guards against hostile input.
constexpr std::size_t kMaxRows = 4096;

// Splits on runs of inline space (TAB in real dumps, spaces after copy/paste) into
// at most `max` integers. Returns how many were parsed, or -1 on a non-integer
// token or more than `max` tokens.
template <std::size_t N>
int split_ints(std::string_view line, std::array<std::int64_t, N>& out) {
  std::size_t count = 0;
  scan::Tokens tokens(line);
  std::string_view tok;
  while (tokens.next(tok)) {
    if (count >= N) return -1;
    auto v = scan::parse_int<std::int64_t>(tok);
    if (!v) return -1;
    out[count++] = *v;
  }
  return static_cast<int>(count);
}

// `C:\>adb shell dumpsys SurfaceFlinger --latency \"Name#0\"` gives Name#0.
std::string layer_of_command(std::string_view line) {
  std::string_view name = scan::trim(line.substr(line.find("--latency") + 9));
  auto is_quote = [](char c) { return c == '"' || c == '\'' || c == '\\'; };
  while (!name.empty() && is_quote(name.front())) name.remove_prefix(1);
  while (!name.empty() && is_quote(name.back())) name.remove_suffix(1);
  return std::string(name);
}

}  // namespace

std::vector<SfLatencySection> split_sf_latency_capture(std::string_view text) {
  text = scan::strip_utf8_bom(text);
  std::vector<SfLatencySection> out;
  std::size_t start = 0;
  std::string layer;
  bool has_data = false;  // the current section has its period or rows
  auto close = [&](std::size_t end) {
    if (end > start || !layer.empty()) out.push_back({layer, text.substr(start, end - start)});
  };
  scan::Lines lines(text);
  std::string_view raw;
  std::array<std::int64_t, 3> cells{};
  for (std::size_t at = 0; lines.next(raw); at = lines.offset()) {
    const std::string_view line = scan::trim(raw);
    if (line.empty()) continue;
    const int n = split_ints(line, cells);
    if (n < 0 && line.find("--latency") != std::string_view::npos) {
      close(at);
      layer = layer_of_command(line);
      start = lines.offset();
      has_data = false;
    } else if (n == 1 && has_data) {
      close(at);
      start = at;
    } else if (n == 1 || n == 3) {
      has_data = true;
    }
  }
  close(text.size());
  return out;
}

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

void count_printed_periods(std::string_view capture, std::map<std::int64_t, std::uint64_t>& counts) {
  for (const auto& section : split_sf_latency_capture(capture)) {
    const auto table = parse_sf_latency(section.text);
    if (table.refresh_period_ns && *table.refresh_period_ns > 0) ++counts[*table.refresh_period_ns];
  }
}

std::optional<std::int64_t> most_printed_period(const std::map<std::int64_t, std::uint64_t>& counts) {
  std::optional<std::int64_t> best;
  std::uint64_t best_count = 0;
  for (const auto& [period, count] : counts) {  // ascending: a tie keeps the shorter period
    if (count > best_count) {
      best = period;
      best_count = count;
    }
  }
  return best;
}

}  // namespace jank::parsers

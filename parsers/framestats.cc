#include "parsers/framestats.h"

#include <algorithm>

#include "parsers/text_scan.h"

namespace jank::parsers {

namespace {

// dumpsys keeps ~120 frames; anything far beyond that is not a real block, and
// the cap keeps memory bounded whatever the input.
constexpr std::size_t kMaxRows = 4096;

// The "Profile data in ms" table (a "Draw Prepare Process Execute" header and
// rows of decimals, TAB separated) can sit next to the CSV when profiling is
// on. It is not framestats data and not an error either.
bool is_profile_data_line(std::string_view line) {
  if (line.find(',') != std::string_view::npos) return false;
  return line.starts_with("Draw") || line.find('\t') != std::string_view::npos ||
         line.find('.') != std::string_view::npos;
}

// Drops the single empty cell a trailing comma produces.
std::string_view drop_trailing_comma(std::string_view line) {
  if (!line.empty() && line.back() == ',') line.remove_suffix(1);
  return line;
}

// Calls f(cell) for each comma-separated, trimmed cell; stops early when f
// returns false. Returns false if it was stopped.
template <typename F>
bool for_each_cell(std::string_view line, F&& f) {
  std::size_t start = 0;
  while (true) {
    std::size_t comma = line.find(',', start);
    std::size_t end = comma == std::string_view::npos ? line.size() : comma;
    if (!f(scan::trim(line.substr(start, end - start)))) return false;
    if (comma == std::string_view::npos) return true;
    start = comma + 1;
  }
}

}  // namespace

std::optional<std::size_t> FramestatsTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return i;
  }
  return std::nullopt;
}

FramestatsTable parse_framestats_block(std::string_view block) {
  FramestatsTable table;
  scan::Lines lines(scan::strip_utf8_bom(block));
  std::string_view raw;
  bool have_header = false;
  bool header_missing = false;  // first line was data: nothing can be mapped by name
  std::vector<std::int64_t> row;
  while (lines.next(raw)) {
    std::string_view line = scan::trim(raw);
    if (line.empty() || is_profile_data_line(line)) continue;
    line = drop_trailing_comma(line);
    if (!have_header && !header_missing) {
      std::string_view first = line.substr(0, line.find(','));
      if (scan::parse_int<std::int64_t>(scan::trim(first))) {
        header_missing = true;
        ++table.malformed_rows;
        continue;
      }
      for_each_cell(line, [&](std::string_view cell) {
        table.columns.emplace_back(cell);
        return true;
      });
      have_header = true;
      continue;
    }
    if (header_missing || table.rows.size() >= kMaxRows) {
      ++table.malformed_rows;
      continue;
    }
    row.clear();
    const std::size_t ncols = table.columns.size();
    bool ok = for_each_cell(line, [&](std::string_view cell) {
      if (row.size() >= ncols) return false;
      auto v = scan::parse_int<std::int64_t>(cell);
      if (!v) return false;
      row.push_back(*v);
      return true;
    });
    if (!ok || row.size() != ncols) {
      ++table.malformed_rows;
      continue;
    }
    table.rows.push_back(row);
  }
  return table;
}

}  // namespace jank::parsers

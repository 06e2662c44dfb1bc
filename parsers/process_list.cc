#include "parsers/process_list.h"

#include <array>
#include <optional>
#include <utility>

#include "parsers/text_scan.h"

namespace jank::parsers {

namespace {

// A device runs a few thousand processes at most; the cap bounds memory on
// hostile input.
constexpr std::size_t kMaxRows = 1 << 17;
constexpr std::size_t kMaxColumns = 64;

struct Layout {
  int user = -1, pid = -1, ppid = -1;
  int name = -1;  // token index where NAME starts in a row
};

// A header names PID and NAME (toybox may print CMD or ARGS for -o; NAME is
// what -A and plain ps print). Returns false for anything else.
bool parse_header(std::string_view line, Layout& out) {
  Layout l;
  scan::Tokens toks(line);
  std::string_view tok;
  int i = 0;
  bool has_pc = false, has_state = false;
  while (toks.next(tok)) {
    if (i >= static_cast<int>(kMaxColumns)) return false;
    if (tok == "USER") l.user = i;
    else if (tok == "PID") l.pid = i;
    else if (tok == "PPID") l.ppid = i;
    else if (tok == "PC") has_pc = true;
    else if (tok == "S" || tok == "STAT") has_state = true;
    else if (tok == "NAME" || tok == "CMD" || tok == "COMMAND" || tok == "ARGS") l.name = i;
    ++i;
  }
  if (l.pid < 0 || l.name < 0) return false;
  // Toolbox: "... WCHAN PC NAME" but rows carry "... <pc> S <name>".
  if (has_pc && !has_state) ++l.name;
  out = l;
  return true;
}

}  // namespace

ProcessList parse_process_list(std::string_view text) {
  ProcessList out;
  Layout layout;
  bool have_layout = false;
  scan::Lines lines(scan::strip_utf8_bom(text));
  std::string_view raw;
  std::array<std::string_view, kMaxColumns> cells{};
  std::array<std::size_t, kMaxColumns> starts{};
  while (lines.next(raw)) {
    std::string_view line = scan::trim(raw);
    if (line.empty()) continue;
    Layout l;
    if (parse_header(line, l)) {
      layout = l;
      have_layout = true;
      ++out.header_lines;
      continue;
    }
    if (!have_layout) {
      ++out.malformed_lines;
      continue;
    }
    // Tokenise only up to the NAME column; NAME is the rest of the line.
    scan::Tokens toks(line);
    std::string_view tok;
    int n = 0;
    while (n <= layout.name && toks.next(tok)) {
      cells[static_cast<std::size_t>(n)] = tok;
      starts[static_cast<std::size_t>(n)] = toks.pos();
      ++n;
    }
    if (n <= layout.name) {
      ++out.malformed_lines;
      continue;
    }
    auto pid = scan::parse_int<std::int32_t>(cells[static_cast<std::size_t>(layout.pid)]);
    std::optional<std::int32_t> ppid;
    if (layout.ppid >= 0) ppid = scan::parse_int<std::int32_t>(cells[static_cast<std::size_t>(layout.ppid)]);
    if (!pid || *pid < 0 || (layout.ppid >= 0 && (!ppid || *ppid < 0))) {
      ++out.malformed_lines;
      continue;
    }
    if (out.processes.size() >= kMaxRows) {
      ++out.dropped_rows;
      continue;
    }
    ProcessEntry e;
    e.pid = *pid;
    if (ppid) e.ppid = *ppid;
    if (layout.user >= 0) e.user = std::string(cells[static_cast<std::size_t>(layout.user)]);
    e.name = std::string(line.substr(starts[static_cast<std::size_t>(layout.name)]));
    e.kernel_thread = e.name.size() >= 2 && e.name.front() == '[' && e.name.back() == ']';
    out.processes.push_back(std::move(e));
  }
  return out;
}

}  // namespace jank::parsers

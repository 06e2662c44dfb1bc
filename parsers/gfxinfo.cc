#include "parsers/gfxinfo.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <system_error>
#include <utility>

#include "parsers/text_scan.h"

namespace jank::parsers {

namespace {

// A HISTOGRAM line has 154 bins (26 for the GPU one); the cap only guards
// against hostile input.
constexpr std::size_t kMaxBins = 4096;

constexpr std::string_view kSectionPrefix = "** Graphics info for pid";
constexpr std::string_view kDumpBanner = "Applications Graphics Acceleration Info:";
constexpr std::string_view kProfileDataMarker = "---PROFILEDATA---";
constexpr std::string_view kProfileDataInMs = "Profile data in ms:";
constexpr std::string_view kViewHierarchy = "View hierarchy:";
constexpr std::string_view kWindowKey = "Window:";

using U64Field = std::optional<std::uint64_t> GfxStats::*;
using U32Field = std::optional<std::uint32_t> GfxStats::*;

struct U64Key {
  std::string_view key;
  U64Field field;
  std::string_view unit;
};
struct U32Key {
  std::string_view key;
  U32Field field;
};

constexpr std::array<U64Key, 12> kU64Keys = {{
    {"Stats since", &GfxStats::stats_since_ns, "ns"},
    {"Total frames rendered", &GfxStats::total_frames, ""},
    {"Janky frames", &GfxStats::janky_frames, ""},
    {"Janky frames (legacy)", &GfxStats::janky_frames_legacy, ""},
    {"Number Missed Vsync", &GfxStats::missed_vsync, ""},
    {"Number High input latency", &GfxStats::high_input_latency, ""},
    {"Number Slow UI thread", &GfxStats::slow_ui_thread, ""},
    {"Number Slow bitmap uploads", &GfxStats::slow_bitmap_uploads, ""},
    {"Number Slow issue draw commands", &GfxStats::slow_issue_draw_commands, ""},
    // Android 6 builds before the rename printed the same counter as "Slow draw".
    {"Number Slow draw", &GfxStats::slow_issue_draw_commands, ""},
    {"Number Frame deadline missed", &GfxStats::frame_deadline_missed, ""},
    {"Number Frame deadline missed (legacy)", &GfxStats::frame_deadline_missed_legacy, ""},
}};

constexpr std::array<U32Key, 8> kU32Keys = {{
    {"50th percentile", &GfxStats::p50_ms},
    {"90th percentile", &GfxStats::p90_ms},
    {"95th percentile", &GfxStats::p95_ms},
    {"99th percentile", &GfxStats::p99_ms},
    {"50th gpu percentile", &GfxStats::gpu_p50_ms},
    {"90th gpu percentile", &GfxStats::gpu_p90_ms},
    {"95th gpu percentile", &GfxStats::gpu_p95_ms},
    {"99th gpu percentile", &GfxStats::gpu_p99_ms},
}};

using scan::is_alpha;
using scan::is_digit;

// "<digits>[unit][ (anything)]", e.g. "9656484850794ns", "101ms", "2 (66.67%)".
// Anything else (a decimal comma, a stray word) is malformed.
template <typename T>
std::optional<T> parse_value(std::string_view v, std::string_view unit) {
  std::size_t i = 0;
  while (i < v.size() && is_digit(v[i])) ++i;
  auto num = scan::parse_int<T>(v.substr(0, i));
  if (!num) return std::nullopt;
  std::string_view rest = v.substr(i);
  if (!unit.empty() && rest.starts_with(unit)) rest.remove_prefix(unit.size());
  rest = scan::trim(rest);
  if (!rest.empty() && rest.front() != '(') return std::nullopt;
  return num;
}

// "5ms=6 6ms=14 …": keeps every well-formed bin in order; false if any token
// was malformed (the good bins are still kept).
bool parse_histogram(std::string_view v, std::vector<HistogramBin>& bins) {
  bins.clear();
  bool ok = true;
  scan::Tokens tokens(v);
  std::string_view tok;
  while (tokens.next(tok)) {
    std::size_t eq = tok.find("ms=");
    std::optional<std::uint32_t> label;
    std::optional<std::uint64_t> count;
    if (eq != std::string_view::npos) {
      label = scan::parse_int<std::uint32_t>(tok.substr(0, eq));
      count = scan::parse_int<std::uint64_t>(tok.substr(eq + 3));
    }
    if (!label || !count || bins.size() >= kMaxBins) {
      ok = false;
      continue;
    }
    bins.push_back(HistogramBin{*label, *count});
  }
  return ok;
}

// "com.pkg/com.pkg.Activity/android.view.ViewRootImpl@6b40547 (visibility=0)"
// → the same without the visibility state, which is not part of the name.
std::string_view view_root_name(std::string_view line) {
  std::size_t vis = line.rfind(" (visibility=");
  if (vis != std::string_view::npos && line.back() == ')') line = scan::trim(line.substr(0, vis));
  return line;
}

bool is_view_root_line(std::string_view line) {
  return line.find("ViewRootImpl@") != std::string_view::npos ||
         line.find("(visibility=") != std::string_view::npos;
}

// Fields of a line split on tabs and spaces, at most N + 1 of them (one more
// than any caller accepts, so a hostile line costs no more than a short one).
template <std::size_t N>
std::size_t split_fields(std::string_view line, std::array<std::string_view, N + 1>& out) {
  std::size_t n = 0;
  scan::Tokens tokens(line);
  while (n < out.size() && tokens.next(out[n])) ++n;
  return n;
}

// "Draw Process Execute" (Android 4.x) → 3, "Draw Prepare Process Execute"
// (5+) → 4, anything else → 0.
std::size_t profile_header_columns(std::string_view line) {
  if (!line.starts_with("Draw")) return 0;
  std::array<std::string_view, 5> f;
  const std::size_t n = split_fields<4>(line, f);
  if (n == 3 && f[0] == "Draw" && f[1] == "Process" && f[2] == "Execute") return 3;
  if (n == 4 && f[0] == "Draw" && f[1] == "Prepare" && f[2] == "Process" && f[3] == "Execute") return 4;
  return 0;
}

// A cell as "%3.2f" prints it: digits with an optional fraction. Android 4.x
// formats with Java's printf in the app's locale, hence a decimal comma is
// accepted too. No sign other than a leading '-', no exponent, no inf/nan.
std::optional<double> parse_ms(std::string_view v) {
  // 64 chars hold any float "%3.2f" can print (FLT_MAX has 39 digits).
  std::array<char, 64> buf{};
  if (v.empty() || v.size() > buf.size()) return std::nullopt;
  std::size_t i = v.front() == '-' ? 1 : 0;
  std::size_t digits = 0, frac_digits = 0;
  bool point = false;
  for (std::size_t k = i; k < v.size(); ++k) {
    const char c = v[k];
    if (is_digit(c)) {
      (point ? frac_digits : digits) += 1;
    } else if ((c == '.' || c == ',') && !point) {
      point = true;
    } else {
      return std::nullopt;
    }
  }
  if (digits == 0 || (point && frac_digits == 0)) return std::nullopt;
  for (std::size_t k = 0; k < v.size(); ++k) buf[k] = v[k] == ',' ? '.' : v[k];
  double out = 0;
  auto [ptr, ec] = std::from_chars(buf.data(), buf.data() + v.size(), out, std::chars_format::fixed);
  if (ec != std::errc() || ptr != buf.data() + v.size() || !std::isfinite(out)) return std::nullopt;
  return out;
}

// One table row with `columns` cells (3 or 4), or nullopt when malformed.
std::optional<GfxProfileRow> parse_profile_row(std::string_view line, std::size_t columns) {
  std::array<std::string_view, 5> f;
  if (split_fields<4>(line, f) != columns) return std::nullopt;
  std::array<double, 4> v{};
  for (std::size_t c = 0; c < columns; ++c) {
    auto ms = parse_ms(f[c]);
    if (!ms) return std::nullopt;
    // 4.x resets a printed slot to -1 and only overwrites the stages the
    // next frame runs, so -1 in Process/Execute means "stage not run".
    if (columns == 3 && c > 0 && *ms == -1.0) ms = 0.0;
    if (*ms < 0) return std::nullopt;
    v[c] = *ms == 0 ? 0.0 : *ms;  // "-0.00" (a tiny negative rounded) is zero
  }
  GfxProfileRow row;
  row.draw_ms = v[0];
  if (columns == 4) {
    row.prepare_ms = v[1];
    row.process_ms = v[2];
    row.execute_ms = v[3];
  } else {
    row.process_ms = v[1];
    row.execute_ms = v[2];
  }
  return row;
}

GfxWindow make_window(std::string name) {
  GfxWindow w;
  w.name = std::move(name);
  return w;
}

// Lines that can never be inside a PROFILEDATA block: an unclosed block ends
// before them (and the search for its closing marker stops there).
bool is_hard_stop(std::string_view line) {
  return line.starts_with(kSectionPrefix) || line.starts_with(kDumpBanner) ||
         line.starts_with(kWindowKey) || line.starts_with(kViewHierarchy) ||
         line.starts_with(kProfileDataInMs) || line.starts_with("Stats since:");
}

// Where a profile table stops: devices end it with a blank line; anything the
// main loop must see (a view root, a marker, a key with ':' or '=') also ends
// it. Every other line is a row, well-formed or not.
bool ends_profile_table(std::string_view line) {
  return line.empty() || is_hard_stop(line) || line == kProfileDataMarker || is_view_root_line(line) ||
         profile_header_columns(line) != 0 || line.find_first_of(":=") != std::string_view::npos;
}

// A line of prose (starts with a letter or '*', no comma) ends an unclosed
// PROFILEDATA block: CSV headers and rows always contain commas.
bool ends_unclosed_block(std::string_view line) {
  if (line.empty()) return false;
  if (is_hard_stop(line)) return true;
  return (is_alpha(line.front()) || line.front() == '*') && line.find(',') == std::string_view::npos;
}

enum class Mode : std::uint8_t {
  process,       // process-level lines (stats block, caches, …)
  profile_data,  // after "Profile data in ms:", between view roots
  window,        // inside a Window: block (or a view root that got its own stats)
  tail,          // "View hierarchy:" and the totals after it
};

class Parser {
 public:
  GfxinfoDump run(std::string_view text) {
    text = scan::strip_utf8_bom(text);
    dump_.lines = static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n'));
    if (!text.empty() && text.back() != '\n') ++dump_.lines;
    scan::Lines lines(text);
    std::string_view raw;
    while (lines.next(raw)) handle(scan::trim(raw), lines);
    return std::move(dump_);
  }

 private:
  void handle(std::string_view line, scan::Lines& lines) {
    if (line.empty()) return;
    // Only the first line after a table may adopt its window (blank lines skipped above).
    const bool after_table = std::exchange(table_window_open_, false);
    if (line.starts_with(kSectionPrefix)) return start_section(line);
    if (line.starts_with(kDumpBanner)) {
      // A new dump begins: what follows belongs to its own sections.
      proc_.reset();
      enter(Mode::process);
      return;
    }
    if (line == kProfileDataMarker) return read_profiledata(lines);
    if (line.starts_with(kWindowKey)) {
      std::string name(scan::trim(line.substr(kWindowKey.size())));
      if (after_table && !windows().empty()) {
        // Android 12+: the renderer of one view root prints its profile table,
        // then its "Window:" block; they describe the same window.
        windows().back().name = std::move(name);
      } else {
        windows().push_back(make_window(std::move(name)));
      }
      enter(Mode::window);
      return;
    }
    if (line.starts_with(kProfileDataInMs)) return enter(Mode::profile_data);
    if (line.starts_with(kViewHierarchy)) return enter(Mode::tail);
    if (std::size_t columns = profile_header_columns(line)) return read_profile_table(columns, lines);
    if ((mode_ == Mode::profile_data || mode_ == Mode::window) && is_view_root_line(line)) {
      enter(Mode::profile_data);
      pending_view_root_ = std::string(view_root_name(line));
      return;
    }
    handle_stats_line(line);
  }

  void enter(Mode m) {
    mode_ = m;
    pending_view_root_.reset();
  }

  void start_section(std::string_view line) {
    GfxProcess p;
    std::string_view rest = scan::trim(line.substr(kSectionPrefix.size()));
    if (rest.ends_with("**")) rest = scan::trim(rest.substr(0, rest.size() - 2));
    std::size_t i = 0;
    while (i < rest.size() && is_digit(rest[i])) ++i;
    auto pid = scan::parse_int<std::int32_t>(rest.substr(0, i));
    std::size_t open = rest.find('[');
    std::size_t close = rest.rfind(']');
    if (pid) p.pid = *pid;
    if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
      p.package = std::string(rest.substr(open + 1, close - open - 1));
    }
    if (!pid || open == std::string_view::npos) ++dump_.malformed_lines;
    dump_.processes.push_back(std::move(p));
    proc_ = dump_.processes.size() - 1;
    enter(Mode::process);
  }

  std::vector<GfxWindow>& windows() {
    return proc_ ? dump_.processes[*proc_].windows : dump_.orphan_windows;
  }

  // The stats block a key line belongs to, created on first use.
  GfxStats& stats_target() {
    if (mode_ == Mode::profile_data) {
      // Android 6 repeats the block under the view root: it is that window's,
      // never the process's.
      windows().push_back(make_window(pending_view_root_.value_or("")));
      enter(Mode::window);
    }
    if (mode_ == Mode::window && !windows().empty()) {
      auto& w = windows().back();
      if (!w.stats) w.stats.emplace();
      return *w.stats;
    }
    auto& s = proc_ ? dump_.processes[*proc_].stats : dump_.orphan_stats;
    if (!s) s.emplace();
    return *s;
  }

  void handle_stats_line(std::string_view line) {
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    std::string_view key = scan::trim(line.substr(0, colon));
    if (!is_gfx_stats_key(key)) return;
    if (!apply_gfx_stats_line(stats_target(), key, scan::trim(line.substr(colon + 1)))) ++dump_.malformed_lines;
  }

  // Called after an opening marker. Finds the closing marker without crossing
  // a line that cannot belong to the block; an unclosed block (an excerpt) ends
  // at the first prose line and the main loop resumes there. Each line is
  // scanned at most twice, so the whole parse stays linear.
  void read_profiledata(scan::Lines& lines) {
    const std::size_t begin = lines.offset();
    std::size_t end = begin;
    bool closed = false;
    std::string_view raw;
    while (true) {
      const std::size_t line_start = lines.offset();
      if (!lines.next(raw)) {
        end = line_start;
        break;
      }
      std::string_view line = scan::trim(raw);
      if (line == kProfileDataMarker) {
        end = line_start;
        closed = true;
        break;
      }
      if (is_hard_stop(line)) {
        end = line_start;
        break;
      }
    }
    if (!closed) {
      // Re-walk the scanned lines to cut the block at its first prose line.
      scan::Lines again(lines.text());
      again.seek(begin);
      end = begin;
      while (again.offset() < lines.text().size()) {
        if (!again.next(raw) || ends_unclosed_block(scan::trim(raw))) break;
        end = again.offset();
      }
      lines.seek(end);
    }
    FramestatsTable table = parse_framestats_block(lines.text().substr(begin, end - begin));
    table.closed = closed;
    store_table(std::move(table));
  }

  void store_table(FramestatsTable table) {
    if (mode_ == Mode::profile_data && pending_view_root_) {
      // Android 7-11: the CSV follows the view root line directly.
      windows().push_back(make_window(*pending_view_root_));
      enter(Mode::window);
    }
    if (mode_ == Mode::window && !windows().empty()) {
      windows().back().framestats = std::move(table);
    } else if (proc_) {
      dump_.processes[*proc_].framestats = std::move(table);
    } else {
      dump_.orphan_framestats.push_back(std::move(table));
    }
  }

  // Called after a "Draw\t…" header: reads rows up to the line that ends the
  // table, which the main loop then handles. The table belongs to the view
  // root named just before it (a new window, as for an Android 6 stats block);
  // a header with no view root before it gets an unnamed window, unless the
  // current window has no table yet.
  void read_profile_table(std::size_t columns, scan::Lines& lines) {
    bool created = false;
    if (mode_ != Mode::window || windows().empty() || windows().back().has_profile_table) {
      std::string name = mode_ == Mode::profile_data ? pending_view_root_.value_or("") : "";
      windows().push_back(make_window(std::move(name)));
      enter(Mode::window);
      created = true;
    }
    GfxWindow& w = windows().back();
    w.has_profile_table = true;
    std::string_view raw;
    while (true) {
      const std::size_t line_start = lines.offset();
      if (!lines.next(raw)) break;
      const std::string_view row = scan::trim(raw);
      if (ends_profile_table(row)) {
        lines.seek(line_start);
        break;
      }
      if (w.profile_rows.size() >= kMaxProfileRowsPerWindow) {
        ++dump_.profile_rows_discarded;
      } else if (auto r = parse_profile_row(row, columns)) {
        w.profile_rows.push_back(*r);
      } else {
        ++dump_.profile_rows_malformed;
      }
    }
    table_window_open_ = created;
  }

  GfxinfoDump dump_;
  std::optional<std::size_t> proc_;  // index into dump_.processes (stable across push_back)
  Mode mode_ = Mode::process;
  std::optional<std::string> pending_view_root_;
  bool table_window_open_ = false;  // the last window was just made by a profile table
};

}  // namespace

bool is_gfx_stats_key(std::string_view key) {
  return key == "HISTOGRAM" || key == "GPU HISTOGRAM" ||
         std::any_of(kU64Keys.begin(), kU64Keys.end(), [&](const U64Key& k) { return k.key == key; }) ||
         std::any_of(kU32Keys.begin(), kU32Keys.end(), [&](const U32Key& k) { return k.key == key; });
}

bool apply_gfx_stats_line(GfxStats& s, std::string_view key, std::string_view value) {
  for (const auto& k : kU64Keys) {
    if (key != k.key) continue;
    const auto v = parse_value<std::uint64_t>(value, k.unit);
    if (v) s.*k.field = *v;
    return v.has_value();
  }
  for (const auto& k : kU32Keys) {
    if (key != k.key) continue;
    const auto v = parse_value<std::uint32_t>(value, "ms");
    if (v) s.*k.field = *v;
    return v.has_value();
  }
  if (key == "HISTOGRAM" || key == "GPU HISTOGRAM") {
    return parse_histogram(value, key == "HISTOGRAM" ? s.histogram : s.gpu_histogram);
  }
  return false;
}

GfxinfoDump parse_gfxinfo(std::string_view text) {
  Parser p;
  return p.run(text);
}

}  // namespace jank::parsers

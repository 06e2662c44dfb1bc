#include "parsers/gfxinfo.h"

#include <algorithm>
#include <array>
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

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// "<digits>[unit][ (anything)]", e.g. "9656484850794ns", "101ms", "2 (66.67%)".
// Anything else (a decimal comma, a stray word) is malformed.
template <typename T>
std::optional<T> parse_value(std::string_view v, std::string_view unit) {
  std::size_t i = 0;
  while (i < v.size() && is_digit(v[i])) ++i;
  auto num = scan::to_int<T>(v.substr(0, i));
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
  std::size_t i = 0;
  while (i < v.size()) {
    while (i < v.size() && scan::is_blank(v[i])) ++i;
    if (i >= v.size()) break;
    std::size_t start = i;
    while (i < v.size() && !scan::is_blank(v[i])) ++i;
    std::string_view tok = v.substr(start, i - start);
    std::size_t eq = tok.find("ms=");
    std::optional<std::uint32_t> label;
    std::optional<std::uint64_t> count;
    if (eq != std::string_view::npos) {
      label = scan::to_int<std::uint32_t>(tok.substr(0, eq));
      count = scan::to_int<std::uint64_t>(tok.substr(eq + 3));
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

// Lines that can never be inside a PROFILEDATA block: an unclosed block ends
// before them (and the search for its closing marker stops there).
bool is_hard_stop(std::string_view line) {
  return line.starts_with(kSectionPrefix) || line.starts_with(kDumpBanner) ||
         line.starts_with(kWindowKey) || line.starts_with(kViewHierarchy) ||
         line.starts_with(kProfileDataInMs) || line.starts_with("Stats since:");
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
    if (line.starts_with(kSectionPrefix)) return start_section(line);
    if (line.starts_with(kDumpBanner)) {
      // A new dump begins: what follows belongs to its own sections.
      proc_.reset();
      enter(Mode::process);
      return;
    }
    if (line == kProfileDataMarker) return read_profiledata(lines);
    if (line.starts_with(kWindowKey)) {
      windows().push_back(GfxWindow{std::string(scan::trim(line.substr(kWindowKey.size()))), {}, {}});
      enter(Mode::window);
      return;
    }
    if (line.starts_with(kProfileDataInMs)) return enter(Mode::profile_data);
    if (line.starts_with(kViewHierarchy)) return enter(Mode::tail);
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
    auto pid = scan::to_int<std::int32_t>(rest.substr(0, i));
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
      windows().push_back(GfxWindow{pending_view_root_.value_or(""), {}, {}});
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
    std::string_view value = scan::trim(line.substr(colon + 1));
    for (const auto& k : kU64Keys) {
      if (key != k.key) continue;
      GfxStats& s = stats_target();
      if (auto v = parse_value<std::uint64_t>(value, k.unit)) {
        s.*k.field = *v;
      } else {
        ++dump_.malformed_lines;
      }
      return;
    }
    for (const auto& k : kU32Keys) {
      if (key != k.key) continue;
      GfxStats& s = stats_target();
      if (auto v = parse_value<std::uint32_t>(value, "ms")) {
        s.*k.field = *v;
      } else {
        ++dump_.malformed_lines;
      }
      return;
    }
    if (key == "HISTOGRAM" || key == "GPU HISTOGRAM") {
      GfxStats& s = stats_target();
      auto& bins = key == "HISTOGRAM" ? s.histogram : s.gpu_histogram;
      if (!parse_histogram(value, bins)) ++dump_.malformed_lines;
    }
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
      windows().push_back(GfxWindow{*pending_view_root_, {}, {}});
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

  GfxinfoDump dump_;
  std::optional<std::size_t> proc_;  // index into dump_.processes (stable across push_back)
  Mode mode_ = Mode::process;
  std::optional<std::string> pending_view_root_;
};

}  // namespace

GfxinfoDump parse_gfxinfo(std::string_view text) {
  Parser p;
  return p.run(text);
}

}  // namespace jank::parsers

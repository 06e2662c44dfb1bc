// Hand-written scanners for every logcat header layout. Field positions follow
// liblog's android_log_formatLogLine (logprint.cpp):
//   time:   "MM-DD hh:mm:ss" or "YYYY-MM-DD hh:mm:ss" (-v year), or "%19lld" epoch
//           seconds (-v epoch) / "%6lld" seconds since boot (-v monotonic), then
//           ".mmm" / ".uuuuuu" (-v usec) / ".nnnnnnnnn" (-v nsec), then " +hhmm"
//           (-v zone, calendar times only).
//   uid:    "%5s:" (name) or "%5d:" before the pid, six spaces when unknown; in
//           threadtime the ':' becomes a space.
//   tag:    "%-8.*s", i.e. padded with spaces to 8 and free text (spaces allowed).
// Everything here works on indices into the caller's string_view: no
// allocation, no exceptions, and every read is bounds-checked.
#include "parsers/logcat_line.h"

#include <array>
#include <cstddef>
#include <limits>

#include "parsers/text_scan.h"
#include "parsers/time_units.h"

namespace jank::parsers {
namespace {

using std::size_t;
using std::string_view;

// Header fields are padded with spaces (and tabs in hand-edited captures):
// blanks (scan::is_blank) separate them; anything else is part of a field.
using scan::is_blank;
using scan::is_digit;
using scan::is_word_char;
using scan::skip_blank;
using scan::trim_blank;

// V D I W E F S come from liblog; A (assert) is what Android Studio prints.
constexpr bool is_priority(char c) {
  return c == 'V' || c == 'D' || c == 'I' || c == 'W' || c == 'E' || c == 'F' || c == 'A' ||
         c == 'S';
}

// Reads exactly `width` digits.
bool fixed_digits(string_view s, size_t& i, int width, int& out) {
  int v = 0;
  for (int k = 0; k < width; ++k) {
    if (i >= s.size() || !is_digit(s[i])) return false;
    v = v * 10 + (s[i] - '0');
    ++i;
  }
  out = v;
  return true;
}

// Decimal 0..INT32_MAX (pids and tids; a pid cannot be negative or above 2^31-1).
bool to_id(string_view v, std::int32_t& out) {
  if (v.empty() || v.size() > 10) return false;
  std::int64_t x = 0;
  for (char c : v) {
    if (!is_digit(c)) return false;
    x = x * 10 + (c - '0');
  }
  if (x > std::numeric_limits<std::int32_t>::max()) return false;
  out = static_cast<std::int32_t>(x);
  return true;
}

// Reads a run of digits at i as a pid/tid.
bool read_id(string_view s, size_t& i, std::int32_t& out) {
  size_t b = i;
  while (i < s.size() && is_digit(s[i]) && i - b <= 10) ++i;
  return to_id(s.substr(b, i - b), out);
}

// A `-v uid` value: digits (app and system uids) or a short passwd name.
bool set_uid(string_view tok, LogLine& line) {
  if (tok.empty() || tok.size() > 16) return false;
  if (scan::all_digits(tok)) {
    if (tok.size() > 10) return false;
    std::int64_t x = 0;
    for (char c : tok) x = x * 10 + (c - '0');
    if (x > std::numeric_limits<std::uint32_t>::max()) return false;
    line.uid = x;
    return true;
  }
  for (char c : tok) {
    if (!is_word_char(c)) return false;
  }
  line.uid_name = tok;
  return true;
}

// ---------------------------------------------------------------- time

int days_in_month(int y, int m, bool year_known) {
  // Without a printed year, Feb 29 is real data from a leap year the caller
  // may not know about; accept it rather than drop the line.
  if (m == 2 && !year_known) return 29;
  return units::days_in_month(y, m);
}

// Years whose nanosecond timestamps fit in int64 (1677-09-21 .. 2262-04-11).
constexpr int kMinYear = 1678;
constexpr int kMaxYear = 2261;

// The year a stamp printed without one belongs to: the caller's default, or
// the one of the three around `near_ns` that puts the stamp nearest to it (a
// log read across New Year, a device a few time zones off).
int year_for(const ParseOptions& opt, int month, int day, std::int64_t second_of_day) {
  if (!opt.yearless_near_ns) return opt.default_year;
  const std::int64_t near_s = *opt.yearless_near_ns / units::kNsPerSecond;
  const int around = static_cast<int>(units::civil_from_days(units::floor_div(near_s, units::kSecondsPerDay)).year);
  int best = around;
  std::int64_t best_distance = -1;
  for (const int y : {around - 1, around, around + 1}) {
    if (y < kMinYear || y > kMaxYear || (month == 2 && day == 29 && !units::is_leap_year(y))) continue;
    const std::int64_t at = units::days_from_civil(y, month, day) * units::kSecondsPerDay + second_of_day;
    const std::int64_t distance = at > near_s ? at - near_s : near_s - at;
    if (best_distance < 0 || distance < best_distance) best = y, best_distance = distance;
  }
  return best;
}

// ".f" with 1..9 digits, scaled to nanoseconds (liblog prints 3, 6 or 9).
bool read_fraction(string_view s, size_t& i, std::int64_t& ns) {
  if (i >= s.size() || s[i] != '.') return false;
  ++i;
  size_t b = i;
  std::int64_t v = 0;
  while (i < s.size() && is_digit(s[i])) {
    if (i - b >= 9) return false;
    v = v * 10 + (s[i] - '0');
    ++i;
  }
  size_t n = i - b;
  if (n == 0) return false;
  for (size_t k = n; k < 9; ++k) v *= 10;
  ns = v;
  return true;
}

// Optional " +hhmm" / " -hhmm" (-v zone). Only consumed when well formed and
// followed by a field boundary, so a following pid is never mistaken for it.
bool read_zone(string_view s, size_t& i, std::int64_t& offset_sec) {
  if (i + 6 > s.size() || s[i] != ' ' || (s[i + 1] != '+' && s[i + 1] != '-')) return true;
  size_t j = i + 2;
  int hh = 0, mm = 0;
  if (!fixed_digits(s, j, 2, hh) || !fixed_digits(s, j, 2, mm)) return true;
  if (j < s.size() && !is_blank(s[j]) && s[j] != ':' && s[j] != ']') return true;
  if (hh > 23 || mm > 59) return false;  // looks like a zone but is impossible
  offset_sec = (hh * 3600 + mm * 60) * (s[i + 1] == '-' ? -1 : 1);
  i = j;
  return true;
}

// Parses a timestamp starting at s[i]; on success i is just past it.
bool parse_time(string_view s, size_t& i, const ParseOptions& opt, LogTime& out) {
  const size_t start = i;
  // -v epoch / -v monotonic right-align the seconds ("%19lld", "%6lld").
  size_t p = skip_blank(s, i);
  const size_t lead = p - start;
  const size_t d0 = p;
  std::uint64_t v = 0;
  while (p < s.size() && is_digit(s[p])) {
    if (p - d0 >= 19) return false;
    v = v * 10 + static_cast<std::uint64_t>(s[p] - '0');
    ++p;
  }
  const size_t nd = p - d0;
  if (nd == 0 || p >= s.size()) return false;

  if (s[p] == '-' && lead == 0 && (nd == 4 || nd == 2)) {
    int year = opt.default_year, month = 0, day = 0;
    bool year_known = false;
    if (nd == 4) {
      year = static_cast<int>(v);
      year_known = true;
      ++p;
      if (!fixed_digits(s, p, 2, month)) return false;
    } else {
      month = static_cast<int>(v);
    }
    if (p >= s.size() || s[p] != '-') return false;
    ++p;
    int hh = 0, mi = 0, ss = 0;
    if (!fixed_digits(s, p, 2, day)) return false;
    if (p >= s.size() || s[p] != ' ') return false;
    ++p;
    if (!fixed_digits(s, p, 2, hh) || p >= s.size() || s[p] != ':') return false;
    ++p;
    if (!fixed_digits(s, p, 2, mi) || p >= s.size() || s[p] != ':') return false;
    ++p;
    if (!fixed_digits(s, p, 2, ss)) return false;
    std::int64_t frac = 0;
    if (!read_fraction(s, p, frac)) return false;
    std::int64_t offset = 0;
    if (!read_zone(s, p, offset)) return false;
    if (!year_known && month >= 1 && month <= 12 && day >= 1 && day <= 31) {
      year = year_for(opt, month, day, hh * 3600 + mi * 60 + ss - offset);
    }
    if (year < kMinYear || year > kMaxYear || month < 1 || month > 12 || day < 1 ||
        day > days_in_month(year, month, year_known) || hh > 23 || mi > 59 || ss > 59) {
      return false;
    }
    const std::int64_t secs =
        units::days_from_civil(year, month, day) * units::kSecondsPerDay + hh * 3600 + mi * 60 + ss - offset;
    out.base = TimeBase::wall;
    out.ns = secs * units::kNsPerSecond + frac;
    i = p;
    return true;
  }

  if (s[p] != '.') return false;
  std::int64_t frac = 0;
  if (!read_fraction(s, p, frac)) return false;
  // Past this the nanosecond count would overflow int64.
  if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() / units::kNsPerSecond - 1)) {
    return false;
  }
  // Epoch seconds are printed 19 wide and are ≥ 1e9 for any real date; seconds
  // since boot are printed 6 wide and never reach 1e9 (31 years of uptime).
  out.base = (lead + nd >= 19 || nd >= 10) ? TimeBase::wall : TimeBase::monotonic;
  out.ns = static_cast<std::int64_t>(v) * units::kNsPerSecond + frac;
  i = p;
  return true;
}

// ------------------------------------------------------------ id groups

// "( root:  123)" / "(  123:  456)" / "10387:10387": up to three ':'-separated
// words with optional space padding. False on an empty or over-long word.
struct IdGroup {
  std::array<string_view, 3> tok;
  int n = 0;
};

bool read_id_group(string_view s, size_t& i, IdGroup& g) {
  g.n = 0;
  size_t p = i;
  for (;;) {
    p = skip_blank(s, p);
    size_t b = p;
    while (p < s.size() && is_word_char(s[p]) && p - b <= 16) ++p;
    if (p == b || p - b > 16) return false;
    g.tok[static_cast<size_t>(g.n++)] = s.substr(b, p - b);
    if (p < s.size() && s[p] == ':' && g.n < 3) {
      ++p;
      continue;
    }
    break;
  }
  i = p;
  return true;
}

// Assigns [uid:]pid[:tid] from a group. `with_tid` selects pid:tid layouts.
bool assign_ids(const IdGroup& g, bool with_tid, LogLine& line) {
  const int base = with_tid ? 2 : 1;
  int k = 0;
  if (g.n == base + 1) {
    if (!set_uid(g.tok[0], line)) return false;
    k = 1;
  } else if (g.n != base) {
    return false;
  }
  if (!to_id(g.tok[static_cast<size_t>(k)], line.pid)) return false;
  if (with_tid && !to_id(g.tok[static_cast<size_t>(k + 1)], line.tid)) return false;
  return true;
}

// Tag ends at the first ": " (or a ':' closing the line). Returns the index of
// the ':' or npos.
size_t find_tag_colon(string_view s, size_t from) {
  // A plain loop: the colon is normally within a few bytes (tags are short),
  // where a memchr call per candidate measured slower.
  for (size_t j = from; j < s.size(); ++j) {
    if (s[j] == ':' && (j + 1 == s.size() || s[j + 1] == ' ')) return j;
  }
  return string_view::npos;
}

string_view message_after_colon(string_view s, size_t colon) {
  size_t m = colon + 1;
  if (m < s.size() && s[m] == ' ') ++m;
  return s.substr(m);
}

// ------------------------------------------------------------- layouts

// "P/Tag(  [uid:]pid): msg" at s[i] (brief, and the tail of time).
bool parse_brief_tail(string_view s, size_t i, LogLine& line) {
  if (i + 2 > s.size() || !is_priority(s[i]) || s[i + 1] != '/') return false;
  const size_t tag_start = i + 2;
  // Tags are free text and may hold '(' themselves: take the first '(' that
  // opens a well-formed "([uid:]pid):" group.
  for (size_t j = s.find('(', tag_start); j != string_view::npos; j = s.find('(', j + 1)) {
    size_t p = j + 1;
    IdGroup g;
    if (!read_id_group(s, p, g)) continue;
    // ")" then ":" then a space or the end of the line.
    if (p + 1 >= s.size() || s[p] != ')' || s[p + 1] != ':') continue;
    if (p + 2 < s.size() && s[p + 2] != ' ') continue;
    LogLine tmp = line;
    if (!assign_ids(g, false, tmp)) continue;
    line = tmp;
    line.priority = s[i];
    line.tag = trim_blank(s.substr(tag_start, j - tag_start));
    line.message = message_after_colon(s, p + 1);
    return true;
  }
  return false;
}

bool parse_brief(string_view s, LogLine& line) { return parse_brief_tail(s, 0, line); }

bool parse_tag(string_view s, LogLine& line) {
  if (s.size() < 3 || !is_priority(s[0]) || s[1] != '/') return false;
  size_t c = find_tag_colon(s, 2);
  if (c == string_view::npos) return false;
  line.priority = s[0];
  line.tag = trim_blank(s.substr(2, c - 2));
  line.message = message_after_colon(s, c);
  return true;
}

// "P(  [uid:]pid) msg  (Tag)"
bool parse_process(string_view s, LogLine& line) {
  if (s.size() < 4 || !is_priority(s[0]) || s[1] != '(') return false;
  size_t p = 2;
  IdGroup g;
  if (!read_id_group(s, p, g) || p >= s.size() || s[p] != ')') return false;
  if (!assign_ids(g, false, line)) return false;
  ++p;
  if (p >= s.size() || s[p] != ' ') return false;
  ++p;
  if (s.back() != ')') return false;
  string_view rest = s.substr(p);
  size_t open = rest.rfind("  (");
  if (open == string_view::npos) return false;
  line.priority = s[0];
  line.message = rest.substr(0, open);
  line.tag = trim_blank(rest.substr(open + 3, rest.size() - open - 4));
  return true;
}

// "P(  [uid:]pid:  tid) msg"
bool parse_thread(string_view s, LogLine& line) {
  if (s.size() < 4 || !is_priority(s[0]) || s[1] != '(') return false;
  size_t p = 2;
  IdGroup g;
  if (!read_id_group(s, p, g) || p >= s.size() || s[p] != ')') return false;
  if (!assign_ids(g, true, line)) return false;
  ++p;
  if (p < s.size() && s[p] != ' ') return false;
  line.priority = s[0];
  line.message = p < s.size() ? s.substr(p + 1) : string_view{};
  return true;
}

// After the time: "[ uid] pid tid P Tag     : msg".
bool parse_threadtime_tail(string_view s, size_t i, LogLine& line) {
  if (i >= s.size() || !is_blank(s[i])) return false;
  std::array<string_view, 3> tok;
  int n = 0;
  size_t p = i;
  for (;;) {
    size_t b = skip_blank(s, p);
    if (b == p && n > 0) return false;
    p = b;
    if (p >= s.size()) return false;
    // Priority letter followed by a space ends the id columns.
    if (n >= 2 && is_priority(s[p]) && p + 1 < s.size() && s[p + 1] == ' ') break;
    if (n == 3) return false;
    while (p < s.size() && is_word_char(s[p]) && p - b <= 16) ++p;
    if (p == b || p - b > 16) return false;
    tok[static_cast<size_t>(n++)] = s.substr(b, p - b);
  }
  int k = 0;
  if (n == 3) {
    if (!set_uid(tok[0], line)) return false;
    k = 1;
  }
  if (!to_id(tok[static_cast<size_t>(k)], line.pid) ||
      !to_id(tok[static_cast<size_t>(k + 1)], line.tid)) {
    return false;
  }
  const size_t tag_start = p + 2;
  size_t c = find_tag_colon(s, tag_start);
  if (c == string_view::npos) return false;
  line.priority = s[p];
  line.tag = trim_blank(s.substr(tag_start, c - tag_start));
  line.message = message_after_colon(s, c);
  return true;
}

// After the time: " P/Tag(pid): msg", or Eclipse/DDMS ": P/Tag(pid): msg".
bool parse_time_tail(string_view s, size_t i, LogLine& line) {
  if (i < s.size() && s[i] == ':') ++i;
  if (i >= s.size() || !is_blank(s[i])) return false;
  return parse_brief_tail(s, skip_blank(s, i), line);
}

// After the time: "  pid-tid" and then '/' (legacy Studio) or spaces (new Studio).
bool read_pid_dash_tid(string_view s, size_t& i, LogLine& line) {
  if (i >= s.size() || !is_blank(s[i])) return false;
  size_t p = skip_blank(s, i);
  if (!read_id(s, p, line.pid) || p >= s.size() || s[p] != '-') return false;
  ++p;
  if (!read_id(s, p, line.tid)) return false;
  i = p;
  return true;
}

// Studio 1.x-3.x: "pid-tid/package P/Tag: msg" (old versions: U+FE55 "﹕").
bool parse_studio_legacy_tail(string_view s, size_t i, LogLine& line) {
  if (!read_pid_dash_tid(s, i, line) || i >= s.size() || s[i] != '/') return false;
  size_t b = ++i;
  while (i < s.size() && !is_blank(s[i])) ++i;
  if (i == b || i >= s.size()) return false;
  line.package = s.substr(b, i - b);
  i = skip_blank(s, i);
  if (i + 2 > s.size() || !is_priority(s[i]) || s[i + 1] != '/') return false;
  const size_t tag_start = i + 2;
  constexpr string_view kSmallColon = "\xEF\xB9\x95";  // U+FE55 in UTF-8
  for (size_t j = tag_start; j < s.size(); ++j) {
    if (s[j] == ':' && (j + 1 == s.size() || s[j + 1] == ' ')) {
      line.priority = s[i];
      line.tag = trim_blank(s.substr(tag_start, j - tag_start));
      line.message = message_after_colon(s, j);
      return true;
    }
    if (s[j] == kSmallColon[0] && s.substr(j, 3) == kSmallColon) {
      line.priority = s[i];
      line.tag = trim_blank(s.substr(tag_start, j - tag_start));
      size_t m = j + 3;
      if (m < s.size() && s[m] == ' ') ++m;
      line.message = s.substr(m);
      return true;
    }
  }
  return false;
}

// Studio Dolphin+: "pid-tid  Tag<pad>  package<pad>  P  msg". Tags may contain
// spaces ("Sync MediaStore") or be ellipsized, so anchor on the priority
// column: the first lone priority letter followed by two spaces (or the end of
// the line); the word before it is the package, the rest is the tag.
bool parse_studio_tail(string_view s, size_t i, LogLine& line) {
  if (!read_pid_dash_tid(s, i, line) || i >= s.size() || !is_blank(s[i])) return false;
  const size_t rest = skip_blank(s, i);
  for (size_t k = rest + 1; k < s.size(); ++k) {
    if (!is_priority(s[k]) || s[k - 1] != ' ') continue;
    const bool at_end = k + 1 == s.size() || (k + 2 == s.size() && s[k + 1] == ' ');
    if (!at_end && !(k + 2 < s.size() && s[k + 1] == ' ' && s[k + 2] == ' ')) continue;
    size_t pe = k - 1;
    while (pe > rest && s[pe - 1] == ' ') --pe;
    size_t ps = pe;
    while (ps > rest && s[ps - 1] != ' ') --ps;
    if (ps == pe) continue;
    line.priority = s[k];
    line.package = s.substr(ps, pe - ps);
    line.tag = trim_blank(s.substr(rest, ps - rest));
    if (line.tag.empty()) {  // package column hidden: the only word is the tag
      line.tag = line.package;
      line.package = {};
    }
    line.message = at_end ? string_view{} : s.substr(k + 3);
    return true;
  }
  return false;
}

// "[ time [uid:]pid:tid P/Tag ]" (-v long) or "[time pid:tid P/Tag]" (LogcatApp).
bool parse_bracket_header(string_view s, bool spaced, const ParseOptions& opt, LogLine& line) {
  size_t e = s.size();
  while (e > 0 && is_blank(s[e - 1])) --e;
  if (e < 2 || s[0] != '[' || s[e - 1] != ']') return false;
  size_t p = 1;
  if (spaced) {
    if (s[1] != ' ') return false;
    p = 2;
  } else if (!is_digit(s[1])) {
    return false;
  }
  if (!parse_time(s, p, opt, line.time)) return false;
  if (p >= s.size() || !is_blank(s[p])) return false;
  IdGroup g;
  if (!read_id_group(s, p, g) || !assign_ids(g, true, line)) return false;
  if (p >= s.size() || !is_blank(s[p])) return false;
  p = skip_blank(s, p);
  if (p + 2 > e || !is_priority(s[p]) || s[p + 1] != '/') return false;
  line.priority = s[p];
  line.tag = trim_blank(s.substr(p + 2, e - 1 - (p + 2)));
  line.message = {};
  return true;
}

bool parse_after_time(string_view s, size_t i, LogLayout layout, LogLine& line) {
  switch (layout) {
    case LogLayout::time: return parse_time_tail(s, i, line);
    case LogLayout::threadtime: return parse_threadtime_tail(s, i, line);
    case LogLayout::studio: return parse_studio_tail(s, i, line);
    case LogLayout::studio_legacy: return parse_studio_legacy_tail(s, i, line);
    default: return false;
  }
}

bool has_time(LogLayout layout) {
  return layout == LogLayout::time || layout == LogLayout::threadtime ||
         layout == LogLayout::studio || layout == LogLayout::studio_legacy;
}

bool parse_untimed(string_view s, LogLayout layout, const ParseOptions& opt, LogLine& line) {
  switch (layout) {
    case LogLayout::brief: return parse_brief(s, line);
    case LogLayout::process: return parse_process(s, line);
    case LogLayout::tag: return parse_tag(s, line);
    case LogLayout::thread: return parse_thread(s, line);
    case LogLayout::raw: line.message = s; return true;
    case LogLayout::long_header: return parse_bracket_header(s, true, opt, line);
    case LogLayout::logcatapp: return parse_bracket_header(s, false, opt, line);
    default: return false;
  }
}

}  // namespace

std::optional<LogLine> parse_log_line(std::string_view line, LogLayout layout,
                                      const ParseOptions& options) {
  LogLine out;
  out.layout = layout;
  if (has_time(layout)) {
    size_t i = 0;
    if (!parse_time(line, i, options, out.time)) return std::nullopt;
    if (!parse_after_time(line, i, layout, out)) return std::nullopt;
    return out;
  }
  if (!parse_untimed(line, layout, options, out)) return std::nullopt;
  return out;
}

std::optional<LogLine> detect_log_line(std::string_view line, const ParseOptions& options) {
  if (line.empty()) return std::nullopt;
  const char c = line[0];
  LogLine out;
  if (c == '[') {
    for (LogLayout l : {LogLayout::long_header, LogLayout::logcatapp}) {
      out = LogLine{};
      out.layout = l;
      if (parse_untimed(line, l, options, out)) return out;
    }
    return std::nullopt;
  }
  if (is_digit(c) || c == ' ') {
    // Parse the timestamp once, then pick the tail from the first field after
    // it: "pid-tid" is a Studio layout ('/' right after the tid: 1.x-3.x),
    // a bare number or uid name is threadtime, "P/" or ':' is time.
    size_t i = 0;
    if (!parse_time(line, i, options, out.time)) return std::nullopt;
    size_t p = skip_blank(line, i);
    size_t q = p;
    while (q < line.size() && is_digit(line[q])) ++q;
    LogLayout l = LogLayout::threadtime;
    if (q > p && q < line.size() && line[q] == '-') {
      ++q;
      while (q < line.size() && is_digit(line[q])) ++q;
      l = (q < line.size() && line[q] == '/') ? LogLayout::studio_legacy : LogLayout::studio;
    } else if (q == p && p < line.size() &&
               (line[p] == ':' || (p + 1 < line.size() && line[p + 1] == '/'))) {
      l = LogLayout::time;
    }
    out.layout = l;
    if (parse_after_time(line, i, l, out)) return out;
    return std::nullopt;
  }
  if (!is_priority(c) || line.size() < 2) return std::nullopt;
  // "P(" : process (ends with "  (Tag)") before thread; "P/" : brief before tag,
  // because every brief line also reads as a tag line.
  const std::array<LogLayout, 2> order =
      line[1] == '(' ? std::array<LogLayout, 2>{LogLayout::process, LogLayout::thread}
                     : std::array<LogLayout, 2>{LogLayout::brief, LogLayout::tag};
  for (LogLayout l : order) {
    out = LogLine{};
    out.layout = l;
    if (parse_untimed(line, l, options, out)) return out;
  }
  return std::nullopt;
}

std::string_view strip_tool_prefix(std::string_view line) {
  // flutter run -v: "[ +652 ms] ", "[+1687 ms] ", "[        ] ".
  if (line.size() < 4 || line[0] != '[') return line;
  size_t j = 1;
  while (j < line.size() && j <= 16 && line[j] != ']') ++j;
  if (j >= line.size() || line[j] != ']' || j < 2) return line;
  string_view inner = line.substr(1, j - 1);
  string_view t = trim_blank(inner);
  if (!t.empty()) {
    // "+<digits> ms"
    if (t.size() < 5 || t[0] != '+' || t.substr(t.size() - 3) != " ms") return line;
    if (!scan::all_digits(t.substr(1, t.size() - 4))) return line;
  }
  if (j + 1 < line.size() && line[j + 1] == ' ') return line.substr(j + 2);
  if (j + 1 == line.size()) return line.substr(j + 1);
  return line;
}

std::optional<std::string_view> buffer_separator(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && line[i] == '-') ++i;
  if (i < 3 || i >= line.size() || line[i] != ' ') return std::nullopt;
  string_view rest = line.substr(i + 1);
  constexpr string_view kBegin = "beginning of ";
  constexpr string_view kSwitch = "switch to ";
  if (rest.substr(0, kBegin.size()) == kBegin) {
    rest.remove_prefix(kBegin.size());
  } else if (rest.substr(0, kSwitch.size()) == kSwitch) {
    rest.remove_prefix(kSwitch.size());
  } else {
    return std::nullopt;
  }
  rest = trim_blank(rest);
  if (rest.empty()) return std::nullopt;
  for (char c : rest) {
    if (!is_word_char(c)) return std::nullopt;
  }
  return rest;
}

std::optional<std::int64_t> first_wall_time(std::string_view text, const ParseOptions& options) {
  scan::Lines lines(text);
  std::string_view raw;
  while (lines.next(raw)) {
    const std::string_view line = strip_tool_prefix(scan::strip_cr(raw));
    std::optional<LogLine> parsed;
    if (!line.empty() && line.front() == '[') {
      for (const auto layout : {LogLayout::long_header, LogLayout::logcatapp}) {
        if (!parsed) parsed = parse_log_line(line, layout, options);
      }
    }
    if (!parsed) parsed = detect_log_line(line, options);
    if (parsed && parsed->time.base == TimeBase::wall) return parsed->time.ns;
  }
  return std::nullopt;
}

}  // namespace jank::parsers

// The text helpers of the whole exporter, written once: ASCII character
// classes, the four whitespace sets (each call site names the one its format
// needs), trimming, line and token walks, and checked number parsing.
// Everything works on string_views into the caller's text, allocates nothing
// (but to_lower, split and split_nonempty) and never consults the C locale: a
// byte of 0x80 or above is in no class. Unit-tested in tests/unit/test_text_scan.cc.
//
// devsim/ keeps its own copy of the few it needs (devsim/text.h): the
// simulator is the tests' oracle and may include nothing of the exporter.
#pragma once

#include <charconv>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

namespace jank::parsers::scan {

// ---- character classes ------------------------------------------------------

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }
// The characters of a C identifier: letters, digits and '_'.
constexpr bool is_word_char(char c) { return is_alnum(c) || c == '_'; }
constexpr bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
// 0-15 for a hex digit of either case, -1 for anything else.
constexpr int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Whitespace. Four sets, each the one before plus more bytes; which one a
// parser uses is part of its format (a tag may end in a vertical tab that
// logcat keeps, a dump line ends in the CR a Windows capture adds):
//   is_blank         ' ' '\t'                          (C's isblank)
//   is_blank_or_cr   ' ' '\t' '\r'
//   is_inline_space  ' ' '\t' '\r' '\v' '\f'           (isspace but '\n': whitespace within one line)
//   is_ascii_space   ' ' '\t' '\r' '\v' '\f' '\n'      (C's isspace in the "C" locale)
constexpr bool is_blank(char c) { return c == ' ' || c == '\t'; }
constexpr bool is_blank_or_cr(char c) { return is_blank(c) || c == '\r'; }
constexpr bool is_inline_space(char c) { return is_blank_or_cr(c) || c == '\v' || c == '\f'; }
constexpr bool is_ascii_space(char c) { return is_inline_space(c) || c == '\n'; }

// 'A'-'Z' to 'a'-'z'; every other byte as it is.
constexpr char to_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
inline std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = to_lower(c);
  return out;
}
// Equal but for the case of ASCII letters (HTTP header names, media types).
constexpr bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (to_lower(a[i]) != to_lower(b[i])) return false;
  }
  return true;
}

// ---- trimming and slicing ----------------------------------------------------

// `s` without the bytes `drop` holds for at its start and at its end.
template <typename Pred>
constexpr std::string_view trim_if(std::string_view s, Pred drop) {
  while (!s.empty() && drop(s.front())) s.remove_prefix(1);
  while (!s.empty() && drop(s.back())) s.remove_suffix(1);
  return s;
}
// Without inline space (is_inline_space) on both sides: the dump parsers'
// trim, which covers CRLF and any indentation.
constexpr std::string_view trim(std::string_view s) { return trim_if(s, is_inline_space); }
constexpr std::string_view trim_blank(std::string_view s) { return trim_if(s, is_blank); }
constexpr std::string_view trim_blank_or_cr(std::string_view s) { return trim_if(s, is_blank_or_cr); }
constexpr std::string_view trim_ascii_space(std::string_view s) { return trim_if(s, is_ascii_space); }

// The index of the first byte at or after `i` that is not blank (is_blank),
// or s.size().
constexpr std::size_t skip_blank(std::string_view s, std::size_t i) {
  while (i < s.size() && is_blank(s[i])) ++i;
  return i;
}

// `s` up to its first inline space (all of it when it has none): the value of
// a "key=value" among several on one line.
constexpr std::string_view first_word(std::string_view s) {
  std::size_t end = 0;
  while (end < s.size() && !is_inline_space(s[end])) ++end;
  return s.substr(0, end);
}

// A line without the one CR a CRLF line ends with.
constexpr std::string_view strip_cr(std::string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}
// A line without every CR it ends with (CR CR LF: a pty's CRLF saved again by
// a Windows tool), and nothing else removed.
constexpr std::string_view strip_trailing_crs(std::string_view s) {
  while (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

// Inputs usually arrive through decode_to_utf8 (parsers/text_input.h), which
// drops the BOM; raw UTF-8 files saved by Windows tools still start with one.
constexpr std::string_view strip_utf8_bom(std::string_view s) {
  if (s.size() >= 3 && s[0] == '\xEF' && s[1] == '\xBB' && s[2] == '\xBF') s.remove_prefix(3);
  return s;
}

// Removes `prefix` from the front of `s` when `s` starts with it.
constexpr bool consume_prefix(std::string_view& s, std::string_view prefix) {
  if (!s.starts_with(prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

// At least one byte, every one of them '0'-'9'.
constexpr bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!is_digit(c)) return false;
  }
  return true;
}

// Every field between the `sep` bytes, empty ones included: "a,,b" gives
// "a", "", "b"; "" gives one empty field.
inline std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    const std::size_t at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

// The non-empty fields between the `sep` bytes: "a,,b," gives "a", "b".
inline std::vector<std::string_view> split_nonempty(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (const std::string_view field : split(s, sep)) {
    if (!field.empty()) out.push_back(field);
  }
  return out;
}

// ---- line and token walks ---------------------------------------------------

// Walks a text line by line (LF separated; a final line without newline is
// delivered too; a CR stays with its line). offset() is the position of the
// next unread line, so a run of lines can be handed on as one contiguous view.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}

  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const std::size_t nl = text_.find('\n', pos_);
    const std::size_t end = nl == std::string_view::npos ? text_.size() : nl;
    line = text_.substr(pos_, end - pos_);
    pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
    return true;
  }
  std::size_t offset() const { return pos_; }
  void seek(std::size_t pos) { pos_ = pos; }
  std::string_view text() const { return text_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

// Calls `fn` with each line of `text` (a leading BOM dropped), trimmed
// (trim), skipping empty ones: the walk of the line-oriented dump parsers.
template <typename Fn>
void for_each_trimmed_line(std::string_view text, Fn&& fn) {
  Lines lines(strip_utf8_bom(text));
  std::string_view raw;
  while (lines.next(raw)) {
    const std::string_view line = trim(raw);
    if (!line.empty()) fn(line);
  }
}

// Splits on runs of separator bytes (inline space unless told otherwise).
// next() yields the tokens in order; pos() is where the last one began in the
// original view.
class Tokens {
 public:
  explicit Tokens(std::string_view s, bool (*is_separator)(char) = is_inline_space)
      : s_(s), is_separator_(is_separator) {}
  bool next(std::string_view& tok) {
    while (i_ < s_.size() && is_separator_(s_[i_])) ++i_;
    if (i_ >= s_.size()) return false;
    start_ = i_;
    while (i_ < s_.size() && !is_separator_(s_[i_])) ++i_;
    tok = s_.substr(start_, i_ - start_);
    return true;
  }
  std::size_t pos() const { return start_; }

 private:
  std::string_view s_;
  bool (*is_separator_)(char);
  std::size_t i_ = 0;
  std::size_t start_ = 0;
};

// ---- numbers ----------------------------------------------------------------

// The whole of `s` as an integer of type T in `base` (std::from_chars'
// rules): digits only, a leading '-' for signed types alone, no '+', no
// spaces, no "0x"; empty text, trailing bytes and overflow give nullopt.
template <typename T>
std::optional<T> parse_int(std::string_view s, int base = 10) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  T value{};
  const char* last = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), last, value, base);
  if (s.empty() || ec != std::errc() || ptr != last) return std::nullopt;
  return value;
}

// The longest "-?[0-9]*" prefix of `s` as T (parse_int's rules for that
// prefix); `used` receives its length on success.
template <typename T>
std::optional<T> leading_int(std::string_view s, std::size_t* used = nullptr) {
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  while (i < s.size() && is_digit(s[i])) ++i;
  auto v = parse_int<T>(s.substr(0, i));
  if (v && used != nullptr) *used = i;
  return v;
}

// The whole of `s` as a double in `format` (std::from_chars' rules: a leading
// '-', no '+', no spaces; "inf", "infinity" and "nan" of any case are read);
// empty text, trailing bytes and out-of-range values give nullopt.
inline std::optional<double> parse_double(std::string_view s,
                                          std::chars_format format = std::chars_format::general) {
  double value = 0;
  const char* last = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), last, value, format);
  if (s.empty() || ec != std::errc() || ptr != last) return std::nullopt;
  return value;
}

// parse_double, but only finite values: "inf" and "nan" give nullopt.
inline std::optional<double> parse_finite(std::string_view s,
                                          std::chars_format format = std::chars_format::general) {
  const auto v = parse_double(s, format);
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return v;
}

// parse_int or parse_double (general format), by the type of `out`, which is
// set only when the whole of `s` reads: for values checked in one condition.
template <typename T>
bool parse_into(std::string_view s, T& out) {
  std::optional<T> v;
  if constexpr (std::is_same_v<T, double>) {
    v = parse_double(s);
  } else {
    v = parse_int<T>(s);
  }
  if (v) out = *v;
  return v.has_value();
}

// The longest decimal prefix of `s` ("57.999996", "60", "120.00001fps") as a
// finite double; `s` must start with a digit or '.', so neither a sign nor
// "inf"/"nan" (which dumps print for open ranges, never a rate) is read.
// `used` receives the prefix length on success.
inline std::optional<double> leading_double(std::string_view s, std::size_t* used = nullptr) {
  if (s.empty() || !(is_digit(s.front()) || s.front() == '.')) return std::nullopt;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::fixed);
  if (ec != std::errc() || !std::isfinite(v)) return std::nullopt;
  if (used != nullptr) *used = static_cast<std::size_t>(ptr - s.data());
  return v;
}

// ---- keys -------------------------------------------------------------------

// What follows the first `key` in `line` (from `from` on) that starts a token:
// at the beginning of the line or after ASCII space or one of , { ( [ " ; —
// so "mRefreshRate=" never matches inside "mRefreshRateZone=". Up to the end
// of the line; nullopt when the key is not there.
constexpr std::optional<std::string_view> after_key(std::string_view line, std::string_view key,
                                                    std::size_t from = 0) {
  while (from <= line.size()) {
    const std::size_t p = line.find(key, from);
    if (p == std::string_view::npos) return std::nullopt;
    const char before = p == 0 ? ' ' : line[p - 1];
    const bool boundary = is_ascii_space(before) || before == ',' || before == '{' || before == '(' ||
                          before == '[' || before == '"' || before == ';';
    if (boundary) return line.substr(p + key.size());
    from = p + 1;
  }
  return std::nullopt;
}

}  // namespace jank::parsers::scan

// The simulator's text helpers, in one place. They are a deliberate copy of
// the few it needs from the exporter's parsers/text_scan.h, with the same
// names and definitions: the simulator is the tests' oracle, so it shares no
// code with what it checks, and tests/unit/test_include_graph.cc lets devsim/
// include only itself. ASCII only; the C locale is never consulted.
#pragma once

#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace jank::devsim::text {

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// The characters of a C identifier: letters, digits and '_'.
constexpr bool is_word_char(char c) { return is_alpha(c) || is_digit(c) || c == '_'; }
// ' ' '\t' '\r' '\v' '\f' '\n': C's isspace in the "C" locale.
constexpr bool is_ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n';
}
// 0-15 for a hex digit of either case, -1 for anything else.
constexpr int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// At least one byte, every one of them '0'-'9'.
constexpr bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!is_digit(c)) return false;
  }
  return true;
}

// The non-empty fields between the `sep` bytes: "a,,b," gives "a", "b".
inline std::vector<std::string> split_nonempty(std::string_view s, char sep) {
  std::vector<std::string> out;
  for (;;) {
    const std::size_t at = s.find(sep);
    if (at != 0 && !s.empty()) out.emplace_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

// A whole finite number as strtod reads it (sign and fraction allowed;
// control-channel words never hold spaces), nothing else.
inline bool parse_number(const std::string& s, double* out) {
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return !s.empty() && *end == '\0' && std::isfinite(*out);
}

}  // namespace jank::devsim::text

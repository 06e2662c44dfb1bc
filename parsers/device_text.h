// Small helpers shared by the device-output parsers (display_info,
// process_list, properties, foreground_app, package_info); internal to
// parsers/. Everything works on string_views into the caller's text.
#pragma once

#include <charconv>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string_view>
#include <system_error>

#include "parsers/text_scan.h"

namespace jank::parsers::dev {

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_space(char c) { return scan::is_blank(c) || c == '\n'; }

// A line without its trailing CR (CRLF captures) and nothing else removed.
inline std::string_view strip_cr(std::string_view s) {
  while (!s.empty() && (s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Parses the longest decimal floating-point prefix of `s` ("57.999996",
// "60", "120.00001fps"). Only finite values of plain decimal form are
// accepted: from_chars would also take "inf"/"nan", which dumps print for
// open ranges and which are never a rate. `used` receives the prefix length.
inline std::optional<double> leading_double(std::string_view s, std::size_t* used = nullptr) {
  if (s.empty() || !(is_digit(s.front()) || s.front() == '.')) return std::nullopt;
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::fixed);
  if (ec != std::errc() || !std::isfinite(v)) return std::nullopt;
  if (used != nullptr) *used = static_cast<std::size_t>(ptr - s.data());
  return v;
}

// Parses a leading run of digits as T; `used` receives its length.
template <typename T>
std::optional<T> leading_int(std::string_view s, std::size_t* used = nullptr) {
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  while (i < s.size() && is_digit(s[i])) ++i;
  auto v = scan::to_int<T>(s.substr(0, i));
  if (v && used != nullptr) *used = i;
  return v;
}

// Finds `key` in `line` where it starts a token (beginning of line or after a
// separator, so "mRefreshRate=" never matches inside "mRefreshRateZone=") and
// returns what follows it up to the end of the line.
inline std::optional<std::string_view> after_key(std::string_view line, std::string_view key,
                                                 std::size_t from = 0) {
  while (from <= line.size()) {
    std::size_t p = line.find(key, from);
    if (p == std::string_view::npos) return std::nullopt;
    char before = p == 0 ? ' ' : line[p - 1];
    bool boundary = is_space(before) || before == ',' || before == '{' || before == '(' || before == '[' ||
                    before == '"' || before == ';';
    if (boundary) return line.substr(p + key.size());
    from = p + 1;
  }
  return std::nullopt;
}

// Splits on runs of blanks. next() yields tokens; pos() is where the last
// token began in the original view.
class Tokens {
 public:
  explicit Tokens(std::string_view s) : s_(s) {}
  bool next(std::string_view& tok) {
    while (i_ < s_.size() && scan::is_blank(s_[i_])) ++i_;
    if (i_ >= s_.size()) return false;
    start_ = i_;
    while (i_ < s_.size() && !scan::is_blank(s_[i_])) ++i_;
    tok = s_.substr(start_, i_ - start_);
    return true;
  }
  std::size_t pos() const { return start_; }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
  std::size_t start_ = 0;
};

}  // namespace jank::parsers::dev

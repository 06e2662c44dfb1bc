// Small helpers shared by the dumpsys parsers (internal to parsers/): line
// iteration over a whole text, trimming and checked integer parsing.
#pragma once

#include <charconv>
#include <cstddef>
#include <optional>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace jank::parsers::scan {

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Trims spaces, tabs and CR on both sides (covers CRLF and any indentation).
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// Inputs usually arrive through decode_to_utf8, which drops the BOM; raw
// UTF-8 files saved by Windows tools still start with one.
inline std::string_view strip_utf8_bom(std::string_view s) {
  if (s.size() >= 3 && s[0] == '\xEF' && s[1] == '\xBB' && s[2] == '\xBF') s.remove_prefix(3);
  return s;
}

// Walks a text line by line (LF separated; a final line without newline is
// delivered too). offset() is the position of the next unread line, so a run
// of lines can be handed on as one contiguous view.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}

  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    std::size_t nl = text_.find('\n', pos_);
    std::size_t end = nl == std::string_view::npos ? text_.size() : nl;
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

// Calls `fn` with each line of `text` (a leading BOM dropped), trimmed,
// skipping empty ones: the walk of the line-oriented dump parsers.
template <typename Fn>
void for_each_trimmed_line(std::string_view text, Fn&& fn) {
  Lines lines(strip_utf8_bom(text));
  std::string_view raw;
  while (lines.next(raw)) {
    const std::string_view line = trim(raw);
    if (!line.empty()) fn(line);
  }
}

// Parses the whole of `s` as a decimal integer of type T. Rejects empty
// strings, signs on unsigned types, trailing characters and overflow.
template <typename T>
std::optional<T> to_int(std::string_view s) {
  static_assert(std::is_integral_v<T>);
  if (s.empty()) return std::nullopt;
  if constexpr (std::is_unsigned_v<T>) {
    if (s.front() == '-') return std::nullopt;
  }
  T value{};
  const char* first = s.data();
  const char* last = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr != last) return std::nullopt;
  return value;
}

}  // namespace jank::parsers::scan

#include "parsers/utf8.h"

namespace jank::parsers {
namespace {

constexpr char kHex[] = "0123456789ABCDEF";

void append_hex_byte(std::string& out, unsigned char c) {
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 0xF];
}

// Calls valid(i, n) for each valid sequence and invalid(i) for each byte
// that is in none, in order.
template <class Valid, class Invalid>
void walk(std::string_view text, Valid valid, Invalid invalid) {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t n = utf8_sequence_at(text, i);
    if (n == 0) {
      invalid(i);
      ++i;
    } else {
      valid(i, n);
      i += n;
    }
  }
}

}  // namespace

std::size_t utf8_sequence_at(std::string_view text, std::size_t i) {
  auto continuation = [&](std::size_t k) {
    return k < text.size() && (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80;
  };
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) return 1;
  const std::size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  for (std::size_t k = 1; k < n; ++k) {
    if (!continuation(i + k)) return 0;
  }
  if (n >= 3) {
    const auto c1 = static_cast<unsigned char>(text[i + 1]);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F)) {
      return 0;  // overlong, surrogate or beyond U+10FFFF
    }
  }
  return n;
}

bool is_valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t n = utf8_sequence_at(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string utf8_replaced(std::string_view text) {
  if (is_valid_utf8(text)) return std::string(text);  // the common case: one pass, one copy
  std::string out;
  out.reserve(text.size() + 8);
  walk(
      text, [&](std::size_t i, std::size_t n) { out.append(text.substr(i, n)); },
      [&](std::size_t) { out += "\xEF\xBF\xBD"; });
  return out;
}

std::string utf8_hex_escaped(std::string text) {
  if (is_valid_utf8(text)) return text;
  std::string out;
  out.reserve(text.size() + 12);
  const std::string_view view(text);
  walk(
      view, [&](std::size_t i, std::size_t n) { out.append(view.substr(i, n)); },
      [&](std::size_t i) { append_hex_byte(out, static_cast<unsigned char>(view[i])); });
  return out;
}

std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t cut = max_bytes;
  // Back over continuation bytes to the start of the sequence the cut falls in
  // (at most three: a longer run is not one sequence, and is cut as bytes).
  for (std::size_t back = 0; back < 3 && cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80; ++back) {
    --cut;
  }
  if ((static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) cut = max_bytes;
  return text.substr(0, cut);
}

std::string terminal_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  walk(
      text,
      [&](std::size_t i, std::size_t n) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (n == 1 && (c < 0x20 || c == 0x7F)) {
          append_hex_byte(out, c);
        } else if (n == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) {
          // U+0080..U+009F: the C1 controls (CSI is U+009B).
          const unsigned code_point = 0x80u + (static_cast<unsigned char>(text[i + 1]) & 0x3Fu);
          out += "\\u00";
          out += kHex[code_point >> 4];
          out += kHex[code_point & 0xF];
        } else {
          out.append(text.substr(i, n));
        }
      },
      [&](std::size_t i) { append_hex_byte(out, static_cast<unsigned char>(text[i])); });
  return out;
}

}  // namespace jank::parsers

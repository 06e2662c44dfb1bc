#include "exporters/label_repair.h"

#include <cstddef>

namespace jank::exporters {
namespace {

// Length of the valid UTF-8 sequence that starts at value[i], or 0.
std::size_t sequence_at(std::string_view value, std::size_t i) {
  auto continuation = [&](std::size_t k) {
    return k < value.size() && (static_cast<unsigned char>(value[k]) & 0xC0) == 0x80;
  };
  const auto c = static_cast<unsigned char>(value[i]);
  if (c < 0x80) return 1;
  const std::size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  for (std::size_t k = 1; k < n; ++k) {
    if (!continuation(i + k)) return 0;
  }
  if (n >= 3) {
    const auto c1 = static_cast<unsigned char>(value[i + 1]);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F)) {
      return 0;  // overlong, surrogate or beyond U+10FFFF
    }
  }
  return n;
}

void append_escaped(std::string& out, std::string_view s, bool quote) {
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

}  // namespace

std::string valid_utf8(std::string value) {
  std::size_t i = 0;
  while (i < value.size()) {
    const std::size_t n = sequence_at(value, i);
    if (n == 0) break;
    i += n;
  }
  if (i == value.size()) return value;  // the common case: no copy
  std::string out = value.substr(0, i);
  while (i < value.size()) {
    if (const std::size_t n = sequence_at(value, i); n != 0) {
      out.append(value, i, n);
      i += n;
    } else {
      static const char hex[] = "0123456789ABCDEF";
      const auto c = static_cast<unsigned char>(value[i++]);
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xF];
    }
  }
  return out;
}

void append_label_value(std::string& out, std::string_view value) { append_escaped(out, value, true); }

void append_help_text(std::string& out, std::string_view help) { append_escaped(out, help, false); }

void append_openmetrics_help(std::string& out, std::string_view help) { append_escaped(out, help, true); }

}  // namespace jank::exporters

// Test inputs as a capture saved on Windows reads them.
#pragma once

#include <string>
#include <string_view>

namespace jank::test {

// `text` with every LF replaced by CRLF.
inline std::string crlf(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

}  // namespace jank::test

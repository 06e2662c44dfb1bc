// The CRLF twin of a test input, as a capture saved on Windows or read
// through a pty (adb shell before 7.0) holds it: for the unit tests and the
// fuzz targets.
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

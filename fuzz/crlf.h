// The fuzz targets' CRLF twin of an input: a capture saved through a pty or
// on Windows must read as the LF original does.
#pragma once

#include <string>
#include <string_view>

namespace jank::fuzz {

// `text` with every LF replaced by CRLF.
inline std::string with_crlf(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

}  // namespace jank::fuzz

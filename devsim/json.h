// The simulator's JSON documents (the ground truth, the ready file, control
// replies) are nlohmann-json values with their keys in the order written.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace jank::devsim {

using Json = nlohmann::ordered_json;

// One line of JSON. A name given on the command line may hold bytes that are
// not UTF-8: each such byte is written as U+FFFD, so the text is always JSON.
inline std::string dump(const Json& doc) { return doc.dump(-1, ' ', false, Json::error_handler_t::replace); }

// `v` as "%.<places>f" prints it, read back: the numbers of the truth keep the
// precision they are known to (a refresh rate to 0.01 Hz, an offset to 1 ms).
inline double fixed(double v, int places) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", places, v);
  return std::strtod(buf, nullptr);
}

// Each byte one character (Latin-1): ASCII as itself, a byte from 0x80 as
// U+0080-U+00FF, so a string of any bytes (a version name given in hex) is
// JSON with one character per byte.
inline std::string latin1_to_utf8(std::string_view bytes) {
  std::string out;
  for (const char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x80) {
      out += c;
    } else {
      out += static_cast<char>(0xC0 | (u >> 6));
      out += static_cast<char>(0x80 | (u & 0x3F));
    }
  }
  return out;
}

}  // namespace jank::devsim

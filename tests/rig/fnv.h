// FNV-1a 64 of bytes, as the simulator's truth prints it ("fnv1a64": 16
// lower-case hex digits), so a test can compare a pulled trace with it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace jank::rig {

inline std::string fnv1a64_hex(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;  // the FNV-1a 64 offset basis
  for (const unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

}  // namespace jank::rig

// printf-style appending for the simulator's dump writers.
#pragma once

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>

namespace jank::devsim {

// Appends the formatted text (cut at 1023 bytes: one dump line at most).
__attribute__((format(printf, 2, 3))) inline void appendf(std::string& s, const char* f, ...) {
  char buf[1024];
  std::va_list args;
  va_start(args, f);
  const int n = std::vsnprintf(buf, sizeof buf, f, args);
  va_end(args);
  if (n > 0) s.append(buf, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof buf - 1));
}

}  // namespace jank::devsim

// The head of `logcat -S` (logd's statistics): per buffer, how many lines
// were ever written to it ("Total") and how many it holds ("Now").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace jank::parsers {

struct LogdBufferLines {
  std::uint64_t total = 0;  // lines written since logd started
  std::uint64_t now = 0;    // lines held in the ring now
};

// Buffer name → line counts, from the "size/num" header row and its
// "Total" and "Now" rows of size/lines cells. Empty when absent or garbled.
std::map<std::string, LogdBufferLines, std::less<>> parse_logd_statistics(std::string_view text);

}  // namespace jank::parsers

// The resume core (parsers/logcat_cursor): a preamble and a stream from the
// input, a saved cursor from its first bytes, fed whole and in chunks. Checks
// that chunking changes nothing, that no more lines come out than went in,
// and that the cursor only moves forward within one stream.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/logcat_cursor.h"

namespace {

constexpr std::string_view kEnd = "END";

struct Run {
  std::vector<std::string> out;
  jank::parsers::LogCursor cursor;
  std::uint64_t dropped = 0, lost = 0;
};

Run follow(const jank::parsers::LogCursor& saved, std::string_view text, std::size_t chunk) {
  using namespace jank::parsers;
  Run r;
  LogcatFollower f(saved, {"main", "system"}, kEnd, 200, [&](const LogcatFollower::Line& l) {
    r.out.emplace_back(l.text);
  });
  for (std::size_t at = 0; at < text.size(); at += chunk) f.feed(text.substr(at, chunk));
  f.settle();
  if (f.settled()) {
    for (const auto& [name, b] : f.cursor().buffers) {
      const auto it = saved.buffers.find(name);
      if (f.plan()->kind == ResumeKind::resume && it != saved.buffers.end() && b.index < it->second.index &&
          f.unconfirmed() == 0) {
        std::abort();  // a confirmed resume never goes back
      }
    }
  }
  r.cursor = f.cursor();
  r.dropped = f.dropped_lines();
  r.lost = f.lost_total();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jank::parsers;
  if (size < 6) return 0;
  LogCursor saved;
  saved.valid = data[0] & 1;
  saved.logd_pid = data[0] >> 1;
  saved.buffers["main"] = {data[1], data[2] % 4 == 0 ? 0 : log_line_hash(std::string(1, static_cast<char>(data[2])))};
  saved.buffers["system"] = {data[3], 0};
  const std::size_t chunk = 1 + data[4] % 61;
  const std::string_view text(reinterpret_cast<const char*>(data + 5), size - 5);
  const Run whole = follow(saved, text, text.size() + 1);
  const Run chunked = follow(saved, text, chunk);
  if (whole.out != chunked.out || !(whole.cursor == chunked.cursor) || whole.lost != chunked.lost) std::abort();
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  if (whole.out.size() > lines + 1) std::abort();
  return 0;
}

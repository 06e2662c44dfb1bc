#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "app/cli/replay.h"

namespace {
std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
std::string replay(const std::string& file, const char* threads) {
  std::ostringstream out, err;
  REQUIRE(jank::app::run_replay({"--year", "2024", "--threads", threads, file}, stdin, out, err) == 0);
  return out.str();
}
}  // namespace

TEST_CASE("scanning a large file on several threads gives the same exposition as one stream", "[replay]") {
  const std::string unit = read(std::string(JANK_SOURCE_DIR) + "/tests/golden/logcat_threadtime.input");
  REQUIRE_FALSE(unit.empty());
  // Over the 1 MiB threshold; a CRLF part, an over-long line and no final newline.
  std::string text;
  while (text.size() < (3u << 20)) text += unit;
  for (char c : unit) text += c == '\n' ? std::string("\r\n") : std::string(1, c);
  text += std::string(40000, 'x') + "\n";
  text += unit.substr(0, unit.size() - 1);
  char path[] = "/tmp/jank-replay-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::close(fd);
  std::ofstream(path, std::ios::binary) << text;
  const std::string one = replay(path, "1");
  CHECK(one == replay(path, "2"));
  CHECK(one == replay(path, "5"));
  CHECK_THAT(one, Catch::Contains("reason=\"too_long\"} 1"));
  std::remove(path);
}

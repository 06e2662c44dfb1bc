// `replay` judges frames by a refresh rate decided before any input is read:
// the same inputs in any order give the same exposition.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/replay.h"

namespace {

std::string temp_file(const std::string& text) {
  char path[] = "/tmp/jank-replay-order-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::close(fd);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string replay(std::vector<std::string> args) {
  std::ostringstream out, err;
  args.insert(args.begin(), {"--serial", "o", "--year", "2024"});
  REQUIRE(jank::app::run_replay(args, stdin, out, err) == 0);
  return out.str();
}

// An Android 11 framestats dump (no FrameInterval column): 4 frames of 5, 10,
// 12 and 20 ms. At 120 Hz (8.33 ms) three are janky, at 60 Hz one.
std::string android11_dump() {
  std::string s =
      "** Graphics info for pid 42 [com.example.old] **\n\nStats since: 100ns\nTotal frames rendered: 4\n"
      "Janky frames: 3 (75.00%)\n\n---PROFILEDATA---\n"
      "Flags,IntendedVsync,Vsync,OldestInputEvent,NewestInputEvent,HandleInputStart,AnimationStart,"
      "PerformTraversalsStart,DrawStart,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,"
      "DequeueBufferDuration,QueueBufferDuration,GpuCompleted,\n";
  long long t = 5'000'000'000'000;
  for (const long long ms : {5, 10, 12, 20}) {
    const long long done = t + ms * 1'000'000;
    std::ostringstream row;
    row << "0," << t << "," << t << ",0,0," << t + 1000 << "," << t + 2000 << "," << t + 3000 << "," << t + 4000
        << "," << t + 5000 << "," << t + 6000 << "," << t + 7000 << "," << t + 8000 << "," << done << ",20000,30000,"
        << done << ",\n";
    s += row.str();
    t += 25'000'000;
  }
  return s + "---PROFILEDATA---\n";
}

std::string janky_line(const std::string& exposition) {
  const std::string key = "android_framestats_janky_frames_total{serial=\"o\",package=\"com.example.old\"} ";
  const auto at = exposition.find(key);
  REQUIRE(at != std::string::npos);
  return exposition.substr(at + key.size(), exposition.find('\n', at) - at - key.size());
}

}  // namespace

TEST_CASE("replay: inputs in either order give the same exposition, rows without FrameInterval are judged by the "
          "rate decided first",
          "[unit][replay][hwui_rules]") {
  const std::string gfx = temp_file(android11_dump());
  const std::string latency = temp_file(
      "adb shell dumpsys SurfaceFlinger --latency \"com.example.old/com.example.old.Main#0\"\n8333333\n");
  const std::string a = replay({latency, gfx});
  const std::string b = replay({gfx, latency});
  CHECK(a == b);
  CHECK(janky_line(a) == "3");  // 120 Hz from the --latency input, though it came after the dump in b
  // --refresh-rate wins over the inputs.
  const std::string c = replay({"--refresh-rate", "60", gfx, latency});
  CHECK(c == replay({"--refresh-rate", "60", latency, gfx}));
  CHECK(janky_line(c) == "1");
  // Without any period: the default, 60 Hz.
  CHECK(janky_line(replay({gfx})) == "1");
  std::remove(gfx.c_str());
  std::remove(latency.c_str());
}

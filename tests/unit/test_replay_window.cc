// Replay's SM divides by the span its input covers within the window
// (docs/metrics.md, "Replay's window"), checked against the formula of
// ../shared/notes/android-metrics.md computed here: SM = (refresh·T − skipped) / T.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/replay.h"

namespace {

struct Skip {
  int at_ms;  // from the capture's first line
  int frames;
  const char* package;
};

// A threadtime capture: a first line at 10:00:00.000, the skips, a last line at `span_ms`.
std::string capture(int span_ms, const std::vector<Skip>& skips) {
  auto stamp = [](int ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "11-21 10:%02d:%02d.%03d", ms / 60000, ms / 1000 % 60, ms % 1000);
    return std::string(buf);
  };
  std::string text = "--------- beginning of main\n";
  text += stamp(0) + "  1203  1245 I ActivityManager: Start proc 4242:com.example.feed/u0a211 for activity\n";
  text += stamp(0) + "  1203  1245 I ActivityManager: Start proc 4343:com.example.shop/u0a212 for activity\n";
  for (const auto& s : skips) {
    const int pid = std::string(s.package) == "com.example.feed" ? 4242 : 4343;
    text += stamp(s.at_ms) + "  " + std::to_string(pid) + "  " + std::to_string(pid) + " I Choreographer: Skipped " +
            std::to_string(s.frames) + " frames!  The application may be doing too much work on its main thread.\n";
  }
  text += stamp(span_ms) + "  1203  1245 D WindowManager: relayout\n";
  return text;
}

std::optional<double> sample(const std::string& exposition, const std::string& series) {
  const auto at = exposition.find("\n" + series + " ");
  if (at == std::string::npos) return std::nullopt;
  return std::strtod(exposition.c_str() + at + series.size() + 2, nullptr);
}

std::string replay(const std::string& text, std::vector<std::string> args) {
  char path[] = "/tmp/jank-replay-window-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::close(fd);
  std::ofstream(path, std::ios::binary) << text;
  std::ostringstream out, err;
  args.insert(args.end(), {"--year", "2024", path});
  const int status = jank::app::run_replay(args, stdin, out, err);
  std::remove(path);
  INFO(err.str());
  REQUIRE(status == 0);
  return out.str();
}

// The formula, over T seconds.
double sm(double refresh, double skipped, double t) {
  const double v = (refresh * t - skipped) / t;
  return v < 0 ? 0 : v;
}

}  // namespace

TEST_CASE("replay: SM of a 10 s capture in a 60 s window divides by the 10 s it covers", "[replay][window]") {
  // 120 frames skipped at 60 Hz in 10 s: feed 100 (four skips), shop 20.
  const std::vector<Skip> skips = {{1500, 30, "com.example.feed"},
                                   {3000, 40, "com.example.feed"},
                                   {7250, 20, "com.example.feed"},
                                   {9000, 10, "com.example.feed"},
                                   {5000, 20, "com.example.shop"}};
  const std::string out = replay(capture(10'000, skips), {"--window-seconds", "60"});
  CHECK(sample(out, "android_choreographer_sm_span_seconds{serial=\"replay\"}") == Approx(10));
  const auto device = sample(out, "android_choreographer_device_sm{serial=\"replay\"}");
  REQUIRE(device);
  CHECK(*device == Approx(sm(60, 120, 10)));
  CHECK(*device == Approx(48));  // not 58, which counts the 50 s before the capture as smooth
  CHECK(sample(out, "android_choreographer_sm{serial=\"replay\",package=\"com.example.feed\"}") ==
        Approx(sm(60, 100, 10)));
  CHECK(sample(out, "android_choreographer_sm{serial=\"replay\",package=\"com.example.shop\"}") ==
        Approx(sm(60, 20, 10)));
}

TEST_CASE("replay: a capture longer than the window divides by the window, at any refresh rate", "[replay][window]") {
  // 100 s at 90 Hz; the 60 s window (40 s, 100 s] holds the skips at 45 s and 99 s only.
  const std::vector<Skip> skips = {{20'000, 50, "com.example.feed"},
                                   {45'000, 90, "com.example.feed"},
                                   {99'000, 45, "com.example.shop"}};
  const std::string out = replay(capture(100'000, skips), {"--window-seconds", "60", "--refresh-rate", "90"});
  CHECK(sample(out, "android_choreographer_sm_span_seconds{serial=\"replay\"}") == Approx(60));
  CHECK(sample(out, "android_choreographer_device_sm{serial=\"replay\"}") == Approx(sm(90, 135, 60)));
  // 30 s of it in a 60 s window: T = 30.
  const std::vector<Skip> half = {{12'000, 60, "com.example.feed"}};
  const std::string short_out = replay(capture(30'000, half), {"--window-seconds", "60", "--refresh-rate", "90"});
  CHECK(sample(short_out, "android_choreographer_sm_span_seconds{serial=\"replay\"}") == Approx(30));
  CHECK(sample(short_out, "android_choreographer_device_sm{serial=\"replay\"}") == Approx(sm(90, 60, 30)));
}

TEST_CASE("replay: an input that covers no time has no SM", "[replay][window]") {
  const std::string one_line =
      "11-21 10:00:01.000  4242  4242 I Choreographer: Skipped 9 frames!  The application may be doing too much "
      "work on its main thread.\n";
  const std::string out = replay(one_line, {});
  CHECK(sample(out, "android_choreographer_sm_span_seconds{serial=\"replay\"}") == Approx(0));
  CHECK_FALSE(sample(out, "android_choreographer_device_sm{serial=\"replay\"}").has_value());
  CHECK(out.find("android_choreographer_skipped_frames_total{serial=\"replay\",package=\"pid:4242\"} 9") !=
        std::string::npos);
}

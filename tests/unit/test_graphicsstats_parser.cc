// `dumpsys graphicsstats` as GraphicsStatsService.cpp's dumpAsTextToFd
// prints it (the fixtures below are written from that function's format
// strings: Android 9 without GPU lines, Android 12 with them).
#include <catch2/catch.hpp>

#include <string>

#include "parsers/graphicsstats.h"

using jank::parsers::GraphicsStatsText;
using jank::parsers::parse_graphicsstats;

namespace {

const std::string kAndroid9Block =
    "\nPackage: com.example.feed"
    "\nVersion: 41"
    "\nStats since: 1732838400000ns"
    "\nStats end: 1732870123456ns"
    "\nTotal frames rendered: 1200"
    "\nJanky frames: 60 (5.00%)"
    "\n50th percentile: 7ms"
    "\n90th percentile: 13ms"
    "\n95th percentile: 17ms"
    "\n99th percentile: 34ms"
    "\nNumber Missed Vsync: 4"
    "\nNumber High input latency: 11"
    "\nNumber Slow UI thread: 30"
    "\nNumber Slow bitmap uploads: 2"
    "\nNumber Slow issue draw commands: 9"
    "\nHISTOGRAM: 5ms=400 6ms=300 7ms=200 8ms=240 16ms=50 34ms=10\n";

const std::string kAndroid12Block =
    "\nPackage: com.example.game"
    "\nVersion: 9000000001"
    "\nStats since: 1732924800000ns"
    "\nStats end: 1732925000000ns"
    "\nTotal frames rendered: 30"
    "\nJanky frames: 3 (10.00%)"
    "\n50th percentile: 8ms"
    "\n90th percentile: 20ms"
    "\n95th percentile: 20ms"
    "\n99th percentile: 150ms"
    "\nNumber Missed Vsync: 0"
    "\nNumber High input latency: 0"
    "\nNumber Slow UI thread: 2"
    "\nNumber Slow bitmap uploads: 0"
    "\nNumber Slow issue draw commands: 1"
    "\nNumber Frame deadline missed: 3"
    "\nHISTOGRAM: 5ms=10 8ms=17 20ms=2 150ms=1"
    "\n50th gpu percentile: 3ms"
    "\n90th gpu percentile: 4ms"
    "\n95th gpu percentile: 4ms"
    "\n99th gpu percentile: 6ms"
    "\nGPU HISTOGRAM: 1ms=0 3ms=20 4ms=8 6ms=2\n";

}  // namespace

TEST_CASE("graphicsstats: blocks of two releases give their package, version, times and counts", "[parsers][graphicsstats]") {
  const auto d = parse_graphicsstats(kAndroid9Block + kAndroid12Block);
  CHECK(d.text == GraphicsStatsText::graphicsstats);
  CHECK(d.malformed_lines == 0);
  CHECK(d.discarded_blocks == 0);
  REQUIRE(d.blocks.size() == 2);
  const auto& a = d.blocks[0];
  CHECK(a.package == "com.example.feed");
  CHECK(a.version_code == 41);
  CHECK(a.stats_start == 1732838400000);
  CHECK(a.stats_end == 1732870123456);
  CHECK(a.stats.total_frames == 1200);
  CHECK(a.stats.janky_frames == 60);
  CHECK(a.stats.slow_ui_thread == 30);
  CHECK(a.stats.slow_issue_draw_commands == 9);
  CHECK_FALSE(a.stats.frame_deadline_missed);
  CHECK_FALSE(a.stats.stats_since_ns);
  REQUIRE(a.stats.histogram.size() == 6);
  CHECK(a.stats.histogram[5].label_ms == 34);
  CHECK(a.stats.histogram[5].count == 10);
  CHECK(a.stats.gpu_histogram.empty());
  const auto& b = d.blocks[1];
  CHECK(b.version_code == 9000000001);  // a long version code
  CHECK(b.stats.frame_deadline_missed == 3);
  CHECK(b.stats.gpu_p99_ms == 6);
  REQUIRE(b.stats.gpu_histogram.size() == 4);
  CHECK(b.stats.gpu_histogram[1].count == 20);
}

TEST_CASE("graphicsstats: a cut block is discarded and bad values are counted, never guessed", "[parsers][graphicsstats]") {
  // A dump cut after the first block's version: no times, no totals.
  const std::string cut = kAndroid12Block + "\nPackage: com.example.chat\nVersion: 3\n";
  const auto d = parse_graphicsstats(cut);
  CHECK(d.blocks.size() == 1);
  CHECK(d.discarded_blocks == 1);

  std::string bad = kAndroid9Block;
  bad.replace(bad.find("Version: 41"), 11, "Version: x1");
  bad.replace(bad.find("Stats end: 1732870123456ns"), 26, "Stats end: -5ns");
  bad += "Something else: 1\n";
  const auto e = parse_graphicsstats(bad);
  CHECK(e.malformed_lines == 3);
  CHECK(e.blocks.empty());  // no version: not counted
  CHECK(e.discarded_blocks == 1);

  // CRLF line ends read the same.
  std::string crlf;
  for (const char c : kAndroid9Block) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  const auto f = parse_graphicsstats(crlf);
  REQUIRE(f.blocks.size() == 1);
  CHECK(f.blocks[0].stats.histogram.size() == 6);
}

TEST_CASE("graphicsstats: no output is empty and other text is not recognised", "[parsers][graphicsstats]") {
  CHECK(parse_graphicsstats("").text == GraphicsStatsText::empty);
  CHECK(parse_graphicsstats("\n\n").text == GraphicsStatsText::empty);
  const auto denied = parse_graphicsstats(
      "Permission Denial: can't dump graphicsstats from from pid=1234, uid=2000 due to missing android.permission.DUMP permission\n");
  CHECK(denied.text == GraphicsStatsText::not_recognised);
  CHECK(denied.permission_denied);
  CHECK(denied.blocks.empty());
  CHECK(parse_graphicsstats("Can't find service: graphicsstats\n").text == GraphicsStatsText::not_recognised);
}

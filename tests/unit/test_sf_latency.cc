#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "parsers/sf_latency.h"

using jank::parsers::parse_sf_latency;
using jank::parsers::SfLatency;

TEST_CASE("sf_latency: TAB separated dump with zero and pending rows", "[sf_latency]") {
  SfLatency s = parse_sf_latency(
      "16666667\n"
      "0\t0\t0\n"
      "495498343153455\t495498379510686\t495498371345532\n"
      "495498384762148\t9223372036854775807\t495498412915686\n"
      "0\t0\t0\n"
      "\n");
  REQUIRE(s.refresh_period_ns == 16666667);
  REQUIRE(s.rows.size() == 4);
  CHECK(s.rows[1][0] == 495498343153455);
  CHECK(s.rows[1][2] == 495498371345532);
  CHECK(s.rows[2][1] == INT64_MAX);
  CHECK(s.zero_rows == 2);
  CHECK(s.pending_rows == 1);
  CHECK(s.malformed_lines == 0);
}

TEST_CASE("sf_latency: space separated rows after a Windows prompt line", "[sf_latency]") {
  SfLatency s = parse_sf_latency(
      "C:\\Users\\me>adb shell dumpsys SurfaceFlinger --latency \"SurfaceView[a/b]#0\"\n"
      "16666667\n"
      "0       0       0\n"
      "10 20 30\n"
      "  40   50   60  \n");
  REQUIRE(s.refresh_period_ns == 16666667);
  REQUIRE(s.rows.size() == 3);
  CHECK(s.rows[2] == std::array<std::int64_t, 3>{40, 50, 60});
  CHECK(s.zero_rows == 1);
  CHECK(s.malformed_lines == 1);
}

TEST_CASE("sf_latency: period only, CRLF, no final newline", "[sf_latency]") {
  SfLatency a = parse_sf_latency("16666667\r\n");
  CHECK(a.refresh_period_ns == 16666667);
  CHECK(a.rows.empty());
  CHECK(a.malformed_lines == 0);
  SfLatency b = parse_sf_latency("8333333");
  CHECK(b.refresh_period_ns == 8333333);
}

TEST_CASE("sf_latency: bad rows are counted", "[sf_latency]") {
  SfLatency s = parse_sf_latency(
      "16666667\n"
      "1\t2\n"                        // too few
      "1\t2\t3\t4\n"                  // too many
      "1\tx\t3\n"                     // text
      "1\t99999999999999999999\t3\n"  // overflow
      "5\n"                           // a second lone integer is not a period
      "7\t8\t9\n");
  CHECK(s.refresh_period_ns == 16666667);
  REQUIRE(s.rows.size() == 1);
  CHECK(s.rows[0] == std::array<std::int64_t, 3>{7, 8, 9});
  CHECK(s.malformed_lines == 5);
}

TEST_CASE("sf_latency: empty and garbage input", "[sf_latency]") {
  SfLatency e = parse_sf_latency("");
  CHECK_FALSE(e.refresh_period_ns.has_value());
  CHECK(e.rows.empty());
  CHECK(e.malformed_lines == 0);

  std::mt19937 rng(3);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int round = 0; round < 200; ++round) {
    std::string junk(1024, '\0');
    for (char& c : junk) c = static_cast<char>(byte(rng));
    SfLatency s = parse_sf_latency(junk);
    CHECK(s.rows.size() <= 1024);
  }
}

TEST_CASE("sf_latency: rows are capped", "[sf_latency]") {
  std::string text = "16666667\n";
  for (int i = 0; i < 5000; ++i) text += "1\t2\t3\n";
  SfLatency s = parse_sf_latency(text);
  CHECK(s.rows.size() == 4096);
  CHECK(s.malformed_lines == 5000 - 4096);
}

TEST_CASE("sf_latency: a capture of several polls splits at command and period lines", "[sf_latency]") {
  using jank::parsers::split_sf_latency_capture;
  const std::string poll = "16666667\n0\t0\t0\n10\t20\t30\n\n";
  // Period lines alone: three outputs, no names.
  const std::string three = poll + poll + "16666667\n";
  auto s = split_sf_latency_capture(three);
  REQUIRE(s.size() == 3);
  CHECK(s[0].text == poll);
  CHECK(s[1].text == poll);
  CHECK(s[2].text == "16666667\n");
  CHECK(s[0].layer.empty());
  // Command lines name what follows, quotes of any shell removed; a period
  // line after rows under the same command keeps the name.
  const std::string named = "C:\\>adb shell dumpsys SurfaceFlinger --latency \\\"SurfaceView[a/a.B](BLAST)#0\\\"\n" +
                            poll + "$ adb shell dumpsys SurfaceFlinger --latency 'a/a.B#7'\n" + poll + poll;
  s = split_sf_latency_capture(named);
  REQUIRE(s.size() == 3);
  CHECK(s[0].layer == "SurfaceView[a/a.B](BLAST)#0");
  CHECK(s[0].text == poll);
  CHECK(s[1].layer == "a/a.B#7");
  CHECK(s[2].layer == "a/a.B#7");
  CHECK(parse_sf_latency(s[2].text).rows.size() == 2);
  // A period line followed by another: two period-only outputs.
  s = split_sf_latency_capture("8333333\n8333333\n");
  REQUIRE(s.size() == 2);
  CHECK(parse_sf_latency(s[1].text).refresh_period_ns == 8333333);
  // Nothing but a command: one empty output under that name.
  s = split_sf_latency_capture("adb shell dumpsys SurfaceFlinger --latency x#1\n");
  REQUIRE(s.size() == 1);
  CHECK(s[0].layer == "x#1");
  CHECK(s[0].text.empty());
  CHECK(split_sf_latency_capture("").empty());
}

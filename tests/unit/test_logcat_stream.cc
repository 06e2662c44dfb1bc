#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "parsers/logcat_stream.h"

using namespace jank::parsers;

namespace {

struct Events : LogcatSink {
  std::vector<std::pair<std::int32_t, std::uint32_t>> skips;  // pid, N
  std::vector<std::string> skip_tags;
  std::vector<std::int64_t> davey_ms;
  std::vector<std::pair<std::int32_t, std::string>> starts;
  void on_skipped_frames(const LogLine& line, std::uint32_t frames) override {
    skips.emplace_back(line.pid, frames);
    skip_tags.emplace_back(line.tag);
  }
  void on_davey(const LogLine&, const DaveyFrame& d) override { davey_ms.push_back(d.duration_ms); }
  void on_process_event(const LogLine&, const ProcessEvent& e) override {
    if (e.kind == ProcessEvent::Kind::start) starts.emplace_back(e.pid, std::string(e.process));
  }
};

const std::string kThreadtime =
    "--------- beginning of main\n"
    "11-21 10:00:00.000  1000  1000 I ActivityManager: Start proc 4321:com.example.app/u0a77 for activity {com.example.app/.Main}\n"
    "11-21 10:00:01.000  4321  4321 I Choreographer: Skipped 31 frames!  The application may be doing too much work on its main thread.\n"
    "11-21 10:00:01.500  4321  4321 W Choreographer: Frame time is 2.5 ms in the future!  Check that graphics HAL is generating vsync timestamps using the correct timebase.\n"
    "11-21 10:00:02.000  4321  4350 I OpenGLRenderer: Davey! duration=812ms; Flags=0, IntendedVsync=100, Vsync=100, FrameCompleted=812000100, \n"
    "11-21 10:00:03.000  4321  4321 E AndroidRuntime: \tat android.view.Choreographer.doFrame(Choreographer.java:761)\n"
    "11-21 10:00:04.000  4321  4321 I Choreographer: Skipped 2 frames!  The application may be doing too much work on its main thread.\n";

Events run(const std::string& input, std::size_t chunk, LineCounts* counts = nullptr) {
  Events ev;
  LogcatStreamOptions options;
  options.parse.default_year = 2024;
  LogcatStream s(ev, options);
  for (std::size_t i = 0; i < input.size(); i += chunk) s.feed(std::string_view(input).substr(i, chunk));
  s.finish();
  if (counts) *counts = s.counts();
  return ev;
}

}  // namespace

TEST_CASE("stream extracts skips, Davey and process starts from threadtime", "[stream]") {
  LineCounts c;
  Events ev = run(kThreadtime, 1 << 20, &c);
  REQUIRE(ev.skips == std::vector<std::pair<std::int32_t, std::uint32_t>>{{4321, 31}, {4321, 2}});
  REQUIRE(ev.davey_ms == std::vector<std::int64_t>{812});
  REQUIRE(ev.starts == std::vector<std::pair<std::int32_t, std::string>>{{4321, "com.example.app"}});
  CHECK(c.received == 7);
  CHECK(c.parsed == 4);
  CHECK(c.unmatched == 3);
  CHECK(c.discarded_total() == 0);
}

TEST_CASE("stream results do not depend on chunk boundaries", "[stream]") {
  LineCounts whole;
  Events a = run(kThreadtime, 1 << 20, &whole);
  for (std::size_t chunk : {1u, 2u, 3u, 7u, 64u, 65u, 100u}) {
    LineCounts c;
    Events b = run(kThreadtime, chunk, &c);
    REQUIRE(b.skips == a.skips);
    REQUIRE(b.davey_ms == a.davey_ms);
    REQUIRE(c.received == whole.received);
    REQUIRE(c.parsed == whole.parsed);
  }
}

TEST_CASE("stream decodes UTF-16LE with BOM and CRLF", "[stream]") {
  std::string utf16 = "\xFF\xFE";
  std::string text = kThreadtime;
  std::string crlf;
  for (char ch : text) {
    if (ch == '\n') crlf += '\r';
    crlf += ch;
  }
  for (char ch : crlf) {
    utf16 += ch;
    utf16 += '\0';
  }
  LineCounts c;
  Events ev = run(utf16, 333, &c);
  REQUIRE(ev.skips.size() == 2);
  CHECK(ev.skips[0].second == 31);
  CHECK(c.received == 7);
}

TEST_CASE("stream handles a missing final newline", "[stream]") {
  std::string input = kThreadtime.substr(0, kThreadtime.size() - 1);
  LineCounts c;
  Events ev = run(input, 50, &c);
  REQUIRE(ev.skips.size() == 2);
  CHECK(c.received == 7);
}

TEST_CASE("stream discards over-long and binary lines with a reason", "[stream]") {
  std::string input = std::string(20000, 'x') + "\n" + "11-21 10:00:01.000  4321  4321 I Choreographer: Skipped 5 frames!" +
                      std::string(1, '\0') + "\n" + std::string(40000, 'y');
  LineCounts c;
  Events ev = run(input, 4096, &c);
  CHECK(ev.skips.empty());
  CHECK(c.received == 3);
  CHECK(c.discarded[static_cast<std::size_t>(DiscardReason::too_long)] == 2);
  CHECK(c.discarded[static_cast<std::size_t>(DiscardReason::binary)] == 1);
  CHECK(c.received == c.parsed + c.unmatched + c.discarded_total());
}

TEST_CASE("stream attaches -v long messages to their header", "[stream]") {
  const std::string input =
      "[ 11-21 10:00:01.000  4321: 4321 I/Choreographer ]\n"
      "Skipped 45 frames!  The application may be doing too much work on its main thread.\n"
      "\n"
      "[ 11-21 10:00:02.000  4321: 4330 D/Other    ]\n"
      "Skipped 9 frames!  The application may be doing too much work on its main thread.\n"
      "\n";
  Events ev = run(input, 17);
  REQUIRE(ev.skips == std::vector<std::pair<std::int32_t, std::uint32_t>>{{4321, 45}});
}

TEST_CASE("stream counts a headerless skip message in a headed stream as no_header", "[stream]") {
  const std::string input = kThreadtime +
                            "Skipped 7 frames!  The application may be doing too much work on its main thread.\n";
  LineCounts c;
  Events ev = run(input, 1 << 20, &c);
  CHECK(ev.skips.size() == 2);
  CHECK(c.discarded[static_cast<std::size_t>(DiscardReason::no_header)] == 1);
}

TEST_CASE("stream accepts a raw layout capture", "[stream]") {
  const std::string input =
      "Skipped 7 frames!  The application may be doing too much work on its main thread.\n"
      "something else\n"
      "Skipped 3 frames!  The application may be doing too much work on its main thread.\n";
  Events ev = run(input, 1 << 20);
  REQUIRE(ev.skips == std::vector<std::pair<std::int32_t, std::uint32_t>>{{-1, 7}, {-1, 3}});
}

TEST_CASE("logcat -v thread lines count: the message alone names Choreographer and Davey", "[stream]") {
  const std::string input =
      "I( 1861: 1861) Skipped 1 frames!  The application may be doing too much work on its main thread.\n"
      "I( 1861: 1875) Davey! duration=733ms; Flags=0, IntendedVsync=1, Vsync=2, FrameCompleted=733000001, \n"
      "W( 1861: 1861) Skipped 99999999999 frames!  The application may be doing too much work on its main thread.\n"
      "I(  950:  990) Start proc 1861:com.example.app/u0a77 for activity {com.example.app/.Main}\n";
  for (std::size_t chunk : {1u, 7u, 1u << 20}) {
    LineCounts c;
    Events ev = run(input, chunk, &c);
    CHECK(ev.skips == std::vector<std::pair<std::int32_t, std::uint32_t>>{{1861, 1}});
    CHECK(ev.skip_tags == std::vector<std::string>{"Choreographer"});
    CHECK(ev.davey_ms == std::vector<std::int64_t>{733});
    CHECK(c.parsed == 2);
    CHECK(c.discarded[static_cast<std::size_t>(DiscardReason::malformed)] == 1);
    CHECK(c.unmatched == 1);  // without a tag, a start line is not trusted
  }
}

TEST_CASE("stream counts an out-of-range N as malformed", "[stream]") {
  const std::string input =
      "11-21 10:00:01.000  4321  4321 I Choreographer: Skipped 99999999999 frames!  The application may be doing too much work on its main thread.\n";
  LineCounts c;
  Events ev = run(input, 1 << 20, &c);
  CHECK(ev.skips.empty());
  CHECK(c.discarded[static_cast<std::size_t>(DiscardReason::malformed)] == 1);
}

TEST_CASE("a CRLF line exactly at the cap is kept whatever the chunking", "[stream]") {
  std::string line = "11-21 10:00:01.000  4321  4321 I Choreographer: Skipped 5 frames!  The application may be doing too much work on its main thread.";
  LogcatStreamOptions options;
  options.max_line_bytes = line.size();
  const std::string input = line + "\r\n" + line + "\r\n";
  for (std::size_t chunk : {1u, 5u, static_cast<unsigned>(line.size()), 1000u}) {
    Events ev;
    LogcatStream s(ev, options);
    for (std::size_t i = 0; i < input.size(); i += chunk) s.feed(std::string_view(input).substr(i, chunk));
    s.finish();
    REQUIRE(ev.skips.size() == 2);
    REQUIRE(s.counts().discarded_total() == 0);
  }
}


// Hostile device input at the unit level: what a misbehaving or malicious
// device can send must end as a counted discard or a harmless label, never
// as a shell word, an unbounded buffer or an unparseable exposition.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "exporters/prometheus_collector.h"
#include "ingest/protocol.h"
#include "metrics/sources/skips.h"
#include "metrics/store.h"
#include "parsers/logcat_stream.h"
#include "parsers/names.h"
#include "tests/support/prometheus_text.h"

using namespace jank;

namespace {

struct Skips : parsers::LogcatSink {
  std::vector<std::uint32_t> frames;
  void on_skipped_frames(const parsers::LogLine&, std::uint32_t n) override { frames.push_back(n); }
  void on_davey(const parsers::LogLine&, const parsers::DaveyFrame&) override {}
  void on_process_event(const parsers::LogLine&, const parsers::ProcessEvent&) override {}
};

std::string skip_line(int pid, int n) {
  return "11-21 10:00:01.000  " + std::to_string(pid) + "  " + std::to_string(pid) +
         " I Choreographer: Skipped " + std::to_string(n) +
         " frames!  The application may be doing too much work on its main thread.\n";
}

// Names a device may report (ps, ActivityManager, dumpsys window) that must
// never reach a shell command.
const std::vector<std::string> kHostileNames = {
    "com.evil;reboot", "com.evil&&reboot", "$(reboot)", "`reboot`", "com.evil|sh", "com.evil>x", "com.evil<x",
    "com.evil'x", "com.evil\"x", "com.evil\nreboot", "com.evil reboot", "-rf", "--help", "com.evil\\x", "com.evil*",
    "com.evil?", "com.evil#x", "com.evil~", "com.evil\tx", std::string("com.evil\0x", 10), "com.\xff\xfe",
    std::string(300, 'a')};

}  // namespace

TEST_CASE("package names with shell metacharacters fail validation", "[hostile]") {
  for (const auto& name : kHostileNames) {
    INFO(name);
    CHECK_FALSE(jank::parsers::valid_package_name(name));
  }
  CHECK(jank::parsers::valid_package_name("com.example.feed"));
  CHECK(jank::parsers::valid_package_name("com.android.systemui:screenshot"));
}

TEST_CASE("quoted arguments are single shell words whatever they hold", "[hostile]") {
  for (const auto& name : kHostileNames) {
    if (name.find('\0') != std::string::npos) continue;  // shell_service refuses NUL outright
    const std::string q = ingest::shell_quote(name);
    INFO(q);
    // '…' with each ' written as '\'' : nothing inside single quotes is special.
    REQUIRE(q.size() >= 2);
    CHECK(q.front() == '\'');
    CHECK(q.back() == '\'');
    std::string inner = q.substr(1, q.size() - 2), unquoted;
    for (std::size_t i = 0; i < inner.size(); ++i) {
      if (inner.compare(i, 4, "'\\''") == 0) {
        unquoted += '\'';
        i += 3;
      } else {
        CHECK(inner[i] != '\'');
        unquoted += inner[i];
      }
    }
    CHECK(unquoted == name);
  }
  CHECK_FALSE(ingest::shell_service(ingest::ShellProtocol::v2, std::string("ls\0rm", 5)));
  CHECK_FALSE(ingest::shell_service(ingest::ShellProtocol::v2, std::string(5000, 'x')));
}

TEST_CASE("a 10 MB line without newline is one too_long discard and is never buffered", "[hostile]") {
  Skips sink;
  parsers::LogcatStreamOptions options;
  options.max_line_bytes = 16 * 1024;
  parsers::LogcatStream s(sink, options);
  s.feed(skip_line(42, 7));
  const std::string chunk(64 * 1024, 'A');
  std::size_t peak = 0;
  for (int i = 0; i < 160; ++i) {  // 10 MiB
    s.feed(chunk);
    peak = std::max(peak, s.buffered_bytes());
  }
  s.feed("\n");
  s.feed(skip_line(42, 9));
  s.finish();
  CHECK(peak <= options.max_line_bytes);
  CHECK(s.counts().discarded[static_cast<std::size_t>(parsers::DiscardReason::too_long)] == 1);
  CHECK(sink.frames == std::vector<std::uint32_t>{7, 9});
}

TEST_CASE("NUL bytes are binary discards, invalid UTF-8 is malformed or unmatched, never fatal", "[hostile]") {
  Skips sink;
  parsers::LogcatStream s(sink);
  s.feed(skip_line(42, 3));
  const char nul_line[] = "11-21 10:00:01.000  42  42 I Choreographer: Skipped 5\0 frames!\n";
  s.feed(std::string(nul_line, sizeof nul_line - 1));
  s.feed("11-21 10:00:01.000  42  42 I Choreographer: Skipped 6 frames!  \xff\xfe\xc0\x80 \xed\xa0\x80\n");
  s.feed("11-21 10:00:01.000  42  42 I Tag\xc3\x28: text \xf8\x88\x80\x80\x80 and \xc0\xaf\n");
  s.feed("\xff\xff\xff\xff\xff\n");
  s.feed(std::string(1000, '\0') + "\n");
  s.feed(skip_line(42, 4));
  s.finish();
  CHECK(s.counts().discarded[static_cast<std::size_t>(parsers::DiscardReason::binary)] == 2);
  CHECK(s.counts().discarded[static_cast<std::size_t>(parsers::DiscardReason::malformed)] == 1);
  CHECK(sink.frames == std::vector<std::uint32_t>{3, 4});
  CHECK(s.counts().unmatched == 2);
  CHECK(s.counts().received == 7);
}

TEST_CASE("label values from devices are valid UTF-8 in the exposition", "[hostile]") {
  metrics::Store store;
  auto& d = store.device("emu\xff\"x\ny");
  jank::metrics::record_skip(store, d, "com.\xff\xfe\"bad", 1'000'000'000, true, 9);
  jank::metrics::record_skip(store, d, "com.caf\xc3\xa9", 1'000'000'000, true, 4);      // é stays
  jank::metrics::record_skip(store, d, "com.\xed\xa0\x80.surrogate", 1'000'000'000, true, 2);  // CESU surrogate: invalid
  exporters::StoreCollector c(store, exporters::input_time_now());
  const std::string text = test::serialize_text(c.Collect());
  CHECK(c.Text().str() == text);
  CHECK_THAT(text, Catch::Contains(
                       "android_choreographer_skipped_frames_total{serial=\"emu\\\\xFF\\\"x\\ny\",package=\"com.\\\\xFF\\\\xFE\\\"bad\"} 9"));
  CHECK_THAT(text, Catch::Contains("package=\"com.caf\xc3\xa9\"} 4"));
  CHECK_THAT(text, Catch::Contains("package=\"com.\\\\xED\\\\xA0\\\\x80.surrogate\"} 2"));
  // Nothing outside quoted label values starts a new line: no injected series.
  for (std::size_t at = 0; (at = text.find('\n', at)) != std::string::npos; ++at) {
    const std::string next = text.substr(at + 1, 8);
    CHECK((next.empty() || next[0] == '#' || next.rfind("android_", 0) == 0 || next.rfind("jank_", 0) == 0));
  }
}

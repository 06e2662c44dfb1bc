#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "exporters/prometheus_collector.h"
#include "metrics/logcat_recorder.h"
#include "metrics/sources/skips.h"
#include "metrics/store.h"
#include "parsers/gfxinfo.h"
#include "parsers/logcat_stream.h"
#include "tests/unit/gfxinfo_state.h"

using namespace jank;
using test::gfx;

namespace {

std::string read(const std::string& name) {
  std::ifstream in(std::string(JANK_SOURCE_DIR) + "/tests/golden/" + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A store holding every kind of state: skips with windows, Davey, pid names,
// gfxinfo baselines with histograms, framestats positions, a log position.
void fill(metrics::Store& store) {
  auto& d = store.device("127.0.0.1:5555");
  metrics::DeviceLogcatRecorder rec(store, d);
  parsers::LogcatStreamOptions o;
  o.parse.default_year = 2024;
  parsers::LogcatStream s(rec, o);
  s.feed(read("logcat_threadtime.input"));
  s.finish();
  d.lines = s.counts();
  d.log_cursor.valid = true;
  d.log_cursor.boot_id = "0f0e0d0c-0b0a-4908-8706-050403020100";
  d.log_cursor.logd_pid = 321;
  d.log_cursor.buffers["main"] = {1234, 0xfedcba9876543210ull, 0x0123456789abcdefull};  // a hash uses all 64 bits
  d.log_cursor.buffers["system"] = {99, 7};
  d.continuity.lost_lines = 17;
  d.continuity.reboots = 2;
  d.continuity.unheld_lines = 41;
  d.clock.observe(1'700'000'000'000'000'000, 1'700'000'003'600'000'000);
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo(read("gfxinfo_two_polls.input")));
  auto& other = store.device("emulator-5554");
  jank::metrics::record_skip(store, other, "com.x y", 5'000'000'000, true, 7);  // a label needing escapes
}

std::string exposition(const metrics::Store& store) {
  exporters::StoreCollector c(store, exporters::input_time_now());
  return c.Text().str();
}

}  // namespace

TEST_CASE("a checkpoint restores the store exactly", "[checkpoint]") {
  metrics::Store original;
  fill(original);
  const std::string saved = original.save();

  metrics::Store restored;
  std::string error;
  REQUIRE(restored.load(saved, error));
  CHECK(error.empty());
  CHECK(restored.save() == saved);
  CHECK(exposition(restored) == exposition(original));
  const auto& d = *restored.devices().at("127.0.0.1:5555");
  CHECK(d.log_cursor == original.devices().at("127.0.0.1:5555")->log_cursor);
  CHECK(d.continuity.lost_lines == 17);
  CHECK(d.continuity.unheld_lines == 41);
  CHECK(d.clock.offset_ns() == 3'600'000'000);
  REQUIRE(d.pid_names.find(8400) != nullptr);
  CHECK(*d.pid_names.find(8400) == "com.example.shop");
}

TEST_CASE("a checkpoint written before unheld lines were counted still loads, with 0 of them", "[checkpoint]") {
  metrics::Store original;
  fill(original);
  std::string saved = original.save();
  // The continuity record of that build ended with the unconfirmed resumes.
  const auto at = saved.find(" 41\n", saved.find("continuity"));
  REQUIRE(at != std::string::npos);
  saved.erase(at, 3);
  metrics::Store restored;
  std::string error;
  REQUIRE(restored.load(saved, error));
  CHECK(error.empty());
  const auto& d = *restored.devices().at("127.0.0.1:5555");
  CHECK(d.continuity.unheld_lines == 0);
  CHECK(d.continuity.lost_lines == 17);
  CHECK(d.continuity.reboots == 2);
}

TEST_CASE("restored gfxinfo baselines keep counting deltas", "[checkpoint]") {
  metrics::Store a;
  fill(a);
  metrics::Store b;
  std::string error;
  REQUIRE(b.load(a.save(), error));
  // The newest dump again adds nothing in both: the baseline survived.
  auto dump = parsers::parse_gfxinfo(read("gfxinfo_two_polls.input"));
  REQUIRE(dump.processes.size() == 2);
  dump.processes.erase(dump.processes.begin());
  metrics::record_gfxinfo(a, a.device("127.0.0.1:5555"), dump);
  metrics::record_gfxinfo(b, b.device("127.0.0.1:5555"), dump);
  CHECK(exposition(a) == exposition(b));
  CHECK(gfx(b.devices().at("127.0.0.1:5555")->packages.at("com.example.feed")).gfxinfo.frames_rendered() == 52);
}

TEST_CASE("a damaged checkpoint is rejected and leaves the store untouched", "[checkpoint]") {
  metrics::Store original;
  fill(original);
  const std::string saved = original.save();
  metrics::Store target;
  jank::metrics::record_skip(target, target.device("keep"), "p", 0, false, 1);
  const std::string before = target.save();
  std::string error;
  // Every truncation point, and a few flipped bytes.
  for (std::size_t cut = 0; cut + 1 < saved.size(); cut += 7) {  // all but the final newline
    INFO("cut at " << cut << ": ..." << std::string_view(saved).substr(cut > 40 ? cut - 40 : 0, 40));
    REQUIRE_FALSE(target.load(std::string_view(saved).substr(0, cut), error));
    REQUIRE_FALSE(error.empty());
  }
  std::string flipped = saved;
  flipped[flipped.find("device") + 1] = 'X';
  CHECK_FALSE(target.load(flipped, error));
  CHECK_FALSE(target.load("jank_exporter_state 99 0\nend\n", error));
  CHECK_THAT(error, Catch::Contains("version"));
  CHECK_FALSE(target.load(saved + "trailing", error));
  CHECK(target.save() == before);
}

namespace {

// A field of the saved text, by the token that precedes it.
std::string replace_after(std::string text, const std::string& before, const std::string& value) {
  const auto at = text.find(before);
  REQUIRE(at != std::string::npos);
  const auto start = at + before.size();
  const auto end = text.find_first_of(" \n", start);
  return text.replace(start, end - start, value);
}

}  // namespace

TEST_CASE("values that cannot be true drop their record, not the file", "[checkpoint]") {
  metrics::Store original;
  fill(original);
  const std::string saved = original.save();
  metrics::Store restored;
  std::string error;
  metrics::Store::LoadReport report;

  SECTION("a counter near 2^64 does not wrap: its package restarts from 0") {
    // skipped_frames of the first package of emulator-5554 ("com.x y").
    const std::string bad = replace_after(saved, "package \"com.x%20y\n", "18446744073709551610");
    REQUIRE(restored.load(bad, error, &report));
    const auto& d = *restored.devices().at("emulator-5554");
    CHECK(metrics::skips_of(d.packages.at("com.x y")) == nullptr);  // nothing kept of it
    CHECK(report.rejected_by_record.at("package") == 1);
    // The other device is whole.
    CHECK(restored.devices().at("127.0.0.1:5555")->log_cursor == original.devices().at("127.0.0.1:5555")->log_cursor);
  }
  SECTION("a negative log index drops the cursor: counting restarts from now") {
    const std::string bad = replace_after(saved, " 2 \"main ", "-5");
    REQUIRE(restored.load(bad, error, &report));
    CHECK_FALSE(restored.devices().at("127.0.0.1:5555")->log_cursor.valid);
    CHECK(report.rejected_by_record.at("log_cursor") == 1);
    CHECK(restored.devices().at("127.0.0.1:5555")->packages.size() ==
          original.devices().at("127.0.0.1:5555")->packages.size());
  }
  SECTION("a log index beyond any logd's") {
    const std::string bad = replace_after(saved, " 2 \"main ", "99999999999999999999");
    REQUIRE(restored.load(bad, error, &report));
    CHECK_FALSE(restored.devices().at("127.0.0.1:5555")->log_cursor.valid);
  }
  SECTION("a boot id that is no boot id") {
    const std::string bad = replace_after(saved, "cursor 1 ", "\"not-a-boot-id");
    REQUIRE(restored.load(bad, error, &report));
    CHECK_FALSE(restored.devices().at("127.0.0.1:5555")->log_cursor.valid);
  }
  SECTION("a clock offset of centuries is learned again") {
    const std::string bad = replace_after(saved, "clock 1 ", "9000000000000000000");
    REQUIRE(restored.load(bad, error, &report));
    CHECK_FALSE(restored.devices().at("127.0.0.1:5555")->clock.offset_ns());
    CHECK(report.rejected_by_record.at("device_clock") == 1);
  }
  CHECK(report.rejected.size() == 1);
}

TEST_CASE("a version 1 state file keeps its counters and resumes by line count", "[checkpoint]") {
  // Written by the previous release: a time-based position (here one in
  // 2100, which must not matter) and the loss index that v2 resumes from.
  const std::string v1 =
      "jank_exporter_state 1 1\n"
      "device \"sim0 60 0\n"
      "10 0 2 8 4 0 0 0 0\n"
      "1 1700000000 9 9 0 0 1700000000000000000 1\n"
      "0\n"
      "1 4102444800000000000 1 12345\n"
      "logindex 1 3 2 \"main 500 \"system 80\n"
      "1\n"
      "package \"com.example.feed\n"
      "9 1 9 0 0 0 0 1 0 0 0 0 1 9 1 1700000000 9 9\n"
      "0 0 9 0 0 0 0 0 0 0 0 0 0 0\n"
      "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
      "0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
      "end\n";
  metrics::Store s;
  std::string error;
  metrics::Store::LoadReport report;
  const bool ok = s.load(v1, error, &report);
  INFO(error);
  REQUIRE(ok);
  CHECK(report.version == 1);
  const auto& d = *s.devices().at("sim0");
  CHECK(d.log_cursor.valid);
  CHECK(d.log_cursor.buffers.at("main").index == 500);
  CHECK(d.log_cursor.buffers.at("system").index == 80);
  CHECK(d.log_cursor.buffers.at("main").last_hash == 0);
  CHECK(d.continuity.lost_lines == 3);
  CHECK(metrics::skips_of(d.packages.at("com.example.feed"))->skipped_frames == 9);
  CHECK(d.lines.received == 10);
}

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "exporters/prometheus_collector.h"
#include "metrics/store.h"
#include "parsers/gfxinfo.h"
#include "parsers/logcat_stream.h"

using namespace jank;

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
  o.every_line = true;
  parsers::LogcatStream s(rec, o);
  s.feed(read("logcat_threadtime.input"));
  s.finish();
  d.lines = s.counts();
  d.log_position = s.position();
  store.record_gfxinfo(d, parsers::parse_gfxinfo(read("gfxinfo_two_polls.input")));
  auto& other = store.device("emulator-5554");
  store.record_skip(other, "com.x y", 5'000'000'000, true, 7);  // a label needing escapes
}

std::string exposition(const metrics::Store& store) {
  exporters::StoreCollector c(store, exporters::input_time_now());
  std::string text = exporters::serialize_text(c.Collect());
  REQUIRE(c.Text().str() == text);  // the direct writer agrees with prometheus-cpp's families
  return text;
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
  CHECK(d.log_position.valid);
  CHECK(d.log_position.ns == original.devices().at("127.0.0.1:5555")->log_position.ns);
  CHECK(d.pid_names.at(8400) == "com.example.shop");
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
  a.record_gfxinfo(a.device("127.0.0.1:5555"), dump);
  b.record_gfxinfo(b.device("127.0.0.1:5555"), dump);
  CHECK(exposition(a) == exposition(b));
  CHECK(b.devices().at("127.0.0.1:5555")->packages.at("com.example.feed").gfxinfo.frames_rendered() == 52);
}

TEST_CASE("a damaged checkpoint is rejected and leaves the store untouched", "[checkpoint]") {
  metrics::Store original;
  fill(original);
  const std::string saved = original.save();
  metrics::Store target;
  target.record_skip(target.device("keep"), "p", 0, false, 1);
  const std::string before = target.save();
  std::string error;
  // Every truncation point, and a few flipped bytes.
  for (std::size_t cut = 0; cut < saved.size(); cut += 7) {
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

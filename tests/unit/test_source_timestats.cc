// The TimeStats module (metrics/sources/timestats): its record, which keeps
// the layout of the store's "ts_device" record of older releases, and a
// record with values that cannot be true.
#include <catch2/catch.hpp>

#include <string>

#include "exporters/prometheus_collector.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/power.h"
#include "metrics/sources/timestats.h"
#include "metrics/store.h"
#include "parsers/power_state.h"
#include "parsers/timestats.h"
#include "tests/support/queries.h"

using namespace jank;

namespace {

parsers::TimeStatsDump dump(std::uint64_t frames, std::uint64_t app) {
  parsers::TimeStatsDump d;
  d.text = parsers::TimeStatsText::timestats;
  d.has_jank_payload = true;
  d.stats_start = 1700000000;
  d.lines = 40;
  d.malformed_lines = 2;
  parsers::TsGlobalBucket g;
  g.refresh_rate_fps = g.render_rate_fps = 120;
  g.jank[parsers::TsJankField::total_timeline_frames] = frames;
  g.jank[parsers::TsJankField::app_unattributed] = app;
  d.global.push_back(g);
  parsers::TsLayer l;
  l.refresh_rate_fps = l.render_rate_fps = 120;
  l.uid = 10001;
  l.layer_name = "com.example.feed/com.example.feed.MainActivity#57";
  l.game_mode = parsers::TsGameMode::standard;
  l.total_frames = frames;
  l.jank = g.jank;
  d.layers.push_back(l);
  return d;
}

const metrics::TsLayerKey kKey{"com.example.feed/com.example.feed.MainActivity", 10001, 120, 120,
                               parsers::TsGameMode::standard};

std::string exposition(const metrics::Store& store) {
  return exporters::StoreCollector(store, exporters::input_time_now()).Text().str();
}

// The record's text, from its tag to the line before the next record.
std::string cut_record(std::string& text) {
  const auto at = text.find("\nts_device ");
  REQUIRE(at != std::string::npos);
  auto end = text.find("\nend\n", at + 1);
  for (const char* next : {"\npower ", "\nthermal ", "\nbattery ", "\nft_device ", "\nlog_pattern_device "}) {
    const auto n = text.find(next, at + 1);
    if (n != std::string::npos && n < end) end = n;
  }
  std::string record = text.substr(at, end - at);
  text.erase(at, end - at);
  return record;
}

}  // namespace

TEST_CASE("TimeStats' totals, baselines and line counts come back from its record, so a restart counts only what grew",
          "[source][checkpoint][timestats]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_timestats(d, dump(100, 4));
  const std::string saved = store.save();
  REQUIRE(saved.find("\nts_device 40 2 timestats ") != std::string::npos);

  metrics::Store restored;
  std::string error;
  REQUIRE(restored.load(saved, error));
  CHECK(restored.save() == saved);
  CHECK(exposition(restored) == exposition(store));
  auto& r = restored.device("s");
  const auto* s = metrics::timestats_source().find(r);
  REQUIRE(s != nullptr);
  CHECK(s->counted);
  CHECK(s->lines == 40);
  CHECK(s->malformed_lines == 2);
  // The next answer adds what grew since the checkpoint, not its whole 150.
  metrics::record_timestats(r, dump(150, 5));
  CHECK(test::layer_total(s->tracker, kKey, parsers::TsJankField::total_timeline_frames) == 150);
  CHECK(test::layer_total(s->tracker, kKey, parsers::TsJankField::app_unattributed) == 5);
  CHECK(s->tracker.buckets().at({120, 120})[parsers::TsJankField::total_timeline_frames] == 150);
  CHECK(s->lines == 80);
}

TEST_CASE("answers without TimeStats' jank payload leave no record", "[source][checkpoint][timestats]") {
  metrics::Store store;
  auto& d = store.device("s");
  parsers::TimeStatsDump denied;
  denied.text = parsers::TimeStatsText::not_recognised;
  denied.lines = 1;
  metrics::record_timestats(d, denied);
  REQUIRE(metrics::timestats_source().find(d) != nullptr);
  CHECK_FALSE(metrics::timestats_source().find(d)->counted);
  CHECK(store.save().find("ts_device") == std::string::npos);
  CHECK_THAT(exposition(store), Catch::Contains("source=\"timestats\",result=\"discarded\"} 0\n"));
  CHECK_THAT(exposition(store), !Catch::Contains("jank_exporter_timestats_resets_total"));
}

TEST_CASE("a state file of a release before the TimeStats module loads its counts", "[source][checkpoint][timestats]") {
  // As releases before the module wrote it: the ts_device record stood right
  // after the surface record, before every module's record.
  metrics::Store store;
  auto& d = store.device("s");
  metrics::layers_state(d).input.list_lines = 7;
  metrics::record_power_state(store, d, parsers::parse_power_state("Display Power: state=ON\n"));
  metrics::record_timestats(d, dump(100, 4));
  const std::string now = store.save();
  std::string old = now;
  const std::string record = cut_record(old);
  const auto surface = old.find("\nsurface 7 ");
  const auto power = old.find("\npower ");
  REQUIRE(surface != std::string::npos);
  REQUIRE(power != std::string::npos);
  REQUIRE(power > surface);  // nothing between them but the surface record's fields
  old.insert(power, record);
  REQUIRE(old != now);

  metrics::Store restored;
  std::string error;
  metrics::Store::LoadReport report;
  const bool ok = restored.load(old, error, &report);
  INFO(error);
  REQUIRE(ok);
  CHECK(report.rejected.empty());
  const auto* s = metrics::timestats_source().find(restored.device("s"));
  REQUIRE(s != nullptr);
  CHECK(s->lines == 40);
  CHECK(s->malformed_lines == 2);
  CHECK(test::layer_total(s->tracker, kKey, parsers::TsJankField::total_timeline_frames) == 100);
  CHECK(metrics::layers_state(restored.device("s")).input.list_lines == 7);
  CHECK(metrics::power_of(restored.device("s")) != nullptr);
  metrics::Store current;  // the same state in the module's layout (the panel's state is never kept)
  REQUIRE(current.load(now, error));
  CHECK(exposition(restored) == exposition(current));
  CHECK_THAT(exposition(restored),
             Catch::Contains("android_timestats_frames_total{serial=\"s\",package=\"com.example.feed\"} 100\n"));
  CHECK_THAT(exposition(restored), Catch::Contains("{serial=\"s\",source=\"timestats\",result=\"discarded\"} 2\n"));
  CHECK(restored.save() == now);  // written again in the module's place
}

TEST_CASE("a TimeStats record with values that cannot be true is dropped alone and reported",
          "[source][checkpoint][timestats]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::layers_state(d).input.list_lines = 7;
  metrics::record_timestats(d, dump(100, 4));
  const std::string saved = store.save();

  SECTION("a baseline from a dump the tracker never took (seen past its sequence)") {
    std::string bad = saved;
    const auto seq_at = bad.find("timestats 1 ", bad.find("\nts_device "));
    REQUIRE(seq_at != std::string::npos);
    bad.replace(seq_at, std::string("timestats 1 ").size(), "timestats 0 ");
    metrics::Store refused;
    std::string error;
    metrics::Store::LoadReport report;
    REQUIRE(refused.load(bad, error, &report));
    CHECK(report.rejected_by_record.at("timestats") == 1);
    CHECK(report.rejected.size() == 1);
    CHECK(metrics::timestats_source().find(refused.device("s")) == nullptr);
    CHECK(metrics::layers_state(refused.device("s")).input.list_lines == 7);  // the rest of the device is kept
  }
  SECTION("more lines discarded than read") {
    std::string bad = saved;
    const auto at = bad.find("\nts_device 40 2 ");
    REQUIRE(at != std::string::npos);
    bad.replace(at, std::string("\nts_device 40 2 ").size(), "\nts_device 2 40 ");
    metrics::Store refused;
    std::string error;
    metrics::Store::LoadReport report;
    REQUIRE(refused.load(bad, error, &report));
    CHECK(report.rejected_by_record.at("timestats") == 1);
    CHECK(report.rejected.size() == 1);
    CHECK(metrics::timestats_source().find(refused.device("s")) == nullptr);
    CHECK(metrics::layers_state(refused.device("s")).input.list_lines == 7);
  }
}

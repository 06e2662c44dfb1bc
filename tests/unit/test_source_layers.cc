// The layers module (metrics/sources/layers): its record is the store's
// "surface" record, layout unchanged, and a file of the release before the
// module loads into it.
#include <catch2/catch.hpp>

#include <string>

#include "exporters/prometheus_collector.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/power.h"
#include "metrics/store.h"
#include "state_fixture.h"

using namespace jank;

namespace {

// Written by the release before the module (one device: two followed layers,
// a third polled beyond the cap of two, --list and --latency lines, the
// apps' active time, and power's counts in their own record).
const std::string kBeforeModule =
    "jank_exporter_state 2 1\n"
    "device \"emu-1 60 1\n"
    "0 0 0 0 4 0 0 0 0\n"
    "0 0 0 0 0\n"
    "0\n"
    "cursor 0 \" 0 0 rebase 0\n"
    "continuity 0 0 0 0 0 0\n"
    "clock 0 0 0\n"
    "dump_input 0 0 0 0\n"
    "3\n"
    "package \"com.example.feed\n"
    "0 0 9 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "0 0 9 0 0 0 0 0 0 0 0 0 0 0\n"
    "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 10 0 0 0 0 0 "
        "0 0 0 0 0 0 0 0 0 vitals 0 0 0 0\n"
    "0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 "
        "0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 "
        "11 0 0 0 0 0 0 0 0 0 0 0 0 0 fs_legacy 0 fs_interval_fallbacks 0\n"
    "package \"com.example.game\n"
    "0 0 9 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "0 0 9 0 0 0 0 0 0 0 0 0 0 0\n"
    "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 10 0 0 0 0 0 "
        "0 0 0 0 0 0 0 0 0 vitals 0 0 0 0\n"
    "0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 "
        "0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 "
        "11 0 0 0 0 0 0 0 0 0 0 0 0 0 fs_legacy 0 fs_interval_fallbacks 0\n"
    "package \"com.example.idle\n"
    "0 0 9 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "0 0 9 0 0 0 0 0 0 0 0 0 0 0\n"
    "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 10 0 0 0 0 0 "
        "0 0 0 0 0 0 0 0 0 vitals 0 0 0 0\n"
    "0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 "
        "0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 "
        "11 0 0 0 0 0 0 0 0 0 0 0 0 0 fs_legacy 0 fs_interval_fallbacks 0\n"
    "surface 4 1 57 5 0 0 1 783333314 2 \"com.example.feed 783333314 \"com.example.game 366666663\n"
    "2\n"
    "layer \"SurfaceView[com.example.game/com.example.game.MainActivity](BLAST) \"com.example.game 1 "
        "\"SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)#1422 16666666 13 1 0 0 0 0 "
        "366666663 17 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 11 0.36666666300000006 1 5433333331 3 33333333 "
        "33333333 33333333 vitals 0 11 2 0\n"
    "layer \"com.example.feed/com.example.feed.Main \"com.example.feed 0 "
        "\"com.example.feed/com.example.feed.Main#7 16666666 31 1 1 1 1 316666666 783333314 17 0 0 28 0 0 0 0 "
        "0 0 0 0 0 1 0 0 0 0 29 0.783333314 1 5783333320 3 16666666 16666666 316666666 vitals 0 1 1 0\n"
    "power 3 0\n"
    "end\n";

constexpr std::string_view kFeed = "com.example.feed/com.example.feed.Main";
constexpr std::string_view kGame = "SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)";

metrics::StoreOptions two_layers() {
  metrics::StoreOptions o;
  o.max_layers_per_device = 2;
  return o;
}

std::int64_t app_active_ns(metrics::Store& store, std::string_view package) {
  const auto& packages = store.device("emu-1").packages;
  const auto it = packages.find(package);
  REQUIRE(it != packages.end());
  const metrics::AppLayersState* app = metrics::app_layers_of(it->second);
  return app == nullptr ? 0 : app->active.total_ns();
}

}  // namespace

TEST_CASE("a state file of the release before the layers module loads whole and saves back unchanged",
          "[source][checkpoint]") {
  metrics::Store store(two_layers());
  const auto report = test::load_state(store, kBeforeModule);
  CHECK(report.rejected.empty());
  auto& d = store.device("emu-1");
  const metrics::LayersState* s = metrics::layers_state_of(d);
  REQUIRE(s != nullptr);
  CHECK(s->input.list_lines == 4);
  CHECK(s->input.list_malformed == 1);
  CHECK(s->input.latency_lines == 57);
  CHECK(s->input.latency_malformed == 5);
  CHECK(s->not_followed == 1);
  CHECK(s->active.total_ns() == 783'333'314);
  CHECK(app_active_ns(store, "com.example.feed") == 783'333'314);
  CHECK(app_active_ns(store, "com.example.game") == 366'666'663);
  CHECK(app_active_ns(store, "com.example.idle") == 0);

  const auto& layers = metrics::layers_of(d);
  REQUIRE(layers.size() == 2);
  const metrics::LayerMetrics& feed = layers.at(std::string(kFeed));
  CHECK(feed.package == "com.example.feed");
  CHECK(feed.kind == parsers::LayerKind::app_window);
  CHECK(feed.name == std::string(kFeed) + "#7");
  CHECK(feed.refresh_period_ns == 16'666'666);
  CHECK(feed.presents.frames() == 31);
  CHECK(feed.presents.overflows() == 1);
  CHECK(feed.presents.jank() == 1);
  CHECK(feed.presents.big_jank() == 1);
  CHECK(feed.presents.active_ns() == 783'333'314);
  CHECK(feed.presents.slow_frames() == 1);
  CHECK(feed.presents.last_present() == 5'783'333'320);
  CHECK_FALSE(feed.presenting);  // not checkpointed: no poll since the restart
  const metrics::LayerMetrics& game = layers.at(std::string(kGame));
  CHECK(game.package == "com.example.game");
  CHECK(game.kind == parsers::LayerKind::surface_view);
  CHECK(game.presents.frames() == 13);
  CHECK(game.presents.slow_frames() == 11);
  CHECK(game.presents.slow_frames_refresh() == 2);
  CHECK(game.presents.active_ns() == 366'666'663);

  // Power's counts, in their own record after the surface record.
  const metrics::PowerState* power = metrics::power_of(d);
  REQUIRE(power != nullptr);
  CHECK(power->lines == 3);
  CHECK(power->malformed_lines == 0);

  CHECK(store.save() == kBeforeModule);
}

TEST_CASE("the layers' series come back from the state file", "[source][checkpoint]") {
  metrics::Store store(two_layers());
  test::load_state(store, kBeforeModule);
  const std::string text = exporters::StoreCollector(store, exporters::input_time_now()).Text().str();
  CHECK_THAT(text, Catch::Contains("android_device_active_seconds_total{serial=\"emu-1\"} 0.783333314\n"));
  const std::string lines = "jank_exporter_surfaceflinger_lines_total{serial=\"emu-1\",source=";
  CHECK_THAT(text, Catch::Contains(lines + "\"list\",result=\"parsed\"} 3\n" +  //
                                   lines + "\"list\",result=\"discarded\"} 1\n" +  //
                                   lines + "\"latency\",result=\"parsed\"} 52\n" +  //
                                   lines + "\"latency\",result=\"discarded\"} 5\n" +  //
                                   lines + "\"power\",result=\"parsed\"} 3\n"));
  CHECK_THAT(text, Catch::Contains("jank_exporter_layers_not_followed_total{serial=\"emu-1\"} 1\n"));
  CHECK_THAT(text, Catch::Contains("android_app_active{serial=\"emu-1\",package=\"com.example.feed\"} 0\n"));
  CHECK_THAT(text, Catch::Contains("android_app_active_seconds_total{serial=\"emu-1\",package=\"com.example.game\"} "
                                   "0.366666663\n"));
  CHECK_THAT(text, Catch::Contains("android_layer_frames_presented_total{serial=\"emu-1\",package=\"com.example.feed\","
                                   "layer=\"com.example.feed/com.example.feed.Main\",kind=\"app_window\"} 31\n"));
  CHECK(text.find("package=\"com.example.idle\"") == std::string::npos);  // no layer, no active time
}

TEST_CASE("a layer that cannot be true is dropped alone, counts that cannot be true drop the counts alone",
          "[source][checkpoint]") {
  SECTION("a layer of a kind no release writes") {
    metrics::Store store(two_layers());
    const auto report = test::load_state(
        store, test::replaced(kBeforeModule, "\"com.example.feed 0 \"", "\"com.example.feed 2 \""));
    CHECK(report.rejected_by_record.at("layer") == 1);
    CHECK(report.rejected.size() == 1);
    const auto& layers = metrics::layers_of(store.device("emu-1"));
    CHECK(layers.size() == 1);
    CHECK(layers.contains(std::string(kGame)));
    CHECK(metrics::layers_state_of(store.device("emu-1"))->input.list_lines == 4);
  }
  SECTION("more --list lines discarded than received") {
    metrics::Store store(two_layers());
    const auto report = test::load_state(store, test::replaced(kBeforeModule, "surface 4 1 ", "surface 4 9 "));
    CHECK(report.rejected_by_record.at("surface_counters") == 1);
    CHECK(report.rejected.size() == 1);
    const metrics::LayersState* s = metrics::layers_state_of(store.device("emu-1"));
    REQUIRE(s != nullptr);
    CHECK(s->input.list_lines == 0);
    CHECK(s->not_followed == 0);
    CHECK(s->active.total_ns() == 0);
    CHECK(app_active_ns(store, "com.example.feed") == 0);
    CHECK(s->layers.size() == 2);  // the layers are kept
    CHECK(metrics::power_of(store.device("emu-1"))->lines == 3);
  }
}

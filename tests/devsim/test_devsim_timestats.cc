// The simulator's `--timestats -dump` text for every Android version, read
// back through the exporter's parser and tracker: every counter comes back,
// nothing is malformed, and each version prints its own spellings.
#include <catch2/catch.hpp>

#include <string>

#include "devsim/timestats_dump.h"
#include "metrics/timestats_tracker.h"
#include "parsers/timestats.h"
#include "tests/support/queries.h"

using namespace jank::devsim;
namespace parsers = jank::parsers;
namespace metrics = jank::metrics;

namespace {

SimJankPayload sim_jank(std::int32_t total, std::int32_t app, std::int32_t cpu, std::int32_t stuffing) {
  SimJankPayload j;
  j.total_timeline_frames = total;
  j.janky_frames = app + cpu;
  j.sf_long_cpu = cpu;
  j.app_unattributed = app;
  j.sf_unattributed = 1;
  j.sf_scheduling = 2;
  j.sf_prediction_error = 3;
  j.sf_long_gpu = 4;
  j.app_buffer_stuffing = stuffing;
  return j;
}

SimTimeStats sample(int sdk) {
  SimTimeStats s;
  s.stats_start = 1700000000;
  s.stats_end = 1700000300;
  s.total_frames = 18000;
  s.display_on_ms = 300000;
  s.display_config_ms = {{60, 100000}, {120, 200000}};
  s.global.push_back({120, 120, sim_jank(15000, 40, 5, 9)});
  s.global.push_back({120, 60, sim_jank(3000, 20, 1, 2)});

  SimTimeStatsLayer feed;
  feed.refresh_rate_fps = 120;
  feed.render_rate_fps = 120;
  feed.uid = 10123;
  feed.layer_name = std::string("com.example.feed/com.example.feed.MainActivity") + (sdk >= 33 ? "#57" : "#0");
  feed.total_frames = 14900;
  feed.dropped_frames = 2;
  feed.jank = sim_jank(14890, 38, 5, 9);
  feed.present_to_present_ms = {{8, 14000}, {16, 890}, {33, 9}};

  SimTimeStatsLayer game;
  game.refresh_rate_fps = 120;
  game.render_rate_fps = 60;
  game.uid = 10321;
  game.layer_name = "SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)#90";
  game.game_mode = sdk >= 34 ? 4 : 2;
  game.total_frames = 2990;
  game.dropped_frames = 11;
  game.jank = sim_jank(2990, 20, 1, 2);
  game.frame_rate_vote = 60;
  game.present_to_present_ms = {{16, 2900}, {40, 89}};

  SimTimeStatsLayer none;
  none.refresh_rate_fps = 120;
  none.render_rate_fps = 120;
  none.uid = 10123;
  none.layer_name = "none";
  none.jank = sim_jank(10, 2, 0, 0);

  s.layers = {none, game, feed};  // printed most frames first
  return s;
}

void check_payload(const parsers::TsJankPayload& got, const SimJankPayload& want) {
  CHECK(got[parsers::TsJankField::total_timeline_frames] == static_cast<std::uint64_t>(want.total_timeline_frames));
  CHECK(got[parsers::TsJankField::janky_frames] == static_cast<std::uint64_t>(want.janky_frames));
  CHECK(got[parsers::TsJankField::sf_long_cpu] == static_cast<std::uint64_t>(want.sf_long_cpu));
  CHECK(got[parsers::TsJankField::sf_long_gpu] == static_cast<std::uint64_t>(want.sf_long_gpu));
  CHECK(got[parsers::TsJankField::sf_unattributed] == static_cast<std::uint64_t>(want.sf_unattributed));
  CHECK(got[parsers::TsJankField::app_unattributed] == static_cast<std::uint64_t>(want.app_unattributed));
  CHECK(got[parsers::TsJankField::sf_scheduling] == static_cast<std::uint64_t>(want.sf_scheduling));
  CHECK(got[parsers::TsJankField::sf_prediction_error] == static_cast<std::uint64_t>(want.sf_prediction_error));
  CHECK(got[parsers::TsJankField::app_buffer_stuffing] == static_cast<std::uint64_t>(want.app_buffer_stuffing));
}

}  // namespace

TEST_CASE("devsim timestats: every sdk reads back through the parser", "[timestats]") {
  for (int sdk = 31; sdk <= 36; ++sdk) {
    CAPTURE(sdk);
    const SimTimeStats sim = sample(sdk);
    const std::string text = format_timestats(sdk, sim);
    const parsers::TimeStatsDump d = parsers::parse_timestats(text);
    CHECK(d.text == parsers::TimeStatsText::timestats);
    CHECK(d.has_jank_payload);
    CHECK(d.malformed_lines == 0);
    CHECK(d.discarded_blocks == 0);
    CHECK(d.stats_start == sim.stats_start);
    CHECK(d.stats_end == sim.stats_end);
    REQUIRE(d.global.size() == 2);
    CHECK(d.global[1].refresh_rate_fps == 120);
    CHECK(d.global[1].render_rate_fps == 60);
    check_payload(d.global[0].jank, sim.global[0].jank);
    check_payload(d.global[1].jank, sim.global[1].jank);

    REQUIRE(d.layers.size() == 3);
    const parsers::TsLayer& feed = d.layers[0];  // sorted by totalFrames
    CHECK(feed.layer_name == sim.layers[2].layer_name);
    CHECK(feed.uid == 10123);
    CHECK(feed.total_frames == 14900);
    CHECK(feed.dropped_frames == 2);
    CHECK(feed.game_mode == parsers::TsGameMode::unsupported);
    check_payload(feed.jank, sim.layers[2].jank);
    const parsers::TsLayer& game = d.layers[1];
    CHECK(game.layer_name == sim.layers[1].layer_name);
    CHECK(game.render_rate_fps == 60);
    CHECK(game.game_mode == (sdk >= 34 ? parsers::TsGameMode::custom : parsers::TsGameMode::performance));
    check_payload(game.jank, sim.layers[1].jank);
    CHECK(d.layers[2].layer_name == "none");
    CHECK(d.layers[2].total_frames == 0);

    // Each version's own spellings.
    CHECK((text.find("compositionStrategyPredicted = ") != std::string::npos) == (sdk >= 33));
    CHECK((text.find("SetFrateRate vote for this layer:") != std::string::npos) == (sdk <= 34));
    CHECK((text.find("SetFrameRate vote for this layer:") != std::string::npos) == (sdk >= 35));
    CHECK((text.find("gameMode = GameModeUnsupported") != std::string::npos) == (sdk <= 32));
    CHECK((text.find("present2presentDelta histogram") != std::string::npos) == (sdk >= 34));
    CHECK(text.find("averageFPS = 117.7") != std::string::npos);  // mostly 8 ms frames
  }
}

TEST_CASE("devsim timestats: never enabled prints nothing", "[timestats]") {
  SimTimeStats never;
  for (int sdk = 31; sdk <= 36; ++sdk) {
    const std::string text = format_timestats(sdk, never);
    CHECK(text.empty());
    CHECK(parsers::parse_timestats(text).text == parsers::TimeStatsText::empty);
  }
  // Enabled, nothing drawn yet: the header with no bucket and no layer.
  SimTimeStats idle;
  idle.stats_start = idle.stats_end = 1700000000;
  const auto d = parsers::parse_timestats(format_timestats(33, idle));
  CHECK(d.text == parsers::TimeStatsText::timestats);
  CHECK(d.has_jank_payload);
  CHECK(d.global.empty());
  CHECK(d.layers.empty());
  CHECK(d.malformed_lines == 0);
}

TEST_CASE("devsim timestats: game modes per version", "[timestats]") {
  SimTimeStats s = sample(31);
  s.layers.resize(1);
  s.layers[0].game_mode = 3;
  CHECK(format_timestats(32, s).find("gameMode = GameModeBattery\n") != std::string::npos);
  CHECK(format_timestats(33, s).find("gameMode = Battery\n") != std::string::npos);
  s.layers[0].game_mode = 4;  // Custom is named from 14
  CHECK(format_timestats(31, s).find("gameMode = GameModeUnspecified\n") != std::string::npos);
  CHECK(format_timestats(33, s).find("gameMode = 4\n") != std::string::npos);
  CHECK(format_timestats(34, s).find("gameMode = Custom\n") != std::string::npos);
  CHECK(parsers::parse_timestats(format_timestats(33, s)).layers.at(0).game_mode == parsers::TsGameMode::other);
}

TEST_CASE("devsim timestats: the tracker follows a layer pull between dumps", "[timestats]") {
  metrics::TimeStatsTracker tracker;
  SimTimeStats s = sample(35);
  tracker.observe(parsers::parse_timestats(format_timestats(35, s)));
  // statsd pulled the layer atom: layers restart, statsStart and buckets stay.
  for (auto& l : s.layers) {
    l.total_frames = l.total_frames > 0 ? 100 : 0;
    l.jank = sim_jank(100, 1, 0, 0);
  }
  const auto o = tracker.observe(parsers::parse_timestats(format_timestats(35, s)));
  CHECK(o.layer_reset);
  CHECK(!o.bucket_reset);
  const metrics::TsLayerKey game{"SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)", 10321, 120, 60,
                                 parsers::TsGameMode::custom};
  CHECK(jank::test::layer_total(tracker, game, parsers::TsJankField::total_timeline_frames) == 2990 + 100);
  CHECK(tracker.layers().at(game).total_frames == 2990 + 100);
}

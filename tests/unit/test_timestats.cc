// dumpsys SurfaceFlinger --timestats -dump on hand-made dumps in the byte
// layout of TimeStatsHelper.cpp (Android 12, 13 and 15 texts), and the
// TimeStatsTracker on dumps built row by row: growth, the two kinds of clear,
// recreated layers, caps.
#include <catch2/catch.hpp>

#include <string>

#include "metrics/timestats_tracker.h"
#include "parsers/frametimeline.h"
#include "parsers/timestats.h"
#include "tests/support/names.h"
#include "tests/support/queries.h"

using namespace jank::parsers;
using jank::metrics::TimeStatsTracker;
using jank::metrics::TsBucketKey;
using jank::metrics::TsLayerKey;

namespace {

// One histogram line: SurfaceFlinger's 85 buckets, `count` frames in the 16 ms one.
std::string hist(int count = 0) {
  std::string s;
  auto bucket = [&](int ms) { s += std::to_string(ms) + "ms=" + std::to_string(ms == 16 ? count : 0) + " "; };
  for (int ms = 0; ms <= 34; ++ms) bucket(ms);
  for (int ms = 36; ms <= 50; ms += 2) bucket(ms);
  for (int ms = 54; ms <= 150; ms += 4) bucket(ms);
  for (int ms = 200; ms <= 1000; ms += 50) bucket(ms);
  s.back() = '\n';
  return s;
}

std::string jank_lines(int total, int janky, int cpu, int gpu, int hal, int app, int sched, int pred, int stuffing) {
  return "totalTimelineFrames = " + std::to_string(total) + "\njankyFrames = " + std::to_string(janky) +
         "\nsfLongCpuJankyFrames = " + std::to_string(cpu) + "\nsfLongGpuJankyFrames = " + std::to_string(gpu) +
         "\nsfUnattributedJankyFrames = " + std::to_string(hal) +
         "\nappUnattributedJankyFrames = " + std::to_string(app) +
         "\nsfSchedulingJankyFrames = " + std::to_string(sched) +
         "\nsfPredictionErrorJankyFrames = " + std::to_string(pred) +
         "\nappBufferStuffingJankyFrames = " + std::to_string(stuffing) + "\n";
}

const std::string kLegacy12 =
    "SurfaceFlinger TimeStats:\n"
    "Legacy stats are as follows:\n"
    "statsStart = 1700000000\n"
    "statsEnd = 1700000600\n"
    "totalFrames = 35000\n"
    "missedFrames = 12\n"
    "clientCompositionFrames = 40\n"
    "clientCompositionReusedFrames = 0\n"
    "refreshRateSwitches = 2\n"
    "compositionStrategyChanges = 7\n"
    "displayOnTime = 600000 ms\n"
    "displayConfigStats is as below:\n"
    "60fps = 300000ms\n"
    "90fps = 300000ms\n"
    "totalP2PTime = 598000 ms\n"
    "presentToPresent histogram is as below:\n" +
    hist(3000) +
    "averageFrameDuration = 6.250 ms\n"
    "frameDuration histogram is as below:\n" +
    hist() +
    "averageRenderEngineTiming = 0.000 ms\n"
    "renderEngineTiming histogram is as below:\n" +
    hist();

// Android 12 (and 12L): GameMode* names, "SetFrateRate", no compositionStrategyPredicted*.
const std::string kAndroid12 = kLegacy12 +
                               "\nGlobal aggregated jank payload (Timeline stats):"
                               "\ndisplayRefreshRate = 90 fps\n"
                               "renderRate = 90 fps\n" +
                               jank_lines(30000, 120, 10, 2, 3, 100, 4, 5, 60) +
                               "sfDeadlineMisses histogram is as below:\n" + hist() +
                               "sfPredictionErrors histogram is as below:\n" + hist() +
                               "\ndisplayRefreshRate = 60 fps\n"
                               "renderRate = 30 fps\n" +
                               jank_lines(400, 9, 0, 0, 0, 9, 0, 0, 1) + "sfDeadlineMisses histogram is as below:\n" +
                               hist() + "sfPredictionErrors histogram is as below:\n" + hist() +
                               "\ndisplayRefreshRate = 90 fps\n"
                               "renderRate = 90 fps\n"
                               "uid = 10123\n"
                               "layerName = com.example.feed/com.example.feed.MainActivity#0\n"
                               "packageName = \n"
                               "gameMode = GameModeUnsupported\n"
                               "totalFrames = 20000\n"
                               "droppedFrames = 3\n"
                               "lateAcquireFrames = 1\n"
                               "badDesiredPresentFrames = 0\n"
                               "Jank payload for this layer:\n" +
                               jank_lines(19990, 110, 9, 2, 3, 95, 4, 5, 50) +
                               "SetFrateRate vote for this layer:\n"
                               "frameRate = 0.00\n"
                               "frameRateCompatibility = Undefined\n"
                               "seamlessness = Undefined\n"
                               "averageFPS = 89.950\n"
                               "acquire2present histogram is as below:\n" +
                               hist() + "present2present histogram is as below:\n" + hist(2000) +
                               "appDeadlineDeltas histogram is as below:\n" + hist() +
                               "\ndisplayRefreshRate = 90 fps\n"
                               "renderRate = 90 fps\n"
                               "uid = 10123\n"
                               "layerName = none\n"
                               "packageName = \n"
                               "gameMode = GameModeUnsupported\n"
                               "totalFrames = 0\n"
                               "droppedFrames = 0\n"
                               "lateAcquireFrames = 0\n"
                               "badDesiredPresentFrames = 0\n"
                               "Jank payload for this layer:\n" +
                               jank_lines(10, 2, 1, 0, 0, 1, 0, 0, 0) +
                               "SetFrateRate vote for this layer:\n"
                               "frameRate = 0.00\n"
                               "frameRateCompatibility = Undefined\n"
                               "seamlessness = Undefined\n"
                               "appDeadlineDeltas histogram is as below:\n" +
                               hist() + "\n";

// Android 13 after SurfaceFlinger's state lock timed out (12-14 print that first).
const std::string kAndroid13 =
    "Dumping without lock after timeout: Connection timed out (-110)\n"
    "SurfaceFlinger TimeStats:\n"
    "Legacy stats are as follows:\n"
    "statsStart = 1700001000\n"
    "statsEnd = 1700001060\n"
    "totalFrames = 3600\n"
    "missedFrames = 0\n"
    "clientCompositionFrames = 0\n"
    "clientCompositionReusedFrames = 0\n"
    "refreshRateSwitches = 0\n"
    "compositionStrategyChanges = 1\n"
    "compositionStrategyPredicted = 30\n"
    "compositionStrategyPredictionSucceeded = 28\n"
    "compositionStrategyPredictionFailed = 2\n"
    "displayOnTime = 60000 ms\n"
    "displayConfigStats is as below:\n"
    "60fps = 60000ms\n"
    "totalP2PTime = 59000 ms\n"
    "presentToPresent histogram is as below:\n" +
    hist(3500) + "averageFrameDuration = 0.000 ms\nframeDuration histogram is as below:\n" + hist() +
    "averageRenderEngineTiming = 0.000 ms\nrenderEngineTiming histogram is as below:\n" + hist() +
    "\nGlobal aggregated jank payload (Timeline stats):"
    "\ndisplayRefreshRate = 60 fps\n"
    "renderRate = 60 fps\n" +
    jank_lines(3500, 7, 1, 0, 0, 6, 0, 0, 2) + "sfDeadlineMisses histogram is as below:\n" + hist() +
    "sfPredictionErrors histogram is as below:\n" + hist() +
    "\ndisplayRefreshRate = 60 fps\n"
    "renderRate = 60 fps\n"
    "uid = 10200\n"
    "layerName = com.example.mail/com.example.mail.InboxActivity#231\n"
    "packageName = \n"
    "gameMode = Standard\n"
    "totalFrames = 3490\n"
    "droppedFrames = 1\n"
    "lateAcquireFrames = 0\n"
    "badDesiredPresentFrames = 0\n"
    "Jank payload for this layer:\n" +
    jank_lines(3480, 7, 1, 0, 0, 6, 0, 0, 2) +
    "SetFrateRate vote for this layer:\n"
    "frameRate = 0.00\n"
    "frameRateCompatibility = Undefined\n"
    "seamlessness = Undefined\n"
    "averageFPS = 59.990\n"
    "present2present histogram is as below:\n" +
    hist(3489) + "\n";

// Android 15: "SetFrameRate", a game in Custom mode, a mode without a name, present2presentDelta.
const std::string kAndroid15 =
    "SurfaceFlinger TimeStats:\n"
    "Legacy stats are as follows:\n"
    "statsStart = 1700002000\n"
    "statsEnd = 1700002010\n"
    "totalFrames = 1200\n"
    "missedFrames = 0\n"
    "clientCompositionFrames = 0\n"
    "clientCompositionReusedFrames = 0\n"
    "refreshRateSwitches = 0\n"
    "compositionStrategyChanges = 0\n"
    "compositionStrategyPredicted = 0\n"
    "compositionStrategyPredictionSucceeded = 0\n"
    "compositionStrategyPredictionFailed = 0\n"
    "displayOnTime = 10000 ms\n"
    "displayConfigStats is as below:\n"
    "120fps = 10000ms\n"
    "totalP2PTime = 9990 ms\n"
    "presentToPresent histogram is as below:\n" +
    hist() + "averageFrameDuration = 0.000 ms\nframeDuration histogram is as below:\n" + hist() +
    "averageRenderEngineTiming = 0.000 ms\nrenderEngineTiming histogram is as below:\n" + hist() +
    "\nGlobal aggregated jank payload (Timeline stats):"
    "\ndisplayRefreshRate = 120 fps\n"
    "renderRate = 60 fps\n" +
    jank_lines(600, 30, 0, 1, 2, 20, 3, 4, 8) + "sfDeadlineMisses histogram is as below:\n" + hist() +
    "sfPredictionErrors histogram is as below:\n" + hist() +
    "\ndisplayRefreshRate = 120 fps\n"
    "renderRate = 60 fps\n"
    "uid = 10321\n"
    "layerName = SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)#1422\n"
    "packageName = \n"
    "gameMode = Custom\n"
    "totalFrames = 600\n"
    "droppedFrames = 4\n"
    "lateAcquireFrames = 0\n"
    "badDesiredPresentFrames = 0\n"
    "Jank payload for this layer:\n" +
    jank_lines(590, 29, 0, 1, 2, 19, 3, 4, 8) +
    "SetFrameRate vote for this layer:\n"
    "frameRate = 60.00\n"
    "frameRateCompatibility = Default\n"
    "seamlessness = ShouldBeSeamless\n"
    "averageFPS = 59.880\n"
    "present2present histogram is as below:\n" +
    hist(599) + "present2presentDelta histogram is as below:\n" + hist() +
    "\ndisplayRefreshRate = 120 fps\n"
    "renderRate = 60 fps\n"
    "uid = 10321\n"
    "layerName = none\n"
    "packageName = \n"
    "gameMode = 7\n"
    "totalFrames = 0\n"
    "droppedFrames = 0\n"
    "lateAcquireFrames = 0\n"
    "badDesiredPresentFrames = 0\n"
    "Jank payload for this layer:\n" +
    jank_lines(10, 1, 0, 0, 0, 1, 0, 0, 0) +
    "SetFrameRate vote for this layer:\n"
    "frameRate = 0.00\n"
    "frameRateCompatibility = Undefined\n"
    "seamlessness = Undefined\n"
    "\n";

std::uint64_t non_empty_lines(const std::string& text) {
  std::uint64_t n = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (text.find_first_not_of(" \t\r", start) < end) ++n;
    start = end + 1;
  }
  return n;
}

TsJankPayload payload(std::uint64_t total, std::uint64_t janky, std::uint64_t app = 0) {
  TsJankPayload p;
  p[TsJankField::total_timeline_frames] = total;
  p[TsJankField::janky_frames] = janky;
  p[TsJankField::app_unattributed] = app;
  return p;
}

TsLayer layer_row(const std::string& name, std::uint64_t frames, std::uint64_t janky, std::int64_t uid = 10100) {
  TsLayer l;
  l.refresh_rate_fps = 60;
  l.render_rate_fps = 60;
  l.uid = uid;
  l.layer_name = name;
  l.game_mode = TsGameMode::unsupported;
  l.total_frames = frames;
  l.jank = payload(frames, janky, janky);
  return l;
}

TimeStatsDump dump_of(std::int64_t stats_start, std::vector<TsLayer> layers, std::uint64_t global_frames = 0,
                      std::uint64_t global_janky = 0) {
  TimeStatsDump d;
  d.text = TimeStatsText::timestats;
  d.has_jank_payload = true;
  d.stats_start = stats_start;
  d.stats_end = stats_start + 10;
  d.global.push_back({60, 60, payload(global_frames, global_janky)});
  d.layers = std::move(layers);
  return d;
}

TsLayerKey key_of(const std::string& stable_name, std::int64_t uid = 10100) {
  return {stable_name, uid, 60, 60, TsGameMode::unsupported};
}

const std::string kFeed = "com.example.feed/com.example.feed.MainActivity";

}  // namespace

TEST_CASE("timestats: an Android 12 dump", "[timestats]") {
  const TimeStatsDump d = parse_timestats(kAndroid12);
  CHECK(d.text == TimeStatsText::timestats);
  CHECK(d.has_jank_payload);
  CHECK(d.malformed_lines == 0);
  CHECK(d.discarded_blocks == 0);
  CHECK(d.lines == non_empty_lines(kAndroid12));
  CHECK(d.stats_start == 1700000000);
  CHECK(d.stats_end == 1700000600);

  REQUIRE(d.global.size() == 2);
  CHECK(d.global[0].refresh_rate_fps == 90);
  CHECK(d.global[0].render_rate_fps == 90);
  CHECK(d.global[0].jank[TsJankField::total_timeline_frames] == 30000);
  CHECK(d.global[0].jank[TsJankField::janky_frames] == 120);
  CHECK(d.global[0].jank[TsJankField::sf_long_cpu] == 10);
  CHECK(d.global[0].jank[TsJankField::sf_long_gpu] == 2);
  CHECK(d.global[0].jank[TsJankField::sf_unattributed] == 3);
  CHECK(d.global[0].jank[TsJankField::app_unattributed] == 100);
  CHECK(d.global[0].jank[TsJankField::sf_scheduling] == 4);
  CHECK(d.global[0].jank[TsJankField::sf_prediction_error] == 5);
  CHECK(d.global[0].jank[TsJankField::app_buffer_stuffing] == 60);
  CHECK(d.global[1].refresh_rate_fps == 60);
  CHECK(d.global[1].render_rate_fps == 30);
  CHECK(d.global[1].jank[TsJankField::total_timeline_frames] == 400);

  REQUIRE(d.layers.size() == 2);
  const TsLayer& feed = d.layers[0];
  CHECK(feed.refresh_rate_fps == 90);
  CHECK(feed.render_rate_fps == 90);
  CHECK(feed.uid == 10123);
  CHECK(feed.layer_name == kFeed + "#0");
  CHECK(feed.package_name.empty());
  CHECK(feed.game_mode == TsGameMode::unsupported);
  CHECK(feed.total_frames == 20000);
  CHECK(feed.dropped_frames == 3);
  CHECK(feed.jank[TsJankField::total_timeline_frames] == 19990);
  CHECK(feed.jank[TsJankField::app_unattributed] == 95);
  CHECK(feed.jank[TsJankField::app_buffer_stuffing] == 50);
  CHECK(d.layers[1].layer_name == "none");
  CHECK(d.layers[1].total_frames == 0);
  CHECK(d.layers[1].jank[TsJankField::sf_long_cpu] == 1);
}

TEST_CASE("timestats: an Android 13 dump after a lock timeout line", "[timestats]") {
  const TimeStatsDump d = parse_timestats(kAndroid13);
  CHECK(d.text == TimeStatsText::timestats);
  CHECK(d.malformed_lines == 0);  // the compositionStrategy* lines and the lock notice are known
  CHECK(d.lines == non_empty_lines(kAndroid13));
  CHECK(d.stats_start == 1700001000);
  REQUIRE(d.global.size() == 1);
  REQUIRE(d.layers.size() == 1);
  CHECK(d.layers[0].game_mode == TsGameMode::standard);  // "Standard" from 13, "GameModeStandard" on 12
  CHECK(d.layers[0].layer_name == "com.example.mail/com.example.mail.InboxActivity#231");
  CHECK(d.layers[0].jank[TsJankField::janky_frames] == 7);
  CHECK(parse_timestats("gameMode = GameModeStandard\n").malformed_lines == 1);  // outside a block
}

TEST_CASE("timestats: an Android 15 dump with a game layer", "[timestats]") {
  const TimeStatsDump d = parse_timestats(kAndroid15);
  CHECK(d.malformed_lines == 0);
  CHECK(d.discarded_blocks == 0);
  CHECK(d.lines == non_empty_lines(kAndroid15));
  REQUIRE(d.global.size() == 1);
  CHECK(d.global[0].refresh_rate_fps == 120);
  CHECK(d.global[0].render_rate_fps == 60);
  REQUIRE(d.layers.size() == 2);
  CHECK(d.layers[0].layer_name == "SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)#1422");
  CHECK(d.layers[0].game_mode == TsGameMode::custom);
  CHECK(d.layers[0].dropped_frames == 4);
  CHECK(d.layers[0].jank[TsJankField::sf_prediction_error] == 4);
  CHECK(d.layers[1].game_mode == TsGameMode::other);  // a mode without a name prints as its number
  CHECK(jank::test::ts_game_mode_name(TsGameMode::custom) == "custom");
}

TEST_CASE("timestats: CRLF line ends and indentation read the same", "[timestats]") {
  std::string crlf;
  for (const char c : kAndroid12) {
    if (c == '\n') {
      crlf += "\r\n  ";
    } else {
      crlf += c;
    }
  }
  const TimeStatsDump a = parse_timestats(kAndroid12);
  const TimeStatsDump b = parse_timestats("\xEF\xBB\xBF" + crlf);
  CHECK(b.malformed_lines == 0);
  CHECK(b.lines == a.lines);
  REQUIRE(b.layers.size() == a.layers.size());
  CHECK(b.layers[0].layer_name == a.layers[0].layer_name);
  CHECK(b.layers[0].jank == a.layers[0].jank);
  REQUIRE(b.global.size() == a.global.size());
  CHECK(b.global[1].jank == a.global[1].jank);
}

TEST_CASE("timestats: never enabled and other answers", "[timestats]") {
  const TimeStatsDump never = parse_timestats("");  // statsStart 0: TimeStats prints nothing
  CHECK(never.text == TimeStatsText::empty);
  CHECK(never.lines == 0);
  CHECK(parse_timestats(" \r\n\n").text == TimeStatsText::empty);

  const TimeStatsDump denied = parse_timestats("Permission Denial: can't dump SurfaceFlinger from pid=1, uid=2000\n");
  CHECK(denied.text == TimeStatsText::not_recognised);
  CHECK(denied.malformed_lines == 1);
  CHECK(!denied.has_jank_payload);

  // Android 11: no jank payload, layer blocks start at layerName.
  const TimeStatsDump eleven = parse_timestats(
      "SurfaceFlinger TimeStats:\nstatsStart = 1600000000\nstatsEnd = 1600000100\ntotalFrames = 10\n"
      "displayConfigStats is as below:\n60fps=100000ms 90fps=0ms\n"
      "\nlayerName = com.a/com.a.Main#0\npackageName = \ntotalFrames = 10\ndroppedFrames = 0\n"
      "lateAcquireFrames = 0\nbadDesiredPresentFrames = 0\naverageFPS = 60.000\n"
      "present2present histogram is as below:\n" +
      hist(10) + "\nlayerName = com.b/com.b.Main#0\npackageName = \ntotalFrames = 3\n\n");
  CHECK(eleven.text == TimeStatsText::timestats);
  CHECK(!eleven.has_jank_payload);
  CHECK(eleven.stats_start == 1600000000);
  CHECK(eleven.layers.empty());
  CHECK(eleven.discarded_blocks == 2);
  CHECK(eleven.malformed_lines == 0);
}

TEST_CASE("timestats: a truncated dump keeps its complete blocks", "[timestats]") {
  // Cut inside the "none" layer's jank payload, in the middle of a key.
  const std::size_t cut = kAndroid12.find("sfLongGpuJankyFrames", kAndroid12.find("layerName = none"));
  REQUIRE(cut != std::string::npos);
  const TimeStatsDump d = parse_timestats(kAndroid12.substr(0, cut + 7));
  CHECK(d.global.size() == 2);
  REQUIRE(d.layers.size() == 1);
  CHECK(d.layers[0].layer_name == kFeed + "#0");
  CHECK(d.discarded_blocks == 1);
  CHECK(d.malformed_lines == 1);  // "sfLongG"

  // Cut inside a histogram line: the line is malformed, the blocks before it stand.
  const std::size_t in_hist = kAndroid12.find("present2present histogram is as below:\n") + 60;
  const TimeStatsDump h = parse_timestats(kAndroid12.substr(0, in_hist));
  CHECK(h.layers.size() == 1);
  CHECK(h.malformed_lines == 1);

  // Cut before the jank header: nothing of the payload.
  const TimeStatsDump early = parse_timestats(kAndroid12.substr(0, kAndroid12.find("\nGlobal aggregated")));
  CHECK(early.text == TimeStatsText::timestats);
  CHECK(!early.has_jank_payload);
  CHECK(early.malformed_lines == 0);
}

TEST_CASE("timestats: garbage is counted and never a row", "[timestats]") {
  const std::string text =
      "SurfaceFlinger TimeStats:\n"
      "statsStart = soon\n"                        // not a number
      "hello world\n"                              // no key
      "\nGlobal aggregated jank payload (Timeline stats):\n"
      "totalTimelineFrames = 5\n"                  // outside a block
      "displayRefreshRate = 60 fps\n"
      "renderRate = sixty\n"                       // not a rate
      "displayRefreshRate = 60 fps\n"              // a new block: the first is discarded
      "renderRate = 60 fps\n" +
      jank_lines(5, 1, 0, 0, 0, 1, 0, 0, 0) +
      "jankyFrames = 2\n"                          // twice in one block
      "0ms=1 1ms=2\n"                              // a histogram without its title
      "displayRefreshRate = 60 fps\nrenderRate = 60 fps\nuid = 1\nlayerName = a#1\ntotalFrames = -5\n" +  // wrapped int32
      "droppedFrames = 0\n" + jank_lines(1, 0, 0, 0, 0, 0, 0, 0, 0) +
      "SurfaceFlinger TimeStats:\n";               // a second dump glued on
  const TimeStatsDump d = parse_timestats(text);
  CHECK(d.lines == non_empty_lines(text));
  CHECK(d.malformed_lines == 8);
  CHECK(d.discarded_blocks == 2);  // the bad renderRate one, the layer without totalFrames
  REQUIRE(d.global.size() == 1);
  CHECK(d.global[0].jank[TsJankField::janky_frames] == 1);  // the first value stands
  CHECK(d.layers.empty());
  CHECK(!d.stats_start);
}

TEST_CASE("timestats: jank fields name the project's causes", "[timestats]") {
  CHECK(jank_bit_name(ts_jank_field_cause(TsJankField::sf_unattributed)) == "display_hal");
  CHECK(jank_bit_name(ts_jank_field_cause(TsJankField::app_unattributed)) == "app_deadline_missed");
  CHECK(jank_bit_name(ts_jank_field_cause(TsJankField::sf_long_cpu)) == "sf_cpu_deadline_missed");
  CHECK(jank_bit_name(ts_jank_field_cause(TsJankField::sf_long_gpu)) == "sf_gpu_deadline_missed");
  CHECK(jank_bit_name(ts_jank_field_cause(TsJankField::sf_scheduling)) == "sf_scheduling");
  CHECK(jank_bit_name(ts_jank_field_cause(TsJankField::sf_prediction_error)) == "prediction_error");
  CHECK(jank_bit_name(ts_jank_field_cause(TsJankField::app_buffer_stuffing)) == "buffer_stuffing");
  CHECK(ts_jank_field_cause(TsJankField::total_timeline_frames) == 0);
  CHECK(ts_jank_field_cause(TsJankField::janky_frames) == 0);
}

TEST_CASE("timestats tracker: growth adds the difference and a repeat adds nothing", "[timestats]") {
  TimeStatsTracker t;
  t.observe(dump_of(100, {layer_row(kFeed + "#5", 1000, 10)}, 1200, 12));
  t.observe(dump_of(100, {layer_row(kFeed + "#5", 1600, 15)}, 1900, 20));
  const auto again = t.observe(dump_of(100, {layer_row(kFeed + "#5", 1600, 15)}, 1900, 20));
  CHECK(!again.bucket_reset);
  CHECK(!again.layer_reset);
  CHECK(jank::test::layer_total(t, key_of(kFeed), TsJankField::total_timeline_frames) == 1600);
  CHECK(jank::test::layer_total(t, key_of(kFeed), TsJankField::app_unattributed) == 15);
  CHECK(t.layers().at(key_of(kFeed)).total_frames == 1600);
  CHECK(t.buckets().at(TsBucketKey{60, 60})[TsJankField::total_timeline_frames] == 1900);
  CHECK(t.resets() == 0);
}

TEST_CASE("timestats tracker: a new statsStart resets the buckets and keeps growing layers", "[timestats]") {
  // A statsd pull of the global atom: statsStart moves, the buckets restart, the layers go on.
  TimeStatsTracker t;
  t.observe(dump_of(100, {layer_row(kFeed + "#5", 1000, 10)}, 5000, 50));
  const auto pull = t.observe(dump_of(700, {layer_row(kFeed + "#5", 1100, 11)}, 6000, 60));
  CHECK(pull.bucket_reset);
  CHECK(!pull.layer_reset);
  CHECK(t.buckets().at(TsBucketKey{60, 60})[TsJankField::total_timeline_frames] == 11000);  // added whole
  CHECK(jank::test::layer_total(t, key_of(kFeed), TsJankField::total_timeline_frames) == 1100);
  CHECK(t.bucket_resets() == 1);
  CHECK(t.layer_resets() == 0);

  // -clear: statsStart moves and the layers restart too (they went down).
  const auto clear = t.observe(dump_of(900, {layer_row(kFeed + "#5", 40, 1)}, 50, 1));
  CHECK(clear.bucket_reset);
  CHECK(clear.layer_reset);
  CHECK(jank::test::layer_total(t, key_of(kFeed), TsJankField::total_timeline_frames) == 1140);
  CHECK(jank::test::layer_total(t, key_of(kFeed), TsJankField::janky_frames) == 12);
  CHECK(t.buckets().at(TsBucketKey{60, 60})[TsJankField::total_timeline_frames] == 11050);
  CHECK(t.resets() == 2);
}

TEST_CASE("timestats tracker: counters going down without a statsStart change reset the layers", "[timestats]") {
  // A statsd pull of the layer atom empties the layers and keeps statsStart.
  TimeStatsTracker t;
  const std::string mail = "com.example.mail/com.example.mail.Inbox";
  t.observe(dump_of(100, {layer_row(kFeed + "#5", 1000, 10), layer_row(mail + "#9", 500, 5, 10200)}, 1500, 15));
  // The feed went down: every layer row restarted, even the mail one that
  // grew past its old value since the pull.
  const auto o = t.observe(dump_of(100, {layer_row(kFeed + "#5", 30, 1), layer_row(mail + "#9", 600, 6, 10200)}, 2200, 22));
  CHECK(o.layer_reset);
  CHECK(!o.bucket_reset);
  CHECK(jank::test::layer_total(t, key_of(kFeed), TsJankField::total_timeline_frames) == 1030);
  CHECK(jank::test::layer_total(t, key_of(mail, 10200), TsJankField::total_timeline_frames) == 1100);
  CHECK(t.buckets().at(TsBucketKey{60, 60})[TsJankField::total_timeline_frames] == 2200);
  CHECK(t.layer_resets() == 1);
  CHECK(t.resets() == 1);
}

TEST_CASE("timestats tracker: a key that disappears keeps its totals and counts once when back", "[timestats]") {
  TimeStatsTracker t;
  const std::string mail = "com.example.mail/com.example.mail.Inbox";
  t.observe(dump_of(100, {layer_row(kFeed + "#5", 1000, 10), layer_row(mail + "#9", 500, 5, 10200)}, 1500, 15));
  t.observe(dump_of(100, {layer_row(kFeed + "#5", 1100, 11)}, 1600, 16));  // truncated: mail missing
  CHECK(jank::test::layer_total(t, key_of(mail, 10200), TsJankField::total_timeline_frames) == 500);
  t.observe(dump_of(100, {layer_row(kFeed + "#5", 1200, 12), layer_row(mail + "#9", 520, 5, 10200)}, 1720, 17));
  CHECK(jank::test::layer_total(t, key_of(mail, 10200), TsJankField::total_timeline_frames) == 520);
  CHECK(jank::test::layer_total(t, key_of(kFeed), TsJankField::total_timeline_frames) == 1200);
  CHECK(t.resets() == 0);

  // Back lower after a gap: it was cleared while away; only it starts again.
  t.observe(dump_of(100, {layer_row(kFeed + "#5", 1300, 13)}, 1830, 18));
  const auto o = t.observe(dump_of(100, {layer_row(kFeed + "#5", 1400, 14), layer_row(mail + "#9", 7, 0, 10200)}, 1940, 19));
  CHECK(!o.layer_reset);
  CHECK(t.key_resets() == 1);
  CHECK(jank::test::layer_total(t, key_of(mail, 10200), TsJankField::total_timeline_frames) == 527);
  CHECK(jank::test::layer_total(t, key_of(kFeed), TsJankField::total_timeline_frames) == 1400);
}

TEST_CASE("timestats tracker: a layer recreated with a new suffix continues its series", "[timestats]") {
  TimeStatsTracker t;
  t.observe(dump_of(100, {layer_row(kFeed + "#5", 1000, 10)}));
  // The activity was recreated: the old row stays listed beside the new one.
  t.observe(dump_of(100, {layer_row(kFeed + "#5", 1050, 10), layer_row(kFeed + "#77", 200, 3)}));
  CHECK(t.layers().size() == 1);
  CHECK(jank::test::layer_total(t, key_of(kFeed), TsJankField::total_timeline_frames) == 1250);
  CHECK(jank::test::layer_total(t, key_of(kFeed), TsJankField::janky_frames) == 13);
  t.observe(dump_of(100, {layer_row(kFeed + "#5", 1050, 10), layer_row(kFeed + "#77", 300, 4)}));
  CHECK(jank::test::layer_total(t, key_of(kFeed), TsJankField::total_timeline_frames) == 1350);
  CHECK(t.resets() == 0);
}

TEST_CASE("timestats tracker: keys beyond the cap are counted as overflow", "[timestats]") {
  TimeStatsTracker t(2, 1);
  TimeStatsDump d = dump_of(100, {layer_row("a/a.A#1", 10, 1), layer_row("b/b.B#2", 20, 2), layer_row("c/c.C#3", 30, 3)});
  d.global.push_back({90, 90, payload(7, 0)});
  const auto o = t.observe(d);
  CHECK(o.overflow_rows == 2);  // layer c, bucket 90/90
  CHECK(t.layers().size() == 2);
  CHECK(t.buckets().size() == 1);
  CHECK(t.layers().count(key_of("c/c.C")) == 0);
  // Still not stored when it grows: never counted, so never counted twice.
  t.observe(d);
  CHECK(t.overflow_rows() == 4);
  CHECK(jank::test::layer_total(t, key_of("c/c.C"), TsJankField::total_timeline_frames) == 0);
  // A known key's new suffix is no new key.
  t.observe(dump_of(100, {layer_row("a/a.A#1", 10, 1), layer_row("b/b.B#2", 20, 2), layer_row("a/a.A#9", 5, 0)}));
  CHECK(jank::test::layer_total(t, key_of("a/a.A"), TsJankField::total_timeline_frames) == 15);
}

TEST_CASE("timestats tracker: an empty answer forgets the baselines", "[timestats]") {
  TimeStatsTracker t;
  t.observe(dump_of(100, {layer_row(kFeed + "#0", 1000, 10)}, 1000, 10));
  TimeStatsDump empty;  // SurfaceFlinger restarted: TimeStats holds nothing until enabled
  const auto o = t.observe(empty);
  CHECK(o.layer_reset);
  CHECK(o.bucket_reset);
  CHECK(jank::test::layer_total(t, key_of(kFeed), TsJankField::total_timeline_frames) == 1000);  // kept
  // Android 12 names repeat (#0): a higher value after the restart is new, not growth.
  t.observe(dump_of(5000, {layer_row(kFeed + "#0", 1500, 20)}, 1500, 20));
  CHECK(jank::test::layer_total(t, key_of(kFeed), TsJankField::total_timeline_frames) == 2500);
  CHECK(t.resets() == 1);
  // Other answers teach nothing.
  TimeStatsDump other;
  other.text = TimeStatsText::not_recognised;
  CHECK(!t.observe(other).counted);
  CHECK(t.ignored_dumps() == 1);
}

TEST_CASE("timestats tracker: parsed dumps of two versions", "[timestats]") {
  TimeStatsTracker t;
  t.observe(parse_timestats(kAndroid12));
  const TsLayerKey feed{kFeed, 10123, 90, 90, TsGameMode::unsupported};
  CHECK(jank::test::layer_total(t, feed, TsJankField::app_unattributed) == 95);
  CHECK(jank::test::layer_total(t, {"none", 10123, 90, 90, TsGameMode::unsupported}, TsJankField::sf_long_cpu) == 1);
  CHECK(t.buckets().at(TsBucketKey{60, 30})[TsJankField::total_timeline_frames] == 400);
  // The device's later dump started again (another statsStart, fewer frames).
  t.observe(parse_timestats(kAndroid13));
  CHECK(t.bucket_resets() == 1);
  CHECK(t.buckets().at(TsBucketKey{60, 60})[TsJankField::total_timeline_frames] == 3500);
  CHECK(jank::test::layer_total(t, feed, TsJankField::app_unattributed) == 95);
}

TEST_CASE("timestats: a capture of dumps in a row splits at each header", "[timestats]") {
  using jank::parsers::split_timestats_dumps;
  const std::string dump = "SurfaceFlinger TimeStats:\nLegacy stats are as follows:\nstatsStart = 1\n";
  CHECK(split_timestats_dumps(dump + dump) == std::vector<std::string_view>{dump, dump});
  // A prompt before the first dump is no dump; nothing after a header is lost.
  CHECK(split_timestats_dumps("$ adb shell dumpsys SurfaceFlinger --timestats -dump\n" + dump + dump + "tail\n") ==
        std::vector<std::string_view>{dump, dump + "tail\n"});
  CHECK(split_timestats_dumps("no dump\n").empty());
}

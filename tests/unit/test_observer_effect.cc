// The observer test's estimate (metrics/observer_effect.h) against values
// worked by hand from the textbook paired t interval: mean ± t(n−1, (1+c)/2)
// × s/√n, t(5, 0.975) = 2.570582 from a published table.
#include <catch2/catch.hpp>

#include <vector>

#include "metrics/observer_counters.h"
#include "metrics/observer_effect.h"

using jank::metrics::ObserverPair;
using jank::metrics::ObserverVerdict;
using jank::metrics::observer_effect;
using jank::metrics::PhaseCounts;

namespace {

ObserverPair pair(std::uint64_t low_janky, std::uint64_t high_janky, std::uint64_t frames = 100) {
  return {PhaseCounts{frames, low_janky}, PhaseCounts{frames, high_janky}};
}

}  // namespace

TEST_CASE("observer effect: the paired t interval of the janky share's difference", "[observer]") {
  // Differences of 1..6 points: mean 3.5, s = 1.870829, s/√6 = 0.763763.
  const std::vector<ObserverPair> pairs = {pair(10, 11), pair(10, 12), pair(10, 13),
                                           pair(10, 14), pair(10, 15), pair(10, 16)};
  const auto e = observer_effect(pairs, 0.95);
  CHECK(e.pairs == 6);
  CHECK(e.pairs_dropped == 0);
  CHECK(e.difference == Approx(3.5));
  CHECK(e.ci_low == Approx(3.5 - 2.570582 * 0.763763).epsilon(1e-5));
  CHECK(e.ci_high == Approx(3.5 + 2.570582 * 0.763763).epsilon(1e-5));
  CHECK(e.low_percent == Approx(10.0));
  CHECK(e.high_percent == Approx(13.5));
  CHECK(e.verdict == ObserverVerdict::cost);
  CHECK(jank::metrics::verdict_name(e.verdict) == "cost");
}

TEST_CASE("observer effect: an interval holding 0 detects nothing, one below 0 says the workload moved",
          "[observer]") {
  const std::vector<ObserverPair> even = {pair(10, 12), pair(12, 10), pair(10, 11), pair(11, 10)};
  const auto none = observer_effect(even, 0.95);
  CHECK(none.difference == Approx(0).margin(1e-12));
  CHECK(none.ci_low < 0);
  CHECK(none.ci_high > 0);
  CHECK(none.verdict == ObserverVerdict::none_detected);

  const std::vector<ObserverPair> fewer = {pair(14, 10), pair(15, 10), pair(13, 10), pair(14, 11)};
  CHECK(observer_effect(fewer, 0.95).verdict == ObserverVerdict::less_when_polled);
}

TEST_CASE("observer effect: pairs without frames or with an unreadable phase are dropped and counted",
          "[observer]") {
  std::vector<ObserverPair> pairs = {pair(10, 20), pair(10, 21, 0), pair(10, 22)};
  pairs.push_back({PhaseCounts{100, 10, false}, PhaseCounts{100, 30}});
  pairs.push_back({PhaseCounts{100, 10}, PhaseCounts{100, 101}});  // more janky than frames
  auto e = observer_effect(pairs, 0.95);
  CHECK(e.pairs == 2);
  CHECK(e.pairs_dropped == 3);
  CHECK(e.difference == Approx(11));
  // Differences 10 and 12: s = √2, s/√2 = 1, t(1, 0.975) = 12.7062.
  CHECK(e.ci_low == Approx(11 - 12.7062).epsilon(1e-4));

  pairs.resize(1);
  e = observer_effect(pairs, 0.95);
  CHECK(e.pairs == 1);
  CHECK(e.verdict == ObserverVerdict::too_few_pairs);
  CHECK(observer_effect({}, 0.95).verdict == ObserverVerdict::too_few_pairs);
}

TEST_CASE("observer effect: a higher confidence widens the interval", "[observer]") {
  const std::vector<ObserverPair> pairs = {pair(10, 11), pair(10, 12), pair(10, 13), pair(10, 14)};
  const auto p95 = observer_effect(pairs, 0.95), p99 = observer_effect(pairs, 0.99);
  CHECK(p99.ci_high - p99.ci_low > p95.ci_high - p95.ci_low);
  CHECK(p99.difference == Approx(p95.difference));
}

// The counters between phases (metrics/observer_counters.h).

namespace {

jank::parsers::GraphicsStatsBlock gs_block(std::string package, std::int64_t version, std::int64_t start,
                                            std::uint64_t frames, std::uint64_t janky) {
  jank::parsers::GraphicsStatsBlock b;
  b.package = std::move(package);
  b.version_code = version;
  b.stats_start = start;
  b.stats.total_frames = frames;
  b.stats.janky_frames = janky;
  return b;
}

jank::parsers::TsLayer ts_layer(std::string name, std::uint64_t frames, std::uint64_t janky) {
  jank::parsers::TsLayer l;
  l.layer_name = std::move(name);
  l.refresh_rate_fps = l.render_rate_fps = 60;
  l.jank[jank::parsers::TsJankField::total_timeline_frames] = frames;
  l.jank[jank::parsers::TsJankField::janky_frames] = janky;
  return l;
}

}  // namespace

TEST_CASE("observer counters: graphicsstats blocks of the app, differenced block by block", "[observer]") {
  using namespace jank::metrics;
  jank::parsers::GraphicsStatsDump before, after;
  before.text = after.text = jank::parsers::GraphicsStatsText::graphicsstats;
  before.blocks = {gs_block("com.example.feed", 7, 1000, 500, 20), gs_block("com.example.chat", 1, 1000, 900, 90)};
  // The same day grew; a new day's block started; another app does not count.
  after.blocks = {gs_block("com.example.feed", 7, 1000, 560, 26), gs_block("com.example.feed", 7, 2000, 40, 1),
                  gs_block("com.example.chat", 1, 1000, 5000, 900)};
  const PhaseCounts c = phase_counts(graphicsstats_reading(before, "com.example.feed"),
                                     graphicsstats_reading(after, "com.example.feed"));
  CHECK(c.valid);
  CHECK(c.frames == 100);
  CHECK(c.janky == 7);

  // A block that went down (its file deleted and started again) spoils the phase.
  after.blocks[0] = gs_block("com.example.feed", 7, 1000, 10, 0);
  CHECK_FALSE(phase_counts(graphicsstats_reading(before, "com.example.feed"),
                           graphicsstats_reading(after, "com.example.feed"))
                  .valid);
  // A permission denial is no reading.
  after.permission_denied = true;
  CHECK_FALSE(graphicsstats_reading(after, "com.example.feed").readable);
}

TEST_CASE("observer counters: TimeStats layers of the app, and a clear of the stats spoils the phase", "[observer]") {
  using namespace jank::metrics;
  jank::parsers::TimeStatsDump before, after;
  before.text = after.text = jank::parsers::TimeStatsText::timestats;
  before.has_jank_payload = after.has_jank_payload = true;
  before.stats_start = after.stats_start = 1700000000;
  before.layers = {ts_layer("com.example.feed/com.example.feed.MainActivity#57", 1000, 10),
                   ts_layer("SurfaceView[com.example.feed/com.example.feed.MainActivity](BLAST)#58", 300, 3),
                   ts_layer("com.example.chat/com.example.chat.MainActivity#60", 50, 5)};
  after.layers = {ts_layer("com.example.feed/com.example.feed.MainActivity#57", 1100, 15),
                  ts_layer("SurfaceView[com.example.feed/com.example.feed.MainActivity](BLAST)#58", 330, 4),
                  ts_layer("com.example.chat/com.example.chat.MainActivity#60", 70, 9)};
  const auto b = timestats_reading(before, "com.example.feed");
  PhaseCounts c = phase_counts(b, timestats_reading(after, "com.example.feed"));
  CHECK(c.valid);
  CHECK(c.frames == 130);
  CHECK(c.janky == 6);

  after.stats_start = 1700000500;  // -clear, or a statsd pull of the global atom
  CHECK_FALSE(phase_counts(b, timestats_reading(after, "com.example.feed")).valid);
  after.text = jank::parsers::TimeStatsText::empty;  // disabled
  CHECK_FALSE(timestats_reading(after, "com.example.feed").readable);
}

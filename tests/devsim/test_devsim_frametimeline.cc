// The simulator's FrameTimeline against the exporter's own parser and
// tracker: polling `dumpsys SurfaceFlinger --frametimeline -all` often enough
// counts exactly the truth per jank type, too slowly it overflows, the names
// follow each release, and the tokens are framestats' vsync ids.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "devsim/model.h"
#include "devsim/shell.h"
#include "metrics/frametimeline_metrics.h"
#include "metrics/frametimeline_tracker.h"
#include "metrics/timestats_tracker.h"
#include "parsers/frametimeline.h"
#include "parsers/gfxinfo.h"
#include "parsers/sf_layers.h"
#include "parsers/timestats.h"

using namespace jank::devsim;
namespace parsers = jank::parsers;
namespace metrics = jank::metrics;

namespace {

DeviceConfig ft_config(int sdk, double hz) {
  DeviceConfig c;
  c.sdk = sdk;
  c.refresh_hz = hz;
  c.noise_lines_per_sec = 0;
  c.sf_miss_prob = 0.02;  // enough SurfaceFlinger misses to see every cause
  c.drop_prob = 0.3;
  AppConfig feed;
  feed.package = "com.example.feed";
  feed.stall_prob = 0.08;
  feed.bands = {{2, 12, 3}, {20, 60, 1}};
  c.apps.push_back(feed);
  AppConfig game;
  game.package = "com.example.game";
  game.stall_prob = 0.02;
  game.game_fps = 60;
  game.hitch_prob = 0.05;
  c.apps.push_back(game);
  return c;
}

// The feed alone at 60 Hz on Android 13, with no jank but the stalls a test forces.
DeviceConfig quiet_feed() {
  DeviceConfig c = ft_config(33, 60);
  c.apps.resize(1);
  c.apps[0].stall_prob = 0;
  c.sf_miss_prob = 0;
  c.drop_prob = 0;
  return c;
}

// The longest time from a frame's intended vsync to its present among the
// app window's newest rows.
std::int64_t longest_present_delay(const AppState& app) {
  std::int64_t longest = 0;
  for (const auto& [desired, present, ready] : app.window_layer.rows) longest = std::max(longest, present - desired);
  return longest;
}

std::string shell(Device& dev, const std::string& command) { return run_shell(dev, command).out; }

struct Counted {
  std::uint64_t frames = 0, unjudged = 0;
  std::array<std::uint64_t, 11> by_label{};
};

// Polls every `every_ms` for `steps` polls, then stops the apps and reads the rest.
std::map<std::string, Counted> poll(Device& dev, ManualClock& clock, metrics::FrameTimelineTracker& tracker,
                                    int every_ms, int steps) {
  std::map<std::string, Counted> out;
  auto once = [&] {
    const auto dump = parsers::parse_frametimeline(shell(dev, "dumpsys SurfaceFlinger --frametimeline -all"));
    CHECK(dump.malformed_lines == 0);
    CHECK(dump.unknown_jank_names == 0);
    for (const auto& f : tracker.observe(dump)) {
      const auto layer = parsers::classify_layer(f.layer);
      REQUIRE(layer);
      if (f.token < 0) continue;  // a game's own buffers: no vsync id, never judged
      Counted& c = out[layer->package];
      ++c.frames;
      if (!f.classified) ++c.unjudged;
      for (const std::size_t l : metrics::jank_labels_of(f.jank)) ++c.by_label[l];
    }
  };
  for (int i = 0; i < steps; ++i) {
    clock.advance_ms(every_ms);
    once();
  }
  dev.set_paused(true);
  clock.advance_ms(every_ms);
  once();
  return out;
}

}  // namespace

TEST_CASE("polling FrameTimeline counts every app frame once with the truth's verdict", "[devsim][frametimeline]") {
  for (const int sdk : {31, 33, 34, 35, 36}) {
    for (const double hz : {60.0, 120.0}) {
      CAPTURE(sdk, hz);
      ManualClock clock;
      Device dev(ft_config(sdk, hz), clock);
      metrics::FrameTimelineTracker tracker;
      // 64 display frames last 533 ms at 120 Hz: poll well inside that.
      const auto counted = poll(dev, clock, tracker, 400, 75);
      CHECK(tracker.overflows() == 0);
      CHECK(tracker.restarts() == 0);
      std::uint64_t causes = 0;
      for (const auto& a : dev.apps()) {
        CAPTURE(a.cfg.package);
        const auto it = counted.find(a.cfg.package);
        REQUIRE(it != counted.end());
        const Counted& c = it->second;
        CHECK(c.frames == a.ft_truth.frames);
        CHECK(c.unjudged == 0);
        for (std::size_t l = 0; l < c.by_label.size(); ++l) {
          CAPTURE(metrics::jank_label(l));
          CHECK(c.by_label[l] == a.ft_truth.by_label[l]);
          if (l > 0 && a.ft_truth.by_label[l] > 0) ++causes;
        }
        CHECK(a.ft_truth.frames > 500);
      }
      // The model produces app misses, SurfaceFlinger's own misses, stuffing and drops.
      CHECK(causes >= 5);
    }
  }
}

TEST_CASE("polling FrameTimeline too slowly overflows and misses frames", "[devsim][frametimeline]") {
  ManualClock clock;
  Device dev(ft_config(33, 120), clock);
  metrics::FrameTimelineTracker tracker;
  const auto counted = poll(dev, clock, tracker, 3000, 10);  // 3 s at 120 Hz: 64 frames cover 0.53 s
  CHECK(tracker.overflows() >= 9);
  const AppState& feed = *dev.app("com.example.feed");
  CHECK(counted.at("com.example.feed").frames < feed.ft_truth.frames / 2);
}

TEST_CASE("FrameTimeline jank names follow the release and only Android 12 and later print it",
          "[devsim][frametimeline]") {
  auto dump_of = [](int sdk) {
    ManualClock clock;
    DeviceConfig c = ft_config(sdk, 60);
    c.sf_miss_prob = 0.5;
    Device dev(c, clock);
    clock.advance_ms(3000);
    return shell(dev, "dumpsys SurfaceFlinger --frametimeline -all");
  };
  CHECK(dump_of(30).empty());
  const std::string s33 = dump_of(33), s34 = dump_of(34), s35 = dump_of(35);
  CHECK(s33.find("SurfaceFlinger CPU Deadline Missed") != std::string::npos);
  CHECK(s33.find("(while in HWC)") == std::string::npos);
  CHECK(s34.find("SurfaceFlinger deadline missed (while in HWC)") != std::string::npos);
  CHECK(s34.find("CPU Deadline Missed") == std::string::npos);
  CHECK(s35.find("Jank Type : Dropped Frame") != std::string::npos);
  CHECK(s34.find("Dropped Frame") == std::string::npos);
  for (const auto* s : {&s33, &s34, &s35}) {
    const auto d = parsers::parse_frametimeline(*s);
    CHECK(d.display_frame_count == std::optional<std::int64_t>(64));
    CHECK(d.display_frames.size() == 64);
    CHECK(d.malformed_lines == 0);
  }
  // -jank prints only the janky display frames, before -all's list.
  ManualClock clock;
  Device dev(ft_config(33, 60), clock);
  clock.advance_ms(2000);
  const auto jank = parsers::parse_frametimeline(shell(dev, "dumpsys SurfaceFlinger --frametimeline -jank"));
  CHECK(!jank.display_frame_count);
  REQUIRE(!jank.display_frames.empty());
  CHECK(jank.display_frames.size() < 64);
  for (const auto& df : jank.display_frames) {
    bool any = df.jank != 0;
    for (const auto& sf : df.surface_frames) any = any || sf.jank != 0;
    CHECK(any);
  }
}

TEST_CASE("FrameTimeline tokens are the vsync ids of gfxinfo framestats rows", "[devsim][frametimeline]") {
  ManualClock clock;
  DeviceConfig c = ft_config(33, 60);
  c.drop_prob = 0;  // a dropped frame is in framestats too, but never presented
  Device dev(c, clock);
  std::set<std::int64_t> ft_tokens, fs_tokens;
  for (int i = 0; i < 20; ++i) {
    clock.advance_ms(500);
    const auto ft = parsers::parse_frametimeline(shell(dev, "dumpsys SurfaceFlinger --frametimeline -all"));
    for (const auto& df : ft.display_frames) {
      for (const auto& sf : df.surface_frames) {
        const auto layer = parsers::classify_layer(sf.layer);
        if (layer && layer->package == "com.example.feed" && sf.token >= 0) ft_tokens.insert(sf.token);
      }
    }
    const auto gfx = parsers::parse_gfxinfo(shell(dev, "dumpsys gfxinfo com.example.feed framestats"));
    REQUIRE(gfx.processes.size() == 1);
    const auto& fs = *gfx.processes[0].windows.at(0).framestats;
    const auto id = fs.column("FrameTimelineVsyncId");
    REQUIRE(id);
    for (const auto& row : fs.rows) fs_tokens.insert(row[*id]);
  }
  // Between the first and last token both saw, they saw the same frames.
  const std::int64_t lo = std::max(*ft_tokens.begin(), *fs_tokens.begin());
  const std::int64_t hi = std::min(*ft_tokens.rbegin(), *fs_tokens.rbegin());
  std::set<std::int64_t> ft_mid(ft_tokens.lower_bound(lo), ft_tokens.upper_bound(hi));
  std::set<std::int64_t> fs_mid(fs_tokens.lower_bound(lo), fs_tokens.upper_bound(hi));
  CHECK(ft_mid.size() > 150);
  CHECK(ft_mid == fs_mid);
}

TEST_CASE("TimeStats counts what FrameTimeline judged across statsd pulls and its flags act in SurfaceFlinger's order",
          "[devsim][frametimeline][timestats]") {
  ManualClock clock;
  Device dev(ft_config(34, 90), clock);
  // Off until enabled: -dump before -enable prints nothing, whatever the order.
  CHECK(shell(dev, "dumpsys SurfaceFlinger --timestats -enable -dump").empty());
  CHECK(dev.timestats_enabled());
  metrics::FrameTimelineTracker ft;
  metrics::TimeStatsTracker ts;
  for (int i = 0; i < 60; ++i) {
    clock.advance_ms(500);
    ft.observe(parsers::parse_frametimeline(shell(dev, "dumpsys SurfaceFlinger --frametimeline -all")));
    const auto dump = parsers::parse_timestats(shell(dev, "dumpsys SurfaceFlinger --timestats -dump -enable"));
    CHECK(dump.malformed_lines == 0);
    ts.observe(dump);
    // statsd pulls right after a read: nothing counted is lost (what a pull
    // takes between two reads is gone for every reader but statsd).
    if (i == 20) dev.timestats_pull(true);   // global atom
    if (i == 40) dev.timestats_pull(false);  // layer atom
  }
  CHECK(ts.bucket_resets() == 1);
  CHECK(ts.layer_resets() == 1);
  std::map<std::string, parsers::TsJankPayload> by_app;
  std::map<std::string, std::uint64_t> dropped;
  for (const auto& [key, totals] : ts.layers()) {
    const auto layer = parsers::classify_layer(key.layer + "#0");
    REQUIRE(layer);
    for (std::size_t f = 0; f < parsers::kTsJankFieldCount; ++f) by_app[layer->package].counts[f] += totals.jank.counts[f];
    dropped[layer->package] += totals.dropped_frames;
  }
  std::uint64_t all_frames = 0;
  for (const auto& a : dev.apps()) {
    CAPTURE(a.cfg.package);
    const auto& t = a.ft_truth;
    const auto& p = by_app[a.cfg.package];
    using F = parsers::TsJankField;
    CHECK(dropped[a.cfg.package] == t.by_label[10]);
    CHECK(p[F::total_timeline_frames] == t.frames - t.by_label[10]);
    CHECK(p[F::janky_frames] == t.janky);
    CHECK(p[F::app_unattributed] == t.by_label[4]);
    CHECK(p[F::sf_long_cpu] == t.by_label[2]);
    CHECK(p[F::sf_unattributed] == t.by_label[1]);
    CHECK(p[F::app_buffer_stuffing] == t.by_label[7]);
    all_frames += p[F::total_timeline_frames];
  }
  // The rate buckets hold the same frames (90 Hz is the 90 fps bucket).
  std::uint64_t bucketed = 0;
  for (const auto& [key, jank] : ts.buckets()) {
    CHECK(key.refresh_rate_fps == 90);
    bucketed += jank[parsers::TsJankField::total_timeline_frames];
  }
  CHECK(bucketed == all_frames);
  // -clear empties it; -disable stops counting but the dump still prints.
  shell(dev, "dumpsys SurfaceFlinger --timestats -clear");
  clock.advance_ms(500);
  const auto cleared = parsers::parse_timestats(shell(dev, "dumpsys SurfaceFlinger --timestats -disable -dump"));
  CHECK(cleared.text == parsers::TimeStatsText::timestats);
  CHECK(!dev.timestats_enabled());
  // A reboot loses everything: nothing printed until enabled again.
  dev.reboot(0, 5'000'000'000);
  CHECK(shell(dev, "dumpsys SurfaceFlinger --timestats -dump").empty());
}

TEST_CASE("a refresh-rate change during a stall: Choreographer counts it in the new period and the frame is shown after it",
          "[devsim][frametimeline]") {
  ManualClock clock;
  Device dev(quiet_feed(), clock);
  REQUIRE(run_shell(dev, "setprop debug.choreographer.skipwarning 1").exit == 0);
  REQUIRE(dev.restart_app("com.example.feed"));  // reads the limit at start
  clock.advance_ms(500);
  REQUIRE(dev.force_skip("com.example.feed", 60));  // the next vsync stalls for 60 periods: 1 s at 60 Hz
  clock.advance_ms(200);
  dev.advance();
  dev.set_refresh_hz(120);
  clock.advance_ms(900);  // the stall ends about 0.1 s before: its frame is among the layer's newest rows
  dev.advance();
  const AppState& feed = *dev.app("com.example.feed");
  // The second took 120 periods of 8.33 ms; Choreographer divides by the period it runs at then.
  CHECK(feed.truth.skip_events == 1);
  CHECK(feed.truth.skipped_frames == 120);
  CHECK(feed.truth.skipped_frames_logged == 120);
  // The stalled frame is shown after the stall, never before it began to be drawn.
  for (const auto& [desired, present, ready] : feed.window_layer.rows) CHECK(present > ready);
  CHECK(longest_present_delay(feed) >= 1'000'000'000);
  CHECK(longest_present_delay(feed) < 1'000'000'000 + 3 * 16'666'667);
}

TEST_CASE("a stall pending when the screen goes off ends as long as it began once the screen is back on",
          "[devsim][frametimeline]") {
  ManualClock clock;
  Device dev(quiet_feed(), clock);
  clock.advance_ms(500);
  REQUIRE(dev.force_skip("com.example.feed", 40));
  clock.advance_ms(200);
  dev.set_screen(Screen::off);
  clock.advance_ms(5000);
  dev.set_screen(Screen::on);
  clock.advance_ms(1000);
  dev.advance();
  const AppState& feed = *dev.app("com.example.feed");
  CHECK(feed.truth.skip_events == 1);
  CHECK(feed.truth.skipped_frames == 40);  // not the 5 s the screen was off
  CHECK(longest_present_delay(feed) >= 40 * 16'666'667);
  CHECK(longest_present_delay(feed) < 43 * 16'666'667);
}

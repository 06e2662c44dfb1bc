// The simulator's SurfaceFlinger and power model against the exporter's own
// parsers and present tracker: names per Android version, the --latency
// table, and the truth (what a perfect reader counts) equal to what polling
// the table counts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>

#include "devsim/model.h"
#include "devsim/shell.h"
#include "metrics/present_tracker.h"
#include "parsers/power_state.h"
#include "parsers/sf_latency.h"
#include "parsers/sf_layers.h"

using namespace jank::devsim;
namespace parsers = jank::parsers;
namespace metrics = jank::metrics;

namespace {

constexpr std::int64_t kMs = 1'000'000;

DeviceConfig game_config(int sdk, double hz, double hitch_prob = 0.02) {
  DeviceConfig c;
  c.sdk = sdk;
  c.refresh_hz = hz;
  c.noise_lines_per_sec = 0;
  AppConfig feed;
  feed.package = "com.example.feed";
  feed.stall_prob = 0.05;
  feed.bands = {{2, 12, 3}, {45, 120, 1}};  // some stalls longer than a poll interval
  c.apps.push_back(feed);
  AppConfig game;
  game.package = "com.example.game";
  game.stall_prob = 0;
  game.game_fps = 60;
  game.hitch_prob = hitch_prob;
  c.apps.push_back(game);
  return c;
}

std::string shell(Device& dev, const std::string& command) { return run_shell(dev, command).out; }

// The app layers --list shows, classified as the exporter classifies them.
std::vector<parsers::AppLayer> app_layers(Device& dev) {
  std::vector<parsers::AppLayer> out;
  for (const auto& name : parsers::parse_sf_layer_list(shell(dev, "dumpsys SurfaceFlinger --list")).names) {
    if (auto layer = parsers::classify_layer(name)) out.push_back(*layer);
  }
  return out;
}

const LayerTruth& truth_of(const AppState& a, parsers::LayerKind kind) {
  return kind == parsers::LayerKind::surface_view ? a.game_truth : a.window_truth;
}

}  // namespace

TEST_CASE("layer names per Android version are the ones the exporter follows", "[devsim][surfaceflinger]") {
  struct Row {
    int sdk;
    const char* window;
    const char* surface_view;
  };
  const Row rows[] = {
      {29, "com.example.game/com.example.game.MainActivity", "SurfaceView - com.example.game/com.example.game.MainActivity"},
      {31, "com.example.game/com.example.game.MainActivity",
       "SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)"},
      {33, "com.example.game/com.example.game.MainActivity",
       "SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)"},
      {35, "com.example.game/com.example.game.MainActivity",
       "SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.sdk);
    ManualClock clock;
    Device dev(game_config(row.sdk, 60), clock);
    const std::string list = shell(dev, "dumpsys SurfaceFlinger --list");
    CHECK((list.find("RequestedLayerState{") != std::string::npos) == (row.sdk >= 35));
    std::vector<std::string> game_layers;
    for (const auto& l : app_layers(dev)) {
      if (l.package == "com.example.game") game_layers.push_back(l.stable_name);
    }
    CHECK(game_layers == std::vector<std::string>{row.window, row.surface_view});
    // The exact name answers --latency; an unknown one prints the period alone.
    for (const auto& l : app_layers(dev)) {
      const auto table = parsers::parse_sf_latency(shell(dev, "dumpsys SurfaceFlinger --latency '" + l.name + "'"));
      CHECK(table.rows.size() == 127);
    }
    CHECK(shell(dev, "dumpsys SurfaceFlinger --latency 'nope#1'") == "16666667\n");
  }
}

TEST_CASE("polling --latency counts exactly what the truth says a perfect reader counts", "[devsim][surfaceflinger]") {
  // 120 Hz, a 60 fps game with frequent hitches, a HWUI app that stalls.
  ManualClock clock;
  Device dev(game_config(33, 120, 0.08), clock);
  const auto layers = app_layers(dev);
  REQUIRE(layers.size() == 3);
  std::vector<metrics::PresentTracker> trackers(layers.size());
  std::vector<std::int64_t> active(layers.size(), 0);
  auto poll = [&] {
    for (std::size_t i = 0; i < layers.size(); ++i) {
      trackers[i].observe(
          parsers::parse_sf_latency(shell(dev, "dumpsys SurfaceFlinger --latency '" + layers[i].name + "'")));
    }
  };
  for (int step = 0; step < 80; ++step) {  // 40 s, a poll every 0.5 s
    clock.advance_ms(500);
    poll();
  }
  // Nothing new after this: the last presents signal, one more poll reads them.
  dev.set_paused(true);
  clock.advance_ms(500);
  poll();
  std::uint64_t janks = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    CAPTURE(layers[i].name);
    const AppState* app = dev.app(layers[i].package);
    REQUIRE(app != nullptr);
    const LayerTruth& t = truth_of(*app, layers[i].kind);
    CHECK(trackers[i].overflows() == 0);
    CHECK(trackers[i].frames() == t.presented);
    CHECK(trackers[i].jank() == t.jank);
    CHECK(trackers[i].big_jank() == t.big_jank);
    CHECK(trackers[i].refresh_jank() == t.refresh_jank);
    CHECK(trackers[i].active_ns() == t.active_ns);
    CHECK(trackers[i].jank_ns() == t.jank_ns);
    janks += t.jank + t.refresh_jank;
  }
  CHECK(janks > 10);  // the scenario exercises the rules
  CHECK(dev.app("com.example.game")->game_truth.presented > 1500);
}

TEST_CASE("a dark screen and an idle app present nothing and polling too slowly overflows", "[devsim][surfaceflinger]") {
  ManualClock clock;
  Device dev(game_config(33, 120), clock);
  CHECK(parsers::parse_power_state(shell(dev, "dumpsys power | grep -e mWakefulness= -e 'Display Power: state='"))
            .screen() == parsers::ScreenPower::on);
  clock.advance_ms(1000);
  dev.advance();
  const auto presented = [&] { return dev.app("com.example.game")->game_truth.presented; };
  const std::uint64_t before_off = presented();
  CHECK(before_off > 50);

  dev.set_screen(Screen::off);
  clock.advance_ms(5000);
  dev.advance();
  CHECK(presented() <= before_off + 1);  // at most a frame already queued
  const std::string power = shell(dev, "dumpsys power | grep -e mWakefulness= -e 'Display Power: state='");
  CHECK(power == "  mWakefulness=Asleep\nDisplay Power: state=OFF\n");
  dev.set_screen(Screen::doze);
  CHECK(parsers::parse_power_state(shell(dev, "dumpsys power")).screen() == parsers::ScreenPower::doze);

  dev.set_screen(Screen::on);
  REQUIRE(dev.set_idle("com.example.game", true));
  const std::int64_t active_idle = dev.app("com.example.game")->active_ns;
  const std::uint64_t at_idle = presented();
  clock.advance_ms(5000);
  dev.advance();
  CHECK(presented() <= at_idle + 1);
  CHECK(dev.app("com.example.game")->active_ns - active_idle < 20 * kMs);
  REQUIRE(dev.set_idle("com.example.game", false));
  clock.advance_ms(1000);
  dev.advance();
  CHECK(presented() > at_idle + 50);

  // A layer polled every 3 s at 120 Hz: its 127-frame table covers ~1 s.
  const auto layers = app_layers(dev);
  metrics::PresentTracker slow;
  const std::string feed = "com.example.feed/com.example.feed.MainActivity";
  const auto it = std::find_if(layers.begin(), layers.end(), [&](const auto& l) { return l.stable_name == feed; });
  REQUIRE(it != layers.end());
  for (int i = 0; i < 4; ++i) {
    slow.observe(parsers::parse_sf_latency(shell(dev, "dumpsys SurfaceFlinger --latency '" + it->name + "'")));
    clock.advance_ms(3000);
  }
  CHECK(slow.overflows() == 3);
  CHECK(slow.frames() < dev.app("com.example.feed")->window_truth.presented);
}

TEST_CASE("a recreated activity gets a new layer name and an empty table", "[devsim][surfaceflinger]") {
  ManualClock clock;
  Device dev(game_config(33, 60), clock);
  clock.advance_ms(1000);
  dev.advance();
  const auto before = app_layers(dev);
  REQUIRE(dev.restart_app("com.example.game"));
  clock.advance_ms(100);
  dev.advance();
  const auto after = app_layers(dev);
  REQUIRE(before.size() == after.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    CHECK(before[i].stable_name == after[i].stable_name);
    if (before[i].package != "com.example.game") continue;
    CHECK(before[i].name != after[i].name);
    const auto table = parsers::parse_sf_latency(shell(dev, "dumpsys SurfaceFlinger --latency '" + after[i].name + "'"));
    CHECK(table.zero_rows > 100);  // a few frames since the restart, the rest unused slots
  }
}

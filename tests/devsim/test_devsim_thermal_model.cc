// The simulated device's thermal state: temperatures that follow what the
// apps draw, throttling episodes that slow frames, and what the exporter's
// poller and replay make of `dumpsys thermalservice` on it.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/cli/replay.h"
#include "app/session/thermal_poller.h"
#include "devsim/model.h"
#include "devsim/shell.h"
#include "metrics/sources/thermal.h"
#include "parsers/thermal.h"

using namespace jank::devsim;
namespace parsers = jank::parsers;
using namespace std::chrono_literals;

namespace {

DeviceConfig phone(int sdk = 34) {
  DeviceConfig c;
  c.sdk = sdk;
  c.noise_lines_per_sec = 0;
  for (const char* p : {"com.example.feed", "com.example.shop"}) {
    AppConfig a;
    a.package = p;
    c.apps.push_back(a);
  }
  AppConfig game;
  game.package = "com.example.game";
  game.game_fps = 60;
  c.apps.push_back(game);
  return c;
}

void run_for(Device& dev, ManualClock& clock, std::int64_t seconds) {
  for (std::int64_t s = 0; s < seconds; ++s) {
    clock.advance_ms(1000);
    dev.advance();
  }
}

double reading(const SimThermal& t, const std::string& name) {
  for (const auto& s : t.temps) {
    if (s.name == name) return s.value;
  }
  FAIL("no sensor " << name);
  return 0;
}

std::uint64_t game_presented(const Device& dev) { return dev.app("com.example.game")->game_truth.presented; }

}  // namespace

TEST_CASE("devsim thermal: temperatures rise while apps draw and fall when the screen is off", "[thermal]") {
  ManualClock clock;
  Device dev(phone(), clock);
  const SimThermal cold = dev.thermal();
  REQUIRE(cold.temps.size() == 4);
  CHECK(cold.temps[0].name == "skin");
  CHECK(cold.temps[0].type == 3);
  run_for(dev, clock, 600);
  const SimThermal warm = dev.thermal();
  for (const char* s : {"skin", "cpu", "gpu", "battery"}) {
    INFO(s);
    CHECK(reading(warm, s) > reading(cold, s) + 0.5);
  }
  // Three apps and a game keep the skin below the severe threshold.
  CHECK(reading(warm, "skin") < kSimSkinHot[3]);
  CHECK(dev.throttle() == 1);
  dev.set_screen(Screen::off);
  run_for(dev, clock, 600);
  const SimThermal off = dev.thermal();
  CHECK(reading(off, "skin") < reading(warm, "skin") - 0.5);
  CHECK(reading(off, "cpu") < reading(cold, "cpu"));  // below even the lit idle
  // The same seed gives the same device; another seed another ambient.
  ManualClock clock2;
  Device twin(phone(), clock2);
  run_for(twin, clock2, 600);
  CHECK(reading(twin.thermal(), "skin") == reading(warm, "skin"));
  DeviceConfig other = phone();
  other.seed = 99;
  ManualClock clock3;
  Device stranger(other, clock3);
  CHECK(reading(stranger.thermal(), "skin") != reading(cold, "skin"));
}

TEST_CASE("devsim thermal: a severe episode slows frames and below severe nothing changes", "[thermal]") {
  ManualClock c_normal, c_mild, c_severe;
  Device normal(phone(), c_normal), mild(phone(), c_mild), severe(phone(), c_severe);
  mild.thermal_episode(2, -1);
  severe.thermal_episode(4, -1);
  CHECK(mild.thermal_status() == 2);
  CHECK(severe.thermal_status() == 4);
  CHECK(severe.throttle() == 2);
  run_for(normal, c_normal, 30);
  run_for(mild, c_mild, 30);
  run_for(severe, c_severe, 30);
  // Moderate throttles nothing: every draw and every frame as without it.
  for (const auto& pkg : {"com.example.feed", "com.example.game"}) {
    INFO(pkg);
    CHECK(mild.app(pkg)->truth.frames_rendered == normal.app(pkg)->truth.frames_rendered);
    CHECK(mild.app(pkg)->truth.skipped_frames == normal.app(pkg)->truth.skipped_frames);
    CHECK(mild.app(pkg)->gfx.janky == normal.app(pkg)->gfx.janky);
  }
  CHECK(game_presented(mild) == game_presented(normal));
  // Critical: the same stalls (the same random draws), far more janky frames,
  // and a game at half its rate.
  const auto* feed = severe.app("com.example.feed");
  CHECK(feed->truth.skipped_frames == normal.app("com.example.feed")->truth.skipped_frames);
  CHECK(feed->gfx.janky > 3 * normal.app("com.example.feed")->gfx.janky + 100);
  CHECK(game_presented(severe) < game_presented(normal) * 6 / 10);

  // What dumpsys thermalservice says, and the truth with it.
  const auto dump = parsers::parse_thermalservice(run_shell(severe, "dumpsys thermalservice").out);
  CHECK(dump.status == 4);
  CHECK(dump.status_override == false);
  REQUIRE(dump.temperatures.size() == 4);
  CHECK(dump.temperatures[0].name == "skin");
  CHECK(dump.temperatures[0].status == 4);
  REQUIRE(dump.cooling_devices.size() == 1);
  CHECK(dump.cooling_devices[0].value == 3);
  const auto thermal = severe.truth().at("thermal");
  CHECK(thermal.at("status").get<int>() == 4);
  CHECK(thermal.at("episode").get<bool>());
  CHECK(thermal.at("throttle").get<double>() == 2.0);
  CHECK(thermal.at("temperatures").at(0).at("name").get<std::string>() == "skin");
  // The episode's heat drives the skin towards critical.
  CHECK(reading(severe.thermal(), "skin") > reading(normal.thermal(), "skin") + 1);

  // Ended: the status follows the skin again (no longer critical after it cools).
  severe.end_thermal_episode();
  run_for(severe, c_severe, 600);
  CHECK(severe.thermal_status() < 3);
  CHECK(severe.throttle() == 1);
}

TEST_CASE("devsim thermal: a timed episode ends by itself and scripted episodes recur", "[thermal]") {
  ManualClock clock;
  Device dev(phone(), clock);
  dev.thermal_episode(5, 10);
  run_for(dev, clock, 9);
  CHECK(dev.thermal_status() == 5);
  run_for(dev, clock, 2);
  CHECK(dev.thermal_status() < 3);

  DeviceConfig scripted = phone();
  scripted.thermal_episodes = {60, 15, 3};
  ManualClock clock2;
  Device cycling(scripted, clock2);
  for (int period = 0; period < 3; ++period) {
    run_for(cycling, clock2, 44);
    CHECK(cycling.thermal_status() < 3);
    run_for(cycling, clock2, 2);
    CHECK(cycling.thermal_status() == 3);
    CHECK(cycling.throttle() == 1.5);
    run_for(cycling, clock2, 14);
  }
  // A reboot neither ends nor stretches an episode.
  dev.thermal_episode(4, 20);
  run_for(dev, clock, 5);
  dev.reboot(0);
  run_for(dev, clock, 5);
  CHECK(dev.thermal_status() == 4);
  run_for(dev, clock, 11);
  CHECK(dev.thermal_status() < 3);
}

TEST_CASE("devsim thermal: Android 9 has no thermal service", "[thermal]") {
  ManualClock clock;
  Device dev(phone(28), clock);
  const auto r = run_shell(dev, "dumpsys thermalservice");
  CHECK(r.out.empty());
  CHECK(r.err == "Can't find service: thermalservice\n");
  CHECK(run_shell(dev, "dumpsys thermalservice 2>&1").out == "Can't find service: thermalservice\n");
}

TEST_CASE("devsim thermal: the exporter's poller reads the simulated device into the store", "[thermal][app]") {
  ManualClock clock;
  Device dev(phone(35), clock);
  jank::app::SharedState shared{jank::metrics::StoreOptions{}};
  std::function<void()> due;
  auto config = std::make_shared<jank::config::Config>();
  jank::app::CommandPoller poller(jank::app::PollerContext{
      config, "sim0", shared,
      [&](const std::string& command, std::size_t, std::function<void(jank::ingest::ShellResult)> done) {
        jank::ingest::ShellResult r;
        r.output = run_shell(dev, command).out;
        done(std::move(r));
      },
      [&](std::chrono::milliseconds, std::function<void()> then) { due = std::move(then); }, [] { return 1; }},
      jank::app::thermal_command_source());
  poller.start();
  dev.thermal_episode(4, -1);
  run_for(dev, clock, 60);
  std::exchange(due, nullptr)();
  const auto& t = *jank::metrics::thermal_of(shared.store.device("sim0"));
  CHECK(t.status == 4);
  REQUIRE(t.temperatures.size() == 4);
  const SimThermal sim = dev.thermal();
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(t.temperatures[i].name == sim.temps[i].name);
    CHECK(t.temperatures[i].value == Approx(sim.temps[i].value).margin(1e-4));
  }
  CHECK(t.malformed_lines == 0);
  CHECK(jank::metrics::thermal_of(shared.store.device("sim0"))->polls.by_result().at("ok") == 1);
}

TEST_CASE("devsim thermal: replay of a captured dumpsys thermalservice exports the gauges", "[thermal][replay]") {
  ManualClock clock;
  Device dev(phone(33), clock);
  dev.thermal_episode(3, -1);
  run_for(dev, clock, 30);
  char pattern[] = "/tmp/jank-thermal-XXXXXX";
  REQUIRE(::mkdtemp(pattern) != nullptr);
  const std::string dir = pattern;
  const std::string file = dir + "/thermal.txt";
  std::ofstream(file) << run_shell(dev, "dumpsys thermalservice").out;
  std::ostringstream out, err;
  const int rc = jank::app::run_replay({"--serial", "r", file}, stdin, out, err);
  std::filesystem::remove_all(dir);
  REQUIRE(rc == jank::app::kExitOk);
  const std::string text = out.str();
  CHECK(text.find("android_thermal_status{serial=\"r\"} 3\n") != std::string::npos);
  char skin[96];
  std::snprintf(skin, sizeof skin, "android_thermal_temperature_celsius{serial=\"r\",sensor=\"skin\",type=\"skin\"} %g\n",
                reading(dev.thermal(), "skin"));
  CHECK(text.find(skin) != std::string::npos);
  CHECK(text.find("jank_exporter_thermal_lines_total{serial=\"r\",result=\"discarded\"} 0\n") != std::string::npos);
}

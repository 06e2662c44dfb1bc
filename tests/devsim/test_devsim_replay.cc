// `jank_exporter replay` of SurfaceFlinger captures made the way a QA engineer
// makes them (a shell loop of --latency polls, --list, dumpsys power) on the
// simulated device: the replay counts what the simulator's truth says a
// perfect reader counts, as the live poller does on the rig.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "app/cli/replay.h"
#include "devsim/model.h"
#include "devsim/shell.h"
#include "parsers/sf_layers.h"

using namespace jank::devsim;
namespace parsers = jank::parsers;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char pattern[] = "/tmp/jank-replay-XXXXXX";
    const char* made = ::mkdtemp(pattern);
    REQUIRE(made != nullptr);
    path = made;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

std::string shell(Device& dev, const std::string& command) { return run_shell(dev, command).out; }

// "name{labels}" -> value, for the sample lines of an exposition.
std::map<std::string, double> samples(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.rfind(' ');
    out[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return out;
}

std::string replay(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  CHECK(jank::app::run_replay(args, stdin, out, err) == jank::app::kExitOk);
  return out.str();
}

}  // namespace

TEST_CASE("replayed --latency loops count what the truth says at 120 Hz", "[devsim][replay][surfaceflinger]") {
  ManualClock clock;
  DeviceConfig c;
  c.sdk = 34;
  c.refresh_hz = 120;
  c.noise_lines_per_sec = 0;
  AppConfig feed;
  feed.package = "com.example.feed";
  feed.stall_prob = 0.05;
  feed.bands = {{2, 12, 3}, {45, 120, 1}};
  c.apps.push_back(feed);
  AppConfig game;
  game.package = "com.example.game";
  game.stall_prob = 0;
  game.game_fps = 60;
  game.hitch_prob = 0.08;
  c.apps.push_back(game);
  Device dev(c, clock);

  TempDir dir;
  const std::string list_file = dir.path + "/list.txt", power_file = dir.path + "/power.txt";
  const std::string list = shell(dev, "dumpsys SurfaceFlinger --list");
  std::ofstream(list_file) << list;
  std::ofstream(power_file) << shell(dev, "dumpsys power");
  std::vector<parsers::AppLayer> layers;
  for (const auto& name : parsers::parse_sf_layer_list(list).names) {
    if (auto layer = parsers::classify_layer(name)) layers.push_back(*layer);
  }
  REQUIRE(layers.size() == 3);
  // One capture per layer, as `while :; do echo "$ adb shell dumpsys
  // SurfaceFlinger --latency 'NAME'"; adb shell ...; sleep 0.5; done` writes it.
  std::vector<std::string> captures(layers.size());
  auto poll = [&] {
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const std::string command = "dumpsys SurfaceFlinger --latency '" + layers[i].name + "'";
      captures[i] += "$ adb shell " + command + "\n" + shell(dev, command);
    }
  };
  for (int step = 0; step < 60; ++step) {  // 30 s
    clock.advance_ms(500);
    poll();
  }
  dev.set_paused(true);
  clock.advance_ms(500);
  poll();

  std::vector<std::string> args = {"--serial", "s1", list_file, power_file};
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string file = dir.path + "/latency" + std::to_string(i) + ".txt";
    std::ofstream(file) << captures[i];
    args.push_back(file);
  }
  const auto m = samples(replay(args));
  double app_active = 0;
  for (const auto& l : layers) {
    CAPTURE(l.name);
    const AppState* app = dev.app(l.package);
    REQUIRE(app != nullptr);
    const LayerTruth& t = l.kind == parsers::LayerKind::surface_view ? app->game_truth : app->window_truth;
    const std::string labels = "{serial=\"s1\",package=\"" + l.package + "\",layer=\"" + l.stable_name +
                               "\",kind=\"" + (l.kind == parsers::LayerKind::surface_view ? "surface_view" : "app_window") +
                               "\"}";
    CHECK(m.at("android_layer_frames_presented_total" + labels) == static_cast<double>(t.presented));
    CHECK(m.at("android_layer_perfdog_jank_total" + labels) == static_cast<double>(t.jank));
    CHECK(m.at("android_layer_perfdog_big_jank_total" + labels) == static_cast<double>(t.big_jank));
    CHECK(m.at("android_layer_refresh_jank_total" + labels) == static_cast<double>(t.refresh_jank));
    CHECK(m.at("android_layer_active_seconds_total" + labels) == Approx(static_cast<double>(t.active_ns) / 1e9));
    CHECK(m.at("android_layer_poll_overflows_total" + labels) == 0);
    if (l.package == "com.example.game" && l.kind == parsers::LayerKind::surface_view) {
      app_active = m.at("android_app_active_seconds_total{serial=\"s1\",package=\"com.example.game\"}");
    }
  }
  CHECK(app_active == Approx(static_cast<double>(dev.app("com.example.game")->active_ns) / 1e9));
  CHECK(dev.app("com.example.game")->game_truth.presented > 1000);
  CHECK(m.at("android_display_power_state{serial=\"s1\",state=\"on\"}") == 1);
  CHECK(m.at("android_display_refresh_rate_hertz{serial=\"s1\"}") == Approx(120).epsilon(1e-6));
  CHECK(m.at("jank_exporter_surfaceflinger_lines_total{serial=\"s1\",source=\"list\",result=\"parsed\"}") ==
        static_cast<double>(parsers::parse_sf_layer_list(list).names.size()));
  CHECK(m.at("jank_exporter_surfaceflinger_lines_total{serial=\"s1\",source=\"latency\",result=\"discarded\"}") == 0);

  // The game layer's polls without their command lines, named by --layer:
  // the same count (each frame once however many polls show it).
  std::size_t game_layer = 0;
  while (layers[game_layer].kind != parsers::LayerKind::surface_view) ++game_layer;
  std::string bare;
  std::istringstream in(captures[game_layer]);
  for (std::string line; std::getline(in, line);) {
    if (line.find("--latency") == std::string::npos) bare += line + "\n";
  }
  const std::string bare_file = dir.path + "/bare.txt";
  std::ofstream(bare_file) << bare;
  const auto g = samples(replay({"--serial", "s1", "--layer", layers[game_layer].name, bare_file}));
  CHECK(g.at("android_layer_frames_presented_total{serial=\"s1\",package=\"com.example.game\",layer=\"" +
             layers[game_layer].stable_name + "\",kind=\"surface_view\"}") ==
        static_cast<double>(dev.app("com.example.game")->game_truth.presented));
}

TEST_CASE("replay: --latency rows with no layer name fail and a dark screen shows off", "[devsim][replay]") {
  TempDir dir;
  const std::string rows = dir.path + "/rows.txt", power = dir.path + "/power.txt";
  std::ofstream(rows) << "16666667\n1000\t2000\t1500\n";
  std::ofstream(power) << "  mWakefulness=Asleep\nDisplay Power: state=OFF\n";
  std::ostringstream out, err;
  CHECK(jank::app::run_replay({rows}, stdin, out, err) == jank::app::kExitNoInput);
  CHECK(err.str().find("--layer NAME") != std::string::npos);

  // Polls of a container layer (it never presents): one notice, nothing counted.
  const std::string container = dir.path + "/container.txt";
  {
    std::ofstream f(container);
    for (int i = 0; i < 3; ++i) f << "$ adb shell dumpsys SurfaceFlinger --latency 'SurfaceView[a.b/a.b.C]#0'\n16666667\n0\t0\t0\n";
  }
  std::ostringstream c_out, c_err;
  CHECK(jank::app::run_replay({container}, stdin, c_out, c_err) == jank::app::kExitOk);
  const std::string notices = c_err.str();
  CHECK(notices.find("is not an app window or SurfaceView layer") != std::string::npos);
  CHECK(notices.find("is not an app window", notices.find("is not an app window") + 1) == std::string::npos);
  CHECK(c_out.str().find("android_layer_frames_presented_total{") == std::string::npos);

  const auto m = samples(replay({"--serial", "s", power}));
  CHECK(m.at("android_display_power_state{serial=\"s\",state=\"off\"}") == 1);
  CHECK(m.at("android_device_activity_state{serial=\"s\",state=\"off\"}") == 1);
  CHECK(m.at("jank_exporter_surfaceflinger_lines_total{serial=\"s\",source=\"power\",result=\"parsed\"}") == 2);
}

TEST_CASE("replayed --frametimeline loops count every app frame once by jank type", "[devsim][replay][frametimeline]") {
  for (const bool jank_first : {false, true}) {
    CAPTURE(jank_first);
    ManualClock clock;
    DeviceConfig c;
    c.sdk = 35;
    c.refresh_hz = 60;
    c.noise_lines_per_sec = 0;
    c.sf_miss_prob = 0.02;
    c.drop_prob = 0.2;
    AppConfig feed;
    feed.package = "com.example.feed";
    feed.stall_prob = 0.05;
    feed.bands = {{2, 12, 3}};
    c.apps.push_back(feed);
    Device dev(c, clock);
    // As `while :; do adb shell dumpsys SurfaceFlinger --frametimeline -all; sleep 0.5; done`
    // writes it (with -jank too: the janky frames first, then all of them).
    const std::string command =
        jank_first ? "dumpsys SurfaceFlinger --frametimeline -jank -all" : "dumpsys SurfaceFlinger --frametimeline -all";
    std::string capture;
    for (int step = 0; step < 40; ++step) {
      clock.advance_ms(500);
      capture += shell(dev, command);
    }
    dev.set_paused(true);
    clock.advance_ms(500);
    capture += shell(dev, command);
    TempDir dir;
    const std::string file = dir.path + "/ft.txt";
    std::ofstream(file) << capture;
    const auto m = samples(replay({"--serial", "s1", file}));
    const FrameTimelineTruth& t = dev.app("com.example.feed")->ft_truth;
    const std::string labels = "{serial=\"s1\",package=\"com.example.feed\"";
    // The first poll's window holds frames made before it: the truth counts
    // them all, the capture starts 0.5 s in with 64 display frames (> 0.5 s).
    CHECK(m.at("android_frametimeline_frames_total" + labels + "}") == static_cast<double>(t.frames));
    CHECK(m.at("android_frametimeline_janky_frames_total" + labels + "}") == static_cast<double>(t.janky));
    CHECK(m.at("android_frametimeline_jank_frames_total" + labels + ",jank_type=\"app_deadline_missed\"}") ==
          static_cast<double>(t.by_label[4]));
    CHECK(m.at("android_frametimeline_jank_frames_total" + labels + ",jank_type=\"dropped\"}") ==
          static_cast<double>(t.by_label[10]));
    CHECK(m.at("android_frametimeline_jank_frames_total" + labels + ",jank_type=\"none\"}") ==
          static_cast<double>(t.by_label[0]));
    CHECK(m.at("jank_exporter_frametimeline_overflows_total{serial=\"s1\"}") == 0);
    CHECK(m.at("jank_exporter_surfaceflinger_lines_total{serial=\"s1\",source=\"frametimeline\",result=\"discarded\"}") ==
          0);
    CHECK(t.frames > 500);
    CHECK(t.by_label[10] > 0);
  }
}

TEST_CASE("a --frametimeline -jank capture alone is refused with the reason", "[devsim][replay][frametimeline]") {
  ManualClock clock;
  DeviceConfig c;
  c.sdk = 33;
  c.sf_miss_prob = 0.2;
  c.apps.push_back(AppConfig{});
  c.apps.back().package = "com.example.feed";
  Device dev(c, clock);
  clock.advance_ms(2000);
  TempDir dir;
  const std::string file = dir.path + "/jank.txt";
  std::ofstream(file) << shell(dev, "dumpsys SurfaceFlinger --frametimeline -jank");
  std::ostringstream out, err;
  CHECK(jank::app::run_replay({file}, stdin, out, err) != jank::app::kExitOk);
  CHECK(err.str().find("without -all") != std::string::npos);
}

TEST_CASE("replayed --timestats dumps keep totals across a statsd pull", "[devsim][replay][timestats]") {
  ManualClock clock;
  DeviceConfig c;
  c.sdk = 33;
  c.noise_lines_per_sec = 0;
  c.sf_miss_prob = 0.02;
  c.apps.push_back(AppConfig{});
  c.apps.back().package = "com.example.feed";
  c.apps.back().stall_prob = 0.05;
  Device dev(c, clock);
  shell(dev, "dumpsys SurfaceFlinger --timestats -enable");
  std::string capture;
  for (int step = 0; step < 20; ++step) {
    clock.advance_ms(1000);
    capture += shell(dev, "dumpsys SurfaceFlinger --timestats -dump");
    if (step == 10) dev.timestats_pull(false);  // right after a read: nothing lost
  }
  TempDir dir;
  const std::string file = dir.path + "/ts.txt";
  std::ofstream(file) << capture;
  const auto m = samples(replay({"--serial", "s1", file}));
  const FrameTimelineTruth& t = dev.app("com.example.feed")->ft_truth;
  const std::string labels = "{serial=\"s1\",package=\"com.example.feed\"";
  CHECK(m.at("android_timestats_timeline_frames_total" + labels + "}") == static_cast<double>(t.frames));
  CHECK(m.at("android_timestats_janky_frames_total" + labels + "}") == static_cast<double>(t.janky));
  CHECK(m.at("android_timestats_jank_frames_total" + labels + ",jank_type=\"app_deadline_missed\"}") ==
        static_cast<double>(t.by_label[4]));
  // One reset taken in (a lone row that went down is a row reset, or the layers').
  CHECK(m.at("jank_exporter_timestats_resets_total{serial=\"s1\",scope=\"layers\"}") +
            m.at("jank_exporter_timestats_resets_total{serial=\"s1\",scope=\"row\"}") ==
        1);
  CHECK(t.frames > 500);
}

// Freezes and rests end to end (docs/metrics.md, "SurfaceFlinger frames"):
// the real exporter follows simulated phones (Android 13 at 60 Hz, 15 at
// 120 Hz) through Debian's real adb server. A game that freezes for 1.5, 3
// and 6 s shows three BigJank and three frozen frames on each of its layers;
// a 10 s rest and a static UI between animations show none; and the flight
// recorder's default rules keep one trace for a 2 s freeze.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "tests/daemon/exporter_process.h"
#include "tests/daemon/sim_layers.h"

using namespace jank::daemon_test;

namespace {

// Exported family → the simulator truth's field for the same count.
const std::vector<std::pair<std::string, std::string>> kCounts = {
    {"android_layer_frames_presented_total", "presented"}, {"android_layer_perfdog_jank_total", "jank"},
    {"android_layer_perfdog_big_jank_total", "big_jank"},  {"android_layer_freezes_total", "freezes"},
    {"android_layer_frozen_frames_total", "frozen"},       {"android_layer_slow_frames_total", "slow"},
    {"android_layer_slow_frames_refresh_total", "slow_refresh"}};

// One layer's counts by truth field name.
using Counts = std::map<std::string, double>;

Counts exported(const std::map<std::string, double>& s, const std::string& serial, const LayerId& l) {
  Counts c;
  for (const auto& [family, field] : kCounts) {
    const auto it = s.find(layer_series(family, serial, l));
    c[field] = it == s.end() ? -1 : it->second;
  }
  return c;
}

// Polls that found the layer's table wrapped past its newest counted frame:
// frames lost to a poll that came too late, which the exporter reports.
Counts truth_of(const Json& truth, const std::string& device, const LayerId& l) {
  const Json* app = DevSim::app(truth, device, l.package);
  REQUIRE(app != nullptr);
  for (const Json& layer : (*app)["layers"].arr) {
    if (layer["layer"].str != l.layer) continue;
    Counts c;
    for (const auto& [family, field] : kCounts) c[field] = static_cast<double>(layer[field].u64());
    return c;
  }
  FAIL("no truth for layer " << l.layer);
  return {};
}

struct FreezeRig {
  AdbServer adb;
  DevSim sim;
  TempDir state, conf_dir;
  std::unique_ptr<Exporter> ex;

  FreezeRig(std::vector<std::string> sim_args, const std::string& extra_yaml) : sim(sim_args) {
    for (const auto& d : sim.devices()) adb.emulator(d.port);
    for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
    const std::string conf = conf_dir.path() + "/c.yaml";
    std::ofstream(conf) << "gfxinfo:\n  packages: [" << kFeed << ", " << kGame << "]\n  discover: false\n"
                        << "  poll_interval_seconds: 2\n"
                        << "surfaceflinger:\n  list_interval_seconds: 2\n"
                        << extra_yaml;
    ex = std::make_unique<Exporter>(std::vector<std::uint16_t>{adb.port()}, state.path(),
                                    std::vector<std::string>{"--config", conf});
  }
  void control(const std::string& command) {
    INFO(command);
    REQUIRE(sim.control(command).rfind("OK", 0) == 0);
  }
  void each_device(const std::string& command_head, const std::string& tail) {
    for (const auto& d : sim.devices()) control(command_head + " " + d.name + " " + tail);
  }
  // Every layer of every device presented and counted.
  void wait_presenting(const std::vector<LayerId>& layers) {
    REQUIRE(wait_until([&] {
      const auto s = ex->samples();
      for (const auto& d : sim.devices()) {
        for (const auto& l : layers) {
          const auto it = s.find(layer_series("android_layer_frames_presented_total", emulator_serial(d), l));
          if (it == s.end() || it->second < 200) return false;
        }
      }
      return true;
    }, 40000ms, 250ms));
  }
  // Waits until each device's truth for the layer has `field` at least `n` over `base`.
  void wait_truth(const Json& base, const LayerId& l, const std::string& field, double n) {
    REQUIRE(wait_until([&] {
      const Json t = sim.truth();
      for (const auto& d : sim.devices()) {
        if (truth_of(t, d.name, l)[field] < truth_of(base, d.name, l)[field] + n) return false;
      }
      return true;
    }, 30000ms, 100ms));
  }
};

}  // namespace

TEST_CASE("a game frozen for 1.5 s then 3 s then 6 s shows three BigJank and three frozen frames and rests and static UI none",
          "[serial]") {
  FreezeRig rig({"--devices", "2", "--packages", kFeed, "--games", kGame + ":60", "--refresh", "60,120", "--sdk",
                 "33,35", "--stall-prob", "0", "--hitch-prob", "0", "--log-rate", "2"},
                "  frametimeline: false\n");
  rig.wait_presenting(kLayers);
  // The baseline: the exporter's counts and the truth at one pause. The
  // pause is a gap in every layer; it lasts over 10 s so that the game's
  // SurfaceView, which has no reports of its own (docs/metrics.md), takes it
  // for the rest it is.
  rig.control("pause");
  const auto paused_at = std::chrono::steady_clock::now();
  const Json t0 = rig.sim.truth();
  // Settled: every layer polled since the pause (counts unchanged over 1.5 s,
  // longer than the fast poll interval).
  std::map<std::pair<std::string, LayerId>, Counts> e0, previous;
  std::map<std::pair<std::string, LayerId>, double> overflows0;
  REQUIRE(wait_until([&] {
    const auto s = rig.ex->samples();
    e0.clear();
    for (const auto& d : rig.sim.devices()) {
      for (const auto& l : kLayers) {
        e0[{d.name, l}] = exported(s, emulator_serial(d), l);
        overflows0[{d.name, l}] = overflows(s, emulator_serial(d), l);
      }
    }
    const bool same = e0 == previous;
    previous = e0;
    return same && e0.begin()->second.at("presented") >= 0;
  }, 20000ms, 1500ms));
  std::this_thread::sleep_until(paused_at + 10500ms);
  rig.control("resume");

  // Three freezes of the whole game, each followed by steady frames.
  int freezes = 0;
  for (const double seconds : {1.5, 3.0, 6.0}) {
    // Steady frames first: PerfDog judges a frame against the three before it.
    rig.wait_truth(rig.sim.truth(), kLayers[2], "presented", 60);
    const Json before = rig.sim.truth();
    rig.each_device("freeze", kGame + " " + std::to_string(seconds));
    ++freezes;
    rig.wait_truth(before, kLayers[2], "freezes", 1);
    rig.wait_truth(before, kLayers[1], "freezes", 1);
  }
  rig.wait_truth(rig.sim.truth(), kLayers[2], "presented", 60);
  // A 10 s rest of both apps, then a static UI for 3 s between animations.
  {
    rig.each_device("idle", kGame + " on");
    rig.each_device("idle", kFeed + " on");
    std::this_thread::sleep_for(11s);  // the rest itself: simulated time runs with the host's
    rig.each_device("idle", kGame + " off");
    rig.each_device("idle", kFeed + " off");
    rig.wait_truth(rig.sim.truth(), kLayers[0], "presented", 60);
    rig.each_device("idle", kFeed + " on");
    std::this_thread::sleep_for(3s);
    rig.each_device("idle", kFeed + " off");
    rig.wait_truth(rig.sim.truth(), kLayers[0], "presented", 60);
  }
  rig.control("pause");
  const Json t1 = rig.sim.truth();

  // A layer whose polls fell behind its table (a loaded host) lost frames the
  // exporter reported as overflows: its counts can only fall short of the
  // truth, and its freezes cannot be judged. Every other layer is exact.
  std::string differences, behind;
  const bool settled = wait_until([&] {
    const auto s = rig.ex->samples();
    differences.clear();
    behind.clear();
    for (const auto& d : rig.sim.devices()) {
      for (const auto& l : kLayers) {
        const Counts got = exported(s, emulator_serial(d), l);
        const Counts was = e0[{d.name, l}], a = truth_of(t0, d.name, l), b = truth_of(t1, d.name, l);
        const double lost_polls = overflows(s, emulator_serial(d), l) - overflows0[{d.name, l}];
        if (lost_polls > 0) behind += d.name + " " + l.layer + ": " + std::to_string(lost_polls) + " overflows\n";
        for (const auto& [family, field] : kCounts) {
          const double want = b.at(field) - a.at(field), have = got.at(field) - was.at(field);
          if (lost_polls > 0 ? have > want : want != have) {
            differences += d.name + " " + l.layer + " " + field + ": exported " + std::to_string(have) +
                           ", truth " + std::to_string(want) + "\n";
          }
        }
      }
    }
    return differences.empty();
  }, 30000ms, 500ms);
  INFO(differences);
  CHECK(settled);
  if (!behind.empty()) WARN("polls fell behind the layer tables; those layers were not judged exactly:\n" << behind);

  const auto s = rig.ex->samples();
  int judged = 0;
  for (const auto& d : rig.sim.devices()) {
    const std::string serial = emulator_serial(d);
    for (const auto& l : kLayers) {
      CAPTURE(d.name, l.layer);
      if (overflows(s, serial, l) > overflows0[{d.name, l}]) continue;  // reported above
      ++judged;
      const Counts got = exported(s, serial, l), was = e0[{d.name, l}];
      const double n = l.package == kGame ? freezes : 0;
      // The game's layers: one BigJank, one frozen frame per freeze; the
      // feed (rested 10 s and 3 s, never frozen) none.
      CHECK(got.at("freezes") - was.at("freezes") == n);
      CHECK(got.at("big_jank") - was.at("big_jank") == n);
      CHECK(got.at("jank") - was.at("jank") == n);
      CHECK(got.at("frozen") - was.at("frozen") == n);
    }
  }
  // At most two of the six layers fell behind: a host loaded past that proves nothing.
  CHECK(judged >= 4);
}

namespace {

// One phone (Android 14, 60 Hz) with the flight recorder on and `rules`.
struct TraceFreezeRig : FreezeRig {
  explicit TraceFreezeRig(const std::string& rules)
      : FreezeRig({"--devices", "1", "--packages", kFeed, "--games", kGame + ":60", "--sdk", "34", "--stall-prob", "0",
                   "--hitch-prob", "0", "--log-rate", "1"},
                  "traces:\n  enabled: true\n  stop_delay_ms: 300\n  check_interval_seconds: 1\n" + rules) {
    wait_presenting(kLayers);
    REQUIRE(wait_until([&] { return ex->value("jank_exporter_trace_armed{serial=\"" + serial() + "\"}") == 1; },
                       40000ms, 250ms));
  }
  std::string serial() const { return emulator_serial(sim.devices()[0]); }
  // Traces taken, by rule ("" for all).
  double taken(const std::string& rule = "") const {
    double n = 0;
    const std::string head = "jank_exporter_traces_taken_total{serial=\"" + serial() + "\"";
    for (const auto& [k, v] : ex->samples()) {
      if (k.rfind(head, 0) == 0 && (rule.empty() || k.find("rule=\"" + rule + "\"") != std::string::npos)) n += v;
    }
    return n;
  }
};

}  // namespace

TEST_CASE("the flight recorder's default rules keep one trace for a 2 s freeze") {
  TraceFreezeRig rig("");
  REQUIRE(rig.taken() == 0);
  rig.control("freeze " + rig.sim.devices()[0].name + " " + kGame + " 2");
  REQUIRE(wait_until([&] { return rig.taken() == 1; }, 30000ms, 250ms));
  // The freeze's other firings (the skip, both layers' frozen frames, the
  // BigJank rule) come within the per-device interval: counted suppressed,
  // no second trace.
  REQUIRE(wait_until([&] { return rig.ex->value(layer_series("android_layer_frozen_frames_total", rig.serial(),
                                                             kLayers[2])) >= 1; },
                     20000ms, 250ms));
  CHECK_FALSE(wait_until([&] { return rig.taken() > 1; }, 3000ms, 250ms));
}

TEST_CASE("the frozen-frame rule alone takes a trace for a game's 2 s freeze") {
  TraceFreezeRig rig("  rules:\n    skip_frames: 0\n    big_jank_count: 0\n    frozen_frames: 1\n");
  rig.control("freeze " + rig.sim.devices()[0].name + " " + kGame + " 2");
  REQUIRE(wait_until([&] { return rig.taken("frozen") == 1; }, 30000ms, 250ms));
  CHECK(rig.taken() == 1);
}

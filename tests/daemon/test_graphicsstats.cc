// graphicsstats end to end (docs/metrics.md, "graphicsstats"): the real
// exporter reads `dumpsys graphicsstats` of simulated phones (Android 8 and
// 14) through Debian's adb server; every app's frames per version code equal
// what the simulated service holds (its truth), across a new version (a
// restart), midnight, a reboot (which loses the running buffer on the device too) and a
// kill -9 of the exporter, with nothing counted twice.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "tests/daemon/exporter_process.h"
#include "tests/daemon/run_cli.h"

using namespace jank::daemon_test;

namespace {

const std::string kFeed = "com.example.feed", kChat = "com.example.chat";

// (device name, package, version code) → frames, from the simulator's truth.
using Frames = std::map<std::tuple<std::string, std::string, std::int64_t>, double>;

Frames truth(DevSim& sim) {
  Frames out;
  const Json t = sim.truth();
  for (const auto& d : sim.devices()) {
    for (const auto& p : {kFeed, kChat}) {
      const Json* a = DevSim::app(t, d.name, p);
      REQUIRE(a != nullptr);
      for (const Json& v : (*a)["graphicsstats"].arr) out[{d.name, p, v["version_code"].integer()}] = v["frames"].num;
    }
  }
  return out;
}

Frames exported(const Exporter& ex, DevSim& sim, const Frames& keys) {
  Frames out;
  const auto s = ex.samples();
  for (const auto& [key, frames] : keys) {
    const auto& [name, package, version] = key;
    for (const auto& d : sim.devices()) {
      if (d.name != name) continue;
      const auto it = s.find("android_graphicsstats_frames_total{serial=\"" + emulator_serial(d) + "\",package=\"" +
                             package + "\",version_code=\"" + std::to_string(version) + "\"}");
      out[key] = it == s.end() ? -1 : it->second;
    }
  }
  return out;
}

// Paused, every poll has seen the service as it stands: the exported
// frames equal the truth.
void check_equal(DevSim& sim, const Exporter& ex) {
  REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
  const Frames want = truth(sim);
  Frames got;
  const bool equal = wait_until([&] {
    got = exported(ex, sim, want);
    return got == want;
  }, 20000ms, 250ms);
  for (const auto& [key, n] : want) {
    INFO(std::get<0>(key) << " " << std::get<1>(key) << " " << std::get<2>(key) << ": exported " << got[key]
                          << ", truth " << n);
    CHECK(got[key] == n);
  }
  CHECK(equal);
  REQUIRE(sim.control("resume").rfind("OK", 0) == 0);
}

}  // namespace

TEST_CASE("graphicsstats frames per app and version equal the simulated service across a new version midnight a reboot and a kill -9") {
  AdbServer adb;
  DevSim sim({"--devices", "2", "--sdk", "26,34", "--packages", kFeed + "," + kChat, "--log-rate", "1"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/c.yaml";
  std::ofstream(conf) << "checkpoint_interval_seconds: 1\ngraphicsstats:\n  poll_interval_seconds: 1\n";
  std::optional<Exporter> ex;
  ex.emplace(std::vector<std::uint16_t>{adb.port()}, state.path(), std::vector<std::string>{"--config", conf});
  REQUIRE(wait_until([&] {
    const auto got = exported(*ex, sim, truth(sim));
    for (const auto& [key, n] : got) {
      if (n < 100) return false;
    }
    return !got.empty();
  }, 40000ms, 250ms));
  check_equal(sim, *ex);

  // A new version of the feed on the first phone: the old process's buffer
  // goes to its file, the new version draws into a block of its own.
  REQUIRE(sim.control("install " + sim.devices()[0].name + " " + kFeed + " 2.0 2") == "OK");
  std::this_thread::sleep_for(3s);
  check_equal(sim, *ex);

  // Midnight on the first phone (its wall clock set a day on): the day's
  // buffers go to their files and new ones start blocks of their own.
  const std::string blocks = "jank_exporter_graphicsstats_blocks{serial=\"" + emulator_serial(sim.devices()[0]) + "\"}";
  const double blocks_before = ex->value(blocks);
  REQUIRE(sim.control("clock " + sim.devices()[0].name + " step 86400").rfind("OK", 0) == 0);
  std::this_thread::sleep_for(3s);
  check_equal(sim, *ex);
  CHECK(ex->value(blocks) == blocks_before + 2);  // today's feed 2 and chat 1

  // A reboot of the second phone: the files stay, the running buffers are
  // lost on the device, and nothing is counted twice.
  REQUIRE(sim.control("reboot " + sim.devices()[1].name).rfind("OK", 0) == 0);
  wait_following(*ex, emulator_serial(sim.devices()[1]), 40000ms);
  std::this_thread::sleep_for(3s);
  check_equal(sim, *ex);

  // A kill -9 and a restart from the checkpoint: the blocks seen before are
  // not counted again.
  std::this_thread::sleep_for(2s);  // a checkpoint since the last poll
  ex->kill9();
  ex.reset();
  ex.emplace(std::vector<std::uint16_t>{adb.port()}, state.path(), std::vector<std::string>{"--config", conf});
  std::this_thread::sleep_for(4s);
  check_equal(sim, *ex);
}

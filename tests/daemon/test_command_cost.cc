// What measuring costs the phone (docs/metrics.md, "Device commands"): the
// real exporter on a simulated Android 13 phone through Debian's adb server
// asks more than its command budget allows; the simulator, which counts
// every shell service it runs, sees no more than the budget, and the
// exporter's own cost series (commands by kind, bytes, streams) equal what
// the simulator counted.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

double sum_of(const std::map<std::string, double>& s, const std::string& prefix) {
  double n = 0;
  for (auto it = s.lower_bound(prefix); it != s.end() && it->first.rfind(prefix, 0) == 0; ++it) n += it->second;
  return n;
}

struct Cost {
  double commands = 0, bytes = 0, streams = 0;
  bool operator==(const Cost&) const = default;
};

Cost exported(const Exporter& ex, const std::string& serial) {
  const auto s = ex.samples();
  const std::string dev = "{serial=\"" + serial + "\"";
  return {sum_of(s, "jank_exporter_device_command_runs_total" + dev),
          sum_of(s, "jank_exporter_device_command_output_bytes_total" + dev),
          sum_of(s, "jank_exporter_logcat_streams_total" + dev)};
}

Cost simulated(DevSim& sim) {
  const Json t = sim.truth();
  const Json& shell = t["devices"].arr.at(0)["shell"];
  return {shell["commands"].num, shell["output_bytes"].num, shell["streams"].num};
}

}  // namespace

TEST_CASE("the command budget holds under load and the cost series equal the simulator's count of commands and bytes") {
  AdbServer adb;
  DevSim sim({"--devices", "1", "--sdk", "33", "--refresh", "120", "--packages",
              "com.example.feed,com.example.chat,com.example.mail,com.example.news", "--games", "com.example.game:60",
              "--log-rate", "5"});
  const auto& dev = sim.devices()[0];
  adb.emulator(dev.port);
  const std::string serial = emulator_serial(dev);
  REQUIRE(adb.wait_state(serial, "device", 10000ms));
  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/c.yaml";
  // Every app's framestats every half second and its layers at full rate:
  // far more than four commands a second.
  std::ofstream(conf) << "gfxinfo:\n  packages: [com.example.feed, com.example.chat, com.example.mail, "
                         "com.example.news, com.example.game]\n  poll_interval_seconds: 0.5\n"
                      << "  fast_poll_interval_seconds: 0.5\nbudget:\n  max_commands_per_second: 4\n";
  Exporter ex({adb.port()}, state.path(), {"--config", conf, "--per-frame", "always"});
  REQUIRE(wait_until([&] { return exported(ex, serial).commands > 20; }, 30000ms, 250ms));

  // Counted by the simulator as it runs them: at most 4 a second and the
  // burst of one second's worth, over 10 s.
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = simulated(sim).commands;
  std::this_thread::sleep_for(10s);
  const double c1 = simulated(sim).commands;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(c1 - c0 << " commands in " << seconds << " s");
  CHECK(c1 - c0 <= 4 * seconds + 4);
  CHECK(c1 - c0 >= 3 * seconds);  // the load asks for more: the budget is what limits it
  CHECK(ex.value("jank_exporter_device_budget_waits_total{serial=\"" + serial + "\"}") > 10);

  // The exporter counts a command when it has answered, the simulator when
  // it runs it: at an instant with none in flight the two agree.
  Cost got, want;
  const bool equal = wait_until([&] {
    const Cost before = exported(ex, serial);
    want = simulated(sim);
    got = exported(ex, serial);
    return before == got && got == want;
  }, 20000ms, 50ms);
  INFO("exported " << got.commands << " commands, " << got.bytes << " bytes, " << got.streams << " streams; simulated "
                   << want.commands << ", " << want.bytes << ", " << want.streams);
  CHECK(equal);
  CHECK(got.commands > 40);
  CHECK(got.streams >= 1);
}

TEST_CASE("each command's time on the device, by the device's shell, is what the simulator's dumps cost") {
  AdbServer adb;
  DevSim sim({"--devices", "1", "--sdk", "33", "--packages", "com.example.feed", "--log-rate", "5"});
  const auto& dev = sim.devices()[0];
  adb.emulator(dev.port);
  const std::string serial = emulator_serial(dev);
  REQUIRE(adb.wait_state(serial, "device", 10000ms));
  // A gfxinfo dump works 5 ms on the device, a SurfaceFlinger dump 3 ms,
  // anything else nothing (devsim/observer_cost.cc).
  REQUIRE(sim.control("command-cost sim0 app=5 sf=3") == "OK");
  TempDir state;
  Exporter ex({adb.port()}, state.path());
  const std::string dev_label = "{serial=\"" + serial + "\",command=\"";
  auto timed = [&](const std::string& kind) {
    return ex.value("jank_exporter_device_command_timed_total" + dev_label + kind + "\"}");
  };
  auto on_device = [&](const std::string& kind) {
    return ex.value("jank_exporter_device_command_device_seconds_total" + dev_label + kind + "\"}");
  };
  REQUIRE(wait_until([&] { return timed("gfxinfo") >= 3 && timed("sf_latency") >= 3; }, 30000ms, 250ms));

  const auto samples = ex.samples();
  double runs = 0, timed_all = 0, device_all = 0;
  for (const auto& [key, v] : samples) {
    if (key.rfind("jank_exporter_device_command_runs_total{serial=\"" + serial, 0) == 0) runs += v;
    if (key.rfind("jank_exporter_device_command_timed_total{serial=\"" + serial, 0) == 0) timed_all += v;
    if (key.rfind("jank_exporter_device_command_device_seconds_total{serial=\"" + serial, 0) == 0) device_all += v;
    if (key.rfind("jank_exporter_device_command_device_seconds_total{serial=\"" + serial, 0) != 0) continue;
    const std::size_t at = key.find("command=\"");
    REQUIRE(at != std::string::npos);
    const std::string kind = key.substr(at + 9, key.find('"', at + 9) - at - 9);
    const double per = kind == "gfxinfo" ? 0.005
                       : kind.rfind("sf_", 0) == 0 || kind == "frametimeline" || kind == "timestats" ? 0.003
                                                                                                      : 0.0;
    const double n = samples.at("jank_exporter_device_command_timed_total" + dev_label + kind + "\"}");
    INFO(kind);
    CHECK(v == Approx(per * n).margin(1e-6 * n));
  }
  CHECK(on_device("gfxinfo") >= 0.005 * 3 - 1e-6);
  // Every answered command over shell v2 was timed (none unstamped), and
  // the simulator did the work the exporter measured.
  const double unstamped =
      ex.value("jank_exporter_device_command_untimed_total{serial=\"" + serial + "\",reason=\"unstamped\"}");
  CHECK((std::isnan(unstamped) || unstamped == 0));
  CHECK(timed_all >= runs - 3);  // in flight or refused (timeouts count no time)
  const Json t = sim.truth();
  CHECK(t["devices"].arr.at(0)["observer"]["command_work_ms"].num >= device_all * 1000 - 1e-3);
}

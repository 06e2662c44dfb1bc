// Custom log counters end to end: lines written into a simulated device's
// log through the simulator's control channel reach the real exporter over
// Debian's real adb server, and /metrics shows exact counts per pattern,
// label value and summed value, across a kill -9 and a restart.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

// The sum of every series of `family` for the device whose labels hold each of `parts`.
double total(const std::map<std::string, double>& samples, const std::string& family, const std::string& serial,
             const std::vector<std::string>& parts) {
  double sum = 0;
  const std::string head = family + "{serial=\"" + serial + "\"";
  for (const auto& [key, v] : samples) {
    if (key.rfind(head, 0) != 0) continue;
    bool all = true;
    for (const auto& p : parts) all = all && key.find(p) != std::string::npos;
    if (all) sum += v;
  }
  return sum;
}

struct Expected {
  double anr_a = 0, anr_b = 0, fatal = 0, gc = 0, gc_sum = 0, gc_count = 0, gc_negative = 0;
};

bool shows(const Exporter& ex, const std::string& serial, const Expected& e) {
  const auto s = ex.samples();
  const std::string m = "android_log_pattern_matches_total";
  return total(s, m, serial, {"pattern=\"anr\"", "value=\"com.a\""}) == e.anr_a &&
         total(s, m, serial, {"pattern=\"anr\"", "value=\"com.b\""}) == e.anr_b &&
         total(s, m, serial, {"pattern=\"anr\""}) == e.anr_a + e.anr_b &&
         total(s, m, serial, {"pattern=\"fatal_exception\""}) == e.fatal &&
         total(s, m, serial, {"pattern=\"gc_pause_ms\""}) == e.gc &&
         total(s, "android_log_pattern_value_sum_total", serial, {"pattern=\"gc_pause_ms\""}) == e.gc_sum &&
         total(s, "android_log_pattern_value_count_total", serial, {"pattern=\"gc_pause_ms\""}) == e.gc_count &&
         total(s, "jank_exporter_log_pattern_discards_total", serial,
               {"pattern=\"gc_pause_ms\"", "reason=\"value_negative\""}) == e.gc_negative;
}

}  // namespace

TEST_CASE("Log patterns count lines logged on a device exactly and survive an exporter restart") {
  AdbServer adb;
  DevSim sim({"--devices", "1", "--packages", "com.example.feed", "--log-rate", "20"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  const std::string serial = emulator_serial(sim.devices()[0]);
  const std::string name = sim.devices()[0].name;
  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/c.yaml";
  std::ofstream(conf) << "checkpoint_interval_seconds: 1\n"
                         "log_patterns:\n"
                         "  - name: anr\n"
                         "    tag: ActivityManager\n"
                         "    priority: E\n"
                         "    regex: '^ANR in (\\S+)'\n"
                         "    label_group: 1\n"
                         "  - name: fatal_exception\n"
                         "    tag: AndroidRuntime\n"
                         "    regex: '^FATAL EXCEPTION: '\n"
                         "  - name: gc_pause_ms\n"
                         "    tag: [art, gcapp]\n"
                         "    regex: 'paused (\\S+)ms'\n"
                         "    value_group: 1\n";
  auto log = [&](const std::string& rest) { REQUIRE(sim.control("log " + name + " " + rest) == "OK"); };
  Expected e;
  {
    Exporter ex({adb.port()}, state.path(), {"--config", conf});
    REQUIRE(wait_until([&] {
      return ex.value(series("android_device_up", serial)) == 1 &&
             ex.value(series("jank_exporter_logcat_streams_total", serial)) >= 1;
    }, 20000ms, 200ms));
    for (int i = 0; i < 3; ++i) log("system E 4242 ActivityManager ANR in com.a (pid 4242)");
    log("system I 4242 ActivityManager ANR in com.low");  // below priority E
    log("system E 4242 ActivityManager ANR in com.b");
    log("main E 4243 AndroidRuntime FATAL EXCEPTION: main");
    log("main E 4243 Other FATAL EXCEPTION: main");  // another tag
    log("main I 4244 gcapp Background GC freed 5MB, paused 12.5ms total 40ms");
    log("main I 4244 gcapp Background GC freed 1MB, paused 3ms total 9ms");
    log("main I 4244 gcapp clock went back: paused -1ms");
    e = {3, 1, 1, 3, 15.5, 2, 1};
    CHECK(wait_until([&] { return shows(ex, serial, e); }, 20000ms, 200ms));
    INFO(ex.scrape());
    REQUIRE(shows(ex, serial, e));
    // Past a checkpoint or not, the restart must count each line once.
    std::this_thread::sleep_for(1500ms);
    log("system E 4242 ActivityManager ANR in com.a");
    e.anr_a += 1;
    CHECK(wait_until([&] { return shows(ex, serial, e); }, 20000ms, 200ms));
    ex.kill9();
  }
  // Logged while no exporter runs: counted by the next one, once.
  log("main E 4243 AndroidRuntime FATAL EXCEPTION: worker");
  e.fatal += 1;
  Exporter again({adb.port()}, state.path(), {"--config", conf});
  REQUIRE(wait_until([&] { return again.value(series("android_device_up", serial)) == 1; }, 20000ms, 200ms));
  log("main I 4244 art paused 0.5ms");
  e.gc += 1;
  e.gc_sum += 0.5;
  e.gc_count += 1;
  CHECK(wait_until([&] { return shows(again, serial, e); }, 20000ms, 200ms));
  // And nothing more arrives later (no line counted twice by a late resume).
  std::this_thread::sleep_for(2000ms);
  INFO(again.scrape());
  CHECK(shows(again, serial, e));
  CHECK(again.value(series("jank_exporter_logcat_resume_gaps_total", serial)) == 0);
  CHECK(again.terminate() == 0);
}

TEST_CASE("Log pattern errors stop the exporter with their position and exit status 78") {
  TempDir dir;
  const std::string conf = dir.path() + "/bad.yaml";
  std::ofstream(conf) << "log_patterns:\n  - name: anr\n    regex: 'ANR in ('\n";
  RunResult r = run({JANK_EXPORTER_PROGRAM, "--check-config", conf}, {}, 10000ms);
  CHECK(r.exit == 78);
  CHECK(r.err.find(conf + ":3:12: log_patterns[0].regex: not a valid RE2 pattern: missing ): ANR in (") !=
        std::string::npos);
  r = run({JANK_EXPORTER_PROGRAM, "--config", conf}, {}, 10000ms);
  CHECK(r.exit == 78);
}

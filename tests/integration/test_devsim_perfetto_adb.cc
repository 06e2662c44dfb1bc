// Perfetto on jank_devsim through Debian's real adb server and client: the
// flight recorder's commands (docs/traces.md) and a pulled trace compared
// with the simulator's truth.
#include <catch2/catch.hpp>

#include <cstdio>

#include "tests/rig/fnv.h"
#include "tests/rig/rig.h"

using namespace jank::rig;

namespace {

const std::string kTrace = "/data/misc/perfetto-traces/jank_exporter.pftrace";

std::string serial_of(const SimDeviceInfo& d) { return "127.0.0.1:" + std::to_string(d.port); }

std::string attach(const AdbServer& adb, const DevSim& sim) {
  const std::string s = serial_of(sim.devices()[0]);
  REQUIRE(adb.connect(s).find("connected to " + s) != std::string::npos);
  REQUIRE(adb.wait_state(s, "device", 10000ms));
  return s;
}

const std::string kArm =
    "rm -f " + kTrace +
    "; printf %s 'unique_session_name: \"jank_exporter\" buffers { size_kb: 8192 fill_policy: RING_BUFFER } "
    "data_sources { config { name: \"linux.ftrace\" } } trigger_config { trigger_mode: STOP_TRACING "
    "trigger_timeout_ms: 600000 triggers { name: \"jank_exporter\" stop_delay_ms: 500 } }' | perfetto --background "
    "--txt -c - -o " +
    kTrace;

}  // namespace

TEST_CASE("adb: arm then trigger then pull a simulated Perfetto trace byte for byte") {
  AdbServer adb;
  DevSim sim({"--devices", "1"});
  const std::string s = attach(adb, sim);
  RunResult r = adb.adb({"-s", s, "shell", kArm});
  REQUIRE(r.exit == 0);
  INFO(r.err);
  const std::string pid = r.out.substr(0, r.out.find('\n'));
  CHECK(adb.adb({"-s", s, "shell", "pidof perfetto"}).out == pid + "\n");
  r = adb.adb({"-s", s, "shell", "cat /proc/" + pid + "/cmdline"});
  CHECK(r.exit == 0);
  CHECK(r.out.find(std::string("-o\0", 3) + kTrace) != std::string::npos);

  // A second arm while ours runs: refused, the first goes on.
  const std::string foreign = sim.control("perfetto sim0 foreign 0 jank_exporter");
  REQUIRE(foreign.rfind("OK ", 0) == 0);
  const auto refused = parse_json(foreign.substr(3));
  REQUIRE(refused);
  REQUIRE((*refused)["devices"][0]["refused"].b);
  CHECK(adb.adb({"-s", s, "shell", "trigger_perfetto jank_exporter"}).exit == 0);
  REQUIRE(wait_until([&] { return adb.adb({"-s", s, "shell", "cat /proc/" + pid + "/cmdline"}).exit == 1; }, 10000ms,
                     100ms));
  const Json truth = sim.truth();
  const Json& t = truth["devices"][0]["perfetto"];
  CHECK(t["refused"].integer() == 1);
  CHECK(t["triggers_received"].integer() == 1);
  REQUIRE(t["traces"].size() == 1);
  CHECK(t["traces"][0]["complete"].b);
  const std::uint64_t size = t["traces"][0]["size"].u64();

  r = adb.adb({"-s", s, "shell", "cat " + kTrace});
  CHECK(r.exit == 0);
  CHECK(r.out.size() == size);
  CHECK(jank::rig::fnv1a64_hex(r.out) == t["traces"][0]["fnv1a64"].str);
  const RunResult raw = adb.adb({"-s", s, "exec-out", "cat " + kTrace});
  CHECK(raw.out == r.out);

  REQUIRE(sim.control("perfetto sim0 fail-pull 1") == "OK");
  r = adb.adb({"-s", s, "shell", "cat " + kTrace});
  CHECK(r.exit == 1);
  CHECK(r.err == "cat: " + kTrace + ": Permission denied\n");
  CHECK(adb.adb({"-s", s, "shell", "cat " + kTrace}).out.size() == size);
  CHECK(sim.truth()["devices"][0]["perfetto"]["pulls_failed"].integer() == 1);
}

TEST_CASE("adb: the perfetto control commands size end and hang the simulated sessions") {
  AdbServer adb;
  DevSim sim({"--devices", "1"});
  const std::string s = attach(adb, sim);
  CHECK(sim.control("perfetto sim0 trace-bytes 6000000") == "OK");
  CHECK(sim.control("perfetto sim0 write-speed 100000000") == "OK");
  CHECK(sim.control("perfetto sim0 bogus").rfind("ERR usage: perfetto DEV", 0) == 0);
  RunResult r = adb.adb({"-s", s, "shell", kArm});
  REQUIRE(r.exit == 0);
  const std::string pid = r.out.substr(0, r.out.find('\n'));
  REQUIRE(adb.adb({"-s", s, "shell", "trigger_perfetto jank_exporter"}).exit == 0);
  REQUIRE(wait_until([&] { return adb.adb({"-s", s, "shell", "pidof perfetto"}).exit == 1; }, 10000ms, 100ms));
  const Json t = sim.truth()["devices"][0]["perfetto"]["traces"][0];
  REQUIRE(t["complete"].b);
  CHECK(t["size"].integer() == 6'000'000);
  r = adb.adb({"-s", s, "exec-out", "cat " + kTrace});
  CHECK(r.out.size() == 6'000'000);  // over 4 MiB: streamed
  CHECK(jank::rig::fnv1a64_hex(r.out) == t["fnv1a64"].str);

  REQUIRE(sim.control("perfetto sim0 hang-pull") == "OK");
  r = adb.adb({"-s", s, "exec-out", "cat " + kTrace}, 1500ms);
  CHECK(r.timed_out);
  CHECK(r.out.empty());
  REQUIRE(sim.control("perfetto sim0 unhang-pull") == "OK");
  CHECK(adb.adb({"-s", s, "exec-out", "cat " + kTrace}).out.size() == 6'000'000);

  // `end`: our new session ends as at its timeout, with an empty file.
  REQUIRE(adb.adb({"-s", s, "shell", kArm}).exit == 0);
  CHECK(sim.control("perfetto sim0 end") == "OK {\"devices\":[{\"name\":\"sim0\",\"ended\":1}]}");
  REQUIRE(wait_until([&] { return adb.adb({"-s", s, "shell", "pidof perfetto"}).exit == 1; }, 10000ms, 100ms));
  r = adb.adb({"-s", s, "shell", "cat " + kTrace});
  CHECK(r.exit == 0);
  CHECK(r.out.empty());
  const Json p = sim.truth()["devices"][0]["perfetto"];
  CHECK(p["expired"].integer() == 1);
  CHECK(p["ended_by_control"].integer() == 1);
  CHECK(p["pulls_hung"].integer() == 1);
}

TEST_CASE("adb: Android 9 has no trigger_perfetto and no perfetto --txt") {
  AdbServer adb;
  DevSim sim({"--devices", "1", "--sdk", "28"});
  const std::string s = attach(adb, sim);
  RunResult r = adb.adb({"-s", s, "shell", "trigger_perfetto jank_exporter"});
  CHECK(r.exit == 127);
  CHECK(r.err == "/system/bin/sh: trigger_perfetto: not found\n");  // mksh before R57
  r = adb.adb({"-s", s, "shell", kArm});
  CHECK(r.exit == 1);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("perfetto: unknown option -- txt\n", 0) == 0);
}

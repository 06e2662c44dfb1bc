// The flight recorder end to end (docs/traces.md): the real exporter arms
// Perfetto on simulated devices behind the real adb server, a scripted spike
// yields exactly one trace whose bytes are the device's, the limits and the
// retention hold, a reconnect adopts the running session, and faults of the
// pull are counted.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "tests/daemon/exporter_process.h"
#include "tests/rig/fnv.h"

using namespace jank::daemon_test;

namespace {

const std::string kApp = "com.example.feed";

// The body of an HTTP/1.1 response, chunked or not.
std::string body_of(const std::string& response) {
  const auto at = response.find("\r\n\r\n");
  if (at == std::string::npos) return {};
  const std::string head = response.substr(0, at);
  std::string rest = response.substr(at + 4);
  if (head.find("chunked") == std::string::npos) return rest;
  std::string out;
  std::size_t i = 0;
  while (i < rest.size()) {
    const auto eol = rest.find("\r\n", i);
    if (eol == std::string::npos) break;
    const std::size_t n = std::stoul(rest.substr(i, eol - i), nullptr, 16);
    if (n == 0) break;
    out.append(rest, eol + 2, n);
    i = eol + 2 + n + 2;
  }
  return out;
}

// GET with Prometheus's default Accept header: the OpenMetrics answer.
std::string openmetrics_get(std::uint16_t port, const std::string& path) {
  return http_get(port, path, 5000ms,
                  "Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
                  "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n");
}

std::string series(const std::string& family, const std::string& labels) {
  return labels.empty() ? family : family + "{" + labels + "}";
}

struct TraceRig {
  AdbServer adb;
  DevSim sim;
  TempDir state, conf_dir;
  std::unique_ptr<Exporter> ex;

  TraceRig(const std::vector<std::string>& sim_args, const std::string& traces_yaml)
      : sim(sim_args) {
    for (const auto& d : sim.devices()) adb.emulator(d.port);
    for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
    std::ofstream(conf()) << "checkpoint_interval_seconds: 1\n"
                             "gfxinfo:\n  poll_interval_seconds: 2\n"
                             "traces:\n  enabled: true\n  stop_delay_ms: 300\n  check_interval_seconds: 1\n"
                             "  rules:\n    skip_frames: 50\n    big_jank_count: 0\n    frozen_frames: 0\n"
                          << traces_yaml;
    start();
  }
  std::string conf() const { return conf_dir.path() + "/c.yaml"; }
  void start() { ex = std::make_unique<Exporter>(std::vector<std::uint16_t>{adb.port()}, state.path(),
                                                 std::vector<std::string>{"--config", conf()}); }
  std::string serial(std::size_t i = 0) const { return emulator_serial(sim.devices()[i]); }
  std::string name(std::size_t i = 0) const { return sim.devices()[i].name; }
  double value(const std::string& family, const std::string& labels) const {
    return ex->value(series(family, labels));
  }
  void wait_armed(std::size_t i = 0) {
    INFO(ex->log());
    REQUIRE(wait_until([&] { return value("jank_exporter_trace_armed", "serial=\"" + serial(i) + "\"") == 1; },
                       40000ms, 250ms));
  }
  const Json& perfetto(const Json& truth, std::size_t i = 0) {
    for (const Json& d : truth["devices"].arr) {
      if (d["name"].str == name(i)) return d["perfetto"];
    }
    FAIL("no device " << name(i));
    return truth;
  }
  double taken(std::size_t i, const std::string& rule = "skip") const {
    return value("jank_exporter_traces_taken_total", "serial=\"" + serial(i) + "\",rule=\"" + rule + "\"");
  }
  // The recorder's series, for a failure's message.
  std::string trace_series() const {
    std::istringstream in(ex->scrape());
    std::string out;
    for (std::string line; std::getline(in, line);) {
      if (line.find("trace") != std::string::npos && line[0] != '#') out += line + "\n";
    }
    return out;
  }
  void skip(std::size_t i, int frames) {
    REQUIRE(sim.control("skip " + name(i) + " " + kApp + " " + std::to_string(frames)).rfind("OK", 0) == 0);
  }
};

const std::vector<std::string> kQuiet = {"--sdk", "34", "--packages", kApp, "--stall-prob", "0", "--log-rate", "1"};

}  // namespace

TEST_CASE("a scripted skip yields exactly one trace named for it whose bytes are the device's") {
  TraceRig rig({"--devices", "1", "--sdk", "34", "--packages", kApp, "--stall-prob", "0", "--log-rate", "1"},
               "  min_interval_seconds: 0\n");
  rig.wait_armed();
  CHECK(rig.perfetto(rig.sim.truth())["sessions_started"].u64() == 1);
  rig.skip(0, 30);  // below the rule
  rig.skip(0, 80);
  REQUIRE(wait_until([&] { return rig.taken(0) == 1; }, 30000ms, 250ms));
  const Json truth = rig.sim.truth();
  const Json& pf = rig.perfetto(truth);
  CHECK(pf["triggers_received"].u64() == 1);
  REQUIRE(pf["traces"].arr.size() == 1);
  const Json& written = pf["traces"][0];
  INFO("truth: size " << written["size"].num << " bytes " << written["bytes"].num << " complete "
                      << written["complete"].b << " writing " << written["writing"].b);

  const std::string list = body_of(http_get(rig.ex->port(), "/traces/"));
  const auto parsed = parse_json(list);
  REQUIRE(parsed);
  REQUIRE((*parsed)["traces"].arr.size() == 1);
  const Json& t = (*parsed)["traces"][0];
  const std::string id = t["id"].str;
  INFO(list);
  CHECK(id.rfind(rig.serial() + "_" + kApp + "_", 0) == 0);
  CHECK(id.size() > 5);
  CHECK(id.substr(id.size() - 5) == "_skip");
  CHECK(t["rule"].str == "skip");
  CHECK(t["value"].num == 80);
  CHECK(t["bytes"].num == written["size"].num);
  const std::string trace = body_of(http_get(rig.ex->port(), "/traces/" + id + ".pftrace", 20000ms));
  CHECK(trace.size() == written["size"].u64());
  // The simulator's trace framing: a TracePacket field tag, a two-byte length, then 0x00 0xff.
  REQUIRE(trace.size() > 5);
  CHECK(static_cast<unsigned char>(trace[0]) == 0x0a);
  CHECK(static_cast<unsigned char>(trace[3]) == 0x00);
  CHECK(static_cast<unsigned char>(trace[4]) == 0xff);
  CHECK(jank::rig::fnv1a64_hex(trace) == written["fnv1a64"].str);  // the device's own bytes
  CHECK(pf["pulls_served"].u64() == 1);
  CHECK(pf["bytes_served"].u64() == trace.size());
  std::ifstream kept(rig.state.path() + "/traces/" + id + ".pftrace", std::ios::binary);
  const std::string on_disk((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>());
  CHECK(on_disk == trace);
  // Armed again, one session at a time; the small skip fired nothing.
  REQUIRE(wait_until([&] { return rig.perfetto(rig.sim.truth())["sessions_started"].u64() == 2; }, 20000ms, 250ms));
  rig.wait_armed();
  const Json later = rig.sim.truth();
  CHECK(rig.perfetto(later)["triggers_received"].u64() == 1);
  std::size_t running = 0;
  for (const Json& r : rig.perfetto(later)["running"].arr) running += r["foreign"].b ? 0 : 1;
  CHECK(running == 1);
  // The counter that fired carries the trace's id as an exemplar, in OpenMetrics only.
  const std::string om = openmetrics_get(rig.ex->port(), "/metrics");
  CHECK(om.find("Content-Type: application/openmetrics-text; version=1.0.0") != std::string::npos);
  const std::string counter = "android_choreographer_skipped_frames_total{serial=\"" + rig.serial() + "\",package=\"" + kApp + "\"}";
  const auto at = om.find(counter);
  REQUIRE(at != std::string::npos);
  const std::string line = om.substr(at, om.find('\n', at) - at);
  INFO(line);
  CHECK(line.find(" # {trace_id=\"" + id + "\"} 80 ") != std::string::npos);
  CHECK(rig.ex->scrape().find("trace_id=\"" + id + "\"} 80") == std::string::npos);
  CHECK(rig.value("jank_exporter_trace_info", "serial=\"" + rig.serial() + "\",package=\"" + kApp +
                                                  "\",rule=\"skip\",trace_id=\"" + id + "\"") > 0);
}

TEST_CASE("the per-device interval and the hourly cap hold and suppressed spikes are counted") {
  TraceRig rig({"--devices", "2", "--sdk", "34", "--packages", kApp, "--stall-prob", "0", "--log-rate", "1"},
               "  min_interval_seconds: 300\n  max_per_hour: 1\n");
  rig.wait_armed(0);
  rig.wait_armed(1);
  rig.skip(0, 80);
  REQUIRE(wait_until([&] { return rig.taken(0) == 1; }, 30000ms, 250ms));
  rig.wait_armed(0);
  rig.skip(0, 90);
  rig.skip(1, 90);
  const std::string s0 = "serial=\"" + rig.serial(0) + "\",reason=";
  const std::string s1 = "serial=\"" + rig.serial(1) + "\",reason=";
  REQUIRE(wait_until([&] {
    return rig.value("jank_exporter_trace_triggers_suppressed_total", s0 + "\"rate_limit\"") == 1 &&
           rig.value("jank_exporter_trace_triggers_suppressed_total", s1 + "\"hourly_cap\"") == 1;
  }, 20000ms, 250ms));
  const Json truth = rig.sim.truth();
  CHECK(rig.perfetto(truth, 0)["triggers_received"].u64() == 1);
  CHECK(rig.perfetto(truth, 1)["triggers_received"].u64() == 0);
  CHECK(rig.ex->scrape().find("jank_exporter_traces_taken_total{serial=\"" + rig.serial(1)) == std::string::npos);
}

TEST_CASE("a reconnect and an exporter restart adopt the running session and never start a second") {
  TraceRig rig(kQuiet, "  min_interval_seconds: 0\n");
  rig.wait_armed();
  REQUIRE(rig.sim.control("unplug " + rig.name() + " 3").rfind("OK", 0) == 0);
  REQUIRE(wait_until([&] { return rig.value("jank_exporter_trace_sessions_total",
                                            "serial=\"" + rig.serial() + "\",result=\"adopted\"") == 1; },
                     40000ms, 250ms));
  rig.ex->kill9();
  rig.start();
  rig.wait_armed();
  CHECK(rig.value("jank_exporter_trace_sessions_total", "serial=\"" + rig.serial() + "\",result=\"adopted\"") == 1);
  const Json truth = rig.sim.truth();
  CHECK(rig.perfetto(truth)["sessions_started"].u64() == 1);
  CHECK(rig.perfetto(truth)["refused"].u64() == 0);
  // The adopted session still takes the trace.
  rig.skip(0, 70);
  REQUIRE(wait_until([&] { return rig.taken(0) == 1; }, 30000ms, 250ms));
}

TEST_CASE("retention keeps the newest traces and failed pulls are counted and re-armed") {
  TraceRig rig(kQuiet, "  min_interval_seconds: 0\n  max_count: 2\n  pull_timeout_seconds: 10\n"
                       "  max_trace_bytes: 1048576\n");
  std::vector<std::string> ids;
  for (int n = 1; n <= 3; ++n) {
    rig.wait_armed();
    rig.skip(0, 60 + n);
    REQUIRE(wait_until([&] { return rig.taken(0) == n; }, 30000ms, 250ms));
  }
  CHECK(rig.value("jank_exporter_traces_dropped_total", "reason=\"count\"") == 1);
  CHECK(rig.value("jank_exporter_traces_stored", "") == 2);
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(rig.state.path() + "/traces")) {
    files += e.path().extension() == ".pftrace" ? 1 : 0;
  }
  CHECK(files == 2);
  const auto list = parse_json(body_of(http_get(rig.ex->port(), "/traces/")));
  REQUIRE(list);
  REQUIRE((*list)["traces"].arr.size() == 2);
  CHECK((*list)["traces"][0]["value"].num == 63);  // newest first; the first (61) went
  CHECK((*list)["traces"][1]["value"].num == 62);

  const std::string failed = "serial=\"" + rig.serial() + "\",reason=";
  rig.wait_armed();
  REQUIRE(rig.sim.control("perfetto " + rig.name() + " trace-bytes 3000000").rfind("OK", 0) == 0);
  rig.skip(0, 72);
  if (!wait_until([&] { return rig.value("jank_exporter_traces_failed_total", failed + "\"too_large\"") == 1; },
                  30000ms, 250ms)) {
    const std::string log = rig.ex->log();
    const Json truth = rig.sim.truth();
    const Json* app = DevSim::app(truth, rig.name(), kApp);
    FAIL(rig.trace_series() << log.substr(log.size() > 3000 ? log.size() - 3000 : 0) << "\nskip lines "
                            << (app ? (*app)["skip_lines"].u64() : 0) << " triggers "
                            << rig.perfetto(truth)["triggers_received"].u64() << " written "
                            << rig.perfetto(truth)["traces_written"].u64() << " pulls failed "
                            << rig.perfetto(truth)["pulls_failed"].u64() << " hung " << rig.perfetto(truth)["pulls_hung"].u64());
  }
  REQUIRE(rig.sim.control("perfetto " + rig.name() + " trace-bytes 0").rfind("OK", 0) == 0);

  rig.wait_armed();
  REQUIRE(rig.sim.control("perfetto " + rig.name() + " fail-pull 1").rfind("OK", 0) == 0);
  rig.skip(0, 70);
  REQUIRE(wait_until([&] { return rig.value("jank_exporter_traces_failed_total", failed + "\"pull_failed\"") == 1; },
                     30000ms, 250ms));
  rig.wait_armed();
  REQUIRE(rig.sim.control("perfetto " + rig.name() + " hang-pull").rfind("OK", 0) == 0);
  rig.skip(0, 71);
  REQUIRE(wait_until([&] { return rig.value("jank_exporter_traces_failed_total", failed + "\"pull_failed\"") == 2; },
                     30000ms, 250ms));
  REQUIRE(rig.sim.control("perfetto " + rig.name() + " unhang-pull").rfind("OK", 0) == 0);
  CHECK(rig.taken(0) == 3);
  rig.wait_armed();  // and armed again after every failure
}

TEST_CASE("an Android 9 device is never asked to trace") {
  TraceRig rig({"--devices", "1", "--sdk", "28", "--packages", kApp, "--stall-prob", "0", "--log-rate", "1"}, "");
  REQUIRE(wait_until([&] { return rig.value("jank_exporter_device_state", "serial=\"" + rig.serial() +
                                                                            "\",state=\"following\"") == 1; },
                     30000ms, 250ms));
  rig.skip(0, 90);
  std::this_thread::sleep_for(3s);
  const Json truth = rig.sim.truth();
  CHECK(rig.perfetto(truth)["sessions_started"].u64() == 0);
  CHECK(rig.perfetto(truth)["trigger_calls"].u64() == 0);
  CHECK(rig.ex->scrape().find("jank_exporter_trace_armed{serial=\"" + rig.serial() + "\"}") == std::string::npos);
}

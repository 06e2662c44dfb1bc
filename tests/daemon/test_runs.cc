// Runs end to end (docs/runs.md): the `jank_exporter run` CLI starts and
// stops runs on the real exporter while simulated devices play; a run's
// results equal the simulator's truth for its interval, also across a
// kill -9 of the exporter.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <optional>
#include <memory>
#include <map>
#include <string>

#include "tests/daemon/exporter_process.h"
#include "tests/daemon/run_cli.h"

using namespace jank::daemon_test;

namespace {

const std::string kApp = "com.example.feed";

// What the truth says of the app, per device name.
struct AppCounts {
  double skipped = 0, skip_lines = 0, davey = 0, frames = 0, janky = 0;
};
std::map<std::string, AppCounts> app_counts(DevSim& sim) {
  std::map<std::string, AppCounts> out;
  const Json truth = sim.truth();
  for (const Json& dev : truth["devices"].arr) {
    const Json* a = DevSim::app(truth, dev["name"].str, kApp);
    if (a == nullptr) continue;
    out[dev["name"].str] = {static_cast<double>((*a)["skipped_frames_logged"].u64()),
                            static_cast<double>((*a)["skip_lines"].u64()), static_cast<double>((*a)["davey"].u64()),
                            static_cast<double>((*a)["frames_rendered"].u64()),
                            static_cast<double>((*a)["gfx_janky_frames"].u64())};
  }
  return out;
}

const Json& run_device(const Json& run, const std::string& serial) {
  for (const Json& d : run["devices"].arr) {
    if (d["serial"].str == serial) return d;
  }
  FAIL("no device " << serial << " in the run");
  return run;
}

// The run's counts equal the truth's growth between `before` and `after` on every device.
void check_counts(const Json& run, const DevSim& sim, std::map<std::string, AppCounts> before,
                  std::map<std::string, AppCounts> after) {
  for (const auto& d : sim.devices()) {
    const Json& dev = run_device(run, emulator_serial(d));
    const Json& m = dev["metrics"];
    const AppCounts& b = before[d.name];
    const AppCounts& a = after[d.name];
    INFO(d.name);
    CHECK(dev["settled"].b);
    CHECK(m["skipped_frames"].num == a.skipped - b.skipped);
    CHECK(m["skip_events"].num == a.skip_lines - b.skip_lines);
    CHECK(m["frames"].num == a.frames - b.frames);
    CHECK(m["janky_frames"].num == a.janky - b.janky);
    CHECK(a.frames - b.frames > 50);  // the run saw the app draw
    CHECK(a.skipped - b.skipped > 0);
    // The derived values follow from the counts.
    CHECK(m["janky_percent"].num == Approx(100.0 * (a.janky - b.janky) / (a.frames - b.frames)).epsilon(1e-3));
    const double seconds = run["duration_seconds"].num;
    CHECK(m["sm"].num == Approx(std::clamp(60.0 - (a.skipped - b.skipped) / seconds, 0.0, 60.0)).margin(0.01));
    CHECK(m["max_skipped_frames"].num > 0);
    CHECK(m["max_skipped_frames"].num <= a.skipped - b.skipped);
  }
}

// Waits until every device's app logged a skip line since `since`. Only
// skips of 30 frames or more are logged by an app started before the
// exporter set the threshold: about one line every 2 s here, so a fixed
// time alone would sometimes show none.
void wait_for_skip_lines(DevSim& sim, const std::map<std::string, AppCounts>& since) {
  REQUIRE(wait_until([&] {
    const auto now = app_counts(sim);
    for (const auto& d : sim.devices()) {
      const auto it = now.find(d.name);
      if (it == now.end() || it->second.skip_lines <= since.at(d.name).skip_lines) return false;
    }
    return true;
  }, 60000ms, 250ms));
}

void write_config(const std::string& path) {
  std::ofstream(path) << "checkpoint_interval_seconds: 1\n"
                         "gfxinfo:\n  poll_interval_seconds: 1\n  fast_poll_interval_seconds: 1\n"
                         "runs:\n  step_seconds: 1\n";
}

// Phones of one app at a steady jank, each followed by an exporter with 1 s
// polls and steps: the rig of the compare tests.
struct CompareRig {
  explicit CompareRig(int devices)
      : sim({"--devices", std::to_string(devices), "--sdk", "34", "--packages", kApp, "--stall-prob", "0.02",
             "--skip-bands", "3-20:1,30-90:1", "--log-rate", "2"}) {
    for (const auto& d : sim.devices()) adb.emulator(d.port);
    for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
    const std::string conf = conf_dir.path() + "/c.yaml";
    write_config(conf);
    ex.emplace(std::vector<std::uint16_t>{adb.port()}, state.path(), std::vector<std::string>{"--config", conf});
    for (const auto& d : sim.devices()) wait_following(*ex, emulator_serial(d));
  }
  // `run list --json` as a results file for compare.
  std::string runs_file(const RunResult& list) const {
    REQUIRE(list.exit == 0);
    const std::string path = out.path() + "/runs.json";
    std::ofstream(path) << list.out;
    return path;
  }

  AdbServer adb;
  DevSim sim;
  TempDir state, conf_dir, out;
  std::optional<Exporter> ex;
};

}  // namespace

TEST_CASE("a run started and stopped with the CLI counts exactly what the simulator did in between") {
  AdbServer adb;
  DevSim sim({"--devices", "2", "--sdk", "34", "--packages", kApp + ",com.example.chat", "--stall-prob", "0.05",
              "--skip-bands", "3-20:1,30-90:1", "--log-rate", "5"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/c.yaml";
  write_config(conf);
  Exporter ex({adb.port()}, state.path(), {"--config", conf});
  for (const auto& d : sim.devices()) wait_following(ex, emulator_serial(d));

  // Quiet at the start: everything drawn so far is the exporter's before the run.
  REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
  const auto before = app_counts(sim);
  const RunResult start = run_cli(ex, {"start", "--package", kApp, "--name", "scroll feed", "--tag", "build=1.0"});
  INFO(start.err);
  REQUIRE(start.exit == 0);
  const std::string id = trimmed(start.out);
  REQUIRE(!id.empty());

  // Open: listed as running, with its series on /metrics.
  const RunResult list = run_cli(ex, {"list", "--json"});
  REQUIRE(list.exit == 0);
  const auto listed = parse_json(list.out);
  REQUIRE(listed);
  const Json* open = nullptr;
  for (const Json& r : (*listed)["runs"].arr) {
    if (r["id"].str == id) open = &r;
  }
  REQUIRE(open != nullptr);
  CHECK((*open)["state"].str == "running");

  REQUIRE(sim.control("resume").rfind("OK", 0) == 0);
  std::this_thread::sleep_for(6s);
  wait_for_skip_lines(sim, before);
  REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
  const auto after = app_counts(sim);

  const RunResult stop = run_cli(ex, {"stop", id, "--json"});
  INFO(stop.err);
  REQUIRE(stop.exit == 0);
  const auto run = parse_json(stop.out);
  REQUIRE(run);
  CHECK((*run)["state"].str == "finished");
  CHECK((*run)["name"].str == "scroll feed");
  CHECK((*run)["tags"]["build"].str == "1.0");
  CHECK((*run)["duration_seconds"].num > 5.5);
  check_counts(*run, sim, before, after);
  // One series step per second of the run, summing to the totals.
  const Json& dev = run_device(*run, emulator_serial(sim.devices()[0]));
  double steps = 0;
  for (const Json& v : dev["series"]["skipped_frames"].arr) steps += v.num;
  CHECK(steps == dev["metrics"]["skipped_frames"].num);
  CHECK(dev["series"]["t"].size() >= 6);

  // Stopped twice: refused. Unknown: refused.
  CHECK(run_cli(ex, {"stop", id}).exit == 1);
  CHECK(run_cli(ex, {"show", "no-such-run"}).exit == 1);
  // CSV: a header and one row per device.
  const RunResult csv = run_cli(ex, {"show", id, "--csv"});
  REQUIRE(csv.exit == 0);
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 3);
}

TEST_CASE("a run survives a kill -9 of the exporter and still counts exactly") {
  AdbServer adb;
  DevSim sim({"--devices", "1", "--sdk", "33", "--packages", kApp, "--stall-prob", "0.05", "--skip-bands",
              "3-20:1,30-90:1", "--log-rate", "5"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  const std::string serial = emulator_serial(sim.devices()[0]);
  REQUIRE(adb.wait_state(serial, "device", 10000ms));
  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/c.yaml";
  write_config(conf);
  auto ex = std::make_unique<Exporter>(std::vector<std::uint16_t>{adb.port()}, state.path(),
                                       std::vector<std::string>{"--config", conf});
  wait_following(*ex, serial);

  REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
  const auto before = app_counts(sim);
  const RunResult start = run_cli(*ex, {"start", "--package", kApp, "--serial", serial});
  INFO(start.err);
  REQUIRE(start.exit == 0);
  const std::string id = trimmed(start.out);

  REQUIRE(sim.control("resume").rfind("OK", 0) == 0);
  std::this_thread::sleep_for(4s);  // several checkpoints
  ex->kill9();
  std::this_thread::sleep_for(2s);  // the app goes on while the exporter is down
  ex = std::make_unique<Exporter>(std::vector<std::uint16_t>{adb.port()}, state.path(),
                                  std::vector<std::string>{"--config", conf});
  wait_following(*ex, serial);
  std::this_thread::sleep_for(2s);
  wait_for_skip_lines(sim, before);
  REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
  const auto after = app_counts(sim);

  const RunResult stop = run_cli(*ex, {"stop", id, "--json"});
  INFO(stop.err);
  REQUIRE(stop.exit == 0);
  const auto run = parse_json(stop.out);
  REQUIRE(run);
  check_counts(*run, sim, before, after);
}

TEST_CASE("compare finds the regression of a build that janks more and none between two runs of one build") {
  CompareRig rig(10);
  auto& sim = rig.sim;
  const Exporter& ex = *rig.ex;
  // One run on all ten devices: ten samples per build. Each build is installed
  // just before its run, as a CI job would, so that every run starts alike: a
  // stall in progress at a run's start is counted by the run that sees it end.
  auto measure = [&](const std::string& build, const std::string& code, const std::string& jank_factor) {
    REQUIRE(sim.control("install * " + kApp + " " + build + " " + code + " " + jank_factor) == "OK");
    const RunResult start = run_cli(ex, {"start", "--package", kApp, "--tag", "build=" + build});
    INFO(start.err);
    REQUIRE(start.exit == 0);
    std::this_thread::sleep_for(12s);
    const std::string id = trimmed(start.out);
    REQUIRE(run_cli(ex, {"stop", id}).exit == 0);
    return id;
  };
  const std::string baseline = measure("1.0", "1", "1");
  // A new build whose app stalls twice as often and twice as long.
  const std::string candidate = measure("2.0", "2", "2");
  const std::string again = measure("2.0", "2", "2");

  const RunResult list = run_cli(ex, {"list", "--json"});
  const std::string runs = rig.runs_file(list);
  auto compare = [&](const std::string& a, const std::string& b) {
    return run({JANK_EXPORTER_PROGRAM, "compare", "--by", "id", "--baseline", a, "--candidate", b, "--metrics",
                "janky_percent,sm", "--alpha", "0.01", runs},
               {}, 30000ms);
  };
  const RunResult worse = compare(baseline, candidate);
  INFO(worse.out << worse.err);
  CHECK(worse.exit == 1);
  CHECK(worse.out.find("verdict: REGRESSION in janky_percent, sm") != std::string::npos);
  // The runs carry the version they measured.
  const auto listed = parse_json(list.out);
  REQUIRE(listed);
  bool measured_2_0 = false;
  for (const Json& r : (*listed)["runs"].arr) {
    for (const Json& d : r["devices"].arr) {
      for (const Json& v : d["versions"].arr) measured_2_0 = measured_2_0 || v["name"].str == "2.0";
    }
  }
  CHECK(measured_2_0);
  const RunResult same = compare(candidate, again);
  INFO(same.out << same.err);
  CHECK(same.exit == 0);
}

TEST_CASE("compare calls a candidate whose app drew for half its run unequal work, not an improvement") {
  CompareRig rig(6);
  auto& sim = rig.sim;
  const Exporter& ex = *rig.ex;
  // Two runs of 10 s of one build; in the second the screen shows nothing
  // for the last 5 s (the simulation paused: no frames drawn, none skipped),
  // as when a test's screen fails to load.
  auto measure = [&](bool half) {
    const RunResult start = run_cli(ex, {"start", "--package", kApp});
    INFO(start.err);
    REQUIRE(start.exit == 0);
    std::this_thread::sleep_for(5s);
    if (half) REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
    std::this_thread::sleep_for(5s);
    const std::string id = trimmed(start.out);
    REQUIRE(run_cli(ex, {"stop", id}).exit == 0);
    if (half) REQUIRE(sim.control("resume").rfind("OK", 0) == 0);
    return id;
  };
  const std::string full = measure(false);
  const std::string half = measure(true);
  const RunResult list = run_cli(ex, {"list", "--json"});
  const std::string runs = rig.runs_file(list);
  const RunResult verdict = run({JANK_EXPORTER_PROGRAM, "compare", "--by", "id", "--baseline", full, "--candidate",
                                 half, runs},
                                {}, 30000ms);
  INFO(verdict.out << verdict.err);
  CHECK(verdict.exit == 3);
  CHECK(verdict.out.find("verdict: UNEQUAL WORK, no verdict on the metrics: frame_slots -") != std::string::npos);
  // The duration was the same: only the frames asked of the app differ.
  CHECK(verdict.out.find("duration_seconds                 6/6") != std::string::npos);
}

// Exactly once without trusting device clocks: the real jank_exporter against
// Debian's real adb server and jank_devsim, one test per fault of the issue's
// table (docs/metrics.md, "Log continuity"). Every count is compared with the
// simulator's ground truth: per package, what Choreographer logged minus what
// the reader lost, what a reboot or logd restart made unknown and what was
// history when the exporter first saw the device.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/daemon/exporter_process.h"
#include "tests/daemon/sim_truth.h"

using namespace jank::daemon_test;

namespace {

// Janky enough that every app logs skips every second or so; random stalls
// stay below 120 frames, so a forced 120-frame skip is told apart.
std::vector<std::string> janky(int devices) {
  return {"--devices", std::to_string(devices), "--stall-prob", "0.05", "--skip-bands", "3-20:1,30-90:1",
          "--log-rate", "20"};
}

bool ok(const std::string& reply) { return reply.rfind("OK", 0) == 0; }

std::string tail(const std::string& s, std::size_t n = 12000) { return s.size() <= n ? s : s.substr(s.size() - n); }

// A private adb server with the simulator's devices attached as emulators.
struct Rig {
  AdbServer adb;
  DevSim sim;
  explicit Rig(const std::vector<std::string>& args) : sim(args) {
    for (const auto& d : sim.devices()) adb.emulator(d.port);
    for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  }
  const std::string& name(std::size_t i = 0) const { return sim.devices()[i].name; }
  std::string serial(std::size_t i = 0) const { return emulator_serial(sim.devices()[i]); }
  void pause() { REQUIRE(ok(sim.control("pause"))); }
  void resume() { REQUIRE(ok(sim.control("resume"))); }
};

// The truth entry of one device (a null Json when absent).
Json device_truth(DevSim& sim, const std::string& name) {
  const Json truth = sim.truth();
  const Json* d = DevSim::device(truth, name);
  return d != nullptr ? *d : Json{};
}

// Likewise skip events (one per skip line).
PerPackage exact_events(const Json& dev) {
  PerPackage out;
  for (const Json& a : dev["apps"].arr) {
    out[a["package"].str] = static_cast<double>(a["skip_lines"].u64()) -
                            static_cast<double>(a["reader_lost_skip_lines"].u64()) -
                            static_cast<double>(a["reader_unknown_skip_lines"].u64()) -
                            static_cast<double>(a["reader_history_skip_lines"].u64()) -
                            static_cast<double>(a["unheld_skip_lines"].u64()) -
                            static_cast<double>(a["held_back_skip_lines"].u64());
  }
  return out;
}

std::uint64_t skip_lines(const Json& dev) {
  std::uint64_t n = 0;
  for (const Json& a : dev["apps"].arr) n += a["skip_lines"].u64();
  return n;
}

double metric(const Exporter& ex, const std::string& name, const std::string& serial, const std::string& package = "") {
  return ex.value(series(name, serial, package));
}

double state_gauge(const Exporter& ex, const std::string& serial, const std::string& state) {
  return ex.value("jank_exporter_device_state{serial=\"" + serial + "\",state=\"" + state + "\"}");
}

double rejected(const Exporter& ex, const std::string& record) {
  const double v = ex.value("jank_exporter_state_rejected_records_total{record=\"" + record + "\"}");
  return std::isnan(v) ? 0 : v;
}

// Exported skipped frames of the packages in `like` (absent series are 0).
PerPackage exported_frames(const Exporter& ex, const std::string& serial, const PerPackage& like) {
  PerPackage out;
  const auto s = ex.samples();
  for (const auto& [package, unused] : like) {
    auto it = s.find(series("android_choreographer_skipped_frames_total", serial, package));
    out[package] = it == s.end() ? 0 : it->second;
  }
  return out;
}

PerPackage plus(PerPackage a, const PerPackage& b) {
  for (const auto& [k, v] : b) a[k] += v;
  return a;
}

PerPackage minus(PerPackage a, const PerPackage& b) {
  for (const auto& [k, v] : b) a[k] -= v;
  return a;
}

// Waits until the exporter shows `expected` for the device, then returns what it shows.
PerPackage settle(const Exporter& ex, const std::string& serial, const PerPackage& expected, ms timeout = 20000ms) {
  PerPackage got;
  wait_until([&] {
    got = exported_frames(ex, serial, expected);
    return got == expected;
  }, timeout, 250ms);
  return got;
}

// The device's log stream is open (at least `streams` opened by this
// exporter) and followed: from then on everything the device logs counts.
bool following(const Exporter& ex, const std::string& serial, double streams = 1) {
  const auto s = ex.samples();
  auto st = s.find(series("jank_exporter_logcat_streams_total", serial));
  auto up = s.find(series("android_device_up", serial));
  return st != s.end() && st->second >= streams && up != s.end() && up->second == 1;
}

// Lets the device run until it logged `n` more skip lines.
void run_until_skips(DevSim& sim, const std::string& name, std::uint64_t n) {
  const std::uint64_t base = skip_lines(device_truth(sim, name));
  REQUIRE(wait_until([&] { return skip_lines(device_truth(sim, name)) >= base + n; }, 20000ms, 100ms));
}

// The exact comparison of the issue: pause, wait until the exporter caught
// up, compare skipped frames per package and lost lines with the truth.
// Returns the device's truth at the pause.
Json check_exact(Rig& rig, const Exporter& ex, std::size_t dev = 0) {
  rig.pause();
  const Json truth = device_truth(rig.sim, rig.name(dev));
  const PerPackage expected = exact_frames(truth);
  REQUIRE(!expected.empty());
  const PerPackage got = settle(ex, rig.serial(dev), expected);
  INFO("truth: " << show(expected) << "\nexported: " << show(got) << "\nexporter log (tail):\n" << tail(ex.log()));
  CHECK(got == expected);
  CHECK(metric(ex, "jank_exporter_logcat_lost_lines_total", rig.serial(dev)) ==
        static_cast<double>(truth["reader_lost_lines"].u64()));
  return truth;
}

// ---- the state file (metrics/store.cc) ----

std::string state_file(const TempDir& dir) { return dir.path() + "/state"; }

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  REQUIRE(out.good());
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::vector<std::string> tokens(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

struct SavedBuffer {
  std::uint64_t index = 0;
  std::string hash;
};

// The `cursor` record of a device in a version 2 state file:
// cursor VALID "BOOT_ID LOGD_PID N ("NAME INDEX HASH)×N (older builds wrote
// the newest entry's "BUFFER before N). Returns the line's number (or -1),
// its buffers and, in `first`, the token number of the first "NAME.
int saved_cursor(const std::vector<std::string>& lines, const std::string& serial,
                 std::map<std::string, SavedBuffer>* buffers, std::size_t* first = nullptr) {
  bool ours = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto t = tokens(lines[i]);
    if (t.size() >= 2 && t[0] == "device") ours = t[1] == "\"" + serial;
    if (!ours || t.empty() || t[0] != "cursor" || t.size() < 5) continue;
    const std::size_t at = 4;  // cursor, valid, "boot id, logd pid, then the buffer count
    const std::size_t n = std::stoull(t.at(at));
    if (t.size() < at + 1 + 3 * n) return -1;
    for (std::size_t k = 0; k < n; ++k) {
      (*buffers)[t[at + 1 + 3 * k].substr(1)] = {std::stoull(t[at + 2 + 3 * k]), t[at + 3 + 3 * k]};
    }
    if (first) *first = at + 1;
    return static_cast<int>(i);
  }
  return -1;
}

// Stops the first exporter with kill -9, tells the simulator that the reader
// went back to the exporter's last checkpoint (so that lines the ring
// dropped since are lost in the truth as they are to the exporter), lets the
// device log `skips_while_away` skip lines while no exporter runs and starts
// a new exporter on the same state dir.
void kill9_and_restart(Rig& rig, std::optional<Exporter>& ex, const TempDir& state,
                       const std::vector<std::string>& extra, std::uint64_t skips_while_away) {
  ex->kill9();
  ex.reset();
  std::map<std::string, SavedBuffer> buffers;
  REQUIRE(saved_cursor(split_lines(read_file(state_file(state))), rig.serial(), &buffers) >= 0);
  REQUIRE(buffers.count("main") == 1);
  REQUIRE(buffers.count("system") == 1);
  REQUIRE(ok(rig.sim.reader_rollback(rig.name(), {{"main", buffers["main"].index},
                                                  {"system", buffers["system"].index}})));
  run_until_skips(rig.sim, rig.name(), skips_while_away);
  ex.emplace(std::vector<std::uint16_t>{rig.adb.port()}, state.path(), extra);
}

// A cable hiccup: the device goes away for two seconds and comes back by
// itself; waits until the exporter saw it go and follows it again.
void hiccup(Rig& rig, const Exporter& ex) {
  const double streams = metric(ex, "jank_exporter_logcat_streams_total", rig.serial());
  REQUIRE(ok(rig.sim.control("unplug " + rig.name() + " 2")));
  REQUIRE(wait_until([&] { return metric(ex, "android_device_up", rig.serial()) == 0; }, 10000ms, 100ms));
  REQUIRE(wait_until([&] { return following(ex, rig.serial(), streams + 1); }, 30000ms, 100ms));
}

std::string write_config(const TempDir& dir, const std::string& yaml) {
  const std::string path = dir.path() + "/c.yaml";
  write_file(path, yaml);
  return path;
}

// The first exporter of a state-file test: follows the device, counts
// exactly, is stopped with SIGTERM (its final checkpoint holds exactly what
// it showed) while the simulation is paused. Returns its counts.
PerPackage first_run_then_sigterm(Rig& rig, const TempDir& state) {
  Exporter ex({rig.adb.port()}, state.path());
  REQUIRE(wait_until([&] { return following(ex, rig.serial()); }, 20000ms));
  run_until_skips(rig.sim, rig.name(), 4);
  check_exact(rig, ex);  // leaves the simulation paused
  const PerPackage counted = exported_frames(ex, rig.serial(), exact_frames(device_truth(rig.sim, rig.name())));
  REQUIRE(sum(counted) > 0);
  CHECK(ex.terminate() == 0);
  return counted;
}

// Counting after a restart on an edited state file: the simulation was
// paused when the first exporter stopped (its counts then were `at_restart`)
// and runs again; every frame logged since must count on top of `base`.
void check_counts_on(Rig& rig, const Exporter& ex, const PerPackage& base, const PerPackage& at_restart) {
  run_until_skips(rig.sim, rig.name(), 6);
  rig.pause();
  const Json truth = device_truth(rig.sim, rig.name());
  const PerPackage delta = minus(exact_frames(truth), at_restart);
  REQUIRE(sum(delta) > 0);
  const PerPackage expected = plus(base, delta);
  const PerPackage got = settle(ex, rig.serial(), expected);
  INFO("base: " << show(base) << "\ndelta: " << show(delta) << "\nexported: " << show(got)
                << "\nexporter log (tail):\n" << tail(ex.log()));
  CHECK(got == expected);
  CHECK(metric(ex, "jank_exporter_logcat_lost_lines_total", rig.serial()) ==
        static_cast<double>(truth["reader_lost_lines"].u64()));
}

}  // namespace

TEST_CASE("a clock stepped back an hour then a cable hiccup and kill -9 keep exact counts without resume gaps") {
  Rig rig(janky(1));
  TempDir state, conf_dir;
  const std::vector<std::string> extra = {"--config", write_config(conf_dir, "checkpoint_interval_seconds: 1\n")};
  std::optional<Exporter> ex;
  ex.emplace(std::vector<std::uint16_t>{rig.adb.port()}, state.path(), extra);
  const std::string serial = rig.serial();
  REQUIRE(wait_until([&] { return following(*ex, serial); }, 20000ms));
  run_until_skips(rig.sim, rig.name(), 3);

  REQUIRE(ok(rig.sim.clock_step(rig.name(), -3600)));
  REQUIRE(wait_until([&] { return metric(*ex, "jank_exporter_device_clock_steps_total", serial) >= 1; }, 10000ms));
  run_until_skips(rig.sim, rig.name(), 3);
  hiccup(rig, *ex);
  run_until_skips(rig.sim, rig.name(), 3);
  kill9_and_restart(rig, ex, state, extra, 3);
  REQUIRE(wait_until([&] { return following(*ex, serial); }, 20000ms));
  run_until_skips(rig.sim, rig.name(), 3);

  const Json truth = check_exact(rig, *ex);
  INFO(tail(ex->log()));
  CHECK(truth["reader_lost_lines"].u64() == 0);
  CHECK(metric(*ex, "jank_exporter_logcat_resume_gaps_total", serial) == 0);
  CHECK(metric(*ex, "jank_exporter_logcat_lost_lines_total", serial) == 0);
  CHECK(metric(*ex, "jank_exporter_device_clock_steps_total", serial) >= 1);
  CHECK(ex->terminate() == 0);
}

TEST_CASE("a line stamped a year ahead then a hiccup and kill -9 keep counts exact and the device not blind") {
  Rig rig(janky(1));
  TempDir state, conf_dir;
  const std::vector<std::string> extra = {"--config", write_config(conf_dir, "checkpoint_interval_seconds: 1\n")};
  std::optional<Exporter> ex;
  ex.emplace(std::vector<std::uint16_t>{rig.adb.port()}, state.path(), extra);
  const std::string serial = rig.serial();
  REQUIRE(wait_until([&] { return following(*ex, serial); }, 20000ms));
  run_until_skips(rig.sim, rig.name(), 3);

  REQUIRE(ok(rig.sim.clock_glitch(rig.name(), 31536000)));
  // The next line logged carries the stamp; the exporter sees it arrive a year early.
  REQUIRE(wait_until([&] { return metric(*ex, "jank_exporter_device_clock_steps_total", serial) >= 1; }, 10000ms));
  run_until_skips(rig.sim, rig.name(), 3);
  hiccup(rig, *ex);
  run_until_skips(rig.sim, rig.name(), 3);
  kill9_and_restart(rig, ex, state, extra, 3);
  REQUIRE(wait_until([&] { return following(*ex, serial); }, 20000ms));

  // Not blind: a new 120-frame skip (random ones stay under 91) reaches the window.
  const std::string pkg = "com.example.feed";
  REQUIRE(ok(rig.sim.control("skip " + rig.name() + " " + pkg + " 120")));
  CHECK(wait_until([&] { return metric(*ex, "android_choreographer_max_skipped_frames", serial, pkg) >= 120; },
                   10000ms, 100ms));
  run_until_skips(rig.sim, rig.name(), 3);

  const Json truth = check_exact(rig, *ex);
  INFO(tail(ex->log()));
  CHECK(metric(*ex, "android_choreographer_max_skipped_frames", serial, pkg) >= 120);
  CHECK(metric(*ex, "jank_exporter_logcat_resume_gaps_total", serial) ==
        (truth["reader_lost_lines"].u64() > 0 ? 1 : 0));
  CHECK(ex->terminate() == 0);
}

TEST_CASE("a 120-frame skip on a stepped-back device shows in the window within seconds") {
  // No random stalls: the forced skip is the only jank, so SM is exactly 60 − 120/60.
  Rig rig({"--devices", "1", "--stall-prob", "0", "--log-rate", "20"});
  TempDir state;
  Exporter ex({rig.adb.port()}, state.path());
  const std::string serial = rig.serial();
  REQUIRE(wait_until([&] { return following(ex, serial); }, 20000ms));
  REQUIRE(ok(rig.sim.clock_step(rig.name(), -3600)));
  REQUIRE(wait_until([&] { return metric(ex, "jank_exporter_device_clock_steps_total", serial) >= 1; }, 10000ms));
  const double sm_before = metric(ex, "android_choreographer_device_sm", serial);
  CHECK((std::isnan(sm_before) || sm_before == 60));

  const std::string pkg = "com.example.shop";
  REQUIRE(ok(rig.sim.control("skip " + rig.name() + " " + pkg + " 120")));
  // 120 frames at 60 Hz: the line is logged two seconds later. Within ten
  // (a starved sanitizer run), not the hour the device's clock went back.
  const bool seen = wait_until([&] {
    return metric(ex, "android_choreographer_max_skipped_frames", serial, pkg) >= 120 &&
           metric(ex, "android_choreographer_device_sm", serial) <= 58;
  }, 10000ms, 100ms);
  INFO(tail(ex.log()));
  CHECK(seen);
  CHECK(metric(ex, "android_choreographer_max_skipped_frames", serial, pkg) >= 120);
  CHECK(metric(ex, "android_choreographer_device_sm", serial) <= 60 - 120.0 / 60);
  CHECK(metric(ex, "jank_exporter_device_clock_steps_total", serial) >= 1);
  const Json truth = check_exact(rig, ex);
  CHECK(DevSim::app(rig.sim.truth(), rig.name(), pkg) != nullptr);
  CHECK(exact_frames(truth).at(pkg) == 120);
  CHECK(metric(ex, "jank_exporter_device_sessions_total", serial) == 1);  // no reconnect
}

TEST_CASE("a reboot while unplugged with the clock a day behind counts every frame of the new boot") {
  Rig rig(janky(1));
  TempDir state;
  Exporter ex({rig.adb.port()}, state.path());
  const std::string serial = rig.serial();
  REQUIRE(wait_until([&] { return following(ex, serial); }, 20000ms));
  run_until_skips(rig.sim, rig.name(), 3);
  const std::string boot = device_truth(rig.sim, rig.name())["boot_id"].str;

  REQUIRE(ok(rig.sim.reboot(rig.name(), 3, -86400)));
  REQUIRE(wait_until([&] { return metric(ex, "android_device_up", serial) == 0; }, 10000ms, 100ms));
  REQUIRE(wait_until([&] { return following(ex, serial, 2); }, 30000ms, 100ms));
  run_until_skips(rig.sim, rig.name(), 6);

  const Json truth = check_exact(rig, ex);
  INFO(tail(ex.log()));
  CHECK(truth["boot_id"].str != boot);
  CHECK(truth["reboots"].u64() == 1);
  CHECK(metric(ex, "jank_exporter_device_reboots_total", serial) == 1);
  CHECK(metric(ex, "jank_exporter_logcat_resume_gaps_total", serial) ==
        (truth["reader_lost_lines"].u64() > 0 ? 1 : 0));
  CHECK(ex.terminate() == 0);
}

TEST_CASE("logcat -c through the real adb client before three reconnects is no loss") {
  Rig rig(janky(1));
  TempDir state;
  Exporter ex({rig.adb.port()}, state.path());
  const std::string serial = rig.serial();
  REQUIRE(wait_until([&] { return following(ex, serial); }, 20000ms));
  for (int round = 1; round <= 3; ++round) {
    INFO("round " << round);
    run_until_skips(rig.sim, rig.name(), 3);
    // Everything written was read (acknowledged by the host) before the clear.
    rig.pause();
    REQUIRE(wait_until([&] {
      const Json d = device_truth(rig.sim, rig.name());
      return d["buffers"]["main"]["read_upto"].u64() == d["buffers"]["main"]["total"].u64() &&
             d["buffers"]["system"]["read_upto"].u64() == d["buffers"]["system"]["total"].u64();
    }, 10000ms, 100ms));
    // …and counted by the exporter, not only taken by the adb server.
    const PerPackage logged = exact_frames(device_truth(rig.sim, rig.name()));
    REQUIRE(settle(ex, serial, logged) == logged);
    const RunResult r = rig.adb.adb({"-s", serial, "shell", "logcat", "-c"});
    REQUIRE(r.exit == 0);
    REQUIRE(device_truth(rig.sim, rig.name())["buffers"]["main"]["now"].u64() == 0);
    rig.resume();
    const double streams = metric(ex, "jank_exporter_logcat_streams_total", serial);
    REQUIRE(ok(rig.sim.control("kick " + rig.name())));
    REQUIRE(wait_until([&] { return following(ex, serial, streams + 1); }, 30000ms, 100ms));
  }
  run_until_skips(rig.sim, rig.name(), 3);
  const Json truth = check_exact(rig, ex);
  INFO(tail(ex.log()));
  // No false alarm: a gap only where the truth lost lines, and exactly those
  // (a line the adb server took but the exporter had not read when a kick
  // dropped the stream, then cleared, is a real loss; on a quick machine
  // there is none).
  const std::uint64_t lost = truth["reader_lost_lines"].u64();
  CHECK(metric(ex, "jank_exporter_logcat_lost_lines_total", serial) == static_cast<double>(lost));
  if (lost == 0) {
    CHECK(metric(ex, "jank_exporter_logcat_resume_gaps_total", serial) == 0);
  } else {
    CHECK(metric(ex, "jank_exporter_logcat_resume_gaps_total", serial) <= 3);
  }
  CHECK(metric(ex, "jank_exporter_logcat_streams_total", serial) >= 4);
  CHECK(ex.terminate() == 0);
}

TEST_CASE("Android 9: squashed identical lines and lines logd refuses for log.tag are unheld, never lost, across an exporter restart") {
  std::vector<std::string> args = janky(1);
  args.insert(args.end(), {"--sdk", "28"});
  Rig rig(args);
  TempDir state;
  const std::string serial = rig.serial(), name = rig.name();
  const std::string pkg = device_truth(rig.sim, name)["apps"].arr.at(0)["package"].str;
  REQUIRE(ok(rig.sim.control("setprop " + name + " log.tag.Noisy S")));
  auto ex = std::make_unique<Exporter>(std::vector<std::uint16_t>{rig.adb.port()}, state.path());
  REQUIRE(wait_until([&] { return following(*ex, serial); }, 20000ms));
  run_until_skips(rig.sim, name, 3);
  // While followed: a squashed run, and lines logd counts but refuses.
  REQUIRE(ok(rig.sim.control("repeat " + name + " " + pkg + " 12")));
  for (int i = 0; i < 5; ++i) REQUIRE(ok(rig.sim.control("logd-write " + name + " main I 4321 Noisy refused")));
  run_until_skips(rig.sim, name, 3);
  REQUIRE(ex->terminate() == 0);
  // While away: more of both.
  REQUIRE(ok(rig.sim.control("repeat " + name + " " + pkg + " 20")));
  for (int i = 0; i < 7; ++i) REQUIRE(ok(rig.sim.control("logd-write " + name + " system W 4321 Noisy away")));
  run_until_skips(rig.sim, name, 3);
  ex = std::make_unique<Exporter>(std::vector<std::uint16_t>{rig.adb.port()}, state.path());
  REQUIRE(wait_until([&] { return following(*ex, serial); }, 20000ms));
  run_until_skips(rig.sim, name, 3);

  const Json truth = check_exact(rig, *ex);  // frames per package exact, lost lines as the truth's
  INFO(tail(ex->log()));
  CHECK(truth["reader_lost_lines"].u64() == 0);
  CHECK(truth["lines_filtered"].u64() == 12);
  CHECK(truth["lines_squashed"].u64() >= 10 + 18);
  CHECK(metric(*ex, "jank_exporter_logcat_lost_lines_total", serial) == 0);
  CHECK(metric(*ex, "jank_exporter_logcat_resume_gaps_total", serial) == 0);
  CHECK(metric(*ex, "jank_exporter_logcat_unconfirmed_resumes_total", serial) == 0);
  // Every refused line, and the squashed ones less one summary per run.
  const double unheld = metric(*ex, "jank_exporter_logcat_unheld_lines_total", serial);
  CHECK(unheld >= 12 + 9 + 17);
  CHECK(unheld <= static_cast<double>(truth["lines_filtered"].u64() + truth["lines_squashed"].u64()));
  CHECK(ex->terminate() == 0);
}

TEST_CASE("a logd restart while followed is counted once and loses nothing") {
  Rig rig(janky(1));
  TempDir state;
  Exporter ex({rig.adb.port()}, state.path());
  const std::string serial = rig.serial();
  REQUIRE(wait_until([&] { return following(ex, serial); }, 20000ms));
  run_until_skips(rig.sim, rig.name(), 3);
  REQUIRE(ok(rig.sim.logd_restart(rig.name())));
  REQUIRE(wait_until([&] { return following(ex, serial, 2); }, 30000ms, 100ms));
  run_until_skips(rig.sim, rig.name(), 6);

  const Json truth = check_exact(rig, ex);
  INFO(tail(ex.log()));
  CHECK(truth["logd_restarts"].u64() == 1);
  CHECK(truth["reboots"].u64() == 0);
  CHECK(metric(ex, "jank_exporter_logd_restarts_total", serial) == 1);
  CHECK(metric(ex, "jank_exporter_device_reboots_total", serial) == 0);
  CHECK(metric(ex, "jank_exporter_logcat_lost_lines_total", serial) == 0);
  CHECK(truth["reader_lost_lines"].u64() == 0);
  CHECK(ex.terminate() == 0);
}

// Takes up to three minutes (every command waits 20 s): tagged [slow], and
// registered by hand in CMakeLists.txt with the label `slow` and its own timeout.
TEST_CASE("a device answering every command after 20 s is followed and a hung one is stalled", "[slow]") {
  Rig rig(janky(2));
  const std::string slow = rig.serial(0), hung = rig.serial(1);
  REQUIRE(ok(rig.sim.slow(rig.name(0), 20)));
  REQUIRE(ok(rig.sim.control("hang " + rig.name(1))));
  TempDir state;
  Exporter ex({rig.adb.port()}, state.path());  // default timeouts: command 20 s, max 120 s

  bool hung_ever_up = false, hung_stalled = false;
  auto watch_hung = [&] {
    const auto s = ex.samples();
    auto up = s.find(series("android_device_up", hung));
    if (up != s.end() && up->second != 0) hung_ever_up = true;
    auto st = s.find("jank_exporter_device_state{serial=\"" + hung + "\",state=\"stalled\"}");
    if (st != s.end() && st->second == 1 && up != s.end() && up->second == 0) hung_stalled = true;
  };
  const bool followed = wait_until([&] {
    watch_hung();
    return following(ex, slow);
  }, 170000ms, 500ms);
  INFO(tail(ex.log()));
  REQUIRE(followed);
  CHECK(state_gauge(ex, slow, "following") == 1);
  CHECK(state_gauge(ex, slow, "stalled") == 0);
  CHECK(metric(ex, "android_device_up", slow) == 1);
  CHECK(metric(ex, "jank_exporter_device_command_deadline_seconds", slow) > 20);

  run_until_skips(rig.sim, rig.name(0), 6);
  watch_hung();
  CHECK(wait_until([&] {
    watch_hung();
    return hung_stalled;
  }, 30000ms, 250ms));
  check_exact(rig, ex, 0);
  CHECK(state_gauge(ex, slow, "following") == 1);
  CHECK(metric(ex, "android_device_up", slow) == 1);
  CHECK(metric(ex, "jank_exporter_device_command_deadline_seconds", slow) > 20);
  CHECK_FALSE(hung_ever_up);
  CHECK(metric(ex, "android_device_up", hung) == 0);
  CHECK(state_gauge(ex, hung, "following") == 0);
  REQUIRE(ok(rig.sim.control("unhang " + rig.name(1))));
}

// A device counted by a first exporter run that then stopped (SIGTERM), the
// truth at that moment, and the state file it left, as lines to edit.
struct StoppedFirstRun {
  Rig rig{janky(1)};
  TempDir state;
  std::string serial = rig.serial();
  PerPackage counted = first_run_then_sigterm(rig, state);
  PerPackage at_restart = exact_frames(device_truth(rig.sim, rig.name()));
  std::vector<std::string> lines = split_lines(read_file(state_file(state)));
};

TEST_CASE("a version 1 state file with a log position in 2100 still lets new frames be counted") {
  StoppedFirstRun run;

  // The same state in the previous format: no continuity or clock records,
  // the log position a time (2100-01-01) plus the per-buffer logd indices.
  REQUIRE(!run.lines.empty());
  REQUIRE(run.lines[0].rfind("jank_exporter_state 2 ", 0) == 0);
  run.lines[0] = "jank_exporter_state 1 " + run.lines[0].substr(22);
  std::map<std::string, SavedBuffer> buffers;
  const int at = saved_cursor(run.lines, run.serial, &buffers);
  REQUIRE(at >= 0);
  REQUIRE(buffers.size() == 2);
  REQUIRE(run.lines.size() > static_cast<std::size_t>(at) + 2);
  REQUIRE(run.lines[at + 1].rfind("continuity ", 0) == 0);
  REQUIRE(run.lines[at + 2].rfind("clock ", 0) == 0);
  const std::string lost = tokens(run.lines[at + 1])[1];
  std::string v1 = "1 4102444800000000000 1 " + buffers["main"].hash + " logindex 1 " + lost + " " +
                   std::to_string(buffers.size());
  for (const auto& [name, b] : buffers) v1 += " \"" + name + " " + std::to_string(b.index);
  run.lines.erase(run.lines.begin() + at, run.lines.begin() + at + 3);
  run.lines.insert(run.lines.begin() + at, v1);
  write_file(state_file(run.state), join_lines(run.lines));
  // The device logs on while no exporter runs: the v1 file's per-buffer
  // indices (not its time) tell where to go on, so these count too.
  run.rig.resume();
  run_until_skips(run.rig.sim, run.rig.name(), 3);

  Exporter ex({run.rig.adb.port()}, run.state.path());
  INFO(tail(ex.log()));
  REQUIRE(wait_until([&] { return following(ex, run.serial); }, 20000ms));
  CHECK(ex.log().find("an older format") != std::string::npos);
  const double load_failures = ex.value("jank_exporter_state_load_failures_total");
  CHECK((std::isnan(load_failures) || load_failures == 0));
  CHECK(rejected(ex, "log_cursor") == 0);
  const PerPackage restored = exported_frames(ex, run.serial, run.counted);
  for (const auto& [package, n] : run.counted) CHECK(restored.at(package) >= n);  // the v1 counters are kept
  check_counts_on(run.rig, ex, run.counted, run.at_restart);
  CHECK(metric(ex, "jank_exporter_logcat_resume_gaps_total", run.serial) == 0);
  CHECK(ex.terminate() == 0);
}

TEST_CASE("a state file with a negative log index is rejected without a restart loop") {
  StoppedFirstRun run;

  std::map<std::string, SavedBuffer> buffers;
  std::size_t first = 0;
  const int at = saved_cursor(run.lines, run.serial, &buffers, &first);
  REQUIRE(at >= 0);
  // cursor VALID "BOOT PID N "main INDEX HASH …: the index after "main becomes negative.
  auto t = tokens(run.lines[at]);
  bool edited = false;
  for (std::size_t i = first; i + 1 < t.size(); i += 3) {
    if (t[i] == "\"main") {
      t[i + 1] = "-" + t[i + 1];
      edited = true;
    }
  }
  REQUIRE(edited);
  std::string line;
  for (const auto& tok : t) line += (line.empty() ? "" : " ") + tok;
  run.lines[at] = line;
  write_file(state_file(run.state), join_lines(run.lines));

  Exporter ex({run.rig.adb.port()}, run.state.path());
  INFO(tail(ex.log()));
  REQUIRE(wait_until([&] { return following(ex, run.serial); }, 20000ms));
  CHECK(rejected(ex, "log_cursor") == 1);
  CHECK(exported_frames(ex, run.serial, run.counted) == run.counted);  // the rest of the file is kept
  run.rig.resume();
  // Twenty seconds of following: at most one more session, none in a loop.
  double most = 0;
  const auto end = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < end) {
    const double s = metric(ex, "jank_exporter_device_sessions_total", run.serial);
    if (!std::isnan(s)) most = std::max(most, s);
    std::this_thread::sleep_for(500ms);
  }
  CHECK(most >= 1);
  CHECK(most <= 2);
  check_counts_on(run.rig, ex, run.counted, run.at_restart);
  CHECK(metric(ex, "jank_exporter_device_sessions_total", run.serial) <= 2);
  CHECK(rejected(ex, "log_cursor") == 1);
  CHECK(ex.terminate() == 0);
}

TEST_CASE("a package count of 2 to the 64 minus 6 in the state file restarts that series from 0") {
  StoppedFirstRun run;
  const std::string pkg = "com.example.feed";
  const double events_at_restart = exact_events(device_truth(run.rig.sim, run.rig.name())).at(pkg);

  bool edited = false;
  for (std::size_t i = 0; i + 1 < run.lines.size(); ++i) {
    if (run.lines[i] != "package \"" + pkg) continue;
    // The record's next line starts with skipped_frames, then skip_events.
    auto t = tokens(run.lines[i + 1]);
    REQUIRE(!t.empty());
    REQUIRE(std::stod(t[0]) == run.counted.at(pkg));
    run.lines[i + 1] = "18446744073709551610" + run.lines[i + 1].substr(t[0].size());
    edited = true;
  }
  REQUIRE(edited);
  write_file(state_file(run.state), join_lines(run.lines));

  // The skip size histogram below is a detailed series (docs/metrics.md, "Series budget").
  TempDir conf_dir;
  Exporter ex({run.rig.adb.port()}, run.state.path(),
              {"--config", write_config(conf_dir, "series:\n  detailed: [distributions]\n")});
  INFO(tail(ex.log()));
  REQUIRE(wait_until([&] { return following(ex, run.serial); }, 20000ms));
  CHECK(rejected(ex, "package") == 1);
  CHECK(rejected(ex, "log_cursor") == 0);
  const double restored = metric(ex, "android_choreographer_skipped_frames_total", run.serial, pkg);
  CHECK((std::isnan(restored) || restored == 0));
  run.counted[pkg] = 0;  // its series restart from 0; the other packages keep theirs
  CHECK(exported_frames(ex, run.serial, run.counted) == run.counted);
  // The package skips again at once, so that its new series has something to count.
  REQUIRE(ok(run.rig.sim.control("skip " + run.rig.name() + " " + pkg + " 45")));
  run.rig.resume();
  check_counts_on(run.rig, ex, run.counted, run.at_restart);
  const double now = metric(ex, "android_choreographer_skipped_frames_total", run.serial, pkg);
  CHECK(now > 0);
  CHECK(now < 1e6);  // neither wrapped nor near 2^64
  // Every series of the package restarted, not only the damaged counter.
  const double events = exact_events(device_truth(run.rig.sim, run.rig.name())).at(pkg) - events_at_restart;
  CHECK(events > 0);
  CHECK(metric(ex, "android_choreographer_skip_events_total", run.serial, pkg) == events);
  CHECK(metric(ex, "android_choreographer_skip_size_frames_count", run.serial, pkg) == events);
  CHECK(metric(ex, "android_choreographer_skip_size_frames_sum", run.serial, pkg) == now);
  CHECK(ex.terminate() == 0);
}

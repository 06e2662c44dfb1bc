// Randomized fault campaign: the real jank_exporter, a private real adb
// server and jank_devsim, under a seeded random interleaving of faults. At
// the end every exported total must equal the simulator's ground truth minus
// what the simulator says a reader lost (the ring dropped it unread) or could
// not know (a reboot or logd restart took it), and the exporter's lost-lines
// figure must equal that loss exactly.
//
//   JANK_CAMPAIGN_SECONDS  length of the fault phase (default 120)
//   JANK_CAMPAIGN_SEED     seed (default: from the clock; always printed)
//   JANK_CAMPAIGN_DEVICES  simulated devices (default 3)
//   JANK_CAMPAIGN_SDK      their API levels, cycled (default 34,23,24: a current phone, 6.0 on the
//                          legacy shell with local stamps, 7.0 with one buffer per -b)
//   JANK_CAMPAIGN_FAULTS   only these faults (comma list: unplug,kick,hang,adb,exporter,sighup,
//                          garbage,cut,corrupt,flood,refresh,restart,zygote,clock,glitch,reboot,
//                          logd,clear,slow)
//   JANK_CAMPAIGN_VERBOSE  print every fault; JANK_CAMPAIGN_DUMP=FILE: truth, scrape and log at the end
#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

const std::vector<std::string> kPackages = {"com.example.chat", "com.example.feed", "com.example.shop"};

std::uint64_t env_u64(const char* name, std::uint64_t dflt) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : dflt;
}

// What the exporter must show for one device, from the truth.
struct Expected {
  std::map<std::string, double> skipped, events, davey, gfx;  // by package
  double lost = 0;
  double reboots = 0, logd_restarts = 0;
  double refresh = 0;
};

// The exporter's checkpointed log cursor per serial: buffer → logd index
// (the `cursor` record of metrics/store.cc's state format, version 2).
// Per serial and buffer: "INDEX:HASH" (hex), as the simulator's reader command takes it.
std::map<std::string, std::map<std::string, std::string>> saved_cursors(const std::string& state_file) {
  std::map<std::string, std::map<std::string, std::string>> out;
  std::istringstream in(read_file(state_file));
  std::string word, serial;
  auto string_token = [](const std::string& t) { return t.empty() ? t : t.substr(1); };  // `"text`, no escapes in ours
  while (in >> word) {
    if (word == "device") {
      in >> word;
      serial = string_token(word);
    } else if (word == "cursor") {
      std::string valid, boot, pid;
      std::size_t n = 0;
      in >> valid >> boot >> pid >> n;
      for (std::size_t i = 0; i < n; ++i) {
        std::string buffer;
        std::uint64_t index = 0, hash = 0;
        in >> buffer >> index >> hash;
        char hex[17];
        std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(hash));
        if (valid == "1") out[serial][string_token(buffer)] = std::to_string(index) + ":" + hex;
      }
      INFO("the state file's cursor record no longer reads as the campaign expects");
      REQUIRE(!in.fail());
    }
  }
  return out;
}

struct Campaign {
  std::uint64_t seed;
  std::mt19937_64 rng;
  AdbServer adb;
  DevSim sim;
  TempDir state, conf_dir;
  std::string conf;
  std::unique_ptr<Exporter> ex;
  std::map<std::string, Expected> base;  // truth before the exporter started, by device name
  std::set<std::string> unplugged, hung;
  std::set<std::string> attached;        // devices the current adb server was told about
  std::map<std::string, int> tally;      // faults applied, by kind
  int sighup_window = 60;

  Campaign(std::uint64_t s, int devices, const std::string& sdks)
      : seed(s),
        rng(s),
        sim({"--devices", std::to_string(devices), "--sdk", sdks, "--root", "--stall-prob", "0.05", "--skip-bands",
             "3-20:1,30-90:1", "--log-rate", "20", "--buffer-kib", "64", "--refresh", "60,90,120", "--seed",
             std::to_string(s)}) {
    conf = conf_dir.path() + "/c.yaml";
    write_config();
  }

  void write_config() {
    std::ofstream(conf) << "checkpoint_interval_seconds: 1\n"
                           "timeouts:\n  connect_seconds: 3\n  command_seconds: 3\n"
                           "devices:\n  grace_seconds: 3600\nprocesses:\n  grace_seconds: 3600\n"
                           "display:\n  poll_interval_seconds: 2\n"
                           "choreographer:\n  sm_window_seconds: "
                        << sighup_window
                        << "\n"
                           "gfxinfo:\n  discover: false\n  poll_interval_seconds: 1\n  fast_poll_interval_seconds: 1\n"
                           "  packages: [com.example.chat, com.example.feed, com.example.shop]\n";
  }

  std::string ok(const std::string& command) {
    const std::string r = sim.control(command);
    INFO("simulator command: " << command);
    // The reply itself is in the failure's expansion (CI keeps only a tail).
    REQUIRE_THAT(r, Catch::Matchers::StartsWith("OK"));
    return r;
  }

  void start_exporter() { ex = std::make_unique<Exporter>(std::vector<std::uint16_t>{adb.port()}, state.path(),
                                                          std::vector<std::string>{"--config", conf}); }

  void attach(const SimDeviceInfo& d) {
    adb.emulator(d.port);
    attached.insert(d.name);
  }

  Expected truth_of(const Json& dev) {
    Expected e;
    e.lost = static_cast<double>(dev["reader_lost_lines"].u64());
    e.reboots = static_cast<double>(dev["reboots"].u64());
    e.logd_restarts = static_cast<double>(dev["logd_restarts"].u64());
    e.refresh = dev["refresh_hz"].num;
    for (const Json& a : dev["apps"].arr) {
      const std::string& p = a["package"].str;
      // Less what logd never held or holds back now (docs/devsim.md: 0 unless
      // a log.tag property or 8.0–11 squashing is in play).
      e.skipped[p] = static_cast<double>(a["skipped_frames_logged"].u64() - a["reader_lost_skipped_frames"].u64() -
                                         a["reader_unknown_skipped_frames"].u64() - a["unheld_skipped_frames"].u64() -
                                         a["held_back_skipped_frames"].u64());
      e.events[p] = static_cast<double>(a["skip_lines"].u64() - a["reader_lost_skip_lines"].u64() -
                                        a["reader_unknown_skip_lines"].u64() - a["unheld_skip_lines"].u64() -
                                        a["held_back_skip_lines"].u64());
      e.davey[p] = static_cast<double>(a["davey"].u64() - a["reader_lost_davey"].u64() - a["reader_unknown_davey"].u64() -
                                       a["unheld_davey"].u64() - a["held_back_davey"].u64());
      e.gfx[p] = static_cast<double>(a["gfx_frames_dumped"].u64());
    }
    return e;
  }

  std::map<std::string, Expected> truths() {
    std::map<std::string, Expected> out;
    const Json t = sim.truth();
    for (const Json& dev : t["devices"].arr) out[dev["name"].str] = truth_of(dev);
    return out;
  }

  const SimDeviceInfo& pick_device() {
    const auto& ds = sim.devices();
    return ds[std::uniform_int_distribution<std::size_t>(0, ds.size() - 1)(rng)];
  }
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  void nap(int lo_ms, int hi_ms) { std::this_thread::sleep_for(ms(uniform(lo_ms, hi_ms))); }

  double sample(const std::string& name) {
    if (!ex) return std::nan("");
    return ex->value(name);
  }
  double polls_ok(const std::string& serial) {
    const double v = sample("jank_exporter_gfxinfo_polls_total{serial=\"" + serial + "\",result=\"ok\"}");
    return std::isnan(v) ? 0 : v;
  }

  // The exporter has polled every package of `d` since it was paused, and
  // checkpointed that: the processes can die without unpolled frames.
  bool quiesce_gfxinfo(const SimDeviceInfo& d) {
    const std::string serial = emulator_serial(d);
    if (!ex || unplugged.count(d.name) || hung.count(d.name) || !attached.count(d.name)) return false;
    ok("pause " + d.name);
    const double start = polls_ok(serial);
    const double written = sample("jank_exporter_checkpoints_total{result=\"written\"}");
    const bool polled = wait_until([&] { return polls_ok(serial) >= start + 2.0 * static_cast<double>(kPackages.size()); }, 20000ms, 100ms);
    const bool saved = polled && wait_until([&] {
      return sample("jank_exporter_checkpoints_total{result=\"written\"}") >= written + 2;
    }, 10000ms, 100ms);
    if (!saved) ok("resume " + d.name);
    return saved;
  }

  // Faults by weight; JANK_CAMPAIGN_FAULTS (comma list of names) narrows them.
  std::vector<std::pair<std::string, int>> faults = {
      {"unplug", 10}, {"kick", 8},     {"hang", 6},     {"adb", 5},      {"exporter", 7},
      {"sighup", 4},  {"garbage", 12}, {"cut", 10},     {"corrupt", 4},  {"flood", 6},
      {"refresh", 8}, {"restart", 12}, {"zygote", 8}, {"clock", 6},  {"glitch", 6},
      {"reboot", 4},  {"logd", 4},     {"clear", 5},    {"slow", 3}};
  bool verbose = std::getenv("JANK_CAMPAIGN_VERBOSE") != nullptr;

  void narrow_faults(const std::string& only) {
    if (only.empty()) return;
    const std::string list = "," + only + ",";
    std::erase_if(faults, [&](const auto& f) { return list.find("," + f.first + ",") == std::string::npos; });
    REQUIRE(!faults.empty());
  }

  std::string pick_fault() {
    int total = 0;
    for (const auto& f : faults) total += f.second;
    int r = uniform(0, total - 1);
    for (const auto& f : faults) {
      if (r < f.second) return f.first;
      r -= f.second;
    }
    return faults.back().first;
  }

  // One random fault. The weights favour the cheap ones.
  void fault() {
    const auto& d = pick_device();
    const std::string serial = emulator_serial(d);
    const std::string k = pick_fault();
    if (verbose) std::printf("  %s %s\n", k.c_str(), d.name.c_str());
    if (k == "unplug") {  // unplug, maybe a ring wrap while away, replug
      if (unplugged.count(d.name)) return;
      ok("unplug " + d.name);
      unplugged.insert(d.name);
      ++tally["unplug"];
      nap(200, 1500);
      if (uniform(0, 1)) {
        ok("flood " + d.name + " " + std::to_string(uniform(1500, 5000)));
        ++tally["wrap while away"];
      }
      nap(0, 1000);
      replug(d);
    } else if (k == "kick") {
      ok("kick " + d.name);
      ++tally["kick"];
    } else if (k == "hang") {  // hang, shorter than the liveness check, or longer
      if (hung.count(d.name)) return;
      ok("hang " + d.name);
      hung.insert(d.name);
      ++tally["hang"];
      nap(500, uniform(0, 9) == 0 ? 35000 : 4000);
      ok("unhang " + d.name);
      hung.erase(d.name);
    } else if (k == "adb") {  // the adb server crashes and comes back on the same port
      // Lines the server had taken from a device (acknowledged) but not yet
      // passed to the exporter die with it; the device counts them read. The
      // exporter's next stream declares its position and the device counts
      // them unread again, but a logd restart or reboot before that would
      // leave lines no truth can place: wait for every stream to come back.
      const auto before = streams();
      adb.kill();
      ++tally["adb server kill+restart"];
      nap(100, 2000);
      adb.restart();
      attached.clear();
      for (const auto& x : sim.devices()) {
        if (!unplugged.count(x.name)) attach(x);
      }
      for (const auto& x : sim.devices()) {
        if (!unplugged.count(x.name) && !hung.count(x.name)) seen_again(emulator_serial(x), before.at(x.name));
      }
    } else if (k == "exporter") {  // the exporter is killed and restarted on its state
      if (!ex) return;
      ex->kill9();
      ex.reset();
      // Lines read after the last checkpoint are unread again: tell the
      // simulator's truth where the reader went back to.
      const auto cursors = saved_cursors(state.path() + "/state");
      for (const auto& x : sim.devices()) {
        if (const auto it = cursors.find(emulator_serial(x)); it != cursors.end()) {
          std::string cmd = "reader " + x.name;
          for (const auto& [buffer, position] : it->second) cmd += " " + buffer + "=" + position;
          ok(cmd);
        }
      }
      ++tally["exporter SIGKILL+restart"];
      nap(0, 3000);
      start_exporter();
    } else if (k == "sighup") {
      if (!ex) return;
      sighup_window = sighup_window == 60 ? 30 : 60;
      write_config();
      REQUIRE(::kill(ex->pid(), SIGHUP) == 0);
      ++tally["SIGHUP"];
    } else if (k == "garbage") {
      ok("garbage " + d.name + " " + std::to_string(uniform(1, 300)));
      ++tally["garbage"];
    } else if (k == "cut") {
      ok("cut " + d.name);
      ++tally["cut line"];
    } else if (k == "corrupt") {
      ok("corrupt " + d.name);
      ++tally["corrupt packet"];
    } else if (k == "flood") {  // a burst the stream cannot keep up with: the ring wraps under it
      ok("flood " + d.name + " " + std::to_string(uniform(500, 4000)));
      ++tally["flood while read"];
    } else if (k == "refresh") {
      static const int rates[] = {60, 90, 120, 144};
      ok("refresh " + d.name + " " + std::to_string(rates[uniform(0, 3)]));
      ++tally["refresh rate"];
    } else if (k == "restart") {  // app restart; sometimes the new process reuses another app's old pid
      if (!quiesce_gfxinfo(d)) return;
      const std::string a = kPackages[static_cast<std::size_t>(uniform(0, 2))];
      std::string b = kPackages[static_cast<std::size_t>(uniform(0, 2))];
      const Json t = sim.truth();
      const Json* app = DevSim::app(t, d.name, a);
      REQUIRE(app != nullptr);
      const auto old_pid = (*app)["pid"].integer();
      ok("restart " + d.name + " " + a);
      ++tally["app restart"];
      if (b != a && uniform(0, 1)) {
        ok("restart " + d.name + " " + b + " " + std::to_string(old_pid));
        ++tally["pid reuse"];
      }
      ok("resume " + d.name);
    } else if (k == "clock") {  // NTP or a test steps the device's clock, either way, up to a day
      static const int steps[] = {-86400, -3600, -600, -30, 30, 3600, 86400};
      ok("clock " + d.name + " step " + std::to_string(steps[uniform(0, 6)]));
      ++tally["clock step"];
    } else if (k == "glitch") {  // one line stamped a year off
      ok("clock " + d.name + " glitch " + std::to_string(uniform(0, 1) ? 31536000 : -31536000));
      ++tally["clock glitch"];
    } else if (k == "reboot") {  // while unplugged; boards without RTC come back a day behind
      if (unplugged.count(d.name) || hung.count(d.name) || !quiesce_gfxinfo(d)) return;
      const double streams = sample(series("jank_exporter_logcat_streams_total", serial));
      ok("reboot " + d.name + " " + std::to_string(uniform(1, 4)) + " " + (uniform(0, 1) ? "-86400" : "0"));
      ++tally["reboot"];
      ok("resume " + d.name);
      seen_again(serial, streams);
    } else if (k == "logd") {  // logd restarts (the device stays connected)
      if (!ex || unplugged.count(d.name) || hung.count(d.name)) return;
      const double streams = sample(series("jank_exporter_logcat_streams_total", serial));
      ok("logd-restart " + d.name);
      ++tally["logd restart"];
      seen_again(serial, streams);
    } else if (k == "clear") {  // a test script clears the log through the real adb client
      if (unplugged.count(d.name) || hung.count(d.name) || !attached.count(d.name)) return;
      adb.adb({"-s", serial, "shell", "logcat", "-c"}, 10000ms);
      ++tally["logcat -c"];
    } else if (k == "slow") {  // an overloaded phone answers every command late for a while
      if (unplugged.count(d.name) || hung.count(d.name)) return;
      ok("slow " + d.name + " " + std::to_string(uniform(2, 8)));
      ++tally["slow device"];
      nap(2000, 8000);
      ok("slow " + d.name + " 0");
    } else if (k == "zygote") {  // zygote restart (root): every app gets a new pid
      if (!quiesce_gfxinfo(d)) return;
      ok("setprop " + d.name + " ctl.restart zygote");
      ++tally["zygote restart"];
      ok("resume " + d.name);
    }
  }

  // A new log (reboot, logd restart) is seen once per stream: two in a row
  // before the exporter reads again are one to any reader. Wait for a new
  // stream on the device, or give up (the next one sees both as one, which
  // the comparison would then report).
  void seen_again(const std::string& serial, double streams_before) {
    if (!ex) return;
    wait_until([&] { return sample(series("jank_exporter_logcat_streams_total", serial)) > streams_before; },
               20000ms, 100ms);
  }

  void replug(const SimDeviceInfo& d) {
    ok("replug " + d.name);
    unplugged.erase(d.name);
    if (!attached.count(d.name)) attach(d);  // a new adb server never saw it
  }

  bool all_streaming(const std::map<std::string, double>& streams_before) {
    if (!ex) return false;
    const auto s = ex->samples();
    for (const auto& d : sim.devices()) {
      const auto it = s.find(series("jank_exporter_logcat_streams_total", emulator_serial(d)));
      if (it == s.end() || it->second <= streams_before.at(d.name)) return false;
      const auto up = s.find(series("android_device_up", emulator_serial(d)));
      if (up == s.end() || up->second != 1) return false;
    }
    return true;
  }

  std::map<std::string, double> streams() {
    std::map<std::string, double> out;
    const auto s = ex->samples();
    for (const auto& d : sim.devices()) {
      const auto it = s.find(series("jank_exporter_logcat_streams_total", emulator_serial(d)));
      out[d.name] = it == s.end() ? 0 : it->second;
    }
    return out;
  }

  // "name{labels}" → (expected, exported) for every invariant.
  std::map<std::string, std::pair<double, double>> compare() {
    std::map<std::string, std::pair<double, double>> out;
    const auto now = truths();
    const auto s = ex->samples();
    auto got = [&](const std::string& key) {
      const auto it = s.find(key);
      return it == s.end() ? 0.0 : it->second;
    };
    for (const auto& d : sim.devices()) {
      const std::string serial = emulator_serial(d);
      const Expected& e = now.at(d.name);
      const Expected& b = base.at(d.name);
      for (const auto& p : kPackages) {
        auto put = [&](const std::string& family, double expected) {
          const std::string key = series(family, serial, p);
          out[key] = {expected, got(key)};
        };
        put("android_choreographer_skipped_frames_total", e.skipped.at(p) - b.skipped.at(p));
        put("android_choreographer_skip_events_total", e.events.at(p) - b.events.at(p));
        put("android_hwui_davey_frames_total", e.davey.at(p) - b.davey.at(p));
        put("android_gfxinfo_frames_rendered_total", e.gfx.at(p));
      }
      const std::string lost = series("jank_exporter_logcat_lost_lines_total", serial);
      out[lost] = {e.lost - b.lost, got(lost)};
      const std::string reboots = series("jank_exporter_device_reboots_total", serial);
      out[reboots] = {e.reboots - b.reboots, got(reboots)};
      const std::string restarts = series("jank_exporter_logd_restarts_total", serial);
      out[restarts] = {e.logd_restarts - b.logd_restarts, got(restarts)};
      const std::string hz = series("android_display_refresh_rate_hertz", serial);
      out[hz] = {e.refresh, got(hz)};
    }
    return out;
  }
};

}  // namespace

TEST_CASE("randomized fault campaign: exported totals equal the truth minus what a reader lost") {
  const std::uint64_t seed = env_u64("JANK_CAMPAIGN_SEED", std::random_device{}() ^ static_cast<std::uint64_t>(
                                                                   std::chrono::system_clock::now().time_since_epoch().count()));
  const auto seconds = static_cast<long>(env_u64("JANK_CAMPAIGN_SECONDS", 120));
  const int devices = static_cast<int>(env_u64("JANK_CAMPAIGN_DEVICES", 3));
  const char* sdk_env = std::getenv("JANK_CAMPAIGN_SDK");
  const std::string sdks = sdk_env && *sdk_env ? sdk_env : "34,23,24";
  std::printf("fault campaign: JANK_CAMPAIGN_SEED=%llu JANK_CAMPAIGN_SECONDS=%ld JANK_CAMPAIGN_DEVICES=%d "
              "JANK_CAMPAIGN_SDK=%s\n",
              static_cast<unsigned long long>(seed), seconds, devices, sdks.c_str());
  std::fflush(stdout);
  INFO("JANK_CAMPAIGN_SEED=" << seed);

  Campaign c(seed, devices, sdks);
  if (const char* only = std::getenv("JANK_CAMPAIGN_FAULTS")) c.narrow_faults(only);
  c.ok("pause");
  c.base = c.truths();
  for (const auto& d : c.sim.devices()) c.attach(d);
  for (const auto& d : c.sim.devices()) REQUIRE(c.adb.wait_state(emulator_serial(d), "device", 10000ms));
  c.start_exporter();
  std::map<std::string, double> none;
  for (const auto& d : c.sim.devices()) none[d.name] = 0;
  REQUIRE(wait_until([&] { return c.all_streaming(none); }, 30000ms, 200ms));
  // Counting starts at the first checkpoint that holds the devices' first
  // positions: a kill before it makes the restart a new first sight.
  const double written = c.sample("jank_exporter_checkpoints_total{result=\"written\"}");
  REQUIRE(wait_until([&] { return c.sample("jank_exporter_checkpoints_total{result=\"written\"}") >= written + 1; },
                     10000ms, 100ms));
  c.ok("resume");

  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int faults = 0;
  while (std::chrono::steady_clock::now() < end) {
    c.fault();
    ++faults;
    c.nap(100, 1500);
  }

  // Quiet end: every device back, the counts frozen, every stream resumed
  // once more (so that each measures what it lost), then the comparison.
  for (const auto& d : c.sim.devices()) {
    if (c.unplugged.count(d.name)) c.replug(d);
    if (c.hung.count(d.name)) c.ok("unhang " + d.name);
  }
  c.hung.clear();
  if (!c.ex) c.start_exporter();
  c.ok("pause");
  for (const auto& d : c.sim.devices()) REQUIRE(c.adb.wait_state(emulator_serial(d), "device", 20000ms));
  REQUIRE(wait_until([&] { return c.all_streaming(none); }, 60000ms, 250ms));
  const auto before_kick = c.streams();
  c.ok("kick *");
  REQUIRE(wait_until([&] { return c.all_streaming(before_kick); }, 60000ms, 250ms));

  std::map<std::string, std::pair<double, double>> result;
  const bool equal = wait_until([&] {
    result = c.compare();
    for (const auto& [k, v] : result) {
      if (v.first != v.second) return false;
    }
    return true;
  }, 60000ms, 500ms);

  std::printf("fault campaign seed %llu: %d faults in %ld s:", static_cast<unsigned long long>(seed), faults, seconds);
  for (const auto& [k, n] : c.tally) std::printf(" %s=%d", k.c_str(), n);
  std::printf("\n");
  double lost = 0, frames = 0;
  for (const auto& [k, v] : result) {
    if (k.rfind("jank_exporter_logcat_lost_lines_total", 0) == 0) lost += v.first;
    if (k.rfind("android_choreographer_skipped_frames_total", 0) == 0) frames += v.first;
    if (v.first != v.second) std::printf("  MISMATCH %s expected %.0f exported %.0f\n", k.c_str(), v.first, v.second);
  }
  std::printf("  %zu invariants, skipped frames %.0f, lines lost to wrap %.0f: %s\n", result.size(), frames, lost,
              equal ? "all equal" : "NOT equal");
  std::fflush(stdout);
  if (const char* dump = std::getenv("JANK_CAMPAIGN_DUMP"); dump && *dump) {
    std::ofstream(dump) << c.sim.control("truth") << "\n" << c.ex->scrape() << "\n" << c.ex->log();
  }
  INFO(c.ex->log().substr(c.ex->log().size() > 20000 ? c.ex->log().size() - 20000 : 0));
  CHECK(equal);
  CHECK(c.ex->alive());
  // Every command answered over shell v2 carried both of its time stamps
  // (app/session/device_timing.h), ring dumps after a flood included.
  double unstamped = 0;
  for (const auto& [name, v] : c.ex->samples()) {
    if (name.rfind("jank_exporter_device_command_untimed_total{", 0) == 0 &&
        name.find("reason=\"unstamped\"") != std::string::npos) {
      unstamped += v;
    }
  }
  CHECK(unstamped == 0);
}

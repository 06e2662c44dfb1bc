// FrameTimeline end to end: the real exporter polls simulated Android 13
// (60 Hz) and Android 15 (120 Hz) devices through Debian's real adb server at
// its default cadence; the frames it counts per app and jank type equal the
// simulator's truth, its join finds every frame's framestats row, and a
// cadence forced too slow is counted as overflows.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <thread>

#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

const std::string kFeed = "com.example.feed";
const std::string kGame = "com.example.game";
const char* const kJankTypes[] = {"none",          "display_hal",     "sf_cpu_deadline_missed",
                                  "sf_gpu_deadline_missed", "app_deadline_missed", "prediction_error",
                                  "sf_scheduling", "buffer_stuffing", "unknown",
                                  "sf_stuffing",   "dropped"};

std::string jank_series(const std::string& serial, const std::string& package, const std::string& type,
                        const std::string& family = "android_frametimeline_jank_frames_total") {
  return family + "{serial=\"" + serial + "\",package=\"" + package + "\",jank_type=\"" + type + "\"}";
}

double value_or_zero(const std::map<std::string, double>& s, const std::string& key) {
  const auto it = s.find(key);
  return it == s.end() ? 0.0 : it->second;
}

// One app's FrameTimeline numbers: frames, janky, joined, then one per jank type.
using Counts = std::map<std::string, double>;

// A series not exported yet is 0: an app whose frames the first window did
// not hold (the simulator paused early) has none until it draws.
Counts exported(const std::map<std::string, double>& s, const std::string& serial, const std::string& package) {
  auto get = [&](const std::string& key) { return value_or_zero(s, key); };
  Counts c;
  c["frames"] = get(series("android_frametimeline_frames_total", serial, package));
  c["janky"] = get(series("android_frametimeline_janky_frames_total", serial, package));
  c["joined"] = get(series("android_frametimeline_joined_frames_total", serial, package));
  c["unjudged"] = get(series("android_frametimeline_unjudged_frames_total", serial, package));
  for (const char* t : kJankTypes) c[t] = get(jank_series(serial, package, t));
  return c;
}

Counts truth_of(const Json& truth, const std::string& device, const std::string& package) {
  const Json* app = DevSim::app(truth, device, package);
  REQUIRE(app != nullptr);
  Counts c;
  c["frames"] = static_cast<double>((*app)["ft_frames"].u64());
  c["janky"] = static_cast<double>((*app)["ft_janky"].u64());
  for (const char* t : kJankTypes) c[t] = static_cast<double>((*app)["ft_by_jank"][t].u64());
  return c;
}

std::string write_config(const TempDir& dir, const std::string& extra = "") {
  const std::string path = dir.path() + "/c.yaml";
  std::ofstream(path) << "gfxinfo:\n  packages: [" << kFeed << ", " << kGame << "]\n  discover: false\n"
                      << "  poll_interval_seconds: 0.5\n  fast_poll_interval_seconds: 0.5\n"
                      << "series:\n  detailed: [all]\n"  // per stage, per window and per cause: detailed groups
                      // Polls faster than the defaults (framestats of two apps every 0.5 s): more than
                      // the default budget of 10 commands a second per device.
                      << "budget:\n  max_commands_per_second: 40\n"
                      << "surfaceflinger:\n  list_interval_seconds: 2\n" << extra;
  return path;
}

// Successful --frametimeline polls of the device.
double ft_polls(const std::map<std::string, double>& s, const std::string& serial) {
  return value_or_zero(s, "jank_exporter_surfaceflinger_polls_total{serial=\"" + serial +
                              "\",command=\"frametimeline\",result=\"ok\"}");
}

std::string overflows(const std::string& serial) {
  return "jank_exporter_frametimeline_overflows_total{serial=\"" + serial + "\"}";
}

// Windows of a device's FrameTimeline and framestats polls that moved past
// frames not read yet: frames lost (and counted as such) on a starved host.
double overflows_of(const std::map<std::string, double>& s, const std::string& serial) {
  double n = 0;
  for (const std::string& key : {overflows(serial), series("android_framestats_window_overflows_total", serial, kFeed),
                                 series("android_framestats_window_overflows_total", serial, kGame)}) {
    n += value_or_zero(s, key);
  }
  return n;
}

// Exactness cannot be judged across frames a late poll lost (counted as an
// overflow): a host starved enough for that (a loaded sanitizer run) gets
// another try from a new baseline, up to three in all.
enum class Outcome { agreed, differs, overflowed };
Outcome up_to_three_tries(const std::string& what, const std::function<Outcome()>& attempt) {
  Outcome outcome = Outcome::overflowed;
  for (int i = 1; i <= 3 && outcome == Outcome::overflowed; ++i) {
    outcome = attempt();
    if (outcome == Outcome::overflowed) WARN(what << ", attempt " << i << ": a window overflowed");
  }
  return outcome;
}

}  // namespace

TEST_CASE("FrameTimeline frames per app and jank type equal the simulator truth and join their framestats rows",
          "[serial]") {
  AdbServer adb;
  DevSim sim({"--devices", "2", "--packages", kFeed, "--games", kGame + ":60", "--refresh", "60,120", "--sdk",
              "33,35", "--stall-prob", "0.03", "--skip-bands", "1-3:3,4-20:1", "--sf-miss-prob", "0.01",
              "--drop-prob", "0.2", "--log-rate", "5"});
  REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  TempDir state, conf_dir;
  Exporter ex({adb.port()}, state.path(), {"--config", write_config(conf_dir)});

  // Paused: the window the exporter reads first holds frames made before
  // the truth below; once three scrapes 1 s apart (polls between: the first
  // poll made frames final, so the cadence stays fast for 10 s) agree,
  // everything made so far is counted.
  Json t0;
  std::map<std::string, Counts> e0;
  std::map<std::string, double> overflows0;
  auto baseline = [&] {
    t0 = sim.truth();
    int stable = 0;  // scrapes in a row that agree
    e0.clear();
    return wait_until([&] {
      std::map<std::string, Counts> now;
      const auto s = ex.samples();
      for (const auto& d : sim.devices()) {
        if (ft_polls(s, emulator_serial(d)) < 2) return false;
        for (const auto& p : {kFeed, kGame}) now[d.name + p] = exported(s, emulator_serial(d), p);
        overflows0[d.name] = overflows_of(s, emulator_serial(d));
      }
      stable = now == e0 ? stable + 1 : 0;
      e0 = now;
      return stable >= 2;
    }, 30000ms, 1000ms);
  };

  // Then every frame once, at the default cadence: exact unless a poll came
  // so late that a window (FrameTimeline's 64 display frames, framestats' 120
  // rows) had moved past frames not read yet (counted as an overflow, which
  // the next test proves).
  std::string differences;
  auto measure = [&] {
    REQUIRE(sim.control("resume").rfind("OK", 0) == 0);
    REQUIRE(wait_until([&] {
      const Json t = sim.truth();
      for (const auto& d : sim.devices()) {
        if (truth_of(t, d.name, kFeed).at("frames") < truth_of(t0, d.name, kFeed).at("frames") + 900) return false;
      }
      return true;
    }, 60000ms, 250ms));
    REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
    const Json t1 = sim.truth();
    Outcome outcome = Outcome::differs;
    // Returns once settled; the bound is for a loaded sanitizer run, where a
    // device's polls were seen to need over 20 s to catch up after the pause.
    wait_until([&] {
      const auto s = ex.samples();
      differences.clear();
      for (const auto& d : sim.devices()) {
        if (overflows_of(s, emulator_serial(d)) > overflows0[d.name]) {
          outcome = Outcome::overflowed;
          return true;
        }
        for (const auto& p : {kFeed, kGame}) {
          const Counts got = exported(s, emulator_serial(d), p), was = e0[d.name + p];
          const Counts a = truth_of(t0, d.name, p), b = truth_of(t1, d.name, p);
          for (const auto& [key, value] : b) {
            if (got.at(key) - was.at(key) != value - a.at(key)) {
              differences += d.name + " " + p + " " + key + ": exported " +
                             std::to_string(got.at(key) - was.at(key)) + ", truth " +
                             std::to_string(value - a.at(key)) + "\n";
            }
          }
          // framestats polled every 0.5 s (120 rows: 1 s at 120 Hz) holds every
          // frame: each verdict joins its row once the last rows were polled.
          if (got.at("joined") - was.at("joined") != got.at("frames") - was.at("frames")) {
            differences += d.name + " " + p + " joined " + std::to_string(got.at("joined") - was.at("joined")) +
                           " of " + std::to_string(got.at("frames") - was.at("frames")) + " frames\n";
          }
        }
      }
      if (!differences.empty()) {
        for (const auto& [key, value] : s) {
          if (key.find("command=\"frametimeline\"") != std::string::npos) {
            differences += key + " " + std::to_string(value) + "\n";
          }
        }
      }
      outcome = differences.empty() ? Outcome::agreed : Outcome::differs;
      return differences.empty();
    }, 60000ms, 500ms);
    return outcome;
  };
  const Outcome outcome = up_to_three_tries("FrameTimeline and framestats", [&] {
    REQUIRE(baseline());
    return measure();
  });
  INFO(differences);
  REQUIRE(outcome == Outcome::agreed);

  const auto s = ex.samples();
  std::map<std::string, double> causes;
  for (const auto& d : sim.devices()) {
    const std::string serial = emulator_serial(d);
    CAPTURE(d.name);
    CHECK(overflows_of(s, serial) == overflows0[d.name]);
    for (const auto& p : {kFeed, kGame}) {
      CAPTURE(p);
      const Counts got = exported(s, serial, p), was = e0[d.name + p];
      CHECK(got.at("unjudged") == was.at("unjudged"));
      for (const char* t : kJankTypes) causes[t] += got.at(t) - was.at(t);
    }
    CHECK(s.at("jank_exporter_surfaceflinger_lines_total{serial=\"" + serial +
               "\",source=\"frametimeline\",result=\"discarded\"}") == 0);
    // App Deadline Missed frames put their draw time under their type.
    CHECK(s.at("android_frametimeline_stage_frames_total{serial=\"" + serial + "\",package=\"" + kFeed +
               "\",jank_type=\"app_deadline_missed\",stage=\"draw\"}") > 0);
    CHECK(s.at("android_frametimeline_stage_seconds_total{serial=\"" + serial + "\",package=\"" + kFeed +
               "\",jank_type=\"app_deadline_missed\",stage=\"draw\"}") > 0);
  }
  // The run exercised the causes that matter.
  CHECK(causes["app_deadline_missed"] > 0);
  CHECK(causes["buffer_stuffing"] > 0);
  CHECK(causes["dropped"] > 0);
  CHECK(causes["sf_cpu_deadline_missed"] + causes["sf_gpu_deadline_missed"] + causes["display_hal"] > 0);
}

TEST_CASE("FrameTimeline polled too slowly counts overflows and an Android 11 device is never asked") {
  AdbServer adb;
  DevSim sim({"--devices", "2", "--packages", kFeed, "--refresh", "120", "--sdk", "33,30", "--log-rate", "5"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  TempDir state, conf_dir;
  // One SurfaceFlinger command every 2.5 s, shared with a layer, the list
  // and the power state: FrameTimeline's 64 frames last 0.53 s at 120 Hz.
  Exporter ex({adb.port()}, state.path(),
              {"--config", write_config(conf_dir, "  max_commands_per_second: 0.4\n")});
  const std::string android13 = emulator_serial(sim.devices()[0]), android11 = emulator_serial(sim.devices()[1]);
  CHECK(wait_until([&] { return ex.value(overflows(android13)) >= 2; }, 40000ms, 250ms));
  const auto s = ex.samples();
  CHECK(s.at(series("android_frametimeline_frames_total", android13, kFeed)) > 0);
  CHECK(s.count(overflows(android11)) == 0);
  CHECK(s.count(series("android_frametimeline_frames_total", android11, kFeed)) == 0);
  for (const auto& [key, value] : s) {
    if (key.find("jank_exporter_surfaceflinger_polls_total{serial=\"" + android11 + "\",command=\"frametimeline\"") ==
        0) {
      FAIL_CHECK("Android 11 was asked for FrameTimeline: " << key << " " << value);
    }
  }
}

TEST_CASE("TimeStats totals taken in across statsd pulls equal the FrameTimeline frames counted meanwhile",
          "[serial]") {
  AdbServer adb;
  DevSim sim({"--devices", "1", "--packages", kFeed, "--refresh", "90", "--sdk", "34", "--stall-prob", "0.03",
              "--skip-bands", "1-3:3,4-20:1", "--sf-miss-prob", "0.01", "--drop-prob", "0.2", "--log-rate", "5"});
  REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
  const std::string serial = emulator_serial(sim.devices()[0]), name = sim.devices()[0].name;
  adb.emulator(sim.devices()[0].port);
  REQUIRE(adb.wait_state(serial, "device", 10000ms));
  TempDir state, conf_dir;
  Exporter ex({adb.port()}, state.path(),
              {"--config", write_config(conf_dir, "  timestats: true\n  timestats_interval_seconds: 1\n")});
  const std::string ts_polls =
      "jank_exporter_surfaceflinger_polls_total{serial=\"" + serial + "\",command=\"timestats\",result=\"ok\"}";
  const char* const kTsCauses[] = {"app_deadline_missed", "buffer_stuffing", "sf_cpu_deadline_missed",
                                   "sf_gpu_deadline_missed", "display_hal", "sf_scheduling", "prediction_error"};
  auto counts = [&](const std::map<std::string, double>& s) {
    std::map<std::string, double> c;
    c["ft_frames"] = value_or_zero(s, series("android_frametimeline_frames_total", serial, kFeed));
    c["ft_janky"] = value_or_zero(s, series("android_frametimeline_janky_frames_total", serial, kFeed));
    for (const char* t : kJankTypes) c[std::string("ft_") + t] = value_or_zero(s, jank_series(serial, kFeed, t));
    c["ts_timeline"] = value_or_zero(s, series("android_timestats_timeline_frames_total", serial, kFeed));
    c["ts_janky"] = value_or_zero(s, series("android_timestats_janky_frames_total", serial, kFeed));
    c["ts_dropped"] = value_or_zero(s, series("android_timestats_dropped_frames_total", serial, kFeed));
    for (const char* t : kTsCauses) {
      c[std::string("ts_") + t] = value_or_zero(s, jank_series(serial, kFeed, t, "android_timestats_jank_frames_total"));
    }
    for (const char* scope : {"buckets", "layers", "row"}) {
      c[std::string("resets_") + scope] =
          value_or_zero(s, "jank_exporter_timestats_resets_total{serial=\"" + serial + "\",scope=\"" + scope + "\"}");
    }
    return c;
  };
  // The counts once three scrapes 1.5 s apart agree (TimeStats is read every
  // second): everything the paused app made is counted.
  auto settle = [&] {
    std::map<std::string, double> settled;
    int stable = 0;  // scrapes in a row that agree
    REQUIRE(wait_until([&] {
      const auto s = ex.samples();
      if (value_or_zero(s, ts_polls) < 2 || ft_polls(s, serial) < 2) return false;
      const auto c = counts(s);
      stable = c == settled ? stable + 1 : 0;
      settled = c;
      return stable >= 2;
    }, 30000ms, 1500ms));
    return settled;
  };
  auto truth_frames = [&] { return truth_of(sim.truth(), name, kFeed).at("frames"); };
  auto value = [&](const std::string& key) { return value_or_zero(ex.samples(), key); };
  // The running app draws until SurfaceFlinger judged `frames` more of its frames.
  auto frames_judged = [&](double frames) {
    const double from = truth_frames();
    REQUIRE(wait_until([&] { return truth_frames() >= from + frames; }, 60000ms, 100ms));
  };
  auto draw = [&](double frames) {
    REQUIRE(sim.control("resume").rfind("OK", 0) == 0);
    frames_judged(frames);
    REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
  };
  // Two TimeStats reads done: the second began after this call.
  auto two_reads = [&] {
    const double from = value(ts_polls);
    REQUIRE(wait_until([&] { return value(ts_polls) >= from + 2; }, 30000ms, 100ms));
  };

  // What TimeStats counted since `e0` equals what FrameTimeline counted, every
  // frame of the truth, or (after a pull while the app drew) as much less as
  // went to statsd only, at most `lost` timeline frames, never more. A
  // FrameTimeline window that overflowed meanwhile lost frames TimeStats
  // counted: the two cannot be compared then (up_to_three_tries).
  std::map<std::string, double> d;
  std::string differences;
  auto phase = [&](const std::string& what, double lost, const std::function<void()>& activity) {
    const Outcome outcome = up_to_three_tries(what, [&] {
      const auto e0 = settle();
      const double overflows0 = value(overflows(serial)), truth0 = truth_frames();
      activity();
      const double made = truth_frames() - truth0;
      Outcome result = Outcome::differs;
      wait_until([&] {
        const auto s = ex.samples();
        if (value_or_zero(s, overflows(serial)) > overflows0) {
          result = Outcome::overflowed;
          return true;
        }
        const auto c = counts(s);
        for (const auto& [k, v] : c) d[k] = v - e0.at(k);
        differences.clear();
        if (d["ft_frames"] != made) {
          differences += "ft_frames " + std::to_string(d["ft_frames"]) + " != truth " + std::to_string(made) + "\n";
        }
        auto expect = [&](const std::string& ts, double ft) {
          if (d[ts] > ft || d[ts] < ft - lost) {
            differences += ts + " " + std::to_string(d[ts]) + " != " + std::to_string(ft) + "\n";
          }
        };
        expect("ts_timeline", d["ft_frames"] - d["ft_dropped"]);
        expect("ts_dropped", d["ft_dropped"]);
        expect("ts_janky", d["ft_janky"]);
        for (const char* t : kTsCauses) expect(std::string("ts_") + t, d[std::string("ft_") + t]);
        result = differences.empty() ? Outcome::agreed : Outcome::differs;
        return differences.empty();
      }, 30000ms, 1000ms);
      return result;
    });
    INFO(what << ":\n" << differences);
    REQUIRE(outcome == Outcome::agreed);
    CHECK(d["ft_app_deadline_missed"] > 0);
    CHECK(d["ft_dropped"] > 0);
  };

  // Without a statsd pull, TimeStats counts exactly the frames FrameTimeline
  // counted (dropped ones only as dropped).
  phase("no pull", 0, [&] { draw(400); });
  CHECK(d["resets_buckets"] + d["resets_layers"] + d["resets_row"] == 0);

  // A statsd pull while the app draws clears TimeStats: the exporter takes
  // the reset in without counting anything twice, but what the device
  // counted between its last read and the pull went to statsd only: one read
  // interval (1 s, 90 frames at 90 Hz), allowed two as a read can wait
  // behind other SurfaceFlinger commands.
  phase("a pull while the app draws", 180, [&] {
    REQUIRE(sim.control("resume").rfind("OK", 0) == 0);
    frames_judged(250);
    REQUIRE(sim.control("timestats " + name + " pull-global").rfind("OK", 0) == 0);
    REQUIRE(sim.control("timestats " + name + " pull-layers").rfind("OK", 0) == 0);
    frames_judged(250);
    REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
  });
  CHECK(d["resets_buckets"] == 1);
  // The layers' clear is taken in as "layers" when the next read still had
  // the app's row, or as "row" when it fell before the app's next frame (in a
  // stall): the row was then missing, so only it is known cleared.
  CHECK(d["resets_layers"] + d["resets_row"] == 1);

  // A pull after everything was read loses nothing: exact again. The read
  // between the pull and the next frame has no layer rows, so the app's row
  // comes back lower than its baseline: a row reset.
  phase("a pull after the last read", 0, [&] {
    two_reads();
    REQUIRE(sim.control("timestats " + name + " pull-global").rfind("OK", 0) == 0);
    REQUIRE(sim.control("timestats " + name + " pull-layers").rfind("OK", 0) == 0);
    two_reads();
    draw(400);
  });
  CHECK(d["resets_buckets"] == 1);
  CHECK(d["resets_layers"] == 0);
  CHECK(d["resets_row"] == 1);

  const auto s = ex.samples();
  CHECK(s.at("android_timestats_display_timeline_frames_total{serial=\"" + serial +
             "\",refresh_rate=\"90\",render_rate=\"90\"}") > 0);
  CHECK(s.at("jank_exporter_surfaceflinger_lines_total{serial=\"" + serial +
             "\",source=\"timestats\",result=\"discarded\"}") == 0);
}

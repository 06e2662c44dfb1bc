// What the phone was doing, end to end: the real exporter's resource poll
// on simulated devices of Android 14, 11 and 6.0 (each answering /proc and
// sysfs as its release does for the shell user) through Debian's real adb
// server. A main thread made 90 % busy shows as 0.9 s of CPU per second; a
// capped cluster shows its capped max and counts throttled time; GPU files
// Android 11 refuses the shell are unsupported, not 0; and the counters
// equal the simulator's truth, also after the exporter is killed and
// restarted on its state directory.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <fstream>
#include <string>

#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

constexpr const char* kApp = "com.example.feed";

std::string labelled(const std::string& name, const std::string& serial, const std::string& extra) {
  return name + "{serial=\"" + serial + "\"," + extra + "}";
}

std::string app_series(const std::string& name, const std::string& serial, const std::string& extra) {
  return name + "{serial=\"" + serial + "\",package=\"" + kApp + "\"," + extra + "}";
}

const Json& app_truth(const Json& device) {
  for (const auto& a : device["apps"].arr) {
    if (a["package"].str == kApp) return a;
  }
  FAIL("no app " << kApp);
  return device;
}

// Every exported CPU counter of the device against the truth (ticks of 10 ms,
// the last answers read): "" when all are equal, else what differs.
std::string differences(const std::map<std::string, double>& s, const Json& device, const std::string& serial) {
  std::string out;
  auto differs = [&](const std::string& key, double ticks) {
    const auto it = s.find(key);
    if (it != s.end() && std::abs(it->second - ticks / 100) < 1e-6) return;
    out += key + " = " + (it == s.end() ? std::string("absent") : std::to_string(it->second)) + ", truth " +
           std::to_string(ticks / 100) + "\n";
  };
  const Json& proc = app_truth(device)["proc"];
  differs(app_series("android_app_cpu_seconds_total", serial, "mode=\"user\""), proc["user_ticks"].num);
  differs(app_series("android_app_cpu_seconds_total", serial, "mode=\"system\""), proc["system_ticks"].num);
  for (const std::string thread : {"main", "RenderThread"}) {
    const Json& t = proc["threads"][thread];
    differs(app_series("android_app_thread_cpu_seconds_total", serial, "thread=\"" + thread + "\""),
            t["user_ticks"].num + t["system_ticks"].num);
  }
  for (const auto& [row, ticks] : device["resources"]["proc_stat_ticks"].obj) {
    if (row == "cpu") continue;  // the all-cores line is not exported: the cores sum to it
    for (const std::string mode : {"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"}) {
      differs(labelled("android_cpu_seconds_total", serial, "cpu=\"" + row.substr(3) + "\",mode=\"" + mode + "\""),
              ticks[mode].num);
    }
  }
  return out;
}

// Waits until every device's counters equal the truth at one moment (the
// simulator keeps running; a poll between the two reads is retried).
void expect_exact(DevSim& sim, Exporter& ex) {
  std::string diff;
  const bool equal = wait_until([&] {
    const Json truth = sim.truth();
    const auto s = ex.samples();
    diff.clear();
    for (const auto& d : sim.devices()) {
      const Json* device = DevSim::device(truth, d.name);
      if (device == nullptr) return false;
      diff += differences(s, *device, emulator_serial(d));
    }
    return diff.empty();
  }, 20000ms, 150ms);
  INFO(diff);
  CHECK(equal);
}

}  // namespace

TEST_CASE("resources: a busy main thread and a capped cluster and refused GPU files stay exact across a restart", "[serial]") {
  AdbServer adb;
  DevSim sim({"--devices", "3", "--sdk", "34,30,23", "--gpu", "adreno,adreno,mali", "--packages", kApp,
              "--log-rate", "2"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/c.yaml";
  std::ofstream(conf) << "checkpoint_interval_seconds: 1\ngfxinfo:\n  packages: [" << kApp
                      << "]\nresources:\n  poll_interval_seconds: 1\n  memory_interval_seconds: 2\n";
  const auto& a14 = sim.devices()[0];
  const auto& a11 = sim.devices()[1];
  const auto& a6 = sim.devices()[2];
  const std::string s14 = emulator_serial(a14), s11 = emulator_serial(a11), s6 = emulator_serial(a6);
  const std::string main14 = app_series("android_app_thread_cpu_seconds_total", s14, "thread=\"main\"");
  {
    Exporter ex({adb.port()}, state.path(), {"--config", conf});
    for (const auto& d : sim.devices()) {
      const std::string serial = emulator_serial(d);
      INFO(serial);
      CHECK(wait_until([&] { return !std::isnan(ex.value(app_series("android_app_cpu_seconds_total", serial, "mode=\"user\""))); },
                       30000ms, 250ms));
    }

    // 90 % of a core on the main thread: the counter grows 0.9 s per second.
    REQUIRE(sim.control("cpu " + a14.name + " " + kApp + " main=0.9").rfind("OK", 0) == 0);
    double v0 = ex.value(main14);
    REQUIRE(wait_until([&] { return ex.value(main14) != v0; }, 5000ms, 50ms));  // a poll after the change
    v0 = ex.value(main14);
    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(4000ms);
    double v1 = ex.value(main14);
    REQUIRE(wait_until([&] { return ex.value(main14) != v1; }, 5000ms, 50ms));
    v1 = ex.value(main14);
    const double span = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    INFO("main thread " << v1 - v0 << " s over " << span << " s");
    CHECK((v1 - v0) / span == Approx(0.9).margin(0.12));

    // A cap on the big cluster: its allowed max drops below the hardware's, and throttled time counts.
    REQUIRE(sim.control("cpufreq " + a14.name + " policy=7 max=1500000").rfind("OK", 0) == 0);
    const std::string max7 = labelled("android_cpu_frequency_max_hertz", s14, "policy=\"7\"");
    const std::string hw7 = labelled("android_cpu_frequency_hardware_max_hertz", s14, "policy=\"7\"");
    const std::string throttled7 = labelled("android_cpu_throttled_seconds_total", s14, "policy=\"7\"");
    CHECK(wait_until([&] {
      const auto s = ex.samples();
      return s.count(max7) && s.count(hw7) && s.at(max7) <= 1.5e9 && s.at(max7) < s.at(hw7) && s.count(throttled7) &&
             s.at(throttled7) >= 2;
    }, 15000ms, 250ms));
    {
      const Json truth = sim.truth();
      const Json& freq = DevSim::device(truth, a14.name)->operator[]("resources")["cpufreq"];
      double truth_max = 0;
      for (const auto& p : freq.arr) {
        if (p["policy"].num == 7) truth_max = p["scaling_max_freq_khz"].num;
      }
      CHECK(truth_max > 0);
      CHECK(truth_max <= 1500000);
      CHECK(ex.value(max7) == truth_max * 1000);
    }

    // GPU: readable on Android 14 (labelled sysfs_gpu) and on 6.0 (Mali, before SELinux kept sysfs from the
    // shell); refused on Android 11: unsupported, and no GPU series rather than a 0.
    const auto s = ex.samples();
    CHECK(s.at(labelled("jank_exporter_resource_supported", s14, "resource=\"gpu\"")) == 1);
    CHECK(s.at(labelled("jank_exporter_resource_supported", s11, "resource=\"gpu\"")) == 0);
    CHECK(s.at(labelled("jank_exporter_resource_supported", s6, "resource=\"gpu\"")) == 1);
    CHECK(s.count(series("android_gpu_frequency_hertz", s14)) == 1);
    CHECK(s.count(series("android_gpu_frequency_hertz", s11)) == 0);
    CHECK(s.count(series("android_gpu_frequency_hertz", s6)) == 1);
    for (const auto& serial : {s14, s11, s6}) {
      INFO(serial);
      CHECK(s.at(labelled("jank_exporter_resource_supported", serial, "resource=\"cpu\"")) == 1);
      CHECK(s.at(labelled("jank_exporter_resource_supported", serial, "resource=\"cpufreq\"")) == 1);
      CHECK(s.at(labelled("jank_exporter_resource_lines_total", serial, "result=\"discarded\"")) == 0);
      CHECK(s.count(series("android_app_memory_rss_bytes", serial, kApp)) == 1);
      CHECK(s.at(labelled("jank_exporter_device_command_runs_total", serial, "command=\"resources\"")) >= 3);
    }
    expect_exact(sim, ex);
    ex.kill9();  // what it read after its last checkpoint is read again, and counted once
  }
  std::this_thread::sleep_for(2000ms);  // the apps keep running while no exporter does
  Exporter again({adb.port()}, state.path(), {"--config", conf});
  REQUIRE(wait_until([&] { return !std::isnan(again.value(main14)); }, 30000ms, 250ms));
  expect_exact(sim, again);
}

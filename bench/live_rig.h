// What the live benchmarks (live_path.cc, surfaceflinger_load.cc) share: the
// simulator's devices attached to a private real adb server, the real
// exporter started on a configuration and followed until it has every
// device, sums over /metrics, and each process's CPU and memory over a
// measured window. Targets using it define JANK_EXPORTER_PROGRAM.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/daemon/exporter_process.h"
#include "tests/rig/rig.h"

namespace jank::bench {

using namespace jank::rig;
using jank::daemon_test::Exporter;
using steady = std::chrono::steady_clock;

inline double seconds_since(steady::time_point t) { return std::chrono::duration<double>(steady::now() - t).count(); }

inline double percentile(std::vector<double> v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

// "100,300,500" → {100, 300, 500}.
inline std::vector<int> int_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string x; std::getline(in, x, ',');) out.push_back(std::atoi(x.c_str()));
  return out;
}

// The adb serial of a device attached with host:emulator:PORT.

// Sum of every sample whose series starts with `prefix`.
inline double sum_of(const std::map<std::string, double>& samples, const std::string& prefix) {
  double total = 0;
  for (auto it = samples.lower_bound(prefix); it != samples.end() && it->first.rfind(prefix, 0) == 0; ++it) {
    total += it->second;
  }
  return total;
}

// A value, as a count, or 0 when the series is absent.
inline double value_of(const std::map<std::string, double>& samples, const std::string& series) {
  const auto it = samples.find(series);
  return it == samples.end() ? 0 : it->second;
}

struct Step {
  bool done = false;
  double seconds = 0;
};

// Attaches every simulated device (host:emulator) and waits until adb lists them all as `device`.
inline Step attach_all(const AdbServer& adb, const DevSim& sim) {
  const auto t = steady::now();
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  const bool done = wait_until(
      [&] {
        std::size_t online = 0;
        for (const auto& [serial, state] : adb.devices()) online += state == "device";
        return online == sim.devices().size();
      },
      300000ms, 500ms);
  return {done, seconds_since(t)};
}

// The real exporter on `adb` with `config_yaml`, logging warnings only; its
// configuration, state and log in `dir`. JANK_BENCH_EXPORTER_ENV, when set,
// holds space-separated NAME=VALUE entries for the exporter's environment
// alone, so a profiler can be preloaded into it without touching the adb
// server or the simulator (docs/performance.md, issue 31), e.g.
//   JANK_BENCH_EXPORTER_ENV="LD_PRELOAD=/usr/lib/heaptrack/libheaptrack_preload.so
//                            DUMP_HEAPTRACK_OUTPUT=/tmp/exporter.heaptrack.raw"
inline Exporter start_exporter(const AdbServer& adb, const TempDir& dir, const std::string& config_yaml,
                               const std::vector<std::string>& extra = {}) {
  const std::string config = dir.path() + "/bench.yaml";
  std::ofstream(config) << config_yaml;
  std::vector<std::string> env;
  if (const char* text = std::getenv("JANK_BENCH_EXPORTER_ENV")) {
    std::istringstream in(text);
    for (std::string entry; in >> entry;) env.push_back(entry);
  }
  std::vector<std::string> args = {"--config", config, "--log-level", "warning"};
  args.insert(args.end(), extra.begin(), extra.end());
  return Exporter({adb.port()}, dir.path(), args, true, env);
}

// Waits until the exporter has every device up with a logcat stream open and
// `also(samples)` holds.
template <typename Pred>
Step wait_followed(const Exporter& exporter, const DevSim& sim, Pred&& also) {
  const auto t = steady::now();
  const bool done = wait_until(
      [&] {
        const auto s = exporter.samples();
        for (const auto& d : sim.devices()) {
          const std::string serial = emulator_serial(d.port);
          if (value_of(s, "android_device_up{serial=\"" + serial + "\"}") != 1 ||
              value_of(s, "jank_exporter_logcat_streams_total{serial=\"" + serial + "\"}") < 1) {
            return false;
          }
        }
        return also(s);
      },
      300000ms, 1000ms);
  return {done, seconds_since(t)};
}

inline Step wait_followed(const Exporter& exporter, const DevSim& sim) {
  return wait_followed(exporter, sim, [](const std::map<std::string, double>&) { return true; });
}

// CPU time and memory of the three processes at one instant.
struct Usage {
  ProcessUsage exporter, adb, sim;
  steady::time_point at;
};

inline Usage usage_now(pid_t exporter, pid_t adb, pid_t sim) {
  return {process_usage(exporter), process_usage(adb), process_usage(sim), steady::now()};
}

// % of one core between two instants.
inline double cpu_percent(const ProcessUsage& a, const ProcessUsage& b, const Usage& from, const Usage& to) {
  return 100.0 * (b.cpu_seconds - a.cpu_seconds) / std::chrono::duration<double>(to.at - from.at).count();
}

// The exporter's, the adb server's and the simulator's CPU over [from, to],
// their RSS at `to`, the exporter's largest RSS sampled meanwhile and its peak.
inline void print_usage(const Usage& from, const Usage& to, long exporter_rss_max_kib) {
  auto mib = [](long kib) { return static_cast<double>(kib) / 1024; };
  std::printf("   exporter:   CPU %.1f%% of one core, RSS %.1f MiB (max sampled %.1f MiB, peak %.1f MiB)\n",
              cpu_percent(from.exporter, to.exporter, from, to), mib(to.exporter.rss_kib), mib(exporter_rss_max_kib),
              mib(to.exporter.hwm_kib));
  std::printf("   adb server: CPU %.1f%% of one core, RSS %.1f MiB\n", cpu_percent(from.adb, to.adb, from, to),
              mib(to.adb.rss_kib));
  std::printf("   devsim:     CPU %.1f%% of one core, RSS %.1f MiB\n", cpu_percent(from.sim, to.sim, from, to),
              mib(to.sim.rss_kib));
}

}  // namespace jank::bench

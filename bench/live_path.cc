// Live-path benchmark: the real jank_exporter following N simulated devices
// through a private real adb server, each device logging RATE lines/s with
// one Choreographer skip line in about every 200. Reports, over a measured
// window with Prometheus-like scrapes:
//   - the exporter's CPU (% of one core), RSS and peak RSS, lines/s counted;
//   - the adb server's and the simulator's own CPU, so the exporter's share
//     is clear;
//   - /metrics response time and size;
//   - skip-to-metric latency: a skip line is written into a device's log
//     buffer (devsim control `log`) and /metrics?serial= is polled every 5 ms
//     until the counter includes it (p50, p99, max);
//   - exactness: after the simulator pauses, every device's exported skipped
//     frames must equal what it logged since the exporter first saw it (plus
//     the probes) minus what its ring lost before the exporter read it.
//
//   jank_bench_live [--devices N[,N…]] [--rate R] [--seconds S] [--probes P]
//                   [--scrape-seconds S] [--sim-threads T] [--buffer-kib K] [--surfaceflinger on|off]
//   e.g. the burst case: --devices 50 --rate 2000 --buffer-kib 4096
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/live_rig.h"
#include "tests/rig/json.h"

using namespace jank::bench;
using jank::daemon_test::http_get;
using jank::daemon_test::parse_samples;

namespace {

constexpr const char* kPackage = "com.example.feed";
constexpr int kProbeFrames = 77;  // outside the simulated stall band (30–40): a probe is unmistakable

struct Options {
  std::vector<int> devices = {100, 300, 500};
  double rate = 100;
  int seconds = 60;
  int probes = 40;
  int scrape_seconds = 15;
  int sim_threads = 1;
  int buffer_kib = 1024;
  // The logcat live path alone by default (the figures docs/performance.md
  // compares over releases); --surfaceflinger on also polls every layer.
  bool surfaceflinger = false;
  // --resources on adds the resource poll (CPU, memory, clocks; off here so
  // that the figures compare with releases before it).
  bool resources = false;
  // logcat.read_batch_milliseconds for the exporter; unset keeps its default.
  int read_batch_ms = -1;
  // --series detailed exports every detailed group (series.detailed: [all]);
  // the default profile otherwise, as the exporter's defaults have it.
  bool detailed_series = false;
};

std::string body_of(const std::string& response) {
  const auto at = response.find("\r\n\r\n");
  return at == std::string::npos ? std::string() : response.substr(at + 4);
}

std::string skipped_series(const std::string& serial) {
  return "android_choreographer_skipped_frames_total{serial=\"" + serial + "\",package=\"" + kPackage + "\"}";
}

double skipped_now(std::uint16_t http_port, const std::string& serial) {
  const std::string body = body_of(http_get(http_port, "/metrics?serial=" + serial, 2000ms));
  return value_of(parse_samples(body), skipped_series(serial));
}

void run_one(const Options& o, int devices) {
  const double skip_per_line = 1.0 / 200;
  // Stalls of 30–40 frames (always logged at the default threshold of 30, never
  // a Davey): at 60 Hz a stall takes ~0.58 s, so this per-frame probability
  // gives ~RATE/200 stalls a second when RATE is 100.
  const double stalls_per_s = o.rate * skip_per_line;
  const double stalled_fraction = std::min(0.9, stalls_per_s * 35.0 / 60.0);
  const double stall_prob = stalls_per_s / (60.0 * (1 - stalled_fraction));
  const double background = o.rate - stalls_per_s;

  char stall_text[32];
  std::snprintf(stall_text, sizeof stall_text, "%.5f", stall_prob);
  AdbServer adb;
  DevSim sim({"--devices", std::to_string(devices), "--packages", kPackage, "--log-rate", std::to_string(background),
              "--stall-prob", stall_text, "--skip-bands", "30-40:1", "--buffer-kib", std::to_string(o.buffer_kib),
              "--threads", std::to_string(o.sim_threads), "--seed", std::to_string(devices)});
  // The exporter counts from its first sight of a device on: the simulation
  // stays paused until every device is followed, so that what it logs from
  // then on is exactly what the exporter must count.
  sim.control("pause");
  std::map<std::string, double> logged_before;  // device name → skipped frames logged before
  {
    const Json truth = sim.truth();
    for (const Json& d : truth["devices"].arr) {
      if (const Json* app = DevSim::app(truth, d["name"].str, kPackage)) {
        logged_before[d["name"].str] = static_cast<double>((*app)["skipped_frames_logged"].u64());
      }
    }
  }
  const Step attached = attach_all(adb, sim);

  TempDir state("jank-bench-live");
  Exporter exporter = start_exporter(
      adb, state,
      std::string("surfaceflinger:\n  enabled: ") + (o.surfaceflinger ? "true" : "false") + "\n" +
          "resources:\n  enabled: " + (o.resources ? "true" : "false") + "\n" +
          (o.detailed_series ? "series:\n  detailed: [all]\n" : "") +
          (o.read_batch_ms >= 0 ? "logcat:\n  read_batch_milliseconds: " + std::to_string(o.read_batch_ms) + "\n"
                                : ""));
  const std::uint16_t http_port = exporter.port();
  const Step followed = wait_followed(exporter, sim);
  std::printf("== %d devices x %.0f lines/s (attach %.1f s%s, all followed %.1f s after start%s)\n", devices, o.rate,
              attached.seconds, attached.done ? "" : " INCOMPLETE", followed.seconds,
              followed.done ? "" : " INCOMPLETE");
  std::fflush(stdout);
  sim.control("resume");
  std::this_thread::sleep_for(15s);  // warm-up: first gfxinfo polls, catch-up of the backlog

  // ---- measured window: load only, scrapes as Prometheus would ----
  auto daemon_lines = [&](const std::map<std::string, double>& s) { return sum_of(s, "jank_exporter_logcat_lines_total{"); };
  std::vector<double> scrape_ms;
  std::size_t scrape_bytes = 0, scrape_series = 0;
  double device_series = 0;  // the devices' own count (jank_exporter_device_series), summed
  long rss_max = 0;
  auto entries_written = [&] {
    const Json t = sim.truth();
    double n = 0;
    for (const Json& d : t["devices"].arr) n += static_cast<double>(d["lines_written"].u64());
    return n;
  };
  const double entries0 = entries_written();
  const Usage u0 = usage_now(exporter.pid(), adb.pid(), sim.pid());
  const auto w0 = u0.at;
  double lines0 = -1, lines1 = 0;
  // Device commands by kind (jank_exporter_device_command_runs_total) at the first and last scrape.
  std::map<std::string, double> commands0, commands1;
  auto commands_by_kind = [](const std::map<std::string, double>& samples) {
    std::map<std::string, double> out;
    const std::string family = "jank_exporter_device_command_runs_total{";
    for (const auto& [key, v] : samples) {
      if (key.rfind(family, 0) != 0) continue;
      const auto at = key.find("command=\"");
      if (at != std::string::npos) out[key.substr(at + 9, key.find('"', at + 9) - at - 9)] += v;
    }
    return out;
  };
  steady::time_point first_scrape, last_scrape;
  for (auto next = w0;; next += std::chrono::seconds(o.scrape_seconds)) {
    std::this_thread::sleep_until(next);
    const auto t = steady::now();
    const std::string response = http_get(http_port, "/metrics", 10000ms);
    scrape_ms.push_back(std::chrono::duration<double, std::milli>(steady::now() - t).count());
    const std::string body = body_of(response);
    scrape_bytes = body.size();
    const auto samples = parse_samples(body);
    scrape_series = samples.size();
    device_series = sum_of(samples, "jank_exporter_device_series{");
    const double lines = daemon_lines(samples);
    if (lines0 < 0) {
      lines0 = lines;
      first_scrape = t;
      commands0 = commands_by_kind(samples);
    }
    lines1 = lines;
    commands1 = commands_by_kind(samples);
    last_scrape = t;
    rss_max = std::max(rss_max, process_usage(exporter.pid()).rss_kib);
    if (std::chrono::duration<double>(next - w0).count() + o.scrape_seconds > o.seconds) break;
  }
  const Usage u1 = usage_now(exporter.pid(), adb.pid(), sim.pid());
  const double entries_rate = (entries_written() - entries0) / seconds_since(w0);
  const double lines_rate =
      (lines1 - lines0) / std::max(1e-9, std::chrono::duration<double>(last_scrape - first_scrape).count());

  // ---- latency probes ----
  const Json truth0 = sim.truth();
  std::map<std::string, std::uint64_t> pid_of;  // device name → app pid
  for (const Json& d : truth0["devices"].arr) {
    if (const Json* app = DevSim::app(truth0, d["name"].str, kPackage)) pid_of[d["name"].str] = (*app)["pid"].u64();
  }
  std::mt19937 rng(static_cast<unsigned>(devices));
  std::vector<double> latency_ms;
  std::map<std::string, int> probes_on;  // device name → probes injected
  int timeouts = 0;
  for (int p = 0; p < o.probes; ++p) {
    const auto& d = sim.devices()[rng() % sim.devices().size()];
    const std::string serial = emulator_serial(d.port);
    const double before = skipped_now(http_port, serial);
    const auto t0 = steady::now();
    const std::string reply = sim.control("log " + d.name + " main I " + std::to_string(pid_of[d.name]) +
                                          " Choreographer Skipped " + std::to_string(kProbeFrames) +
                                          " frames!  The application may be doing too much work on its main thread.");
    if (reply.rfind("OK", 0) != 0) continue;
    ++probes_on[d.name];
    bool seen = false;
    while (seconds_since(t0) < 10) {
      if (skipped_now(http_port, serial) - before >= kProbeFrames) {
        seen = true;
        break;
      }
      std::this_thread::sleep_for(5ms);
    }
    if (seen) {
      latency_ms.push_back(std::chrono::duration<double, std::milli>(steady::now() - t0).count());
    } else {
      ++timeouts;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + rng() % 200));
  }

  // ---- exactness: pause, let the exporter drain, compare with the truth ----
  sim.control("pause");
  const Json truth = sim.truth();
  std::uint64_t lines_written = 0, lost_to_ring = 0;
  std::map<std::string, double> expected;  // serial → skipped frames the exporter must show
  for (const Json& d : truth["devices"].arr) {
    lines_written += d["lines_written"].u64();
    lost_to_ring += d["reader_lost_lines"].u64();
    const Json* app = DevSim::app(truth, d["name"].str, kPackage);
    if (app == nullptr) continue;
    const std::string serial = emulator_serial(static_cast<std::uint16_t>(d["port"].u64()));
    expected[serial] = static_cast<double>((*app)["skipped_frames_logged"].u64() -
                                           (*app)["reader_lost_skipped_frames"].u64()) -
                       logged_before[d["name"].str] + kProbeFrames * probes_on[d["name"].str];
  }
  int exact = 0;
  wait_until(
      [&] {
        const auto s = parse_samples(body_of(http_get(http_port, "/metrics", 10000ms)));
        exact = 0;
        for (const auto& [serial, want] : expected) {
          const auto it = s.find(skipped_series(serial));
          exact += (it == s.end() ? 0 : it->second) == want;
        }
        return exact == static_cast<int>(expected.size());
      },
      60000ms, 1000ms);
  const auto final_samples = parse_samples(body_of(http_get(http_port, "/metrics", 10000ms)));
  int shown = 0;
  for (const auto& [serial, want] : expected) {
    const auto it = final_samples.find(skipped_series(serial));
    const double got = it == final_samples.end() ? 0 : it->second;
    if (got != want && shown++ < 5) {
      std::printf("   mismatch:   %s exports %.0f skipped frames, the simulator logged %.0f (lost lines %.0f, streams %.0f)\n",
                  serial.c_str(), got, want,
                  final_samples.count("jank_exporter_logcat_lost_lines_total{serial=\"" + serial + "\"}")
                      ? final_samples.at("jank_exporter_logcat_lost_lines_total{serial=\"" + serial + "\"}")
                      : -1,
                  final_samples.count("jank_exporter_logcat_streams_total{serial=\"" + serial + "\"}")
                      ? final_samples.at("jank_exporter_logcat_streams_total{serial=\"" + serial + "\"}")
                      : -1);
    }
  }
  const double exported_lost = sum_of(final_samples, "jank_exporter_logcat_lost_lines_total{");

  print_usage(u0, u1, rss_max);
  std::printf("   lines:      devices logged %.0f entries/s (%.1f per device); the exporter received %.0f lines/s "
              "(entries plus logcat's buffer dividers)\n",
              entries_rate, entries_rate / devices, lines_rate);
  const double scraped_s = std::max(1e-9, std::chrono::duration<double>(last_scrape - first_scrape).count());
  double commands_total = 0;
  std::string by_kind;
  for (const auto& [kind, n] : commands1) {
    const double rate = (n - (commands0.count(kind) ? commands0.at(kind) : 0)) / scraped_s / devices;
    commands_total += rate;
    if (rate > 0) by_kind += " " + kind + " " + std::to_string(rate).substr(0, 5);
  }
  std::printf("   commands:   %.2f per device and second (%s )\n", commands_total, by_kind.c_str());
  std::printf("   /metrics:   %zu scrapes every %d s, median %.1f ms, max %.1f ms, %.2f MB, %zu series "
              "(%.0f per device by jank_exporter_device_series)\n",
              scrape_ms.size(), o.scrape_seconds, percentile(scrape_ms, 50), percentile(scrape_ms, 100),
              static_cast<double>(scrape_bytes) / 1e6, scrape_series, device_series / devices);
  std::printf("   latency:    skip line to /metrics over %zu probes: p50 %.0f ms, p99 %.0f ms, max %.0f ms, %d timed out\n",
              latency_ms.size(), percentile(latency_ms, 50), percentile(latency_ms, 99), percentile(latency_ms, 100),
              timeouts);
  std::printf("   exactness:  %d/%zu devices export exactly the skipped frames logged; lines written %llu, "
              "lost to the ring before read %llu (exported %.0f)\n",
              exact, expected.size(), static_cast<unsigned long long>(lines_written),
              static_cast<unsigned long long>(lost_to_ring), exported_lost);
  std::fflush(stdout);
  exporter.terminate();
}

}  // namespace

constexpr const char* kUsage =
    "usage: jank_bench_live [--devices N[,N...]] [--rate LINES_PER_S] [--seconds S] [--probes N]\n"
    "                       [--scrape-seconds S] [--sim-threads N] [--buffer-kib N] [--surfaceflinger on|off]\n"
    "                       [--read-batch-ms MS] [--resources on|off] [--series default|detailed]\n";

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s needs a value\n%s", flag.c_str(), kUsage);
      return 2;
    }
    const std::string value = argv[i + 1];
    if (flag == "--devices") {
      o.devices = int_list(value);
    } else if (flag == "--rate") {
      o.rate = std::atof(value.c_str());
    } else if (flag == "--seconds") {
      o.seconds = std::atoi(value.c_str());
    } else if (flag == "--probes") {
      o.probes = std::atoi(value.c_str());
    } else if (flag == "--scrape-seconds") {
      o.scrape_seconds = std::max(1, std::atoi(value.c_str()));
    } else if (flag == "--sim-threads") {
      o.sim_threads = std::max(1, std::atoi(value.c_str()));
    } else if (flag == "--buffer-kib") {
      o.buffer_kib = std::atoi(value.c_str());
    } else if (flag == "--surfaceflinger") {
      o.surfaceflinger = value == "on";
    } else if (flag == "--resources") {
      o.resources = value == "on";
    } else if (flag == "--series") {
      o.detailed_series = value == "detailed";
    } else if (flag == "--read-batch-ms") {
      o.read_batch_ms = std::max(0, std::atoi(value.c_str()));
    } else {
      std::fprintf(stderr, "unknown option %s\n%s", flag.c_str(), kUsage);
      return 2;
    }
  }
  std::printf("live path: %d cores; exporter %s\n", static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)),
              JANK_EXPORTER_PROGRAM);
  // Caught so that the rig's destructors stop the simulator, the adb server
  // and the exporter: an uncaught exception would leave them running.
  try {
    for (int n : o.devices) run_one(o, n);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "live path: %s\n", e.what());
    return 1;
  }
  return 0;
}

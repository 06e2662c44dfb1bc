// SurfaceFlinger-polling benchmark: the real jank_exporter with every source
// on (logcat, gfxinfo, SurfaceFlinger and power polling at their default
// settings) following N simulated devices through a private real adb server.
// Every device runs a game (com.example.game: a SurfaceView layer presenting
// continuously, with hitches, beside its window layer) on a 60, 90 or 120 Hz
// panel (cycled over the devices); its other app (com.example.feed) shows a
// static screen. With --active-fraction F only the first F·N devices play;
// of the others every second one shows the game's static screen (idle) and
// the rest have the panel off. Reports, over a measured window with
// Prometheus-like scrapes:
//   - the exporter's CPU (% of one core), RSS, largest sampled RSS and peak
//     (VmHWM); the adb server's and the simulator's own CPU;
//   - device commands per second from the exporter's own counters
//     (jank_exporter_device_commands_total, jank_exporter_surfaceflinger_polls_total
//     by command, jank_exporter_gfxinfo_polls_total) and the activity states
//     it exports (active, idle, off) against the simulated ones;
//   - frames missed by polling, counted as tests/daemon/test_surfaceflinger.cc
//     does: the simulation is paused before the exporter starts, so each
//     layer's first poll counts its whole table (min(127, presented)); at the
//     end it is paused again and, once a final poll has run, every layer's
//     exported android_layer_frames_presented_total must equal that first
//     count plus what the simulator's truth says the layer presented since.
//     The shortfall summed over layers is "missed"; the exporter's own
//     android_layer_poll_overflows_total (polls whose table no longer held
//     the newest frame counted) is reported beside it;
//   - on Android 12+ devices, FrameTimeline (--frametimeline on, the
//     default): its polls per second and the app frames it counted against
//     the truth (ft_frames of both apps), the same way: the first polls
//     while paused, then every frame since, with its overflows.
//
//   jank_bench_surfaceflinger [--devices N[,N…]] [--active-fraction F] [--seconds S] [--warmup S]
//                             [--scrape-seconds S] [--refresh HZ[,HZ…]] [--sdk N[,N…]]
//                             [--game-fps FPS] [--sim-threads T] [--frametimeline on|off]
//                             [--per-frame always|needed] [--stall-prob P]
//   --per-frame needed (the product's default) polls frame by frame only
//   during runs, after spikes and for named apps: none here, so the run
//   reports the commands a device costs without them (no frames to count)
//   and how many devices a spike (the simulator's stalls: --stall-prob, its
//   default 0.012 a frame) had polled frame by frame at the end.
//   e.g. the mostly idle farm: --devices 500 --active-fraction 0.1
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench/live_rig.h"
#include "tests/rig/json.h"

using namespace jank::bench;

namespace {

const std::string kGame = "com.example.game";
const std::string kOther = "com.example.feed";

// The exporter's defaults with SurfaceFlinger polling on. The game is named
// as an app to watch: the simulator answers no `dumpsys window`, so gfxinfo
// discovery alone would find it only once it logged a skip, after its first
// frames (and the counting window would start at an unknown instant).
std::string config_yaml(bool frametimeline) {
  return "surfaceflinger:\n  enabled: true\n  frametimeline: " + std::string(frametimeline ? "true" : "false") +
         "\ngfxinfo:\n  packages: [" + kGame + "]\n";
}

struct Options {
  std::vector<int> devices = {100};
  double active_fraction = 1;
  int seconds = 60;
  int warmup = 15;
  int scrape_seconds = 15;
  std::string refresh = "60,90,120";
  std::string sdk = "30,33,34,35";
  // devsim presents a game frame every round(refresh / FPS) vsyncs, at least
  // one: 120 is every vsync at 60, 90 and 120 Hz, i.e. FPS = refresh rate.
  double game_fps = 120;
  int sim_threads = 1;
  bool frametimeline = true;
  std::string per_frame = "always";
  std::string stall_prob;  // passed to the simulator when set
};

// App frames SurfaceFlinger judged per the truth, summed over the devices
// that print FrameTimeline and both apps.
double ft_frames(const Json& truth) {
  double n = 0;
  for (const Json& d : truth["devices"].arr) {
    for (const std::string& p : {kGame, kOther}) {
      if (const Json* app = DevSim::app(truth, d["name"].str, p)) n += static_cast<double>((*app)["ft_frames"].u64());
    }
  }
  return n;
}

// One followed layer of the game: the truth and the exporter's count at the
// first poll (t0, e0, simulation paused) and at the end (t1, e1).
struct Layer {
  std::string device, serial, layer;
  double refresh_hz = 0;
  double t0 = 0, e0 = 0, t1 = 0, e1 = 0;
  double expected() const { return e0 + t1 - t0; }
  // The layer's series of `family`, labels up to `kind` (a prefix for sum_of).
  std::string series(const std::string& family) const {
    return family + "{serial=\"" + serial + "\",package=\"" + kGame + "\",layer=\"" + layer + "\",";
  }
  std::string frames() const { return series("android_layer_frames_presented_total"); }
};

// Each layer's presented frames per the truth, by device name and layer.
std::map<std::pair<std::string, std::string>, double> presented(const Json& truth) {
  std::map<std::pair<std::string, std::string>, double> out;
  for (const Json& d : truth["devices"].arr) {
    const Json* app = DevSim::app(truth, d["name"].str, kGame);
    if (app == nullptr) continue;
    for (const Json& l : (*app)["layers"].arr) {
      out[{d["name"].str, l["layer"].str}] = static_cast<double>(l["presented"].u64());
    }
  }
  return out;
}

std::string label_of(const std::string& series, const std::string& label) {
  const std::string key = label + "=\"";
  auto at = series.find("," + key);
  if (at == std::string::npos) at = series.find("{" + key);
  if (at == std::string::npos) return {};
  at += key.size() + 1;
  return series.substr(at, series.find('"', at) - at);
}

// Samples of `family` summed by the value of `label`.
std::map<std::string, double> by_label(const std::map<std::string, double>& s, const std::string& family,
                                       const std::string& label) {
  std::map<std::string, double> out;
  const std::string prefix = family + "{";
  for (auto it = s.lower_bound(prefix); it != s.end() && it->first.rfind(prefix, 0) == 0; ++it) {
    out[label_of(it->first, label)] += it->second;
  }
  return out;
}

void run_one(const Options& o, int devices) {
  const int active = std::clamp(static_cast<int>(std::lround(o.active_fraction * devices)), 0, devices);
  char fps[32];
  std::snprintf(fps, sizeof fps, "%g", o.game_fps);
  AdbServer adb;
  std::vector<std::string> sim_args = {"--devices", std::to_string(devices), "--packages", kOther, "--games",
                                       kGame + ":" + fps, "--refresh", o.refresh, "--sdk", o.sdk, "--threads",
                                       std::to_string(o.sim_threads), "--seed", std::to_string(devices)};
  if (!o.stall_prob.empty()) sim_args.insert(sim_args.end(), {"--stall-prob", o.stall_prob});
  DevSim sim(sim_args);
  // Running long enough to fill every table (127 frames take 2.1 s at 60 Hz),
  // then paused until every layer had its first poll (see the header); the
  // other app and the devices not playing are set up meanwhile.
  std::this_thread::sleep_for(3s);
  sim.control("pause");
  sim.control("idle * " + kOther + " on");
  int idle = 0, off = 0;
  for (int i = active; i < devices; ++i) {
    const std::string& name = sim.devices()[static_cast<std::size_t>(i)].name;
    const std::string reply = (i - active) % 2 == 0 ? sim.control("idle " + name + " " + kGame + " on")
                                                    : sim.control("screen " + name + " off");
    if (reply.rfind("OK", 0) != 0) std::printf("   control:    %s\n", reply.c_str());
    ++((i - active) % 2 == 0 ? idle : off);
  }
  const Json truth0 = sim.truth();
  std::vector<Layer> layers;
  {
    const auto t0 = presented(truth0);
    for (const auto& d : sim.devices()) {
      const std::string serial = emulator_serial(d.port);
      double hz = 0;
      for (const Json& td : truth0["devices"].arr) {
        if (td["name"].str == d.name) hz = td["refresh_hz"].num;
      }
      for (auto it = t0.lower_bound({d.name, ""}); it != t0.end() && it->first.first == d.name; ++it) {
        layers.push_back({d.name, serial, it->first.second, hz, it->second});
      }
    }
  }
  const Step attached = attach_all(adb, sim);

  TempDir state("jank-bench-sf");
  Exporter exporter = start_exporter(adb, state, config_yaml(o.frametimeline), {"--per-frame", o.per_frame});
  const bool per_frame = o.per_frame == "always";
  // FrameTimeline's first polls: every device that prints it has counted its
  // window (Android 12+, both apps once each drew).
  std::size_t ft_devices = 0;
  for (std::size_t i = 0; i < sim.devices().size(); ++i) {
    const std::vector<int> sdks = int_list(o.sdk);  // cycled over the devices, as the simulator does
    if (per_frame && o.frametimeline && !sdks.empty() && sdks[i % sdks.size()] >= 31) ++ft_devices;
  }
  // Followed: every device up, and every layer's first poll counted its table.
  const Step followed = wait_followed(exporter, sim, [&](const std::map<std::string, double>& s) {
    if (!per_frame) return true;  // no layer is polled
    for (auto& l : layers) {
      l.e0 = sum_of(s, l.frames());
      if (l.e0 != std::min(127.0, l.t0)) return false;
    }
    // (either app: a window of 64 display frames may hold only one app's frames)
    std::size_t with_ft = 0;
    for (const auto& d : sim.devices()) {
      const std::string prefix = "android_frametimeline_frames_total{serial=\"" + emulator_serial(d.port) + "\",";
      const auto it = s.lower_bound(prefix);
      with_ft += it != s.end() && it->first.rfind(prefix, 0) == 0 ? 1 : 0;
    }
    return with_ft == ft_devices;
  });
  const double ft_t0 = ft_frames(truth0);
  const double ft_e0 = sum_of(exporter.samples(), "android_frametimeline_frames_total{");
  std::printf("== %d devices: %d playing, %d idle, %d off; refresh %s Hz, SDK %s, game %s FPS "
              "(attach %.1f s%s, every layer polled %.1f s after start%s)\n",
              devices, active, idle, off, o.refresh.c_str(), o.sdk.c_str(), fps, attached.seconds,
              attached.done ? "" : " INCOMPLETE", followed.seconds, followed.done ? "" : " INCOMPLETE");
  std::fflush(stdout);
  sim.control("resume");
  std::this_thread::sleep_for(std::chrono::seconds(o.warmup));

  // ---- measured window: load only, scrapes as Prometheus would ----
  long rss_max = 0;
  std::map<std::string, double> first, last;
  steady::time_point first_at, last_at;
  const Usage u0 = usage_now(exporter.pid(), adb.pid(), sim.pid());
  for (auto next = u0.at;; next += std::chrono::seconds(o.scrape_seconds)) {
    std::this_thread::sleep_until(next);
    last_at = steady::now();
    last = exporter.samples();
    if (first.empty()) {
      first = last;
      first_at = last_at;
    }
    rss_max = std::max(rss_max, process_usage(exporter.pid()).rss_kib);
    // At least two scrapes: the rates are taken between the first and the last.
    if (next > u0.at && std::chrono::duration<double>(next - u0.at).count() + o.scrape_seconds > o.seconds) break;
  }
  const Usage u1 = usage_now(exporter.pid(), adb.pid(), sim.pid());
  const double span = std::max(1e-9, std::chrono::duration<double>(last_at - first_at).count());
  auto rate = [&](const std::string& prefix) { return (sum_of(last, prefix) - sum_of(first, prefix)) / span; };
  auto rates_by = [&](const std::string& family, const std::string& label) {
    std::map<std::string, double> r = by_label(last, family, label);
    for (const auto& [k, v] : by_label(first, family, label)) r[k] -= v;
    for (auto& [k, v] : r) v /= span;
    return r;
  };
  const auto states = by_label(last, "android_device_activity_state", "state");

  // ---- frames: pause, let a final poll run, compare with the truth ----
  if (!per_frame) layers.clear();  // nothing polled frame by frame: nothing to count
  sim.control("pause");
  const Json truth1 = sim.truth();
  const auto t1 = presented(truth1);
  const double ft_expected = ft_devices > 0 ? ft_e0 + ft_frames(truth1) - ft_t0 : 0;
  for (auto& l : layers) l.t1 = t1.at({l.device, l.layer});
  std::map<std::string, double> final_samples;
  wait_until(
      [&] {
        final_samples = exporter.samples();
        bool all = sum_of(final_samples, "android_frametimeline_frames_total{") == ft_expected;
        for (auto& l : layers) {
          l.e1 = sum_of(final_samples, l.frames());
          all = all && l.e1 == l.expected();
        }
        return all;
      },
      30000ms, 500ms);
  double run_frames = 0, first_tables = 0, missed = 0, extra = 0;
  int exact = 0;
  std::map<double, double> missed_at, overflows_at;  // refresh rate → missed frames, overflowing polls
  for (const auto& l : layers) {
    run_frames += l.t1 - l.t0;
    first_tables += l.e0;
    exact += l.e1 == l.expected();
    missed += std::max(0.0, l.expected() - l.e1);
    extra += std::max(0.0, l.e1 - l.expected());
    missed_at[l.refresh_hz] += std::max(0.0, l.expected() - l.e1);
    overflows_at[l.refresh_hz] += sum_of(final_samples, l.series("android_layer_poll_overflows_total"));
  }
  const double overflows = sum_of(final_samples, "android_layer_poll_overflows_total{");

  print_usage(u0, u1, rss_max);
  const auto sf = rates_by("jank_exporter_surfaceflinger_polls_total", "command");
  const auto results = rates_by("jank_exporter_device_commands_total", "result");
  const double commands = rate("jank_exporter_device_commands_total{");
  std::string not_ok;
  for (const auto& [result, r] : results) {
    char text[64];
    std::snprintf(text, sizeof text, ", %s %.1f/s", result.c_str(), r);
    if (result != "ok" && r > 0) not_ok += text;
  }
  std::printf("   commands:   %.0f device commands/s (%.2f per device%s): SurfaceFlinger --latency %.0f/s, "
              "--frametimeline %.1f/s, --list %.1f/s, power %.1f/s; gfxinfo %.1f/s\n",
              commands, commands / devices, not_ok.c_str(), value_of(sf, "latency"), value_of(sf, "frametimeline"),
              value_of(sf, "list"), value_of(sf, "power"), rate("jank_exporter_gfxinfo_polls_total{"));
  std::string kinds;
  for (const auto& [kind, r] : rates_by("jank_exporter_device_command_runs_total", "command")) {
    char text[64];
    std::snprintf(text, sizeof text, "%s%s %.3f", kinds.empty() ? "" : ", ", kind.c_str(), r / devices);
    if (r > 0) kinds += text;
  }
  std::printf("   per device: --per-frame %s: %.2f commands/s: %s; %.0f devices polled frame by frame at the end\n",
              o.per_frame.c_str(), rate("jank_exporter_device_command_runs_total{") / devices, kinds.c_str(),
              sum_of(last, "jank_exporter_device_per_frame_polling{"));
  if (per_frame) {
    std::printf("   layers:     %zu followed, %.2f --latency polls/s per layer; devices active %.0f, idle %.0f, off %.0f "
                "(simulated %d, %d, %d)\n",
                layers.size(), value_of(sf, "latency") / static_cast<double>(std::max<std::size_t>(1, layers.size())),
                value_of(states, "active"), value_of(states, "idle"), value_of(states, "off"), active, idle, off);
    std::printf("   frames:     %.0f presented after the first polls (truth), %.0f in the first tables; %d/%zu layers "
                "exact; missed %.0f, counted twice %.0f, poll overflows %.0f\n",
                run_frames, first_tables, exact, layers.size(), missed, extra, overflows);
  }
  if (ft_devices > 0) {
    const double ft_e1 = sum_of(final_samples, "android_frametimeline_frames_total{");
    std::printf("   frametimeline: %zu devices, %.1f polls/s per device, %.0f lines/s; %.0f app frames judged after the "
                "first polls (truth), counted %.0f (missed %.0f, counted twice %.0f), overflows %.0f\n",
                ft_devices, value_of(sf, "frametimeline") / static_cast<double>(ft_devices),
                value_of(rates_by("jank_exporter_surfaceflinger_lines_total", "source"), "frametimeline"),
                ft_expected - ft_e0, ft_e1 - ft_e0, std::max(0.0, ft_expected - ft_e1),
                std::max(0.0, ft_e1 - ft_expected), sum_of(final_samples, "jank_exporter_frametimeline_overflows_total{"));
  }
  if (missed > 0 || overflows > 0) {
    for (const auto& [hz, n] : missed_at) {
      std::printf("                at %.0f Hz: missed %.0f, poll overflows %.0f\n", hz, n, overflows_at[hz]);
    }
  }
  std::fflush(stdout);
  exporter.terminate();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--devices") {
      o.devices = int_list(value);
    } else if (flag == "--active-fraction") {
      o.active_fraction = std::clamp(std::atof(value.c_str()), 0.0, 1.0);
    } else if (flag == "--seconds") {
      o.seconds = std::atoi(value.c_str());
    } else if (flag == "--warmup") {
      o.warmup = std::max(0, std::atoi(value.c_str()));
    } else if (flag == "--scrape-seconds") {
      o.scrape_seconds = std::max(1, std::atoi(value.c_str()));
    } else if (flag == "--refresh") {
      o.refresh = value;
    } else if (flag == "--sdk") {
      o.sdk = value;
    } else if (flag == "--game-fps") {
      o.game_fps = std::atof(value.c_str());
    } else if (flag == "--frametimeline") {
      o.frametimeline = value != "off";
    } else if (flag == "--stall-prob") {
      o.stall_prob = value;
    } else if (flag == "--per-frame") {
      o.per_frame = value;
    } else if (flag == "--sim-threads") {
      o.sim_threads = std::max(1, std::atoi(value.c_str()));
    } else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  std::printf("surfaceflinger polling: %d cores; exporter %s\n", static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)),
              JANK_EXPORTER_PROGRAM);
  for (int n : o.devices) run_one(o, n);
  return 0;
}

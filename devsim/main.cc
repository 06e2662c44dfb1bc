// jank_devsim: simulated Android devices that the real adb server accepts.
#include <signal.h>

#include <utility>  // before Asio: Boost 1.74 uses std::exchange without including it
#include <boost/asio.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "devsim/simulator.h"
#include "devsim/text.h"

namespace {

constexpr const char* kUsage = R"(Usage: jank_devsim [options]
Simulated Android devices for the real adb server (attach with `adb connect
127.0.0.1:PORT` or host:emulator:PORT). Control channel: see docs/devsim.md.

  --devices N            number of devices (default 1)
  --ready-file FILE      write {"devices":[{"name","port","model"}…],"control":PORT} when listening
  --base-port P          device i listens on P+i (default: ports chosen by the kernel)
  --control-port P       control channel port (default: chosen by the kernel)
  --packages A,B,…       simulated apps (default com.example.feed,com.example.shop,com.example.chat)
  --games PKG:FPS[,…]    games: apps that also draw through a SurfaceView at FPS
  --sdk N[,N…]           Android API level, cycled over devices (default 33; 16-36): the
                         tools answer as that release's (below 24 no shell_v2)
  --hwui-profile         every app prints HWUI "Profile data in ms" tables (always below 23)
  --windows PKG:TITLE[,…] further windows of an app (a dialog, a second activity), drawing in turn
  --refresh HZ[,HZ…]     display refresh rate, cycled over devices (default 60)
  --stall-prob P         probability that a frame's main thread stalls (default 0.012)
  --hitch-prob P         probability that a game frame comes 3 to 10 periods late (default 0.02)
  --sf-miss-prob P       probability that SurfaceFlinger misses a composition (default 0.002)
  --drop-prob P          probability that a frame queued behind another is dropped (default 0)
  --skip-bands SPEC      stall lengths: LO-HI:WEIGHT,… (default 1-9:0.55,10-44:0.33,45-120:0.12)
  --crash-per-min R      app crashes per minute per app (default 0)
  --log-rate R           background log lines per second per device (default 2)
  --buffer-kib K         logd ring buffer size per buffer (default 256)
  --tz-offset-min M      device time zone offset from UTC (default 0)
  --root                 a userdebug build with adb root (ctl.restart zygote allowed)
  --no-shell-v2          no shell_v2 feature on any release: PTY line endings, no exit status
  --unauthorized         send AUTH forever: adb lists the devices as unauthorized
  --tick-ms MS           simulation and logcat pump period (default 50)
  --threads N            io threads (default 2)
  --seed S               random seed (default 1)
  --thermal-episodes E:L:S  throttling episodes: the last L of every E seconds at
                         thermal status S (0-6; 3 and up slow frames)
  --gpu K[,K…]           GPU per device, cycled: adreno (default), mali, none
  --gpu-label L[,L…]     SELinux type of the GPU's sysfs nodes, cycled: auto (default),
                         sysfs, sysfs_gpu, sysfs_devfreq_cur
  --battery-label L[,L…] of the battery's: sysfs_batteryinfo (default), sysfs
  --current-sign S[,S…]  current_now while discharging: negative (default), positive
)";

bool split_list(const std::string& s, std::vector<std::string>* out) {
  *out = jank::devsim::text::split_nonempty(s, ',');
  return !out->empty();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace jank::devsim;
  SimOptions o;
  std::string ready_file;
  int threads = 2;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "jank_devsim: %s needs a value\n", a.c_str());
        std::exit(64);
      }
      return args[++i];
    };
    auto num = [&]() {
      std::string v = val();
      char* end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0') {
        std::fprintf(stderr, "jank_devsim: bad number for %s: %s\n", a.c_str(), v.c_str());
        std::exit(64);
      }
      return d;
    };
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "--devices") o.devices = static_cast<int>(num());
    else if (a == "--ready-file") ready_file = val();
    else if (a == "--base-port") o.base_port = static_cast<std::uint16_t>(num());
    else if (a == "--control-port") o.control_port = static_cast<std::uint16_t>(num());
    else if (a == "--packages") {
      if (!split_list(val(), &o.packages)) return 64;
    } else if (a == "--games") {
      std::vector<std::string> l;
      if (!split_list(val(), &l)) return 64;
      for (const auto& g : l) {
        const auto colon = g.rfind(':');
        const double fps = colon == std::string::npos ? 0 : std::strtod(g.c_str() + colon + 1, nullptr);
        if (colon == std::string::npos || !(fps >= 1 && fps <= 1000)) {
          std::fprintf(stderr, "jank_devsim: bad --games entry %s (PACKAGE:FPS)\n", g.c_str());
          return 64;
        }
        o.games.emplace_back(g.substr(0, colon), fps);
      }
    } else if (a == "--windows") {
      std::vector<std::string> l;
      if (!split_list(val(), &l)) return 64;
      for (const auto& w : l) {
        const auto colon = w.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == w.size()) {
          std::fprintf(stderr, "jank_devsim: bad --windows entry %s (PACKAGE:TITLE)\n", w.c_str());
          return 64;
        }
        o.windows.emplace_back(w.substr(0, colon), w.substr(colon + 1));
      }
    } else if (a == "--sdk") {
      std::vector<std::string> l;
      if (!split_list(val(), &l)) return 64;
      o.sdk.clear();
      for (const auto& x : l) {
        const long v = std::strtol(x.c_str(), nullptr, 10);
        if (v < 16 || v > 36) {
          std::fprintf(stderr, "jank_devsim: --sdk values must be 16..36\n");
          return 64;
        }
        o.sdk.push_back(static_cast<int>(v));
      }
    } else if (a == "--refresh") {
      std::vector<std::string> l;
      if (!split_list(val(), &l)) return 64;
      o.refresh_hz.clear();
      for (const auto& x : l) o.refresh_hz.push_back(std::strtod(x.c_str(), nullptr));
    } else if (a == "--stall-prob") o.stall_prob = num();
    else if (a == "--hitch-prob") o.hitch_prob = num();
    else if (a == "--sf-miss-prob") o.sf_miss_prob = num();
    else if (a == "--drop-prob") o.drop_prob = num();
    else if (a == "--skip-bands") {
      if (!parse_bands(val(), &o.bands)) {
        std::fprintf(stderr, "jank_devsim: bad --skip-bands\n");
        return 64;
      }
    } else if (a == "--crash-per-min") o.crash_per_min = num();
    else if (a == "--log-rate") o.log_rate = num();
    else if (a == "--buffer-kib") o.buffer_kib = static_cast<std::size_t>(num());
    else if (a == "--tz-offset-min") o.tz_offset_min = static_cast<std::int32_t>(num());
    else if (a == "--hwui-profile") o.hwui_profile = true;
    else if (a == "--root") o.root = true;
    else if (a == "--no-shell-v2") o.shell_v2 = false;
    else if (a == "--unauthorized") o.unauthorized = true;
    else if (a == "--tick-ms") o.tick_ms = std::max(1, static_cast<int>(num()));
    else if (a == "--threads") threads = std::max(1, static_cast<int>(num()));
    else if (a == "--seed") o.seed = static_cast<std::uint64_t>(num());
    else if (a == "--gpu" || a == "--gpu-label" || a == "--battery-label" || a == "--current-sign") {
      std::vector<std::string> l;
      if (!split_list(val(), &l)) return 64;
      std::vector<GpuKind> gpus;
      std::vector<SysfsLabel> labels;
      std::vector<bool> signs;
      for (const auto& x : l) {
        const auto gpu = gpu_kind_from_name(x);
        const auto label = sysfs_label_from_name(x);
        bool ok = false;
        if (a == "--gpu" && gpu) gpus.push_back(*gpu), ok = true;
        if (a == "--gpu-label" && label && *label != SysfsLabel::sysfs_batteryinfo) labels.push_back(*label), ok = true;
        if (a == "--battery-label" && label && (*label == SysfsLabel::sysfs || *label == SysfsLabel::sysfs_batteryinfo)) {
          labels.push_back(*label), ok = true;
        }
        if (a == "--current-sign" && (x == "negative" || x == "positive")) signs.push_back(x == "positive"), ok = true;
        if (!ok) {
          std::fprintf(stderr, "jank_devsim: bad %s value %s\n%s", a.c_str(), x.c_str(), kUsage);
          return 64;
        }
      }
      if (a == "--gpu") o.gpu = gpus;
      if (a == "--gpu-label") o.gpu_label = labels;
      if (a == "--battery-label") o.battery_label = labels;
      if (a == "--current-sign") o.current_positive_discharging = signs;
    } else if (a == "--thermal-episodes") {
      if (!parse_thermal_episodes(val(), &o.thermal_episodes)) {
        std::fprintf(stderr, "jank_devsim: bad --thermal-episodes (EVERY:LENGTH:STATUS, LENGTH < EVERY, STATUS 0-6)\n");
        return 64;
      }
    }
    else {
      std::fprintf(stderr, "jank_devsim: unknown option %s\n%s", a.c_str(), kUsage);
      return 64;
    }
  }
  if (o.devices < 1 || o.devices > 5000) {
    std::fprintf(stderr, "jank_devsim: --devices must be 1..5000\n");
    return 64;
  }

  boost::asio::io_context io;
  SystemClock clock;
  Simulator sim(io, o, clock);
  try {
    sim.start();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jank_devsim: cannot listen: %s\n", e.what());
    return 71;
  }
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](boost::system::error_code, int) { io.stop(); });

  const std::string ready = sim.ready_json();
  if (!ready_file.empty()) {
    // Write then rename, so that a reader never sees half a file.
    const std::string tmp = ready_file + ".tmp";
    {
      std::ofstream f(tmp);
      f << ready << "\n";
      if (!f) {
        std::fprintf(stderr, "jank_devsim: cannot write %s\n", tmp.c_str());
        return 73;
      }
    }
    if (std::rename(tmp.c_str(), ready_file.c_str()) != 0) {
      std::perror("jank_devsim: rename");
      return 73;
    }
  }
  std::fprintf(stderr, "jank_devsim: %d device(s) listening, control port %u\n", o.devices, sim.control_port());

  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back([&io] { io.run(); });
  io.run();
  io.stop();
  for (auto& t : pool) t.join();
  return 0;
}

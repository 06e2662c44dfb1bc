// `dumpsys SurfaceFlinger --list` and `--latency`, and `dumpsys power`, as
// the simulated device's Android version prints them.
//
// Modelled on AOSP (frameworks/native SurfaceFlinger.cpp dumpStatsLocked and
// FrameTracker::dumpStats; frameworks/base SurfaceView.java,
// PowerManagerService.dumpInternal) and the corpus:
//   - --latency: the vsync period, then the layer's 127 newest frames,
//     oldest first, unused slots as 0 0 0, TAB-separated, then an empty
//     line; a name that matches no layer prints the period alone.
//   - Layer names: "pkg/pkg.MainActivity#0" up to Android 12 (#0 from
//     getUniqueLayerName), "#<layer id>" from 13; a SurfaceView's buffer
//     layer is "SurfaceView - <title>#0" before Android 11 and the BLAST
//     child "SurfaceView[<title>](BLAST)#N" from 11; --list on Android 15
//     wraps every name in RequestedLayerState{… parentId=N}.
// Differences: one display, a fixed set of system layers, and the real
// dump's other sections are absent; a present fence signals exactly at the
// present time.
#include <cinttypes>
#include <cstdio>
#include <limits>

#include "devsim/model.h"

namespace jank::devsim {
namespace {

std::string suffix(int sdk, std::uint32_t id) { return "#" + std::to_string(sdk >= 33 ? id : 0); }

}  // namespace

std::string Device::layer_name(const AppState& a, bool game) const {
  return layer_name(a, game, game ? a.game_layer.id : a.window_layer.id);
}

std::string Device::layer_name(const AppState& a, bool game, std::uint32_t id) const {
  const std::string title = a.cfg.package + "/" + a.cfg.package + ".MainActivity";
  const int sdk = cfg_.sdk;
  if (!game) return title + suffix(sdk, id);
  if (sdk < 30) return "SurfaceView - " + title + "#0";
  return "SurfaceView[" + title + "](BLAST)" + suffix(sdk, id);
}

std::string Device::surfaceflinger_list() const {
  const int sdk = cfg_.sdk;
  std::string out;
  auto line = [&](const std::string& name, std::uint32_t parent) {
    if (sdk >= 35) {
      out += "RequestedLayerState{" + name + " parentId=" + std::to_string(parent) + "}\n";
    } else {
      out += name + "\n";
    }
  };
  line("Display 0 name=\"Built-in Screen\"" + suffix(sdk, 2), 0);
  for (const auto& a : apps_) {
    if (a.pid == 0) continue;
    const std::uint32_t id = a.window_layer.id;
    const std::string title = a.cfg.package + "/" + a.cfg.package + ".MainActivity";
    char token[16];
    std::snprintf(token, sizeof token, "%07x", (a.view_root & 0xfffffffu) | 0x1000000u);
    line("Task=" + std::to_string(a.uid - 10000) + suffix(sdk, id - 3), 2);
    line("ActivityRecord{" + std::string(token) + " u0 " + title + " t" + std::to_string(a.uid - 10000) + "}" +
             suffix(sdk, id - 2),
         id - 3);
    line(std::string(token) + " " + title + suffix(sdk, id - 1), id - 2);
    line(layer_name(a, false), id - 1);
    if (a.cfg.game_fps > 0) {
      if (sdk >= 30) line("SurfaceView[" + title + "]" + suffix(sdk, a.game_layer.id - 1), id - 1);
      line(layer_name(a, true), a.game_layer.id - 1);
    }
  }
  line("StatusBar" + suffix(sdk, 75), 2);
  line("NavigationBar0" + suffix(sdk, 77), 2);
  return out;
}

std::string Device::surfaceflinger_latency(std::string_view name) const {
  std::string out = std::to_string(interval_ns()) + "\n";
  const SimLayer* layer = nullptr;
  for (const auto& a : apps_) {
    if (a.pid == 0) continue;
    if (layer_name(a, false) == name) layer = &a.window_layer;
    if (a.cfg.game_fps > 0 && layer_name(a, true) == name) layer = &a.game_layer;
  }
  if (layer == nullptr) return out;
  const std::int64_t now = now_mono();
  for (std::size_t i = layer->rows.size(); i < 127; ++i) out += "0\t0\t0\n";
  for (const auto& r : layer->rows) {
    const std::int64_t actual = r[1] <= now ? r[1] : std::numeric_limits<std::int64_t>::max();
    const std::int64_t ready = r[2] <= now ? r[2] : std::numeric_limits<std::int64_t>::max();
    char buf[96];
    std::snprintf(buf, sizeof buf, "%" PRId64 "\t%" PRId64 "\t%" PRId64 "\n", r[0], actual, ready);
    out += buf;
  }
  out += "\n";
  return out;
}

std::string Device::dumpsys_power() const {
  const char* wakefulness = screen_ == Screen::on ? "Awake" : screen_ == Screen::doze ? "Dozing" : "Asleep";
  const char* display = screen_ == Screen::on ? "ON" : screen_ == Screen::doze ? "DOZE" : "OFF";
  return std::string("POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  mDirty=0x0\n  mWakefulness=") +
         wakefulness + "\n  mWakefulnessChanging=false\n  mIsPowered=true\n  mPlugType=2\n  mStayOn=false\n" +
         "  mBootCompleted=true\n  mSystemReady=true\n\nDisplay Power: state=" + display + "\n";
}

}  // namespace jank::devsim

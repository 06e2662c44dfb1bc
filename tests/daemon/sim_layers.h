// The layers a simulated feed app and game present (devsim/surfaceflinger.cc
// names them as Android does) and their series in the exposition.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace jank::daemon_test {

inline const std::string kFeed = "com.example.feed";
inline const std::string kGame = "com.example.game";

struct LayerId {
  std::string package, layer, kind;
  auto operator<=>(const LayerId&) const = default;
};

// The feed's window, the game's window and the game's SurfaceView.
inline const std::vector<LayerId> kLayers = {
    {kFeed, kFeed + "/" + kFeed + ".MainActivity", "app_window"},
    {kGame, kGame + "/" + kGame + ".MainActivity", "app_window"},
    {kGame, "SurfaceView[" + kGame + "/" + kGame + ".MainActivity](BLAST)", "surface_view"},
};

inline std::string layer_series(const std::string& family, const std::string& serial, const LayerId& l) {
  return family + "{serial=\"" + serial + "\",package=\"" + l.package + "\",layer=\"" + l.layer + "\",kind=\"" +
         l.kind + "\"}";
}

// How many times the exporter found a layer's table moved past frames it had
// not read yet (0 before its first poll).
inline double overflows(const std::map<std::string, double>& s, const std::string& serial, const LayerId& l) {
  const auto it = s.find(layer_series("android_layer_poll_overflows_total", serial, l));
  return it == s.end() ? 0 : it->second;
}

}  // namespace jank::daemon_test

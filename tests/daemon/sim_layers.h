// The layers a simulated feed app and game present (devsim/surfaceflinger.cc
// names them as Android does) and their series in the exposition.
#pragma once

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

}  // namespace jank::daemon_test

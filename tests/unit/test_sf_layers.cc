#include <catch2/catch.hpp>

#include "parsers/sf_layers.h"

using namespace jank::parsers;

TEST_CASE("layer list: plain names per line, Android 15's wrapper removed, broken wrappers counted", "[sf_layers]") {
  const std::string text =
      "Display 0 name=\"Built-in Screen\"#2\r\n"
      "com.example.game/com.example.game.UnityPlayerActivity#0\n"
      "RequestedLayerState{com.example.feed/com.example.feed.Main#812 parentId=790 z=-5}\n"
      "RequestedLayerState{broken\n"
      "RequestedLayerState{name parentId=x}\n"
      "\n";
  const SfLayerList list = parse_sf_layer_list(text);
  CHECK(list.names == std::vector<std::string>{"Display 0 name=\"Built-in Screen\"#2",
                                               "com.example.game/com.example.game.UnityPlayerActivity#0",
                                               "com.example.feed/com.example.feed.Main#812"});
  CHECK(list.malformed_lines == 2);
  CHECK(parse_sf_layer_list(std::string(5000, 'x')).malformed_lines == 1);
}

TEST_CASE("layer names by Android version: which are an app's buffer layers", "[sf_layers]") {
  struct Row {
    const char* name;
    const char* package;  // "" when no app's
    LayerKind kind;
    const char* stable;
  };
  const Row rows[] = {
      // Android 9/10: no suffix on old releases, SurfaceView with " - ".
      {"com.example.app/com.example.app.MainActivity", "com.example.app", LayerKind::app_window,
       "com.example.app/com.example.app.MainActivity"},
      {"SurfaceView - com.example.game/com.example.game.GameActivity#0", "com.example.game", LayerKind::surface_view,
       "SurfaceView - com.example.game/com.example.game.GameActivity"},
      // Android 11/12: #0/#1 unique suffixes, BLAST SurfaceView children.
      {"com.example.app/com.example.app.MainActivity#1", "com.example.app", LayerKind::app_window,
       "com.example.app/com.example.app.MainActivity"},
      {"SurfaceView[com.example.game/com.example.game.GameActivity](BLAST)#0", "com.example.game",
       LayerKind::surface_view, "SurfaceView[com.example.game/com.example.game.GameActivity](BLAST)"},
      // Android 13+: #<layer id>.
      {"SurfaceView[com.example.game/com.example.game.GameActivity](BLAST)#2251", "com.example.game",
       LayerKind::surface_view, "SurfaceView[com.example.game/com.example.game.GameActivity](BLAST)"},
      // Containers, sinks and system layers are no app's.
      {"SurfaceView[com.example.game/com.example.game.GameActivity]#2250", "", LayerKind::app_window, ""},
      {"54dfae7 com.example.app/com.example.app.MainActivity#2240", "", LayerKind::app_window, ""},
      {"ActivityRecord{5e6ac22 u0 com.example.app/.MainActivity t329}#2239", "", LayerKind::app_window, ""},
      {"StatusBar#75", "", LayerKind::app_window, ""},
      {"Task=329#2230", "", LayerKind::app_window, ""},
      {"x;reboot/evil#1", "", LayerKind::app_window, ""},
  };
  for (const auto& r : rows) {
    CAPTURE(r.name);
    const auto layer = classify_layer(r.name);
    if (std::string(r.package).empty()) {
      CHECK_FALSE(layer);
      continue;
    }
    REQUIRE(layer);
    CHECK(layer->name == r.name);
    CHECK(layer->package == r.package);
    CHECK(layer->kind == r.kind);
    CHECK(layer->stable_name == r.stable);
  }
}

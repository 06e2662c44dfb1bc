// `dumpsys SurfaceFlinger --list`: one layer name per line. Android 15 wraps
// each as `RequestedLayerState{<name> parentId=N}` (the first line also
// ` z=N`); `--latency` wants the bare name. Names carry a unique suffix:
// `#0`/`#1` on Android 11 and 12, `#<layer id>` from 13.
//
// Which layers show an app's frames:
//   - its window's buffer layer, `<package>/<activity>#N` (the window
//     container above it is the same name after a hex token: `1a2b3c4 <package>/…`);
//   - a SurfaceView's buffer layer: `SurfaceView[<package>/<activity>](BLAST)#N`
//     from Android 11, `SurfaceView - <package>/<activity>#N` before (the
//     `SurfaceView[…]#N` container has no buffer).
// Everything else (containers, input sinks, system bars, tasks) is no app's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jank::parsers {

enum class LayerKind : std::uint8_t { app_window, surface_view };

struct AppLayer {
  std::string name;     // exact, as --latency wants it
  std::string package;  // whose frames it shows
  LayerKind kind = LayerKind::app_window;
  // The name without the unique suffix: stays the same when the activity is
  // recreated and the layer comes back with another suffix.
  std::string stable_name;
};

struct SfLayerList {
  std::vector<std::string> names;  // every layer, unwrapped
  std::uint64_t malformed_lines = 0;  // wrapped lines whose wrapper did not parse, over-long names
};

SfLayerList parse_sf_layer_list(std::string_view text);

// The app layer `name` is, or nullopt.
std::optional<AppLayer> classify_layer(std::string_view name);

// The name without SurfaceFlinger's unique suffix "#<n>" (every layer has one
// from Android 9), or the name itself when it has none.
std::string_view strip_layer_suffix(std::string_view name);

}  // namespace jank::parsers

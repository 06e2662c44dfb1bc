// Display refresh rate from `dumpsys display` (Android 4.4-15 layouts) and
// from `dumpsys SurfaceFlinger` (Android 7-15, including `--displays`).
// Pure functions over decoded UTF-8 text (CRLF tolerated); never throw.
//
// Display choice: the daemon measures the built-in panel.
//  - dumpsys display: the first `DisplayDeviceInfo{` block (the built-in
//    display is registered first by LocalDisplayAdapter at boot; later blocks
//    are external/virtual/overlay displays) and the `DisplayInfo` of
//    `displayId 0`. Excerpts without any block header are taken as they are.
//  - dumpsys SurfaceFlinger: the global vsync lines (they describe the
//    primary/pacesetter display) and, in the `Displays` section, the block
//    whose header says `primary` or `connectionType=Internal`, else the first.
//
// Rates are returned exactly as printed (57.999996 stays 57.999996) or, for
// periods, as 1e9/period_ns; rounding is the caller's business. Any rate
// outside (1, 1000] Hz is rejected as garbage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jank::parsers {

// One supported display mode, in the numbering of the list it came from
// (DisplayManager and SurfaceFlinger number the same modes differently).
struct DisplayModeRate {
  std::int32_t id = -1;
  std::int32_t width = 0;   // 0 when not printed
  std::int32_t height = 0;
  double hz = 0;
};

struct RefreshRate {
  double hz = 0;
  // Which key produced hz, e.g. "mActiveSfDisplayMode", "mActiveModeId",
  // "DisplayDeviceInfo", "DisplayInfo", "single mode", "VSYNC period",
  // "DispSync refresh", "activeMode", "activeModeId", "Current mode",
  // "refresh-rate", "vendor vsync period", "mode time".
  std::string source;
  std::optional<std::int64_t> period_ns;   // set when hz was derived from a period line
  std::optional<std::int32_t> mode_id;     // active mode id when the dump names it
};

struct RefreshInfo {
  std::optional<RefreshRate> active;       // nullopt: the dump does not say which mode is active
  // The app render rate when printed (Android 14+ renderFrameRate /
  // activeMode "(render)"); may be a divisor of the panel rate, never used as hz.
  std::optional<double> render_hz;
  std::vector<DisplayModeRate> modes;      // supported modes of the chosen display, printed order
  std::string modes_source;                // list the modes came from ("mSupportedModes", "mSfDisplayModes", "displayModes", ...)
  std::optional<double> peak_hz;           // highest rate among `modes`
};

RefreshInfo parse_display_info(std::string_view dumpsys_display);
RefreshInfo parse_surfaceflinger_info(std::string_view dumpsys_sf);

// Convenience: just the active rate.
std::optional<RefreshRate> parse_display_refresh_rate(std::string_view dumpsys_display);
std::optional<RefreshRate> parse_surfaceflinger_refresh_rate(std::string_view dumpsys_sf);

}  // namespace jank::parsers

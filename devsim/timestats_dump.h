// `dumpsys SurfaceFlinger --timestats -dump` as the simulated device's
// Android version prints it (sdk 31..36, Android 12..16), from plain counters.
//
// Modelled on frameworks/native TimeStats/timestatsproto/TimeStatsHelper.cpp
// (toString of TimeStatsGlobal, TimeStatsLayer, JankPayload, Histogram) and
// TimeStats::dump (nothing at all while statsStart is 0; a final "\n"):
//   - 33+: the compositionStrategyPredicted/…Succeeded/…Failed lines;
//   - gameMode: "GameModeStandard" on 31/32, "Standard" from 33, "Custom"
//     (4) from 34, a mode without a name printed as its number;
//   - "SetFrateRate vote for this layer:" up to 34, "SetFrameRate …" from 35;
//   - present2presentDelta histogram from 34.
// Histograms print all 85 buckets; only the layers' present2present one is
// modelled (it gives averageFPS), the others print zeros. Layers are printed
// most frames first, as SurfaceFlinger sorts them. An sdk below 31 prints the
// 31 text, above 36 the 36 text.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace jank::devsim {

struct SimJankPayload {
  std::int32_t total_timeline_frames = 0;
  std::int32_t janky_frames = 0;
  std::int32_t sf_long_cpu = 0;
  std::int32_t sf_long_gpu = 0;
  std::int32_t sf_unattributed = 0;   // Display HAL
  std::int32_t app_unattributed = 0;  // App Deadline Missed
  std::int32_t sf_scheduling = 0;
  std::int32_t sf_prediction_error = 0;
  std::int32_t app_buffer_stuffing = 0;
};

// One (display refresh rate, render rate) bucket of the global jank payload.
struct SimTimeStatsGlobal {
  std::int32_t refresh_rate_fps = 60;
  std::int32_t render_rate_fps = 60;
  SimJankPayload jank;
};

struct SimTimeStatsLayer {
  std::int32_t refresh_rate_fps = 60;
  std::int32_t render_rate_fps = 60;
  std::int32_t uid = 10000;
  std::string layer_name;  // with its "#N" suffix; "none" for jank of untracked layers
  std::int32_t game_mode = 0;  // 0 unsupported, 1 standard, 2 performance, 3 battery, 4 custom
  std::int32_t total_frames = 0;
  std::int32_t dropped_frames = 0;
  std::int32_t late_acquire_frames = 0;
  std::int32_t bad_desired_present_frames = 0;
  SimJankPayload jank;
  float frame_rate_vote = 0;  // setFrameRate() vote, 0: none
  // Present-to-present intervals: bucket (ms) → frames; a key between buckets
  // goes to the next bucket up, as SurfaceFlinger files it. Empty: no
  // present2present histogram and no averageFPS line (the "none" layer).
  std::map<std::int32_t, std::int32_t> present_to_present_ms;
};

struct SimTimeStats {
  std::int64_t stats_start = 0;  // unix seconds; 0: never enabled (prints nothing)
  std::int64_t stats_end = 0;    // unix seconds: the dump's time
  std::int32_t total_frames = 0;
  std::int32_t missed_frames = 0;
  std::int32_t client_composition_frames = 0;
  std::int64_t display_on_ms = 0;
  std::map<std::int32_t, std::int64_t> display_config_ms;  // refresh rate (fps) → ms spent
  std::vector<SimTimeStatsGlobal> global;
  std::vector<SimTimeStatsLayer> layers;
};

std::string format_timestats(int sdk, const SimTimeStats& stats);

}  // namespace jank::devsim

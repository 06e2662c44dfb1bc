// `dumpsys SurfaceFlinger --timestats -dump` (Android 12+): SurfaceFlinger's
// cumulative counters since TimeStats was enabled or last cleared, with the
// jank payload FrameTimeline feeds it.
//
// Format (frameworks/native TimeStats/timestatsproto/TimeStatsHelper.cpp,
// "key = value" lines): "SurfaceFlinger TimeStats:", "Legacy stats are as
// follows:", statsStart/statsEnd (unix seconds) and other legacy lines with
// histograms; then "Global aggregated jank payload (Timeline stats):" and one
// block per (displayRefreshRate, renderRate) bucket; then one block per
// (bucket, uid, layerName, gameMode), most frames first. Differences by
// version: compositionStrategy* lines from 13; gameMode names
// "GameModeStandard" on 12 but "Standard" from 13 ("Custom" from 14); the
// layer's "SetFrateRate vote" header of 12-14 spelled "SetFrameRate" from 15;
// a present2presentDelta histogram from 14. Never enabled (statsStart 0): no
// output at all. Android 11 has no jank payload and no buckets: its layer
// blocks are counted as discarded.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jank::parsers {

// The jank payload's counters, in print order.
enum class TsJankField : std::uint8_t {
  total_timeline_frames,  // every frame FrameTimeline classified
  janky_frames,           // frames with a cause below but buffer stuffing
  sf_long_cpu,
  sf_long_gpu,
  sf_unattributed,  // Display HAL
  app_unattributed,  // App Deadline Missed
  sf_scheduling,
  sf_prediction_error,
  app_buffer_stuffing,  // counted even when the frame is not janky
};
inline constexpr std::size_t kTsJankFieldCount = 9;
inline constexpr std::array<TsJankField, kTsJankFieldCount> kTsJankFields = {
    TsJankField::total_timeline_frames, TsJankField::janky_frames,        TsJankField::sf_long_cpu,
    TsJankField::sf_long_gpu,           TsJankField::sf_unattributed,     TsJankField::app_unattributed,
    TsJankField::sf_scheduling,         TsJankField::sf_prediction_error, TsJankField::app_buffer_stuffing};

// The JankBit (parsers/frametimeline.h) the field counts, so that
// jank_bit_name() gives the project's cause label; 0 for the two totals.
std::uint32_t ts_jank_field_cause(TsJankField field);

struct TsJankPayload {
  std::array<std::uint64_t, kTsJankFieldCount> counts{};
  std::uint64_t operator[](TsJankField f) const { return counts[static_cast<std::size_t>(f)]; }
  std::uint64_t& operator[](TsJankField f) { return counts[static_cast<std::size_t>(f)]; }
  bool operator==(const TsJankPayload&) const = default;
};

// A layer's game mode, the same on every version (12 printed "GameModeBattery",
// 13+ "Battery"; 13+ print the number of a mode without a name: `other`).
enum class TsGameMode : std::uint8_t { not_printed, unsupported, standard, performance, battery, custom, unspecified, other };

struct TsGlobalBucket {
  int refresh_rate_fps = 0;  // displayRefreshRate, rounded to 30 fps buckets by SurfaceFlinger
  int render_rate_fps = 0;
  TsJankPayload jank;
};

struct TsLayer {
  int refresh_rate_fps = 0;
  int render_rate_fps = 0;
  std::int64_t uid = 0;
  std::string layer_name;    // with its "#N" suffix; "none": jank of layers TimeStats does not track
  std::string package_name;  // printed but never filled in by SurfaceFlinger (12-16): usually empty
  TsGameMode game_mode = TsGameMode::not_printed;
  std::uint64_t total_frames = 0;    // presented frames
  std::uint64_t dropped_frames = 0;  // frames replaced before they were latched
  TsJankPayload jank;
};

enum class TimeStatsText : std::uint8_t {
  empty,           // no output: TimeStats never enabled (or cleared while disabled)
  timestats,       // the "SurfaceFlinger TimeStats:" text
  not_recognised,  // something else (a permission denial, another command's output)
};

struct TimeStatsDump {
  TimeStatsText text = TimeStatsText::empty;
  bool has_jank_payload = false;             // the "Global aggregated jank payload" header was read
  std::optional<std::int64_t> stats_start;   // unix seconds: enable, or the last clear of the global stats
  std::optional<std::int64_t> stats_end;     // unix seconds: this dump (or the disable)
  std::vector<TsGlobalBucket> global;        // in print order
  std::vector<TsLayer> layers;               // in print order (most frames first)
  std::uint64_t lines = 0;                   // non-empty lines read
  std::uint64_t malformed_lines = 0;         // lines that are no part of the format, values that do not parse
  std::uint64_t discarded_blocks = 0;        // blocks cut short (truncated dump), without a jank payload, or beyond the caps
};

TimeStatsDump parse_timestats(std::string_view text);

// A capture of several dumps in a row, one text per dump from its
// "SurfaceFlinger TimeStats:" header on (text before the first is no dump).
std::vector<std::string_view> split_timestats_dumps(std::string_view text);

}  // namespace jank::parsers

// `dumpsys SurfaceFlinger --frametimeline -all` (and `-jank`), Android 12+:
// SurfaceFlinger's own verdict on its newest 64 display frames and on every
// app frame (SurfaceFrame) composed into them.
//
// Format (frameworks/native FrameTimeline.cpp, identical on Android 12-16 but
// for the jank names): "Number of display frames : N" (-all only), then per
// display frame "Display Frame <index>" ([*] when janky) with "Key : value"
// lines and a time table, then its SurfaceFrames, each starting at
// "Layer - <debug name>" ("TX - " + the layer name for app layers). Times are
// milliseconds relative to the oldest frame of the dump, so only Token and
// Layer ID identify a frame across dumps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jank::parsers {

// SurfaceFlinger's jank bits (libs/gui JankInfo.h), each a cause.
enum JankBit : std::uint32_t {
  kJankDisplayHal = 0x1,
  kJankSfCpuDeadlineMissed = 0x2,
  kJankSfGpuDeadlineMissed = 0x4,
  kJankAppDeadlineMissed = 0x8,
  kJankPredictionError = 0x10,
  kJankSfScheduling = 0x20,
  kJankBufferStuffing = 0x40,
  kJankUnknown = 0x80,
  kJankSfStuffing = 0x100,
  kJankDropped = 0x200,  // "Dropped Frame", Android 15+
};
inline constexpr int kJankBitCount = 10;

// The cause's label value, the same on every Android version
// ("sf_cpu_deadline_missed" for both "SurfaceFlinger CPU Deadline Missed" of
// 12/13 and "SurfaceFlinger deadline missed (while in HWC)" of 14+).
std::string_view jank_bit_name(std::uint32_t bit);

enum class FtPresentState : std::uint8_t { unknown, presented, dropped };
enum class FtPrediction : std::uint8_t { none, valid, expired };
enum class FtPresentTiming : std::uint8_t { unknown, on_time, late, early };

struct SurfaceFrame {
  std::string layer;  // the layer's name as --list prints it ("TX - " removed)
  std::int64_t token = -1;  // the app's vsync id (gfxinfo framestats' FrameTimelineVsyncId)
  std::int64_t layer_id = -1;
  std::int64_t owner_pid = -1;
  bool is_buffer = false;
  std::optional<int> render_rate_fps;  // "Scheduled rendering rate"
  FtPresentState present = FtPresentState::unknown;
  FtPrediction prediction = FtPrediction::none;
  std::uint32_t jank = 0;  // JankBit set; 0: None (or not yet classified)
  bool jank_known = false;  // a Jank Type line whose every name is known
  FtPresentTiming present_timing = FtPresentTiming::unknown;
  std::optional<double> present_delta_ms;
};

struct DisplayFrame {
  std::int64_t index = -1;  // position in this dump only (0: oldest)
  FtPrediction prediction = FtPrediction::none;
  std::uint32_t jank = 0;
  FtPresentTiming present_timing = FtPresentTiming::unknown;
  std::optional<double> vsync_period_ms;
  std::vector<SurfaceFrame> surface_frames;
};

struct FrameTimelineDump {
  std::optional<std::int64_t> display_frame_count;  // "Number of display frames : N" (-all)
  std::vector<DisplayFrame> display_frames;          // in print order
  std::uint64_t lines = 0;            // non-empty lines read
  std::uint64_t malformed_lines = 0;  // lines that are no part of the format, values that do not parse
  std::uint64_t unknown_jank_names = 0;  // jank names no Android prints (counted, the frame's other names kept)
};

FrameTimelineDump parse_frametimeline(std::string_view text);

// A capture of several polls in a row, split into one text per poll: a poll
// starts at "Number of display frames" (-all) or where the display frame
// index goes back (-jank, which prints no count). Text before the first
// display frame goes with the first poll.
std::vector<std::string_view> split_frametimeline_polls(std::string_view text);

}  // namespace jank::parsers

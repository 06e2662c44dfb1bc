// `dumpsys gfxinfo [<pkg>] [framestats]` for Android 4 to 16. Pure function
// over decoded UTF-8 text; tolerant of indentation, CRLF, vendor lines,
// missing sections and decimal commas.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/framestats.h"

namespace jank::parsers {

struct HistogramBin {
  std::uint32_t label_ms = 0;  // the number printed before "ms="
  std::uint64_t count = 0;
};

// One "Stats since … HISTOGRAM …" block. Absent lines stay nullopt / empty.
struct GfxStats {
  std::optional<std::uint64_t> stats_since_ns;
  std::optional<std::uint64_t> total_frames;
  std::optional<std::uint64_t> janky_frames;
  std::optional<std::uint64_t> janky_frames_legacy;
  std::optional<std::uint32_t> p50_ms, p90_ms, p95_ms, p99_ms;
  std::optional<std::uint32_t> gpu_p50_ms, gpu_p90_ms, gpu_p95_ms, gpu_p99_ms;
  std::optional<std::uint64_t> missed_vsync;
  std::optional<std::uint64_t> high_input_latency;
  std::optional<std::uint64_t> slow_ui_thread;
  std::optional<std::uint64_t> slow_bitmap_uploads;
  std::optional<std::uint64_t> slow_issue_draw_commands;  // older: "Slow draw"
  std::optional<std::uint64_t> frame_deadline_missed;
  std::optional<std::uint64_t> frame_deadline_missed_legacy;
  std::vector<HistogramBin> histogram;      // "HISTOGRAM:" in printed order
  std::vector<HistogramBin> gpu_histogram;  // "GPU HISTOGRAM:" in printed order
};

// A "Window: <name>" block (Android 12+), or a view root named in the
// "Profile data in ms:" section when a stats block (Android 6) or a
// PROFILEDATA block (Android 7-11) follows it directly: then `name` is that
// line without its " (visibility=N)" suffix ("" when the dump names none).
struct GfxWindow {
  std::string name;                       // text after "Window: " (may be empty)
  std::optional<GfxStats> stats;
  std::optional<FramestatsTable> framestats;
};

struct GfxProcess {
  std::int32_t pid = -1;
  std::string package;                    // text inside [ ] of the section header
  std::optional<GfxStats> stats;          // process-level block
  std::vector<GfxWindow> windows;         // "Window:" blocks and M-era per-view-root blocks
  std::optional<FramestatsTable> framestats;  // ---PROFILEDATA--- outside any Window:
};

struct GfxinfoDump {
  std::vector<GfxProcess> processes;      // in order; the same pid may appear again (several dumps in one input)
  // PROFILEDATA blocks, stats or windows found before any "** Graphics info"
  // header (excerpts).
  std::optional<GfxStats> orphan_stats;
  std::vector<FramestatsTable> orphan_framestats;
  std::vector<GfxWindow> orphan_windows;
  std::uint64_t lines = 0;                // lines read
  std::uint64_t malformed_lines = 0;      // recognised keys whose value did not parse
};

GfxinfoDump parse_gfxinfo(std::string_view text);

}  // namespace jank::parsers

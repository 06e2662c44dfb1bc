// `dumpsys gfxinfo [<pkg>] [framestats]` for Android 4 to 16. Pure function
// over decoded UTF-8 text; tolerant of indentation, CRLF, vendor lines,
// missing sections and decimal commas.
#pragma once

#include <cstddef>
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

// One row of a per-view-root "Profile data in ms:" table (debug.hwui.profile
// set on the device): one frame's stage times in milliseconds, as printed.
// Android 4.x prints Draw/Process/Execute, 5+ Draw/Prepare/Process/Execute;
// Android 6+ clamps every cell to [0, 50]. Kept rows are finite and >= 0,
// except that 4.x marks a Process or Execute stage the frame did not run
// (e.g. no swap) with -1.00, which is kept as 0.
struct GfxProfileRow {
  double draw_ms = 0;                     // UI thread: record display lists (6+: vsync to sync start)
  std::optional<double> prepare_ms;       // sync / prepare tree; absent in 3-column tables
  double process_ms = 0;                  // issue draw commands
  double execute_ms = 0;                  // swap buffers (6+: until the frame completed)
};

// Rows kept per window: above every ring a device prints (128 on 4.x by
// default, at most 4096 on 5.x, 120 on 6+); rows past it are counted in
// GfxinfoDump::profile_rows_discarded.
inline constexpr std::size_t kMaxProfileRowsPerWindow = 4096;

// A "Window: <name>" block (Android 12+), or a view root named in the
// "Profile data in ms:" section when a profile table, a stats block
// (Android 6) or a PROFILEDATA block (Android 7-11) follows it directly: then
// `name` is that line without its " (visibility=N)" suffix ("" when the dump
// names none). On Android 12+ a view root's table is followed by its own
// "Window:" block, and both make one GfxWindow with the Window: name.
struct GfxWindow {
  std::string name;                       // text after "Window: " (may be empty)
  std::optional<GfxStats> stats;
  std::optional<FramestatsTable> framestats;
  bool has_profile_table = false;         // a "Draw\t…" header was seen, even with no rows
  std::vector<GfxProfileRow> profile_rows;  // in printed order; only frames new since the previous dump
};

struct GfxProcess {
  std::int32_t pid = -1;
  std::string package;                    // text inside [ ] of the section header
  std::optional<GfxStats> stats;          // process-level block
  std::vector<GfxWindow> windows;         // "Window:" blocks and per-view-root blocks / profile tables
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
  // Profile table rows: every row line read is kept, malformed or discarded
  // (rows are not counted in malformed_lines).
  std::uint64_t profile_rows_malformed = 0;  // wrong cell count, not a plain decimal, negative
  std::uint64_t profile_rows_discarded = 0;  // past kMaxProfileRowsPerWindow
};

GfxinfoDump parse_gfxinfo(std::string_view text);

// The "key: value" lines of a stats block, shared with the same lines of
// `dumpsys graphicsstats` (parsers/graphicsstats.h): whether `key` (trimmed,
// before the colon) is one, and the line applied to `s` (false when its
// value does not parse; a histogram keeps its good bins).
bool is_gfx_stats_key(std::string_view key);
bool apply_gfx_stats_line(GfxStats& s, std::string_view key, std::string_view value);

}  // namespace jank::parsers

// `dumpsys graphicsstats` (Android 7+): the system's per-app frame statistics,
// kept by system_server per day, package and version code across process
// deaths and reboots. Nothing of it runs on the app's threads.
//
// Format (frameworks/base libs/hwui/service/GraphicsStatsService.cpp,
// dumpAsTextToFd): one block per (day, package, version) — and, since
// Android 11, per uid — each opened by "Package: <name>", then "Version:
// <code>", "Stats since: <start>ns", "Stats end: <end>ns" and the lines of
// gfxinfo's stats block (parsers/gfxinfo.h): totals, percentiles, the
// "Number …" causes, "HISTOGRAM:" and, from Android 10, the GPU lines. The
// start and end are System.currentTimeMillis() of the buffers merged
// (GraphicsStatsService.java), printed with an "ns" suffix: the device's wall
// clock in milliseconds. Blocks come in no fixed order: the running
// processes' first (their file merged with what they drew since), then the
// files of the last three days. A block's counts only grow while it is
// today's; a new day starts a new block.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/gfxinfo.h"

namespace jank::parsers {

struct GraphicsStatsBlock {
  std::string package;
  std::optional<std::int64_t> version_code;
  std::optional<std::int64_t> stats_start;  // as printed (wall-clock ms on every release seen)
  std::optional<std::int64_t> stats_end;
  GfxStats stats;  // stats.stats_since_ns stays empty: "Stats since" is stats_start here
};

enum class GraphicsStatsText : std::uint8_t {
  empty,           // no block: no app drew since the files were last deleted
  graphicsstats,   // one or more "Package:" blocks
  not_recognised,  // text without a block (a permission denial, another command's output)
};

struct GraphicsStatsDump {
  GraphicsStatsText text = GraphicsStatsText::empty;
  bool permission_denied = false;          // dumpsys's "Permission Denial" answer
  std::vector<GraphicsStatsBlock> blocks;  // in print order, complete ones only
  std::uint64_t lines = 0;                 // non-empty lines read
  std::uint64_t malformed_lines = 0;       // recognised keys whose value does not parse, stray lines
  std::uint64_t discarded_blocks = 0;      // blocks without version, times or totals (a cut dump), or past the cap
};

// Blocks kept per dump: three days of every app a device runs is far fewer.
inline constexpr std::size_t kMaxGraphicsStatsBlocks = 4096;

GraphicsStatsDump parse_graphicsstats(std::string_view text);

}  // namespace jank::parsers

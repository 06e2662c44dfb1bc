// The ---PROFILEDATA--- CSV of `dumpsys gfxinfo <pkg> framestats`. Columns are
// named by the header line and grow with the Android version: always map by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jank::parsers {

struct FramestatsTable {
  std::vector<std::string> columns;                 // header names, trailing empty column dropped
  std::vector<std::vector<std::int64_t>> rows;      // one value per column; rows that did not parse are dropped
  std::uint64_t malformed_rows = 0;                 // wrong column count or non-numeric cell
  bool closed = false;                              // the closing ---PROFILEDATA--- marker was seen

  // Index of a named column, or nullopt.
  std::optional<std::size_t> column(std::string_view name) const;
};

// Parses the lines between two ---PROFILEDATA--- markers (markers excluded).
// The first non-empty line must be the header ("Flags,IntendedVsync,…").
FramestatsTable parse_framestats_block(std::string_view block);

}  // namespace jank::parsers

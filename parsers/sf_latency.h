// `dumpsys SurfaceFlinger --latency <layer>`: a refresh-period line, then up to
// 127 rows "desiredPresent actualPresent frameReady" (ns; TAB or space separated).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jank::parsers {

// Rows SurfaceFlinger prints: its FrameTracker ring of 128 records less the
// one being filled.
inline constexpr std::size_t kSfLatencyRows = 127;

struct SfLatency {
  std::optional<std::int64_t> refresh_period_ns;
  std::vector<std::array<std::int64_t, 3>> rows;  // every well-formed data row, zero rows included
  std::uint64_t zero_rows = 0;                    // all three columns 0 (no frame in that slot)
  std::uint64_t pending_rows = 0;                 // any column INT64_MAX (fence not signalled)
  std::uint64_t malformed_lines = 0;              // non-empty lines that are neither (a prompt line, say)
};

SfLatency parse_sf_latency(std::string_view text);

// One output inside a capture of several in a row (a shell loop's output
// saved to a file), for replay.
struct SfLatencySection {
  std::string layer;      // named by a command line before it ("... --latency NAME"), else ""
  std::string_view text;  // the output alone, for parse_sf_latency
};

// Splits a capture at command lines containing "--latency" (the layer name is
// what follows, quotes removed) and at period lines (a lone integer) that
// follow rows or another period line. Lines before the first output stay in it.
std::vector<SfLatencySection> split_sf_latency_capture(std::string_view text);

// Counts how often each refresh period is printed by the outputs of a
// capture, into `counts` (several captures may add to one map).
void count_printed_periods(std::string_view capture, std::map<std::int64_t, std::uint64_t>& counts);
// The period printed most often; the shorter on a tie; nullopt for none.
std::optional<std::int64_t> most_printed_period(const std::map<std::int64_t, std::uint64_t>& counts);

}  // namespace jank::parsers

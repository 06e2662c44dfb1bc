// Counts of the custom log patterns (config `log_patterns:`): per package, a
// series per pattern and captured label value; per device and pattern, the
// label values admitted under the cap, the matches counted under `_other_`
// beyond it, and the captures that could not be used. The source module
// metrics/sources/log_patterns keeps and checkpoints them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "parsers/log_patterns.h"

namespace jank::metrics {

// Label value of matches beyond the per-device cap, or with an unusable label.
inline constexpr std::string_view kOverflowPatternValue = "_other_";
inline constexpr std::size_t kDefaultPatternValues = 50;

struct PatternSeries {
  std::uint64_t matches = 0;
  bool has_value = false;    // the pattern sums a value_group
  std::uint64_t values = 0;  // values summed (matches whose capture was a number ≥ 0)
  double value_sum = 0;
};
// (pattern name, label value: "" for a pattern without label_group)
using PatternKey = std::pair<std::string, std::string>;
// Looks series up by views of the line, without copies.
struct PatternKeyLess {
  using is_transparent = void;
  using View = std::pair<std::string_view, std::string_view>;
  static View view(const PatternKey& k) { return {k.first, k.second}; }
  static View view(const View& v) { return v; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return view(a) < view(b);
  }
};
using PackagePatterns = std::map<PatternKey, PatternSeries, PatternKeyLess>;

struct PatternDeviceCounts {
  bool has_label = false;  // the pattern has a label_group (overflow and label discards apply)
  bool has_value = false;  // the pattern has a value_group (value discards apply)
  std::uint64_t overflow = 0;  // matches put under _other_ because the cap was reached
  std::array<std::uint64_t, parsers::kPatternDiscards> discarded{};
  // Label values that have a series on the device (what the cap counts).
  // Not checkpointed: rebuilt from the package series.
  std::set<std::string, std::less<>> values;
};
using DevicePatterns = std::map<std::string, PatternDeviceCounts, std::less<>>;

// Counts one hit into the package's series; at most `max_values` label
// values per pattern on the device (`device` holds them).
void count_pattern_hit(DevicePatterns& device, PackagePatterns& package, const parsers::LogPatternHit& hit,
                       std::size_t max_values);

}  // namespace jank::metrics

// dumpsys SurfaceFlinger --timestats -dump parser on arbitrary text, and the
// tracker fed the dump, a repeat of it, its two halves and the dump again:
// the parse accounts for its lines, totals never go down, a repeat adds
// nothing, and the key caps hold.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string_view>

#include "metrics/timestats_tracker.h"
#include "parsers/timestats.h"

namespace {

using jank::metrics::TimeStatsTracker;

constexpr std::size_t kMaxLayers = 4;  // small caps, so that inputs reach them
constexpr std::size_t kMaxBuckets = 2;

void check_grew(const TimeStatsTracker& before_tracker, const TimeStatsTracker& tracker) {
  for (const auto& [key, before] : before_tracker.layers()) {
    const auto it = tracker.layers().find(key);
    if (it == tracker.layers().end()) std::abort();  // a key that disappears keeps its totals
    if (it->second.total_frames < before.total_frames || it->second.dropped_frames < before.dropped_frames)
      std::abort();
    for (std::size_t i = 0; i < jank::parsers::kTsJankFieldCount; ++i)
      if (it->second.jank.counts[i] < before.jank.counts[i]) std::abort();
  }
  for (const auto& [key, before] : before_tracker.buckets()) {
    const auto it = tracker.buckets().find(key);
    if (it == tracker.buckets().end()) std::abort();
    for (std::size_t i = 0; i < jank::parsers::kTsJankFieldCount; ++i)
      if (it->second.counts[i] < before.counts[i]) std::abort();
  }
  if (tracker.layers().size() > kMaxLayers || tracker.buckets().size() > kMaxBuckets) std::abort();
}

void observe(TimeStatsTracker& tracker, const jank::parsers::TimeStatsDump& dump) {
  const TimeStatsTracker before = tracker;
  tracker.observe(dump);
  check_grew(before, tracker);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto dump = jank::parsers::parse_timestats(text);
  if (dump.malformed_lines > dump.lines) std::abort();
  for (const auto& l : dump.layers) {
    if (l.layer_name.empty()) std::abort();
  }

  TimeStatsTracker tracker(kMaxLayers, kMaxBuckets);
  observe(tracker, dump);
  // The same dump again adds nothing and is no reset.
  const TimeStatsTracker once = tracker;
  const auto again = tracker.observe(dump);
  if (tracker.layers() != once.layers() || tracker.buckets() != once.buckets()) std::abort();
  if (again.bucket_reset || again.layer_reset) std::abort();

  observe(tracker, jank::parsers::parse_timestats(text.substr(0, size / 2)));
  observe(tracker, jank::parsers::parse_timestats(text.substr(size / 2)));
  observe(tracker, dump);
  return 0;
}

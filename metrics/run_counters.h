// What a run counts: an app's cumulative counters on one device, flattened
// to named values so that a run can take differences between two moments.
//
// Keys are "metric@source": the source is the process (gfxinfo, logcat,
// framestats, FrameTimeline) or the SurfaceFlinger layer the value comes
// from. Each source's counters only grow, so a difference per key is exact;
// a value that fell means its source restarted from 0 (a series re-created
// after it expired), and then the new value is all new. Summing per metric
// across sources happens only on the differences, never on the snapshots
// (a layer that vanished would otherwise read as a fall of the sum).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/store.h"

namespace jank::metrics {

class StateReader;
class StateWriter;

// Histogram names a run keeps (their bucket layouts are the exported ones).
inline constexpr std::string_view kRunFrameDuration = "frame_duration_seconds";
inline constexpr std::string_view kRunSkipSize = "skip_size_frames";

struct AppCounters {
  std::map<std::string, std::uint64_t, std::less<>> values;              // "metric@source"
  std::map<std::string, std::vector<std::uint64_t>, std::less<>> buckets;  // "histogram@source", per bucket

  bool operator==(const AppCounters&) const = default;

  // Sum of `metric` over every source; nullopt when no source has it.
  std::optional<std::uint64_t> total(std::string_view metric) const;
  // The largest value of `metric` over its sources; nullopt when none has it.
  std::optional<std::uint64_t> largest(std::string_view metric) const;
  // Per-bucket sum of `histogram` over every source (empty when none).
  std::vector<std::uint64_t> total_buckets(std::string_view histogram) const;
  // Totals of every metric starting with `prefix` ("cause:"), by the rest of the name.
  std::map<std::string, std::uint64_t> totals_with_prefix(std::string_view prefix) const;

  void save(StateWriter& w) const;
  bool load(StateReader& r);
};

// The counters of `package` (its processes "package" and "package:*" and its
// layers) on `device` now.
AppCounters snapshot_app(const DeviceMetrics& device, std::string_view package);

// Adds to `sum` what grew from `before` to `now`, key by key (a fall counts
// as a restart from 0). Returns how many sources restarted.
std::uint64_t add_growth(AppCounters& sum, const AppCounters& before, const AppCounters& now);

}  // namespace jank::metrics

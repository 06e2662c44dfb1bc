// The counters `jank_exporter observer-test` compares between phases: an
// app's frames and janky frames as graphicsstats (HWUI's verdict, kept by
// system_server) and TimeStats (SurfaceFlinger's verdict) count them. Both
// are cumulative and kept outside the app, so polling cannot fake them; a
// phase's counts are the difference of two readings, block by block.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "metrics/observer_effect.h"
#include "parsers/graphicsstats.h"
#include "parsers/timestats.h"

namespace jank::metrics {

struct CounterReading {
  bool readable = false;
  // What a reset of the whole counter changes (TimeStats' statsStart); a
  // phase across a change is not counted.
  std::optional<std::int64_t> epoch;
  // Per block (graphicsstats: version and start; TimeStats: layer and
  // rates): frames, janky frames.
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> blocks;
};

CounterReading graphicsstats_reading(const parsers::GraphicsStatsDump& dump, std::string_view package);
// The package's layers (parsers::classify_layer): its windows and SurfaceViews.
CounterReading timestats_reading(const parsers::TimeStatsDump& dump, std::string_view package);

// What happened between two readings: new blocks count whole; a block that
// went down (a clear, a reset), an epoch change or an unreadable reading
// makes the phase invalid. Blocks gone (a day's file deleted) count nothing.
PhaseCounts phase_counts(const CounterReading& before, const CounterReading& after);

}  // namespace jank::metrics

// The series budget of each device (docs/metrics.md, "Series budget"): which
// detailed groups its series include besides the default profile, and how
// many series one device may have. A device over the cap loses its detailed
// series, then whole apps, and says so in jank_exporter_device_series_dropped;
// the host's other devices and the scrape itself are never touched.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "metrics/series.h"

namespace jank::exporters {

struct SeriesBudget {
  // Whether each group (metrics::SeriesGroup, by value) is exported; core always.
  std::array<bool, metrics::kSeriesGroups> groups{true};
  std::size_t max_per_device = 0;  // 0: no cap

  bool exports(metrics::SeriesGroup group) const { return groups[static_cast<std::size_t>(group)]; }
};

// The budget `series.detailed` and `series.max_per_device` describe: group
// names as metrics::series_group_name spells them, or "all". Names were
// checked with the configuration; an unknown one adds nothing.
SeriesBudget series_budget(const std::vector<std::string>& detailed, std::size_t max_per_device);

// Series a sample or histogram call writes: one, or a histogram's buckets
// (with +Inf), _count and _sum.
std::size_t series_written(const metrics::Histogram& h);

}  // namespace jank::exporters

#include "metrics/series.h"

namespace jank::metrics {

std::string_view family_type_name(FamilyType type) {
  switch (type) {
    case FamilyType::counter: return "counter";
    case FamilyType::gauge: return "gauge";
    case FamilyType::histogram: return "histogram";
  }
  return "untyped";
}

std::string_view series_group_name(SeriesGroup group) {
  switch (group) {
    case SeriesGroup::core: return "core";
    case SeriesGroup::stages: return "stages";
    case SeriesGroup::windows: return "windows";
    case SeriesGroup::distributions: return "distributions";
    case SeriesGroup::jank_types: return "jank_types";
  }
  return "core";
}

std::optional<SeriesGroup> series_group_named(std::string_view name) {
  for (std::size_t g = 0; g < kSeriesGroups; ++g) {
    if (series_group_name(static_cast<SeriesGroup>(g)) == name) return static_cast<SeriesGroup>(g);
  }
  return std::nullopt;
}

}  // namespace jank::metrics

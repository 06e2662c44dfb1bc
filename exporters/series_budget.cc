#include "exporters/series_budget.h"

namespace jank::exporters {

SeriesBudget series_budget(const std::vector<std::string>& detailed, std::size_t max_per_device) {
  SeriesBudget budget;
  budget.max_per_device = max_per_device;
  for (const auto& name : detailed) {
    if (name == "all") {
      budget.groups.fill(true);
    } else if (const auto group = metrics::series_group_named(name)) {
      budget.groups[static_cast<std::size_t>(*group)] = true;
    }
  }
  return budget;
}

std::size_t series_written(const metrics::Histogram& h) { return h.upper_bounds().size() + 3; }

}  // namespace jank::exporters

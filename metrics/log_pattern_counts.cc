#include "metrics/log_pattern_counts.h"

namespace jank::metrics {

void count_pattern_hit(DevicePatterns& device, PackagePatterns& package, const parsers::LogPatternHit& hit,
                       std::size_t max_values) {
  auto [d, added] = device.try_emplace(std::string(hit.name));
  (void)added;
  PatternDeviceCounts& counts = d->second;
  counts.has_label = counts.has_label || hit.has_label;
  counts.has_value = counts.has_value || hit.has_value;
  std::string_view label;
  if (hit.has_label) {
    if (hit.label == kOverflowPatternValue) {
      label = kOverflowPatternValue;  // captured as is: the overflow series, not a value of the cap
    } else if (hit.label.empty() || hit.label.size() > parsers::kMaxLogPatternLabelBytes) {
      ++counts.discarded[static_cast<std::size_t>(parsers::PatternDiscard::label_invalid)];
      label = kOverflowPatternValue;
    } else if (counts.values.contains(hit.label)) {
      label = hit.label;
    } else if (counts.values.size() < max_values) {
      label = *counts.values.emplace(hit.label).first;
    } else {
      ++counts.overflow;
      label = kOverflowPatternValue;
    }
  }
  auto it = package.find(PatternKeyLess::View(hit.name, label));
  if (it == package.end()) it = package.try_emplace(PatternKey(hit.name, label)).first;
  PatternSeries& s = it->second;
  ++s.matches;
  if (!hit.has_value) return;
  s.has_value = true;
  if (hit.value_ok) {
    ++s.values;
    s.value_sum += hit.value;
  } else {
    ++counts.discarded[static_cast<std::size_t>(hit.value_discard)];
  }
}

}  // namespace jank::metrics

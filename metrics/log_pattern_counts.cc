#include "metrics/log_pattern_counts.h"

#include <cmath>

namespace jank::metrics {
namespace {

constexpr std::uint64_t kMaxSeriesRecords = 1'000'000;

bool plausible_label(const std::string& value) { return value.size() <= parsers::kMaxLogPatternLabelBytes; }

}  // namespace

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

void save_package_patterns(StateWriter& w, const PackagePatterns& p) {
  w.tag("log_patterns").u64(p.size());
  for (const auto& [key, s] : p) {
    w.str(key.first).str(key.second).u64(s.matches).boolean(s.has_value).u64(s.values).f64(s.value_sum);
  }
}

bool load_package_patterns(StateReader& r, PackagePatterns& p) {
  r.expect("log_patterns");
  const std::uint64_t before = r.rejected();
  const std::uint64_t n = r.count(kMaxSeriesRecords);
  bool sane = true;
  PackagePatterns loaded;
  for (std::uint64_t k = 0; k < n && !r.fail(); ++k) {
    std::string name = r.str();
    std::string value = r.str();
    PatternSeries s;
    s.matches = r.u64();
    s.has_value = r.boolean();
    s.values = r.u64();
    s.value_sum = r.f64();
    sane = sane && parsers::check_log_pattern_name(name).empty() && plausible_label(value) &&
           s.values <= s.matches && std::isfinite(s.value_sum) && s.value_sum >= 0 &&
           (s.has_value || (s.values == 0 && s.value_sum == 0));
    loaded.insert_or_assign(PatternKey(std::move(name), std::move(value)), s);
  }
  if (r.fail() || r.rejected() != before || !sane) return false;
  p = std::move(loaded);
  return true;
}

void save_device_patterns(StateWriter& w, const DevicePatterns& d) {
  w.tag("log_pattern_device").u64(d.size());
  for (const auto& [name, c] : d) {
    w.str(name).boolean(c.has_label).boolean(c.has_value).u64(c.overflow).u64(c.discarded.size());
    for (const auto n : c.discarded) w.u64(n);
  }
}

bool load_device_patterns(StateReader& r, DevicePatterns& d) {
  r.expect("log_pattern_device");
  const std::uint64_t before = r.rejected();
  const std::uint64_t n = r.count(kMaxSeriesRecords);
  bool sane = true;
  DevicePatterns loaded;
  for (std::uint64_t k = 0; k < n && !r.fail(); ++k) {
    std::string name = r.str();
    PatternDeviceCounts c;
    c.has_label = r.boolean();
    c.has_value = r.boolean();
    c.overflow = r.u64();
    // Reasons added later are read as 0 from older files; unknown ones are skipped.
    const std::uint64_t reasons = r.count(64);
    for (std::uint64_t i = 0; i < reasons && !r.fail(); ++i) {
      const std::uint64_t v = r.u64();
      if (i < c.discarded.size()) c.discarded[i] = v;
    }
    sane = sane && parsers::check_log_pattern_name(name).empty();
    loaded.insert_or_assign(std::move(name), std::move(c));
  }
  if (r.fail() || r.rejected() != before || !sane) return false;
  d = std::move(loaded);
  return true;
}

}  // namespace jank::metrics

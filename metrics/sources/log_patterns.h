// Source module: the custom log patterns (config `log_patterns:`). Per app,
// a series per pattern and captured label value; per device and pattern,
// the label values admitted under the cap, the matches put under `_other_`
// beyond it, and the captures that could not be used
// (metrics/log_pattern_counts.h holds the counting rule).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "metrics/log_pattern_counts.h"
#include "metrics/source.h"
#include "parsers/log_patterns.h"

namespace jank::metrics {

struct DevicePatternState final : SourceState {
  DevicePatterns by_pattern;
};
struct AppPatternState final : SourceState {
  PackagePatterns series;
};

class LogPatternSource final : public DeviceSourceOf<DevicePatternState> {
 public:
  std::string_view name() const override { return "log_patterns"; }
  std::string_view record() const override { return "log_pattern_device"; }
  std::span<const FamilySpec> families() const override;
  bool collects_at(CollectAt at) const override { return at == CollectAt::before_surface; }
  void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels, std::int64_t now_ns,
               CollectAt at) const override;
  std::string_view rejected_why() const override {
    return "a value that cannot be true; overflow and discard counts restart from 0";
  }

  std::unique_ptr<SourceState> make_package_state() const override { return std::make_unique<AppPatternState>(); }
  bool package_worth_saving(const SourceState& state, PackageAt) const override {
    return !static_cast<const AppPatternState&>(state).series.empty();
  }
  // Its one part, at PackageAt::last.
  std::string_view package_tag(PackageAt at) const override { return at == PackageAt::last ? name() : std::string_view{}; }
  bool checkpoint_package(Checkpoint& c, SourceState& state, PackageAt at) const override;
  void collect_package(SeriesSink& sink, const DeviceMetrics& device, const std::string& package,
                       const PackageMetrics& p, std::int64_t now_ns, PackageAt at) const override;
  // The label values the cap counts are those that still have a series.
  void packages_changed(DeviceMetrics& device) const override;

 protected:
  bool state_worth_saving(const DevicePatternState& state) const override { return !state.by_pattern.empty(); }
  bool checkpoint_state(Checkpoint& c, DevicePatternState& state) const override;
};
const LogPatternSource& log_pattern_source();

// A configured pattern matched a line of `package`: at most `max_values`
// label values per pattern on the device.
void record_log_pattern(Store& store, DeviceMetrics& device, std::string_view package,
                        const parsers::LogPatternHit& hit, std::size_t max_values);
// Drops the counts of patterns `patterns` no longer has (null: none
// configured): a removed pattern's series disappear.
void retain_log_patterns(DeviceMetrics& device, const parsers::LogPatternSet* patterns);
// The device's counts per pattern, and an app's series; null when none.
const DevicePatterns* log_patterns_of(const DeviceMetrics& device);
const PackagePatterns* log_patterns_of(const PackageMetrics& package);

}  // namespace jank::metrics

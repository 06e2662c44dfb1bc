#include "metrics/sources/log_patterns.h"

#include <cmath>

namespace jank::metrics {
namespace {

constexpr FamilySpec kDeviceFamilies[] = {
    {"jank_exporter_log_pattern_overflow_total", FamilyType::counter, "",
     "Log pattern matches counted under value=\"_other_\" because the pattern reached log_patterns_max_values label "
     "values on the device.",
     "serial,pattern"},
    {"jank_exporter_log_pattern_discards_total", FamilyType::counter, "",
     "Captures of log pattern matches that could not be used, by reason: a value_group capture not a finite number "
     ">= 0 (not summed), or a label_group capture empty or over 128 bytes (counted under _other_).",
     "serial,pattern,reason"},
    {"android_log_pattern_matches_total", FamilyType::counter, "",
     "Log lines of the app that matched the configured pattern (log_patterns), by the label_group capture (value, "
     "empty without one).",
     "serial,package,pattern,value"},
    {"android_log_pattern_value_sum_total", FamilyType::counter, "",
     "Sum of the numbers the pattern's value_group captured, in the log's own unit.", "serial,package,pattern,value"},
    {"android_log_pattern_value_count_total", FamilyType::counter, "",
     "Numbers summed into android_log_pattern_value_sum_total (divide the sum by this for the mean).",
     "serial,package,pattern,value"},
};
constexpr const FamilySpec& kOverflow = kDeviceFamilies[0];
constexpr const FamilySpec& kDiscards = kDeviceFamilies[1];
constexpr const FamilySpec& kMatches = kDeviceFamilies[2];
constexpr const FamilySpec& kValueSum = kDeviceFamilies[3];
constexpr const FamilySpec& kValueCount = kDeviceFamilies[4];

// Bounds a record's entry count before it sizes anything.
constexpr std::uint64_t kMaxSeriesRecords = 1'000'000;
// Discard reasons a file may list (later ones read as 0 from older files).
constexpr std::uint64_t kMaxDiscardReasons = 64;

AppPatternState& app_state(PackageMetrics& p) {
  return p.sources.get<AppPatternState>(log_pattern_source().slot());
}
AppPatternState* find_app_state(const PackageMetrics& p) {
  return p.sources.find_as<AppPatternState>(log_pattern_source().slot());
}

}  // namespace

const LogPatternSource& log_pattern_source() {
  static const LogPatternSource source;
  return source;
}

std::span<const FamilySpec> LogPatternSource::families() const { return kDeviceFamilies; }

bool LogPatternSource::checkpoint_state(Checkpoint& c, DevicePatternState& state) const {
  bool sane = true;
  c.entries(state.by_pattern, kMaxSeriesRecords, [&](Checkpoint& e, std::string& name, PatternDeviceCounts& v) {
    e.str(name).flag(v.has_label).flag(v.has_value).count(v.overflow);
    std::uint64_t reasons = v.discarded.size();
    e.size(reasons, kMaxDiscardReasons);
    for (std::uint64_t i = 0; i < reasons && !e.failed(); ++i) {
      std::uint64_t n = i < v.discarded.size() ? v.discarded[i] : 0;
      e.count(n);
      if (i < v.discarded.size()) v.discarded[i] = n;  // a reason this release does not know is skipped
    }
    sane = sane && parsers::check_log_pattern_name(name).empty();
  });
  return c.valid() && sane;
}

bool LogPatternSource::checkpoint_package(Checkpoint& c, SourceState& state, PackageAt) const {
  bool sane = true;
  c.entries(static_cast<AppPatternState&>(state).series, kMaxSeriesRecords,
            [&](Checkpoint& e, PatternKey& key, PatternSeries& s) {
              e.str(key.first).str(key.second).count(s.matches).flag(s.has_value).count(s.values).f64(s.value_sum);
              sane = sane && parsers::check_log_pattern_name(key.first).empty() &&
                     key.second.size() <= parsers::kMaxLogPatternLabelBytes && s.values <= s.matches &&
                     std::isfinite(s.value_sum) && s.value_sum >= 0 &&
                     (s.has_value || (s.values == 0 && s.value_sum == 0));
            });
  return c.valid() && sane;
}

void LogPatternSource::collect(SeriesSink& f, const DeviceMetrics& d, const LabelSet&, std::int64_t,
                               CollectAt) const {
  const DevicePatternState* state = find(d);
  if (state == nullptr) return;
  for (const auto& [pattern, c] : state->by_pattern) {
    const LabelSet labels = f.labels({{"serial", d.serial}, {"pattern", pattern}});
    if (c.has_label) f.sample(kOverflow, labels, count_value(c.overflow));
    for (std::size_t r = 0; r < parsers::kPatternDiscards; ++r) {
      // Only the reasons that can happen to this pattern: few series per pattern.
      const bool label_reason = static_cast<parsers::PatternDiscard>(r) == parsers::PatternDiscard::label_invalid;
      if (!(label_reason ? c.has_label : c.has_value)) continue;
      f.sample(kDiscards, labels, Extra{"reason", parsers::pattern_discard_name(static_cast<parsers::PatternDiscard>(r))},
               count_value(c.discarded[r]));
    }
  }
}

void LogPatternSource::collect_package(SeriesSink& f, const DeviceMetrics& d, const std::string& package,
                                       const PackageMetrics& p, std::int64_t, PackageAt at) const {
  const AppPatternState* state = find_app_state(p);
  if (state == nullptr || at != PackageAt::last) return;
  for (const auto& [key, s] : state->series) {
    const LabelSet labels =
        f.labels({{"serial", d.serial}, {"package", package}, {"pattern", key.first}, {"value", key.second}});
    f.sample(kMatches, labels, count_value(s.matches));
    if (!s.has_value) continue;
    f.sample(kValueSum, labels, s.value_sum);
    f.sample(kValueCount, labels, count_value(s.values));
  }
}

void LogPatternSource::packages_changed(DeviceMetrics& device) const {
  if (find(device) != nullptr) {
    for (auto& [name, counts] : state(device).by_pattern) counts.values.clear();
  }
  for (const auto& [package, p] : device.packages) {
    const AppPatternState* app = find_app_state(p);
    if (app == nullptr) continue;
    for (const auto& [key, series] : app->series) {
      if (key.second.empty() || key.second == kOverflowPatternValue) continue;
      state(device).by_pattern[key.first].values.insert(key.second);
    }
  }
}

void record_log_pattern(Store& store, DeviceMetrics& device, std::string_view package,
                        const parsers::LogPatternHit& hit, std::size_t max_values) {
  count_pattern_hit(log_pattern_source().state(device).by_pattern, app_state(store.package(device, package)).series,
                    hit, max_values);
}

void retain_log_patterns(DeviceMetrics& device, const parsers::LogPatternSet* patterns) {
  auto configured = [&](std::string_view name) {
    if (patterns == nullptr) return false;
    for (std::size_t i = 0; i < patterns->size(); ++i) {
      if (patterns->spec(i).name == name) return true;
    }
    return false;
  };
  const LogPatternSource& source = log_pattern_source();
  if (source.find(device) != nullptr) {
    std::erase_if(source.state(device).by_pattern, [&](const auto& entry) { return !configured(entry.first); });
  }
  for (auto& [name, p] : device.packages) {
    if (AppPatternState* app = find_app_state(p)) {
      std::erase_if(app->series, [&](const auto& entry) { return !configured(entry.first.first); });
    }
  }
}

const DevicePatterns* log_patterns_of(const DeviceMetrics& device) {
  const DevicePatternState* state = log_pattern_source().find(device);
  return state == nullptr ? nullptr : &state->by_pattern;
}

const PackagePatterns* log_patterns_of(const PackageMetrics& package) {
  const AppPatternState* state = find_app_state(package);
  return state == nullptr ? nullptr : &state->series;
}

}  // namespace jank::metrics

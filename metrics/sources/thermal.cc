#include "metrics/sources/thermal.h"

namespace jank::metrics {
namespace {

// Declared in one table, which the catalogue lists; each series names its
// family by reference into it.
constexpr FamilySpec kFamilies[] = {
    {"android_thermal_status", FamilyType::gauge, "",
     "Thermal status from dumpsys thermalservice: 0 none, 1 light, 2 moderate, 3 severe, 4 critical, 5 emergency, "
     "6 shutdown.",
     "serial"},
    {"android_thermal_temperature_celsius", FamilyType::gauge, "celsius",
     "Temperature the thermal HAL reports for the sensor, by sensor name and type.", "serial,sensor,type"},
    {"jank_exporter_thermal_polls_total", FamilyType::counter, "",
     "dumpsys thermalservice polls, by result (unsupported: no thermal service, denied: refused).", "serial,result"},
    {"jank_exporter_thermal_lines_total", FamilyType::counter, "lines",
     "dumpsys thermalservice lines received, by outcome (received = parsed + discarded; discarded: a known key or "
     "entry whose value did not parse).",
     "serial,result"},
    {"jank_exporter_thermal_readings_dropped_total", FamilyType::counter, "",
     "Temperature readings of thermalservice dumps not exported, by reason (every dump counts its own).",
     "serial,reason"},
};
constexpr const FamilySpec& kStatus = kFamilies[0];
constexpr const FamilySpec& kTemperature = kFamilies[1];
constexpr const FamilySpec& kPolls = kFamilies[2];
constexpr const FamilySpec& kLines = kFamilies[3];
constexpr const FamilySpec& kDropped = kFamilies[4];

}  // namespace

std::string_view thermal_drop_name(ThermalDrop drop) {
  switch (drop) {
    case ThermalDrop::non_finite: return "non_finite";
    case ThermalDrop::duplicate: return "duplicate";
    case ThermalDrop::long_name: return "long_name";
    case ThermalDrop::over_cap: return "over_cap";
  }
  return "unknown";
}

const ThermalSource& thermal_source() {
  static const ThermalSource source;
  return source;
}

std::span<const FamilySpec> ThermalSource::families() const { return kFamilies; }

bool ThermalSource::checkpoint_state(Checkpoint& c, ThermalState& t) const {
  c.count(t.dumps).count(t.lines).count(t.malformed_lines).counts(t.dropped);
  return c.valid() && t.malformed_lines <= t.lines;
}

void ThermalSource::collect(SeriesSink& f, const DeviceMetrics& d, const LabelSet& dev, std::int64_t now,
                             CollectAt) const {
  const ThermalState* t = find(d);
  if (t == nullptr) return;
  collect_polled_input(f, d, dev, kPolls, kLines, {t->polls, t->dumps, t->lines, t->malformed_lines});
  if (t->dumps == 0) return;
  for (std::size_t r = 0; r < kThermalDrops; ++r) {
    f.sample(kDropped, dev, Extra{"reason", thermal_drop_name(static_cast<ThermalDrop>(r))},
             count_value(t->dropped[r]));
  }
  if (!thermal_current(d, now)) return;
  if (t->status) f.sample(kStatus, dev, *t->status);
  for (const auto& reading : t->temperatures) {
    const LabelSet labels = f.labels({{"serial", d.serial}, {"sensor", reading.name}});
    f.sample(kTemperature, labels, Extra{"type", parsers::thermal_type_name(reading.type)}, reading.value);
  }
}

void record_thermal(const Store& store, DeviceMetrics& device, const parsers::ThermalDump& dump,
                    std::int64_t fresh_for_ns) {
  auto& t = thermal_source().state(device);
  ++t.dumps;
  t.lines += dump.lines;
  t.malformed_lines += dump.malformed_lines;
  t.dropped[static_cast<std::size_t>(ThermalDrop::non_finite)] += dump.non_finite_values;
  t.dropped[static_cast<std::size_t>(ThermalDrop::duplicate)] += dump.duplicate_names;
  t.status = dump.status;
  t.temperatures.clear();
  for (const auto& reading : dump.temperatures) {
    // bcl_voltage, bcl_current, bcl_percentage: millivolts, milliamps, percent.
    if (reading.type >= 6 && reading.type <= 8) continue;
    ThermalDrop drop = ThermalDrop::over_cap;
    if (reading.name.size() > kMaxThermalSensorName) {
      drop = ThermalDrop::long_name;
    } else if (t.temperatures.size() < store.options().max_thermal_sensors_per_device) {
      t.temperatures.push_back(reading);
      continue;
    }
    ++t.dropped[static_cast<std::size_t>(drop)];
  }
  t.fresh_until_ns = fresh_until(store, fresh_for_ns);
}

void count_thermal_poll(DeviceMetrics& device, std::string_view result) {
  thermal_source().state(device).polls.count(result);
}

const ThermalState* thermal_of(const DeviceMetrics& device) { return thermal_source().find(device); }

bool thermal_current(const DeviceMetrics& d, std::int64_t now_ns) {
  const ThermalState* t = thermal_of(d);
  return t != nullptr && t->dumps > 0 && reading_current(d, t->fresh_until_ns, now_ns);
}

std::optional<int> thermal_status(const DeviceMetrics& d, std::int64_t now_ns) {
  return thermal_current(d, now_ns) ? thermal_of(d)->status : std::nullopt;
}

}  // namespace jank::metrics

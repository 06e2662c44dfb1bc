#include "metrics/sources/battery.h"

namespace jank::metrics {
namespace {

constexpr FamilySpec kFamilies[] = {
    {"android_battery_level_ratio", FamilyType::gauge, "ratio",
     "Battery charge from dumpsys battery: level / scale, 0 to 1.", "serial"},
    {"android_battery_temperature_celsius", FamilyType::gauge, "celsius",
     "Battery temperature from dumpsys battery.", "serial"},
    {"android_battery_voltage_volts", FamilyType::gauge, "volts", "Battery voltage from dumpsys battery.",
     "serial"},
    {"android_battery_charging", FamilyType::gauge, "",
     "1 while dumpsys battery says the battery is charging (status charging), else 0.", "serial"},
    {"android_battery_power_source", FamilyType::gauge, "",
     "The power source dumpsys battery names (ac, usb, wireless, dock, or none); always 1.", "serial,source"},
    {"android_battery_values_forced", FamilyType::gauge, "",
     "1 while the battery's values are forced with dumpsys battery set or unplug (UPDATES STOPPED), else 0.",
     "serial"},
    {"android_battery_current_amperes", FamilyType::gauge, "amperes",
     "Current into the battery from the kernel (power_supply current_now): negative while it drains, positive while "
     "it charges (signed by dumpsys battery's status where the driver signs the other way).",
     "serial"},
    {"jank_exporter_battery_polls_total", FamilyType::counter, "",
     "dumpsys battery polls, by result (unsupported: no battery service, denied: refused).", "serial,result"},
    {"jank_exporter_battery_lines_total", FamilyType::counter, "lines",
     "dumpsys battery lines received, by outcome (received = parsed + discarded; discarded: a known key whose "
     "value did not parse or cannot be true).",
     "serial,result"},
};
constexpr const FamilySpec& kLevel = kFamilies[0];
constexpr const FamilySpec& kTemperature = kFamilies[1];
constexpr const FamilySpec& kVoltage = kFamilies[2];
constexpr const FamilySpec& kCharging = kFamilies[3];
constexpr const FamilySpec& kPowerSource = kFamilies[4];
constexpr const FamilySpec& kForced = kFamilies[5];
constexpr const FamilySpec& kCurrent = kFamilies[6];
constexpr const FamilySpec& kPolls = kFamilies[7];
constexpr const FamilySpec& kLines = kFamilies[8];

constexpr int kStatusCharging = 2;     // BatteryManager.BATTERY_STATUS_CHARGING
constexpr int kStatusDischarging = 3;  // BATTERY_STATUS_DISCHARGING

}  // namespace

const BatterySource& battery_source() {
  static const BatterySource source;
  return source;
}

std::span<const FamilySpec> BatterySource::families() const { return kFamilies; }

bool BatterySource::checkpoint_state(Checkpoint& c, BatteryState& b) const {
  c.count(b.dumps).count(b.lines).count(b.malformed_lines);
  return c.valid() && b.malformed_lines <= b.lines;
}

void BatterySource::collect(SeriesSink& f, const DeviceMetrics& d, const LabelSet& dev, std::int64_t now,
                             CollectAt) const {
  const BatteryState* b = find(d);
  if (b == nullptr) return;
  const bool dump_current = b->dumps > 0 && b->reading && reading_current(d, b->fresh_until_ns, now);
  if (b->current_ua && reading_current(d, b->current_fresh_until_ns, now)) {
    f.sample(kCurrent, dev, battery_current_amperes(*b->current_ua, dump_current ? b->reading->status : std::nullopt));
  }
  collect_polled_input(f, d, dev, kPolls, kLines, {b->polls, b->dumps, b->lines, b->malformed_lines});
  if (!dump_current) return;
  const parsers::BatteryDump& r = *b->reading;
  if (r.level_fraction) f.sample(kLevel, dev, *r.level_fraction);
  if (r.temperature_celsius) f.sample(kTemperature, dev, *r.temperature_celsius);
  if (r.voltage_volts) f.sample(kVoltage, dev, *r.voltage_volts);
  if (r.status) f.sample(kCharging, dev, *r.status == kStatusCharging ? 1 : 0);
  const std::string_view source = parsers::battery_plug_name(r);
  if (source != "unknown") f.sample(kPowerSource, dev, Extra{"source", source}, 1);
  f.sample(kForced, dev, r.updates_stopped ? 1 : 0);
}

void record_battery(const Store& store, DeviceMetrics& device, const parsers::BatteryDump& dump,
                    std::int64_t fresh_for_ns) {
  auto& b = battery_source().state(device);
  ++b.dumps;
  b.lines += dump.lines;
  b.malformed_lines += dump.malformed_lines;
  if (dump.recognised) {
    b.reading = dump;
  } else {
    b.reading.reset();
  }
  b.fresh_until_ns = fresh_until(store, fresh_for_ns);
}

void count_battery_poll(DeviceMetrics& device, std::string_view result) {
  battery_source().state(device).polls.count(result);
}

void record_battery_current(const Store& store, DeviceMetrics& device, std::int64_t microamperes,
                            std::int64_t fresh_for_ns) {
  auto& b = battery_source().state(device);
  b.current_ua = microamperes;
  b.current_fresh_until_ns = fresh_until(store, fresh_for_ns);
}

double battery_current_amperes(std::int64_t microamperes, std::optional<int> status) {
  const double amperes = static_cast<double>(microamperes) / 1e6;
  if (status == kStatusCharging) return amperes < 0 ? -amperes : amperes;
  if (status == kStatusDischarging) return amperes > 0 ? -amperes : amperes;
  return amperes;
}

const BatteryState* battery_of(const DeviceMetrics& device) { return battery_source().find(device); }

}  // namespace jank::metrics

#include "metrics/sources/display.h"

namespace jank::metrics {
namespace {

constexpr FamilySpec kFamilies[] = {
    {"android_display_refresh_rate_hertz", FamilyType::gauge, "hertz",
     "Display refresh rate used for SM and jank thresholds.", "serial"},
    {"android_display_refresh_rate_fallback", FamilyType::gauge, "",
     "1 when the refresh rate is the configured default rather than read from the device.", "serial"},
};
constexpr const FamilySpec& kRate = kFamilies[0];
constexpr const FamilySpec& kFallback = kFamilies[1];

}  // namespace

const DisplaySource& display_source() {
  static const DisplaySource source;
  return source;
}

std::span<const FamilySpec> DisplaySource::families() const { return kFamilies; }

void DisplaySource::collect(SeriesSink& f, const DeviceMetrics& d, const LabelSet& dev, std::int64_t,
                            CollectAt) const {
  f.sample(kRate, dev, d.refresh_hz);
  f.sample(kFallback, dev, d.refresh_is_fallback ? 1 : 0);
}

void record_refresh_rate(DeviceMetrics& device, std::optional<double> measured_hz, double default_hz) {
  const bool measured = measured_hz && plausible_refresh_hz(*measured_hz);
  device.refresh_hz = measured ? *measured_hz : default_hz;
  device.refresh_is_fallback = !measured;
}

}  // namespace jank::metrics

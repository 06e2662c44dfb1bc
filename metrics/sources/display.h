// Source module: the display's refresh rate (dumpsys display, or
// SurfaceFlinger's dump on releases whose display dump does not say it; in
// replays, the period of a --latency table). The rate itself lives in the
// device header (DeviceMetrics::refresh_hz): every frame rule of every
// source judges by it, and the state file keeps it on the device line. This
// module owns how it is recorded, what a plausible rate is, and its series.
#pragma once

#include <optional>
#include <string_view>

#include "metrics/source.h"

namespace jank::metrics {

struct DisplayState final : SourceState {};

class DisplaySource final : public DeviceSourceOf<DisplayState> {
 public:
  std::string_view name() const override { return "display"; }
  std::span<const FamilySpec> families() const override;
  // First of the device's own series after its live status: the SM series
  // collected at the same place are judged against it.
  bool collects_at(CollectAt at) const override { return at == CollectAt::refresh; }
  void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels, std::int64_t now_ns,
               CollectAt at) const override;

 protected:
  bool state_worth_saving(const DisplayState&) const override { return false; }
  bool checkpoint_state(Checkpoint& c, DisplayState&) const override { return c.valid(); }
};
const DisplaySource& display_source();

// The measured rate when there is a plausible one, else `default_hz`
// flagged as the configured default (android_display_refresh_rate_fallback).
void record_refresh_rate(DeviceMetrics& device, std::optional<double> measured_hz, double default_hz);

}  // namespace jank::metrics

// Source module: the log's jank lines, Choreographer's "Skipped N frames!"
// and HWUI's "Davey!". One module for both: they come from the same log
// stream through the same router, feed the same stall and spike-line rules,
// and their fields are one block at the head of the package record and
// their series one run at the head of the app's. Per app, the counts, the
// skip-size and Davey-duration histograms and the skip window (SM); per
// device, the device-wide skip window (device SM), kept in the store's
// device record where it always was.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "metrics/histogram.h"
#include "metrics/skip_window.h"
#include "metrics/source.h"
#include "parsers/logcat_events.h"

namespace jank::metrics {

struct DeviceSkipState final : SourceState {
  SkipWindow window{StoreOptions{}.sm_window};  // device-wide skipped frames
};

struct AppSkipState final : SourceState {
  std::uint64_t skipped_frames = 0;
  std::uint64_t skip_events = 0;
  Histogram skip_size{buckets::skip_size_frames()};
  SkipWindow window{StoreOptions{}.sm_window};

  std::uint64_t davey_frames = 0;
  std::uint64_t davey_invalid_durations = 0;
  Histogram davey_duration{buckets::davey_duration_seconds()};
};

class SkipSource final : public DeviceSourceOf<DeviceSkipState> {
 public:
  std::string_view name() const override { return "skips"; }
  std::span<const FamilySpec> families() const override;
  // The device SM after the refresh rate it is judged against.
  bool collects_at(CollectAt at) const override { return at == CollectAt::refresh; }
  void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels, std::int64_t now_ns,
               CollectAt at) const override;

  // The device window in the store's device record, the app fields at the
  // head of the package record: the layout of every earlier release.
  bool device_part(DeviceAt at) const override { return at == DeviceAt::lines; }
  bool checkpoint_device_part(Checkpoint& c, SourceState& state, DeviceAt at) const override;
  void loaded(DeviceMetrics& device, const StoreOptions& options, std::uint64_t version) const override;

  std::unique_ptr<SourceState> make_package_state() const override { return std::make_unique<AppSkipState>(); }
  std::string_view package_tag(PackageAt at) const override {
    return at == PackageAt::head ? name() : std::string_view{};
  }
  bool checkpoint_package(Checkpoint& c, SourceState& state, PackageAt at) const override;
  void collect_package(SeriesSink& sink, const DeviceMetrics& device, const std::string& package,
                       const PackageMetrics& p, std::int64_t now_ns, PackageAt at) const override;

 protected:
  // No record of its own: its parts are in the store's records.
  bool state_worth_saving(const DeviceSkipState&) const override { return false; }
  bool checkpoint_state(Checkpoint& c, DeviceSkipState&) const override { return c.valid(); }
};
const SkipSource& skip_source();

// A "Skipped N frames!" line of `package`: `time_ns` its device time when
// the line has one (`has_time`).
void record_skip(Store& store, DeviceMetrics& device, std::string_view package, std::int64_t time_ns, bool has_time,
                 std::uint32_t frames);
// A "Davey!" line of `package`.
void record_davey(Store& store, DeviceMetrics& device, std::string_view package, const parsers::DaveyFrame& davey);

// Read access: null until the device or the app had a skip or Davey line
// (or a file restored them).
const DeviceSkipState* skips_of(const DeviceMetrics& device);
const AppSkipState* skips_of(const PackageMetrics& package);

}  // namespace jank::metrics

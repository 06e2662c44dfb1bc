// Source module: dumpsys package (installed app versions). The version of
// every app the exporter polls, as android_app_info; held only while the
// app has series, never checkpointed (a restarted exporter asks again).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "metrics/app_version.h"
#include "metrics/source.h"

namespace jank::metrics {

struct VersionsState final : SourceState {
  std::map<std::string, AppVersion, std::less<>> by_package;  // base package name → its version
};

class VersionsSource final : public DeviceSourceOf<VersionsState> {
 public:
  std::string_view name() const override { return "versions"; }
  std::span<const FamilySpec> families() const override;
  void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels,
               std::int64_t now_ns, CollectAt at) const override;
  // A version lives only as long as its package's series.
  void packages_changed(DeviceMetrics& device) const override;

 protected:
  bool state_worth_saving(const VersionsState&) const override { return false; }
  bool checkpoint_state(Checkpoint& c, VersionsState&) const override { return c.valid(); }
};
const VersionsSource& versions_source();

// The version of `package` (a process name: its base package counts). False,
// and nothing kept, while the package has no series, or when the device
// already holds max_packages_per_device versions.
bool record_app_version(const Store& store, DeviceMetrics& device, std::string_view package, AppVersion version);
// The package was uninstalled: its version goes.
void forget_app_version(DeviceMetrics& device, std::string_view package);
// The version of `package`'s base package, or null.
const AppVersion* app_version_of(const DeviceMetrics& device, std::string_view package);
// Every version the device holds, by base package (empty when none).
const std::map<std::string, AppVersion, std::less<>>& app_versions_of(const DeviceMetrics& device);

}  // namespace jank::metrics

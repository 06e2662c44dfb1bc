// Source module: the memory of each measured app (the resource poll,
// parsers/resource_files.h, when memory is due): its main process's
// resident set and swap from /proc/PID/status, which the shell may read on
// every release. (smaps_rollup's PSS is refused to the shell user: the
// kernel lets only the app's own uid read its mappings.) Gauges of the
// newest reading, only while fresh; nothing is checkpointed.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "metrics/source.h"
#include "parsers/resource_files.h"

namespace jank::metrics {

struct MemoryState final : SourceState {
  std::int64_t read_at_ns = 0;  // host time of the newest answer that read memory (not checkpointed)
};

struct AppMemoryState final : SourceState {
  std::optional<std::uint64_t> rss_bytes, swap_bytes;
  std::int64_t fresh_until_ns = 0;
};

class MemorySource final : public DeviceSourceOf<MemoryState> {
 public:
  std::string_view name() const override { return "memory"; }
  std::span<const FamilySpec> families() const override;
  void collect(SeriesSink&, const DeviceMetrics&, const LabelSet&, std::int64_t, CollectAt) const override {}

  std::unique_ptr<SourceState> make_package_state() const override { return std::make_unique<AppMemoryState>(); }
  void collect_package(SeriesSink& sink, const DeviceMetrics& device, const std::string& package,
                       const PackageMetrics& p, std::int64_t now_ns, PackageAt at) const override;

 protected:
  bool state_worth_saving(const MemoryState&) const override { return false; }
  bool checkpoint_state(Checkpoint& c, MemoryState&) const override { return c.valid(); }
};
const MemorySource& memory_source();

// The status of each process the device's pid names say is an app's main
// process (checked by its comm in the same answer): that app's memory now.
void record_memory(Store& store, DeviceMetrics& device, const parsers::ResourceAnswer& answer,
                   std::int64_t fresh_for_ns = 0);
const AppMemoryState* app_memory_of(const PackageMetrics& package);
// Host time memory was last read on the device (0: never).
std::int64_t memory_read_at(const DeviceMetrics& device);

}  // namespace jank::metrics

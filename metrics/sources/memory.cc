#include "metrics/sources/memory.h"

#include <algorithm>

#include "metrics/sources/cpu.h"

namespace jank::metrics {
namespace {

constexpr FamilySpec kFamilies[] = {
    {"android_app_memory_rss_bytes", FamilyType::gauge, "bytes",
     "Resident memory of the app's main process (/proc/PID/status VmRSS).", "serial,package"},
    {"android_app_memory_swap_bytes", FamilyType::gauge, "bytes",
     "Swapped-out memory of the app's main process (/proc/PID/status VmSwap; zram on most phones).",
     "serial,package"},
};
constexpr const FamilySpec& kRss = kFamilies[0];
constexpr const FamilySpec& kSwap = kFamilies[1];

}  // namespace

const MemorySource& memory_source() {
  static const MemorySource source;
  return source;
}

std::span<const FamilySpec> MemorySource::families() const { return kFamilies; }

void MemorySource::collect_package(SeriesSink& f, const DeviceMetrics& d, const std::string& package,
                                   const PackageMetrics& p, std::int64_t now, PackageAt at) const {
  const AppMemoryState* m = app_memory_of(p);
  if (m == nullptr || at != PackageAt::last || !reading_current(d, m->fresh_until_ns, now)) return;
  const LabelSet labels = f.labels({{"serial", d.serial}, {"package", package}});
  if (m->rss_bytes) f.sample(kRss, labels, static_cast<double>(*m->rss_bytes));
  if (m->swap_bytes) f.sample(kSwap, labels, static_cast<double>(*m->swap_bytes));
}

void record_memory(Store& store, DeviceMetrics& device, const parsers::ResourceAnswer& answer,
                   std::int64_t fresh_for_ns) {
  const bool asked = std::any_of(answer.processes.begin(), answer.processes.end(),
                                 [](const auto& p) { return p.second.status.any(); });
  if (!asked) return;
  memory_source().state(device).read_at_ns = store.host_time();
  for (const auto& [pid, files] : answer.processes) {
    if (!files.rss_bytes) continue;
    const std::string* name = measured_app(device, pid, files);
    if (name == nullptr) continue;  // a stale pid: counted by record_cpu
    auto& m = store.package(device, *name).sources.get<AppMemoryState>(memory_source().slot());
    m.rss_bytes = files.rss_bytes;
    m.swap_bytes = files.swap_bytes;
    m.fresh_until_ns = fresh_until(store, fresh_for_ns);
  }
}

std::int64_t memory_read_at(const DeviceMetrics& device) {
  const MemoryState* s = memory_source().find(device);
  return s == nullptr ? 0 : s->read_at_ns;
}

const AppMemoryState* app_memory_of(const PackageMetrics& package) {
  return package.sources.find_as<AppMemoryState>(memory_source().slot());
}

}  // namespace jank::metrics

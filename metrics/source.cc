#include "metrics/source.h"

#include <atomic>

namespace jank::metrics {
namespace {

std::atomic<std::size_t> next_slot{0};

}  // namespace

DeviceSource::DeviceSource() : slot_(next_slot++) {}

bool reading_current(const DeviceMetrics& d, std::int64_t fresh_until_ns, std::int64_t now_ns) {
  return !((d.live.live && !d.live.up) || (fresh_until_ns != 0 && now_ns > fresh_until_ns));
}

std::int64_t fresh_until(const Store& store, std::int64_t fresh_for_ns) {
  const std::int64_t now = store.host_time();
  return fresh_for_ns > 0 && now != 0 ? now + fresh_for_ns : 0;
}

void PollCounts::count(std::string_view result) {
  const auto it = by_result_.find(result);
  if (it == by_result_.end()) {
    by_result_.emplace(std::string(result), 1);
  } else {
    ++it->second;
  }
}

std::uint64_t PollCounts::of(std::string_view result) const {
  const auto it = by_result_.find(result);
  return it == by_result_.end() ? 0 : it->second;
}

const DeviceSource* find_device_source(std::string_view name) {
  for (const auto* source : device_sources()) {
    if (source->name() == name) return source;
  }
  return nullptr;
}

}  // namespace jank::metrics

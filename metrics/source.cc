#include "metrics/source.h"

#include <atomic>

namespace jank::metrics {
namespace {

std::atomic<std::size_t> next_slot{0};

}  // namespace

DeviceSource::DeviceSource() : slot_(next_slot++) {}

const DeviceSource* find_device_source(std::string_view name) {
  for (const auto* source : device_sources()) {
    if (source->name() == name) return source;
  }
  return nullptr;
}

}  // namespace jank::metrics

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

void checkpoint_legacy(Checkpoint& c, DeviceMetrics& device, std::string_view record, const RecordDrop& drop) {
  for (const DeviceSource* source : device_sources()) {
    if (source->legacy_record() != record) continue;
    auto state = source->make_state();
    Checkpoint fields = c.group();
    if (!source->checkpoint(fields, *state)) {
      if (!fields.failed()) drop(std::string(source->rejected_record()), std::string(source->rejected_why()));
    } else if (fields.loading() && source->worth_saving(*state)) {
      device.sources.put(source->slot(), std::move(state));
    }
  }
}

void packages_changed(DeviceMetrics& device) {
  for (const DeviceSource* source : device_sources()) source->packages_changed(device);
}

void PollCounts::count(std::string_view result) {
  const auto it = by_result_.find(result);
  if (it == by_result_.end()) {
    by_result_.emplace(std::string(result), 1);
  } else {
    ++it->second;
  }
}

void collect_polled_input(SeriesSink& f, const DeviceMetrics& d, const LabelSet& dev, const FamilySpec& polls_family,
                          const FamilySpec& lines_family, const PolledInput& in) {
  if (d.live.live) {
    for (const auto& [result, n] : in.polls.by_result()) {
      f.sample(polls_family, dev, Extra{"result", result}, count_value(n));
    }
  }
  if (in.answers == 0) return;
  f.sample(lines_family, dev, Extra{"result", "parsed"}, count_value(in.lines - in.malformed_lines));
  f.sample(lines_family, dev, Extra{"result", "discarded"}, count_value(in.malformed_lines));
}

}  // namespace jank::metrics

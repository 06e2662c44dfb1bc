// Feeds one device's logcat events into the model: the store's own state
// (processes) and the source modules that read the log (skips and Davey,
// log patterns). The store itself names no module; this router does.
#pragma once

#include <cstddef>
#include <cstdint>

#include "metrics/log_pattern_counts.h"
#include "metrics/store.h"
#include "parsers/logcat_stream.h"

namespace jank::metrics {

class DeviceLogcatRecorder final : public parsers::LogcatSink {
 public:
  DeviceLogcatRecorder(Store& store, DeviceMetrics& device, std::size_t max_pattern_values = kDefaultPatternValues)
      : store_(store), device_(device), max_pattern_values_(max_pattern_values) {}
  void on_skipped_frames(const parsers::LogLine& line, std::uint32_t frames) override;
  void on_davey(const parsers::LogLine& line, const parsers::DaveyFrame& davey) override;
  void on_process_event(const parsers::LogLine& line, const parsers::ProcessEvent& event) override;
  void on_pattern(const parsers::LogLine& line, const parsers::LogPatternHit& hit) override;

 private:
  Store& store_;
  DeviceMetrics& device_;
  std::size_t max_pattern_values_;
};

}  // namespace jank::metrics

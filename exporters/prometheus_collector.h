// Presents the metric model as Prometheus metric families. The daemon
// registers it with prometheus-cpp's Exposer; `replay` serializes it with the
// same TextSerializer, so both print exactly the same exposition.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "exporters/text_format.h"
#include "metrics/store.h"

namespace jank::exporters {

// "Now" for windowed gauges (SM, worst skip), on the device's own clock.
using WindowNow = std::function<std::int64_t(const metrics::DeviceMetrics&)>;

// The newest timestamp of the device's input: right for replays.
WindowNow input_time_now();

class StoreCollector final : public prometheus::Collectable {
 public:
  // `mutex` (may be null) is held while reading the store; `daemon` (may be
  // null) adds the daemon's own families.
  StoreCollector(const metrics::Store& store, WindowNow now, std::mutex* mutex = nullptr,
                 const metrics::DaemonMetrics* daemon = nullptr);

  std::vector<prometheus::MetricFamily> Collect() const override;
  // The same series as Collect(), written straight into exposition text: no
  // intermediate metric objects, so a large scrape costs a fraction of the
  // time and memory. The store's mutex is held only while writing.
  Exposition Text() const;
  // Only the series of one device (and none of the daemon's own): for a
  // person or a probe watching one device. Empty when the store has no such
  // device.
  Exposition Text(std::string_view serial) const;

 private:
  void collect(class SeriesSink& sink) const;

  const metrics::Store& store_;
  WindowNow now_;
  std::mutex* mutex_;
  const metrics::DaemonMetrics* daemon_;
};

// What the HTTP server calls per /metrics request: the whole store, or one
// device when `serial` is not empty.
std::function<Exposition(std::string_view serial)> text_source(std::shared_ptr<const StoreCollector> collector);

// Text exposition format (version 0.0.4) of the given families.
std::string serialize_text(const std::vector<prometheus::MetricFamily>& families);

}  // namespace jank::exporters

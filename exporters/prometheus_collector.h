// Presents the metric model as Prometheus metric families. The daemon's
// /metrics and `replay` print Text(); Collect() gives the same series as
// prometheus-cpp metric families, for prometheus-cpp registries and as the
// independent check of Text() in the tests. Names, types and help texts come
// from the catalogue (exporters/metric_catalogue.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "exporters/metric_catalogue.h"
#include "exporters/series_budget.h"
#include "exporters/text_format.h"
#include "metrics/daemon_status.h"
#include "metrics/run_book.h"
#include "metrics/store.h"
#include "parsers/time_units.h"

namespace jank::exporters {

// "Now" for windowed gauges (SM, worst skip), on the device's own clock.
using WindowNow = std::function<std::int64_t(const metrics::DeviceMetrics&)>;

// The newest timestamp of the device's input: right for replays.
WindowNow input_time_now();

// The span SM divides by, given the window's length. Without one, the
// whole window (the daemon: it follows the device throughout).
using WindowSpan =
    std::function<parsers::units::Seconds(const metrics::DeviceMetrics&, std::chrono::seconds sm_window)>;

// Replays: the part of the window the input covers, from its oldest to its
// newest timestamp (docs/metrics.md, "Replay's window"), at most the window.
WindowSpan input_span();

// Receives every series in collection order. Families come out in the order
// of their first series; families without series are not printed.
class SeriesSink : public metrics::SeriesSink {
 public:
  using metrics::SeriesSink::histogram;
  using metrics::SeriesSink::sample;

  // The exporter's own families by enumerator.
  void sample(Family id, const LabelSet& labels, double v) { sample(family(id), labels, nullptr, v); }
  void sample(Family id, const LabelSet& labels, Extra extra, double v) { sample(family(id), labels, &extra, v); }
  void sample(Family id, const LabelSet& labels, double v, const metrics::TraceExemplar* exemplar) {
    sample(family(id), labels, v, exemplar);
  }
  void histogram(Family id, const LabelSet& labels, const metrics::Histogram& h) {
    histogram(family(id), labels, nullptr, h);
  }
  void histogram(Family id, const LabelSet& labels, Extra extra, const metrics::Histogram& h) {
    histogram(family(id), labels, &extra, h);
  }
  LabelSet labels(std::vector<metrics::Label> list) const override { return label_set(std::move(list)); }

  // Where the sink stands, so that what one device wrote can be taken back
  // (the series budget): rollback(m) forgets every series written since
  // mark(m).
  using Mark = std::vector<std::size_t>;
  virtual void mark(Mark& m) const = 0;
  virtual void rollback(const Mark& m) = 0;
  // The part of a device the next series belong to: 0 the device's own, 1 to
  // n its apps in order, n + 1 the layers' after them. The series budget
  // keeps or drops apps and the layers' part whole.
  virtual void begin_part(std::size_t) {}
};

class StoreCollector final : public prometheus::Collectable {
 public:
  // `mutex` (may be null) is held while reading the store; `daemon` (may be
  // null) adds the daemon's own families, `runs` (may be null) the runs'.
  StoreCollector(const metrics::Store& store, WindowNow now, std::mutex* mutex = nullptr,
                 const metrics::DaemonMetrics* daemon = nullptr, const metrics::RunBook* runs = nullptr);

  // SM over `span` instead of the whole window, with the span exported
  // (android_choreographer_sm_span_seconds): for replays.
  void set_window_span(WindowSpan span) { span_ = std::move(span); }
  // Each device's series within `budget` (exporters/series_budget.h), with
  // the budget's own two series per device. Without one (replays): every
  // series, and not those two.
  void set_series_budget(const SeriesBudget& budget) { budget_ = budget; }

  // prometheus-cpp's Collectable: the daemon never calls it. It is kept (a
  // decision, not a leftover) because the conformance tests check the
  // exporter's own writer against prometheus-cpp's serializer through it
  // (tests/support/prometheus_text.h), and a program embedding the store can
  // register it with a prometheus-cpp registry; it needs only the library's
  // header-only types, so the binary links nothing of prometheus-cpp.
  std::vector<prometheus::MetricFamily> Collect() const override;
  // The exposition text, written straight from the store: no intermediate
  // metric objects, so a large scrape costs a fraction of the time and
  // memory of Collect(). The store's mutex is held only while writing.
  // OpenMetrics adds the exemplars of DeviceMetrics::trace_exemplars.
  Exposition Text(ExpositionFormat format = ExpositionFormat::prometheus_0_0_4) const;
  // Only the series of one device (and none of the daemon's own): for a
  // person or a probe watching one device. No series when the store has no
  // such device.
  Exposition Text(std::string_view serial, ExpositionFormat format = ExpositionFormat::prometheus_0_0_4) const;
  // Every series into `sink`, the mutex held.
  void collect(SeriesSink& sink) const;

 private:
  void collect_unlocked(SeriesSink& sink) const;
  void collect_one(SeriesSink& sink, const metrics::DeviceMetrics& device) const;

  const metrics::Store& store_;
  WindowNow now_;
  WindowSpan span_;
  std::mutex* mutex_;
  const metrics::DaemonMetrics* daemon_;
  const metrics::RunBook* runs_;  // the open runs' series (the daemon's; null in replays)
  std::optional<SeriesBudget> budget_;
};

// What the HTTP server calls per /metrics request: the whole store, or one
// device when `serial` is not empty, in the format the client asked for.
std::function<Exposition(std::string_view serial, ExpositionFormat format)> text_source(
    std::shared_ptr<const StoreCollector> collector);

}  // namespace jank::exporters

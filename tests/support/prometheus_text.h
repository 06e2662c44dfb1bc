// prometheus-cpp's side of the exposition tests: metric families (a
// collectable's Collect()) written by prometheus-cpp's own serializer and by
// the exporter's OpenMetrics writer, and an HTTP server's /metrics over such
// collectables. The exporter writes its exposition straight from the store
// (StoreCollector::Text()); these are the independent checks of it, so they
// live with the tests and the shipped binary needs nothing of prometheus-cpp
// but its header-only types.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "exporters/http_server.h"

namespace jank::test {

// prometheus-cpp's own serialization (prometheus::TextSerializer) of `families`.
std::string serialize_text(const std::vector<prometheus::MetricFamily>& families);
// The same, appended to `out`.
void append_text_exposition(const std::vector<prometheus::MetricFamily>& families, std::string& out);
// The same families in OpenMetrics, without the final `# EOF`. Samples keep
// the names and labels prometheus-cpp gives them in 0.0.4 (bucket and
// quantile bounds printed as it prints them), so both formats make the same
// series: a counter not named `…_total`, whose samples OpenMetrics would
// rename, is declared `unknown`, as is an untyped family.
void append_openmetrics_exposition(const std::vector<prometheus::MetricFamily>& families, std::string& out);

// /metrics for prometheus-cpp collectables: each Collect()ed and written out
// in the format asked for.
exporters::HttpServer::MetricsSource exposition_of(std::vector<std::shared_ptr<prometheus::Collectable>> collectables);

}  // namespace jank::test

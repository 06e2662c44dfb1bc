// The Prometheus text exposition format (version 0.0.4): the pieces the
// exporter's writer (StoreCollector::Text()) is made of, and the exposition
// type the HTTP server sends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <prometheus/metric_family.h>

namespace jank::exporters {

// Appends prometheus-cpp's own serialization (prometheus::TextSerializer) of
// `families` to `out`: for collectables other than the metric store, which
// writes its exposition itself.
void append_text_exposition(const std::vector<prometheus::MetricFamily>& families, std::string& out);

// An exposition written family by family: `header` is the HELP and TYPE
// lines, `body` the samples. Kept in pieces so that a server can send them
// without first copying everything into one string.
struct ExpositionFamily {
  std::string header;
  std::string body;
};
struct Exposition {
  std::vector<ExpositionFamily> families;
  std::size_t size() const;
  std::string str() const;
};

// Sample values: the shortest fixed-notation digits that read back exactly
// (le="0.0005", never "5e-04"); NaN, +Inf and -Inf as the format spells them.
void append_number(std::string& out, double v);
void append_count(std::string& out, std::uint64_t v);

}  // namespace jank::exporters

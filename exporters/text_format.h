// The Prometheus text exposition format (version 0.0.4) of prometheus-cpp's
// metric families, written straight into a string. prometheus-cpp's own
// TextSerializer goes through std::ostream per token, which dominated the cost
// of a large scrape; this writes the same format several times faster.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <prometheus/metric_family.h>

namespace jank::exporters {

// Appends the exposition of `families` to `out`. Values use the shortest form
// that reads back exactly; label values and help texts are escaped.
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

// The pieces of the format, shared by both writers.
void append_number(std::string& out, double v);
void append_count(std::string& out, std::uint64_t v);
// Label values escape backslash, double quote and newline (quote = true);
// HELP texts only backslash and newline.
void append_escaped(std::string& out, std::string_view s, bool quote);
const char* type_name(prometheus::MetricType type);

}  // namespace jank::exporters

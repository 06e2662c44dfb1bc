// The Prometheus text exposition format (version 0.0.4): the pieces the
// exporter's writer (StoreCollector::Text()) is made of, and the exposition
// type the HTTP server sends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <prometheus/metric_family.h>

#include "exporters/label_repair.h"

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

// Labels shared by many series (a device's, a package's), made valid UTF-8
// and rendered in exposition form once rather than once per series.
class LabelSet {
 public:
  explicit LabelSet(std::vector<prometheus::ClientMetric::Label> labels);
  const std::vector<prometheus::ClientMetric::Label>& list() const { return list_; }
  const std::string& text() const { return text_; }  // name="value",… without braces

 private:
  std::vector<prometheus::ClientMetric::Label> list_;
  std::string text_;
};

// One more label for a single series (result, reason, cause, stage, …): a
// fixed ASCII name and value chosen by the collector.
struct Extra {
  std::string_view name;
  std::string_view value;
};

// `name` and `suffix`, the labels in braces when there are any (`extra`, may
// be null, after `labels`), then the space before the value. Inline: the
// scrape writes it for every sample.
inline void append_series_head(std::string& out, std::string_view name, std::string_view suffix,
                               const LabelSet& labels, const Extra* extra) {
  out += name;
  out += suffix;
  if (!labels.text().empty() || extra != nullptr) {
    out += '{';
    out += labels.text();
    if (extra != nullptr) {
      if (!labels.text().empty()) out += ',';
      out += extra->name;
      out += "=\"";
      append_label_value(out, extra->value);
      out += '"';
    }
    out += '}';
  }
  out += ' ';
}

// Sample values: the shortest fixed-notation digits that read back exactly
// (le="0.0005", never "5e-04"); NaN, +Inf and -Inf as the format spells them.
void append_number(std::string& out, double v);
void append_count(std::string& out, std::uint64_t v);

}  // namespace jank::exporters

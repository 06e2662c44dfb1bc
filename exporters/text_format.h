// The text exposition formats: the pieces the exporter's writer
// (StoreCollector::Text()) is made of, and the exposition type the HTTP
// server sends. Samples are written alike in Prometheus text 0.0.4 and
// OpenMetrics 1.0.0 (same names, labels, `le` values and numbers, so a
// Prometheus that switches format keeps every series); what only OpenMetrics
// has (its metadata lines, exemplars, `# EOF`) is in exporters/openmetrics.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "exporters/label_repair.h"
#include "metrics/series.h"

namespace jank::exporters {

// What /metrics can answer in (docs/metrics.md, "Formats"): the same series
// either way.
enum class ExpositionFormat : std::uint8_t {
  prometheus_0_0_4,   // text/plain; version=0.0.4
  openmetrics_1_0_0,  // application/openmetrics-text; version=1.0.0 (with exemplars)
};
// The Content-Type header value of an answer in `format`.
const char* content_type(ExpositionFormat format);

// An exposition written family by family: `header` is the metadata lines
// (HELP and TYPE; in OpenMetrics also UNIT), `body` the samples. Kept in
// pieces so that a server can send them without first copying everything
// into one string.
struct ExpositionFamily {
  std::string header;
  std::string body;
};
struct Exposition {
  std::vector<ExpositionFamily> families;
  std::size_t size() const;
  std::string str() const;
};
// Closes a whole exposition: OpenMetrics ends with `# EOF`, 0.0.4 has no end marker.
void finish_exposition(Exposition& exposition, ExpositionFormat format);

using metrics::Extra;
using metrics::LabelSet;

// Labels shared by many series (a device's, a package's), made valid UTF-8
// and rendered in exposition form (name="value",… without braces) once
// rather than once per series.
LabelSet label_set(std::vector<metrics::Label> labels);

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

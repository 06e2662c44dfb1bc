// The Prometheus text exposition format (version 0.0.4) of prometheus-cpp's
// metric families, written straight into a string. prometheus-cpp's own
// TextSerializer goes through std::ostream per token, which dominated the cost
// of a large scrape; this writes the same format several times faster.
#pragma once

#include <string>
#include <vector>

#include <prometheus/metric_family.h>

namespace jank::exporters {

// Appends the exposition of `families` to `out`. Values use the shortest form
// that reads back exactly; label values and help texts are escaped.
void append_text_exposition(const std::vector<prometheus::MetricFamily>& families, std::string& out);

}  // namespace jank::exporters

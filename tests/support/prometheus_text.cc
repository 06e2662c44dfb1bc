#include "tests/support/prometheus_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <system_error>

#include <prometheus/text_serializer.h>

#include "exporters/label_repair.h"
#include "exporters/openmetrics.h"
#include "exporters/text_format.h"

namespace jank::test {
namespace {

using exporters::Extra;
using exporters::LabelSet;

// A bound as prometheus-cpp 1.0 prints it in 0.0.4 (16 significant digits,
// exponent when short): `le` and `quantile` values name series, so the
// OpenMetrics answer must spell them the same.
std::string prometheus_cpp_bound(double v) {
  if (std::isnan(v)) return "Nan";
  if (std::isinf(v)) return v < 0 ? "-Inf" : "+Inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 16);
  return std::string(buf, ec == std::errc() ? end : buf);
}

void append_sample(std::string& out, std::string_view name, std::string_view suffix, const LabelSet& labels,
                   const Extra* extra, double value, std::int64_t timestamp_ms) {
  exporters::append_series_head(out, name, suffix, labels, extra);
  exporters::append_number(out, value);
  if (timestamp_ms != 0) {
    out += ' ';
    exporters::append_unix_seconds(out, timestamp_ms, 1000);  // OpenMetrics stamps are seconds
  }
  out += '\n';
}

std::string_view openmetrics_type(const prometheus::MetricFamily& family) {
  switch (family.type) {
    case prometheus::MetricType::Counter:
      return std::string_view(family.name).ends_with("_total") ? "counter" : "unknown";
    case prometheus::MetricType::Gauge: return "gauge";
    case prometheus::MetricType::Summary: return "summary";
    case prometheus::MetricType::Histogram: return "histogram";
    case prometheus::MetricType::Untyped: return "unknown";
  }
  return "unknown";
}

}  // namespace

std::string serialize_text(const std::vector<prometheus::MetricFamily>& families) {
  return prometheus::TextSerializer().Serialize(families);
}

void append_text_exposition(const std::vector<prometheus::MetricFamily>& families, std::string& out) {
  out += serialize_text(families);
}

void append_openmetrics_exposition(const std::vector<prometheus::MetricFamily>& families, std::string& out) {
  for (const auto& f : families) {
    exporters::append_openmetrics_metadata(out, f.name, openmetrics_type(f), "", exporters::valid_utf8(f.help));
    for (const auto& m : f.metric) {
      std::vector<metrics::Label> list;
      list.reserve(m.label.size());
      for (const auto& l : m.label) list.push_back({l.name, l.value});
      const LabelSet labels = exporters::label_set(std::move(list));
      const std::int64_t ts = m.timestamp_ms;
      switch (f.type) {
        case prometheus::MetricType::Counter:
          append_sample(out, f.name, "", labels, nullptr, m.counter.value, ts);
          break;
        case prometheus::MetricType::Gauge:
          append_sample(out, f.name, "", labels, nullptr, m.gauge.value, ts);
          break;
        case prometheus::MetricType::Untyped:
          append_sample(out, f.name, "", labels, nullptr, m.untyped.value, ts);
          break;
        case prometheus::MetricType::Summary: {
          const auto& s = m.summary;
          append_sample(out, f.name, "_count", labels, nullptr, static_cast<double>(s.sample_count), ts);
          append_sample(out, f.name, "_sum", labels, nullptr, s.sample_sum, ts);
          for (const auto& q : s.quantile) {
            const std::string bound = prometheus_cpp_bound(q.quantile);
            const Extra quantile{"quantile", bound};
            append_sample(out, f.name, "", labels, &quantile, q.value, ts);
          }
          break;
        }
        case prometheus::MetricType::Histogram: {
          const auto& h = m.histogram;
          append_sample(out, f.name, "_count", labels, nullptr, static_cast<double>(h.sample_count), ts);
          append_sample(out, f.name, "_sum", labels, nullptr, h.sample_sum, ts);
          for (const auto& b : h.bucket) {
            const std::string bound = prometheus_cpp_bound(b.upper_bound);
            const Extra le{"le", bound};
            append_sample(out, f.name, "_bucket", labels, &le, static_cast<double>(b.cumulative_count), ts);
          }
          break;
        }
      }
    }
  }
}

exporters::HttpServer::MetricsSource exposition_of(std::vector<std::shared_ptr<prometheus::Collectable>> collectables) {
  return [collectables = std::move(collectables)](std::string_view, exporters::ExpositionFormat format) {
    exporters::Exposition exposition;
    for (const auto& c : collectables) {
      exposition.families.emplace_back();
      if (format == exporters::ExpositionFormat::openmetrics_1_0_0) {
        append_openmetrics_exposition(c->Collect(), exposition.families.back().body);
      } else {
        append_text_exposition(c->Collect(), exposition.families.back().body);
      }
    }
    exporters::finish_exposition(exposition, format);
    return exposition;
  };
}

}  // namespace jank::test

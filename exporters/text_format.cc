#include "exporters/text_format.h"

#include <charconv>
#include <cmath>

#include <prometheus/text_serializer.h>

#include "exporters/label_repair.h"
#include "exporters/openmetrics.h"

namespace jank::exporters {

const char* content_type(ExpositionFormat format) {
  return format == ExpositionFormat::openmetrics_1_0_0 ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                                       : "text/plain; version=0.0.4; charset=utf-8";
}

void append_text_exposition(const std::vector<prometheus::MetricFamily>& families, std::string& out) {
  out += prometheus::TextSerializer().Serialize(families);
}

namespace {

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
  append_series_head(out, name, suffix, labels, extra);
  append_number(out, value);
  if (timestamp_ms != 0) {
    out += ' ';
    append_unix_seconds(out, timestamp_ms, 1000);  // OpenMetrics stamps are seconds
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

void append_openmetrics_exposition(const std::vector<prometheus::MetricFamily>& families, std::string& out) {
  for (const auto& f : families) {
    append_openmetrics_metadata(out, f.name, openmetrics_type(f), "", valid_utf8(f.help));
    for (const auto& m : f.metric) {
      std::vector<metrics::Label> list;
      list.reserve(m.label.size());
      for (const auto& l : m.label) list.push_back({l.name, l.value});
      const LabelSet labels = label_set(std::move(list));
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

LabelSet label_set(std::vector<metrics::Label> labels) {
  std::string text;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    labels[i].value = valid_utf8(std::move(labels[i].value));
    if (i != 0) text += ',';
    text += labels[i].name;
    text += "=\"";
    append_label_value(text, labels[i].value);
    text += '"';
  }
  return LabelSet(std::move(labels), std::move(text));
}

void append_number(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
  } else if (std::isinf(v)) {
    out += v < 0 ? "-Inf" : "+Inf";
  } else {
    char buf[400];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
    out.append(buf, ec == std::errc() ? end : buf);
  }
}

void append_count(std::string& out, std::uint64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc() ? end : buf);
}

std::size_t Exposition::size() const {
  std::size_t n = 0;
  for (const auto& f : families) n += f.header.size() + f.body.size();
  return n;
}

void finish_exposition(Exposition& exposition, ExpositionFormat format) {
  if (format == ExpositionFormat::openmetrics_1_0_0) exposition.families.push_back({std::string(kOpenMetricsEof), {}});
}

std::string Exposition::str() const {
  std::string out;
  out.reserve(size());
  for (const auto& f : families) {
    out += f.header;
    out += f.body;
  }
  return out;
}

}  // namespace jank::exporters

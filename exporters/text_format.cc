#include "exporters/text_format.h"

#include <charconv>
#include <limits>
#include <cmath>

namespace jank::exporters {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

void append_number(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
  } else if (std::isinf(v)) {
    out += v < 0 ? "-Inf" : "+Inf";
  } else {
    // Fixed notation (shortest exact digits): le="0.0005", never "5e-04",
    // so bucket labels read the same as other exporters print them.
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

void append_escaped(std::string& out, std::string_view s, bool quote) {
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

namespace {

void append_head(std::string& out, const std::string& name, const char* suffix, const ClientMetric& m,
                 const char* extra_label = nullptr, double extra_value = 0) {
  out += name;
  out += suffix;
  if (!m.label.empty() || extra_label != nullptr) {
    out += '{';
    bool first = true;
    for (const auto& l : m.label) {
      if (!first) out += ',';
      first = false;
      out += l.name;
      out += "=\"";
      append_escaped(out, l.value, true);
      out += '"';
    }
    if (extra_label != nullptr) {
      if (!first) out += ',';
      out += extra_label;
      out += "=\"";
      append_number(out, extra_value);
      out += '"';
    }
    out += '}';
  }
  out += ' ';
}

}  // namespace

const char* type_name(MetricType type) {
  switch (type) {
    case MetricType::Counter: return "counter";
    case MetricType::Gauge: return "gauge";
    case MetricType::Summary: return "summary";
    case MetricType::Histogram: return "histogram";
    default: return "untyped";
  }
}

void append_text_exposition(const std::vector<MetricFamily>& families, std::string& out) {
  for (const auto& f : families) {
    if (!f.help.empty()) {
      out += "# HELP ";
      out += f.name;
      out += ' ';
      append_escaped(out, f.help, false);
      out += '\n';
    }
    out += "# TYPE ";
    out += f.name;
    out += ' ';
    out += type_name(f.type);
    out += '\n';
    for (const auto& m : f.metric) {
      switch (f.type) {
        case MetricType::Counter:
          append_head(out, f.name, "", m);
          append_number(out, m.counter.value);
          out += '\n';
          break;
        case MetricType::Gauge:
          append_head(out, f.name, "", m);
          append_number(out, m.gauge.value);
          out += '\n';
          break;
        case MetricType::Histogram: {
          const auto& h = m.histogram;
          append_head(out, f.name, "_count", m);
          append_count(out, h.sample_count);
          out += '\n';
          append_head(out, f.name, "_sum", m);
          append_number(out, h.sample_sum);
          out += '\n';
          bool has_inf = false;
          for (const auto& b : h.bucket) {
            append_head(out, f.name, "_bucket", m, "le", b.upper_bound);
            append_count(out, b.cumulative_count);
            out += '\n';
            has_inf = has_inf || std::isinf(b.upper_bound);
          }
          if (!has_inf) {
            append_head(out, f.name, "_bucket", m, "le", std::numeric_limits<double>::infinity());
            append_count(out, h.sample_count);
            out += '\n';
          }
          break;
        }
        case MetricType::Summary: {
          const auto& s = m.summary;
          append_head(out, f.name, "_count", m);
          append_count(out, s.sample_count);
          out += '\n';
          append_head(out, f.name, "_sum", m);
          append_number(out, s.sample_sum);
          out += '\n';
          for (const auto& q : s.quantile) {
            append_head(out, f.name, "", m, "quantile", q.quantile);
            append_number(out, q.value);
            out += '\n';
          }
          break;
        }
        default:
          append_head(out, f.name, "", m);
          append_number(out, m.untyped.value);
          out += '\n';
          break;
      }
    }
  }
}

std::size_t Exposition::size() const {
  std::size_t n = 0;
  for (const auto& f : families) n += f.header.size() + f.body.size();
  return n;
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

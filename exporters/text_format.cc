#include "exporters/text_format.h"

#include <charconv>
#include <cmath>

#include "exporters/label_repair.h"
#include "exporters/openmetrics.h"

namespace jank::exporters {

const char* content_type(ExpositionFormat format) {
  return format == ExpositionFormat::openmetrics_1_0_0 ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                                       : "text/plain; version=0.0.4; charset=utf-8";
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

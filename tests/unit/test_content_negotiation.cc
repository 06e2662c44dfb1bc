#include <catch2/catch.hpp>

#include <string>

#include "exporters/content_negotiation.h"

using jank::exporters::ExpositionFormat;
using jank::exporters::negotiate_format;

TEST_CASE("the Accept header chooses OpenMetrics only when the client prefers it", "[http][negotiation]") {
  constexpr auto om = ExpositionFormat::openmetrics_1_0_0;
  constexpr auto text = ExpositionFormat::prometheus_0_0_4;
  struct Row {
    std::string accept;
    ExpositionFormat expected;
  };
  const Row rows[] = {
      // Prometheus 2.42's own headers: without and with native histograms (protobuf first, which is not offered).
      {"application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
       "text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
       om},
      {"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,"
       "application/openmetrics-text;version=1.0.0;q=0.8,application/openmetrics-text;version=0.0.1;q=0.75,"
       "text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
       om},
      // No preference, or none stated: today's answer.
      {"", text},
      {"*/*", text},
      {"text/plain", text},
      {"text/plain;version=0.0.4", text},
      {"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", text},  // a browser
      // OpenMetrics by name, any version it has, with spaces, in any case, quoted.
      {"application/openmetrics-text", om},
      {"application/openmetrics-text; version=1.0.0", om},
      {"application/openmetrics-text;version=0.0.1", om},
      {"Application/OpenMetrics-Text;VERSION=1.0.0", om},
      {"application/openmetrics-text;version=\"1.0.0\"", om},
      {"application/openmetrics-text ; version=1.0.0 ; charset=utf-8", om},
      {"application/*", om},
      {" , ,application/openmetrics-text,", om},  // empty list elements
      // A version the exporter does not have does not match.
      {"application/openmetrics-text;version=2.0.0", text},
      {"application/openmetrics-text;version=2.0.0,*/*;q=0.1", text},
      {"text/plain;version=1.0.0,application/openmetrics-text;q=0.5", om},
      // q-values decide; a tie keeps 0.0.4.
      {"application/openmetrics-text;q=0.5,text/plain;q=0.6", text},
      {"application/openmetrics-text;q=0.5,text/plain;q=0.5", text},
      {"text/plain;q=0.4,application/openmetrics-text;q=0.5", om},
      {"text/*;q=0.9,application/*", om},
      {"application/openmetrics-text;q=0,*/*", text},  // refused outright
      {"application/openmetrics-text;q=1.000,text/plain;q=0.999", om},
      // The most specific range decides; of equally specific ones the higher q.
      {"text/plain;version=0.0.4;q=0.5,application/openmetrics-text;version=1.0.0;q=0.5,"
       "application/openmetrics-text;version=0.0.1;q=0.9",
       om},
      {"text/plain;version=0.0.4;q=0.5,application/openmetrics-text;q=0.9,"
       "application/openmetrics-text;version=1.0.0;q=0.1",
       text},
      {"application/*;q=0.9,application/openmetrics-text;q=0.2,text/plain;q=0.5", text},
      // Parameters the exporter does not know, and extensions after q.
      {"application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,text/plain;version=0.0.4;q=0.3", om},
      {"application/openmetrics-text;q=0.5;level=1,text/plain;q=0.4", om},
      {"application/openmetrics-text;q=0.5;flag,text/plain;q=0.4", om},
      // Malformed: 0.0.4, never an error.
      {"application/openmetrics-text;q=2", text},
      {"application/openmetrics-text;q=abc", text},
      {"application/openmetrics-text;q=.5", text},
      {"application/openmetrics-text;q=0.5000", text},
      {"application/openmetrics-text;q=1.001", text},
      {"application/openmetrics-text;q=0.5;q=0.6", text},
      {"application/openmetrics-text;version", text},
      {"application/openmetrics-text;", text},
      {"application/openmetrics-text;version=\"1.0.0", text},
      {"application/openmetrics-text;version=", text},
      {"application/openmetrics-text x", text},
      {"application", text},
      {"application/", text},
      {"/openmetrics-text", text},
      {"*/openmetrics-text", text},
      {"application/openmetrics-text;version = 1.0.0", text},
      {"application/openmetrics-text,text/html;;q=1", text},
      {std::string("application/openmetrics-text,\x01"), text},
      {std::string("application/openmetrics-text;v=\"a\x01\""), text},
  };
  for (const auto& row : rows) {
    INFO("Accept: " << row.accept);
    CHECK(negotiate_format(row.accept) == row.expected);
  }
}

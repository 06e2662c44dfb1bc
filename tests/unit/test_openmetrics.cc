// The OpenMetrics 1.0.0 answer: the same samples as the 0.0.4 text, its
// own metadata, exemplars from the flight recorder, `# EOF`.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <prometheus/metric_family.h>

#include "exporters/metric_catalogue.h"
#include "exporters/openmetrics.h"
#include "exporters/prometheus_collector.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/skips.h"
#include "metrics/store.h"
#include "tests/support/prometheus_text.h"
#include "tests/unit/exposition_fixture.h"
#include "metrics/sources/traces.h"

using namespace jank;
using exporters::ExpositionFormat;
using metrics::ExemplarCounter;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;

std::string openmetrics(const exporters::StoreCollector& c) {
  return c.Text(ExpositionFormat::openmetrics_1_0_0).str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Sample lines, an exemplar cut off.
std::vector<std::string> samples(const std::string& text) {
  std::vector<std::string> out;
  for (auto line : lines(text)) {
    if (line.starts_with("#")) continue;
    if (const auto at = line.find(" # {"); at != std::string::npos) line.resize(at);
    out.push_back(line);
  }
  return out;
}

std::string exemplar_text(const metrics::TraceExemplar& e) {
  std::string out;
  exporters::append_exemplar(out, e);
  return out;
}

}  // namespace

TEST_CASE("OpenMetrics text of a small store with an exemplar", "[openmetrics][exporter]") {
  metrics::StoreOptions o;
  o.sm_window = std::chrono::seconds(10);
  metrics::Store store(o);
  auto& d = store.device("s");
  jank::metrics::record_skip(store, d, "com.a", 10 * kSec, true, 3);
  jank::metrics::record_skip(store, d, "com.a", 11 * kSec, true, 40);
  jank::metrics::record_skip(store, d, "com.b", 11 * kSec, true, 30);
  // com.a's skipped frames have a trace: 40 frames at 2025-11-24 16:00:00.25 UTC.
  jank::metrics::trace_state(d).exemplars[{ExemplarCounter::skipped_frames, "com.a", ""}] = {"s_com.a_20251124T160000Z_skip", 40,
                                                                         1'764'000'000'250'000'000};
  // com.b's id is one character over the limit: trace_id (8) + 121 > 128.
  const std::string long_id(121, 'b');
  jank::metrics::trace_state(d).exemplars[{ExemplarCounter::skipped_frames, "com.b", ""}] = {long_id, 30, 1'764'000'000'000'000'000};
  exporters::StoreCollector c(store, exporters::input_time_now());
  const std::string text = openmetrics(c);
  const std::string expected =
      "# TYPE android_display_refresh_rate_hertz gauge\n"
      "# UNIT android_display_refresh_rate_hertz hertz\n"
      "# HELP android_display_refresh_rate_hertz Display refresh rate used for SM and jank thresholds.\n"
      "android_display_refresh_rate_hertz{serial=\"s\"} 60\n"
      "# TYPE android_display_refresh_rate_fallback gauge\n"
      "# HELP android_display_refresh_rate_fallback 1 when the refresh rate is the configured default rather than "
      "read from the device.\n"
      "android_display_refresh_rate_fallback{serial=\"s\"} 1\n"
      "# TYPE android_choreographer_device_sm gauge\n"
      "# HELP android_choreographer_device_sm Smoothness of the whole device: refresh rate minus skipped frames per "
      "second over the window.\n"
      "android_choreographer_device_sm{serial=\"s\"} 52.7\n"
      "# TYPE jank_exporter_logcat_lines counter\n"
      "# UNIT jank_exporter_logcat_lines lines\n"
      "# HELP jank_exporter_logcat_lines Logcat lines received, by outcome (received = parsed + unmatched + "
      "discarded).\n"
      "jank_exporter_logcat_lines_total{serial=\"s\",result=\"parsed\"} 0\n"
      "jank_exporter_logcat_lines_total{serial=\"s\",result=\"unmatched\"} 0\n"
      "jank_exporter_logcat_lines_total{serial=\"s\",result=\"discarded\"} 0\n"
      "# TYPE jank_exporter_logcat_discarded_lines counter\n"
      "# UNIT jank_exporter_logcat_discarded_lines lines\n"
      "# HELP jank_exporter_logcat_discarded_lines Logcat lines discarded, by reason.\n"
      "jank_exporter_logcat_discarded_lines_total{serial=\"s\",reason=\"too_long\"} 0\n"
      "jank_exporter_logcat_discarded_lines_total{serial=\"s\",reason=\"binary\"} 0\n"
      "jank_exporter_logcat_discarded_lines_total{serial=\"s\",reason=\"no_header\"} 0\n"
      "jank_exporter_logcat_discarded_lines_total{serial=\"s\",reason=\"malformed\"} 0\n"
      "# TYPE jank_exporter_logcat_duplicate_lines counter\n"
      "# UNIT jank_exporter_logcat_duplicate_lines lines\n"
      "# HELP jank_exporter_logcat_duplicate_lines Lines dropped after a reconnect or restart because they had been "
      "counted already.\n"
      "jank_exporter_logcat_duplicate_lines_total{serial=\"s\"} 0\n"
      "# TYPE jank_exporter_package_overflow_events counter\n"
      "# HELP jank_exporter_package_overflow_events Events counted under package=\\\"_other_\\\" because the device "
      "reached its package cap.\n"
      "jank_exporter_package_overflow_events_total{serial=\"s\"} 0\n"
      "# TYPE android_choreographer_skipped_frames counter\n"
      "# UNIT android_choreographer_skipped_frames frames\n"
      "# HELP android_choreographer_skipped_frames Frames Choreographer reported skipped (sum of N in \\\"Skipped N "
      "frames!\\\").\n"
      "android_choreographer_skipped_frames_total{serial=\"s\",package=\"com.a\"} 43 # "
      "{trace_id=\"s_com.a_20251124T160000Z_skip\"} 40 1764000000.25\n"
      "android_choreographer_skipped_frames_total{serial=\"s\",package=\"com.b\"} 30\n"
      "# TYPE android_choreographer_skip_events counter\n"
      "# HELP android_choreographer_skip_events \\\"Skipped N frames!\\\" lines.\n"
      "android_choreographer_skip_events_total{serial=\"s\",package=\"com.a\"} 2\n"
      "android_choreographer_skip_events_total{serial=\"s\",package=\"com.b\"} 1\n"
      "# TYPE android_choreographer_skip_size_frames histogram\n"
      "# UNIT android_choreographer_skip_size_frames frames\n"
      "# HELP android_choreographer_skip_size_frames Distribution of N in \\\"Skipped N frames!\\\".\n"
      "android_choreographer_skip_size_frames_count{serial=\"s\",package=\"com.a\"} 2\n"
      "android_choreographer_skip_size_frames_sum{serial=\"s\",package=\"com.a\"} 43\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.a\",le=\"1\"} 0\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.a\",le=\"2\"} 0\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.a\",le=\"3\"} 1\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.a\",le=\"5\"} 1\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.a\",le=\"10\"} 1\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.a\",le=\"30\"} 1\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.a\",le=\"60\"} 2\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.a\",le=\"120\"} 2\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.a\",le=\"+Inf\"} 2\n"
      "android_choreographer_skip_size_frames_count{serial=\"s\",package=\"com.b\"} 1\n"
      "android_choreographer_skip_size_frames_sum{serial=\"s\",package=\"com.b\"} 30\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.b\",le=\"1\"} 0\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.b\",le=\"2\"} 0\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.b\",le=\"3\"} 0\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.b\",le=\"5\"} 0\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.b\",le=\"10\"} 0\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.b\",le=\"30\"} 1\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.b\",le=\"60\"} 1\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.b\",le=\"120\"} 1\n"
      "android_choreographer_skip_size_frames_bucket{serial=\"s\",package=\"com.b\",le=\"+Inf\"} 1\n"
      "# TYPE android_choreographer_sm gauge\n"
      "# HELP android_choreographer_sm Smoothness of the process: refresh rate minus its skipped frames per second "
      "over the window.\n"
      "android_choreographer_sm{serial=\"s\",package=\"com.a\"} 55.7\n"
      "android_choreographer_sm{serial=\"s\",package=\"com.b\"} 57\n"
      "# TYPE android_choreographer_max_skipped_frames gauge\n"
      "# UNIT android_choreographer_max_skipped_frames frames\n"
      "# HELP android_choreographer_max_skipped_frames Largest single skip within the window.\n"
      "android_choreographer_max_skipped_frames{serial=\"s\",package=\"com.a\"} 40\n"
      "android_choreographer_max_skipped_frames{serial=\"s\",package=\"com.b\"} 30\n"
      "# EOF\n";
  // The first line that differs, for a readable failure; then the whole.
  const auto got = lines(text), want = lines(expected);
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    INFO("line " << i + 1);
    REQUIRE(got[i] == want[i]);
  }
  CHECK(text == expected);
  // The 0.0.4 text has the same samples, no exemplar and no # EOF.
  const std::string classic = c.Text().str();
  CHECK(samples(classic) == samples(text));
  CHECK_THAT(classic, !Catch::Contains("trace_id"));
  CHECK_THAT(classic, !Catch::Contains("# EOF"));
}

TEST_CASE("an exemplar's label set stays within 128 code points", "[openmetrics]") {
  using exporters::append_exemplar;
  const std::int64_t at = 1'700'000'000'000'000'001;  // 1 ns past a whole second
  CHECK(exemplar_text({"t1", 1.5, at}) == " # {trace_id=\"t1\"} 1.5 1700000000.000000001");
  CHECK(exemplar_text({"t1", 40, 0}) == " # {trace_id=\"t1\"} 40");  // no time known: no timestamp
  // trace_id (8) + 120 = 128: shown; one more: not.
  CHECK(exemplar_text({std::string(120, 'x'), 1, at}) ==
        " # {trace_id=\"" + std::string(120, 'x') + "\"} 1 1700000000.000000001");
  std::string out = "sample 1";
  CHECK_FALSE(append_exemplar(out, {std::string(121, 'x'), 1, at}));
  CHECK(out == "sample 1");
  // Code points, not bytes: 120 two-byte characters fit.
  std::string e_acute;
  for (int i = 0; i < 120; ++i) e_acute += "\xc3\xa9";
  CHECK_FALSE(exemplar_text({e_acute, 1, at}).empty());
  CHECK(exemplar_text({e_acute + "\xc3\xa9", 1, at}).empty());
  // Counted as Prometheus reads the id back: an invalid byte becomes the four characters \xFF.
  CHECK(exemplar_text({"a\xff", 1, 0}) == " # {trace_id=\"a\\\\xFF\"} 1");
  CHECK_FALSE(exemplar_text({std::string(116, 'x') + "\xff", 1, at}).empty());  // 8 + 116 + 4 = 128
  CHECK(exemplar_text({std::string(117, 'x') + "\xff", 1, at}).empty());
  CHECK(exemplar_text({"quote\"d", 1, 0}) == " # {trace_id=\"quote\\\"d\"} 1");
  CHECK(exemplar_text({"", 1, at}).empty());  // links nowhere
}

TEST_CASE("Unix seconds are written with their fraction and without an exponent", "[openmetrics]") {
  struct Row {
    std::int64_t time, per_second;
    const char* text;
  };
  const Row rows[] = {
      {1234, 1000, "1.234"},
      {1000, 1000, "1.0"},
      {0, 1000, "0.0"},
      {-500, 1000, "-0.5"},
      {-1500, 1000, "-1.5"},
      {1'700'000'000'120'000'000, 1'000'000'000, "1700000000.12"},
      {1'700'000'000'000'000'001, 1'000'000'000, "1700000000.000000001"},
      {std::numeric_limits<std::int64_t>::min(), 1'000'000'000, "-9223372036.854775808"},
  };
  for (const auto& row : rows) {
    std::string out;
    exporters::append_unix_seconds(out, row.time, row.per_second);
    INFO(row.time << " / " << row.per_second);
    CHECK(out == row.text);
  }
}

// The store with every family, and an exemplar on each counter family the
// recorder names (docs/traces.md): every sample of the 0.0.4 text, the
// exemplars only on their series, metadata as the format wants it.
TEST_CASE("OpenMetrics serves every family with the samples of the 0.0.4 text", "[openmetrics][exporter]") {
  metrics::Store store;
  metrics::DaemonMetrics daemon;
  metrics::RunBook runs;
  test::fill_every_feature(store, daemon);
  test::fill_runs(store, runs);
  auto& d = store.device("s");
  REQUIRE(metrics::layers_of(d).size() == 1);
  const std::string layer = metrics::layers_of(d).begin()->first;
  const std::int64_t at = 1'700'000'000'500'000'000;
  jank::metrics::trace_state(d).exemplars[{ExemplarCounter::skipped_frames, "p", ""}] = {"t-skip", 57, at};
  jank::metrics::trace_state(d).exemplars[{ExemplarCounter::davey_frames, "p", ""}] = {"t-davey", 800, at};
  jank::metrics::trace_state(d).exemplars[{ExemplarCounter::layer_frames_presented, "p", layer}] = {"t-fps", 12.5, at};
  jank::metrics::trace_state(d).exemplars[{ExemplarCounter::layer_big_jank, "p", layer}] = {"t-big", 3, at};
  jank::metrics::trace_state(d).exemplars[{ExemplarCounter::davey_frames, "gone", ""}] = {"t-gone", 1, at};  // no such series
  exporters::StoreCollector c(store, exporters::input_time_now(), nullptr, &daemon, &runs);
  c.set_window_span(test::whole_window());  // serves the replay-only span family too
  c.set_series_budget(exporters::series_budget({"all"}, 0));  // the daemon's budget series too
  const std::string text = openmetrics(c);
  const std::string classic = c.Text().str();

  CHECK(samples(text) == samples(classic));
  CHECK(text.ends_with("\n# EOF\n"));
  CHECK(text.find("# EOF") == text.size() - 6);
  std::map<std::string, std::string> exemplars;  // sample name → exemplar
  for (const auto& line : lines(text)) {
    INFO(line);
    if (line.starts_with("#")) {
      CHECK((line.starts_with("# TYPE ") || line.starts_with("# HELP ") || line.starts_with("# UNIT ") ||
             line == "# EOF"));
    } else if (const auto at_hash = line.find(" # {"); at_hash != std::string::npos) {
      exemplars[line.substr(0, line.find('{'))] = line.substr(at_hash);
    }
  }
  const std::map<std::string, std::string> expected = {
      {"android_choreographer_skipped_frames_total", " # {trace_id=\"t-skip\"} 57 1700000000.5"},
      {"android_hwui_davey_frames_total", " # {trace_id=\"t-davey\"} 800 1700000000.5"},
      {"android_layer_frames_presented_total", " # {trace_id=\"t-fps\"} 12.5 1700000000.5"},
      {"android_layer_perfdog_big_jank_total", " # {trace_id=\"t-big\"} 3 1700000000.5"},
  };
  CHECK(exemplars == expected);
  // The layer's exemplar is on the series of its layer.
  CHECK_THAT(text, Catch::Contains("{serial=\"s\",package=\"p\",layer=\"" + layer + "\",kind=\"app_window\"} 3 # {"));
  // One device's series carry its exemplars too.
  CHECK_THAT(c.Text("s", ExpositionFormat::openmetrics_1_0_0).str(), Catch::Contains("# {trace_id=\"t-skip\"}"));
  CHECK(c.Text("nope", ExpositionFormat::openmetrics_1_0_0).str() == "# EOF\n");
  CHECK(c.Text("nope").str().empty());

  // Metadata: each family once, declared under its OpenMetrics name, and a
  // UNIT line only where that name ends in the unit.
  std::set<std::string> declared;
  for (const auto& f : exporters::catalogue()) {
    const std::string type(exporters::family_type_name(f.type));
    const std::string name(exporters::openmetrics_family_name(f.name, type));
    INFO(f.name);
    CHECK(declared.insert(name).second);
    CHECK(name.ends_with("_total") == false);
    CHECK_THAT("\n" + text, Catch::Contains("\n# TYPE " + name + " " + type + "\n"));
    const bool unit = !f.unit.empty() && name.ends_with("_" + std::string(f.unit));
    CHECK((text.find("\n# UNIT " + name + " ") != std::string::npos) == unit);
  }
  CHECK_THAT(text, Catch::Contains("\n# TYPE android_layer_frame_time_seconds histogram\n"
                                   "# UNIT android_layer_frame_time_seconds seconds\n# HELP "));
  // Its unit is frames, which its name does not end in.
  CHECK_THAT(text, Catch::Contains("\n# TYPE android_layer_frames_presented counter\n# HELP "));
}

TEST_CASE("OpenMetrics metadata lines escape the help text", "[openmetrics]") {
  std::string out;
  exporters::append_openmetrics_metadata(out, "x_seconds_total", "counter", "seconds", "A \"quoted\" \\ and\nnext.");
  CHECK(out ==
        "# TYPE x_seconds counter\n"
        "# UNIT x_seconds seconds\n"
        "# HELP x_seconds A \\\"quoted\\\" \\\\ and\\nnext.\n");
  out.clear();
  exporters::append_openmetrics_metadata(out, "reseconds", "gauge", "seconds", "");  // no `_` before the unit
  CHECK(out == "# TYPE reseconds gauge\n");
}

// prometheus-cpp's own families (exposition_of): the same sample names and
// labels as its TextSerializer, OpenMetrics metadata and timestamps.
TEST_CASE("prometheus-cpp families in OpenMetrics", "[openmetrics]") {
  using prometheus::ClientMetric;
  using prometheus::MetricFamily;
  using prometheus::MetricType;
  std::vector<MetricFamily> families;
  {
    MetricFamily f{"requests_total", "Requests \"served\".\nSecond line.", MetricType::Counter, {}};
    ClientMetric m;
    m.label = {{"path", "/a\"b"}};
    m.counter.value = 7;
    f.metric.push_back(m);
    families.push_back(f);
  }
  {
    MetricFamily f{"legacy_events", "A counter without _total.", MetricType::Counter, {}};
    ClientMetric m;
    m.counter.value = 2;
    f.metric.push_back(m);
    families.push_back(f);
  }
  {
    MetricFamily f{"temperature_celsius", "", MetricType::Gauge, {}};
    ClientMetric m;
    m.gauge.value = 21.5;
    f.metric.push_back(m);
    families.push_back(f);
  }
  {
    MetricFamily f{"loose", "Untyped.", MetricType::Untyped, {}};
    ClientMetric m;
    m.untyped.value = 3;
    f.metric.push_back(m);
    families.push_back(f);
  }
  {
    MetricFamily f{"latency_seconds", "Latency.", MetricType::Summary, {}};
    ClientMetric m;
    m.summary.sample_count = 4;
    m.summary.sample_sum = 2;
    m.summary.quantile = {{0.5, 0.25}, {0.99, 1}};
    f.metric.push_back(m);
    families.push_back(f);
  }
  {
    MetricFamily f{"size_bytes", "Sizes.", MetricType::Histogram, {}};
    ClientMetric m;
    m.label = {{"kind", "k"}};
    m.histogram.sample_count = 3;
    m.histogram.sample_sum = 6;
    m.histogram.bucket = {{1, 1e-05}, {2, 0.005}, {2, 1}, {3, std::numeric_limits<double>::infinity()}};
    f.metric.push_back(m);
    families.push_back(f);
  }
  std::string text;
  test::append_openmetrics_exposition(families, text);
  CHECK(text ==
        "# TYPE requests counter\n"
        "# HELP requests Requests \\\"served\\\".\\nSecond line.\n"
        "requests_total{path=\"/a\\\"b\"} 7\n"
        "# TYPE legacy_events unknown\n"
        "# HELP legacy_events A counter without _total.\n"
        "legacy_events 2\n"
        "# TYPE temperature_celsius gauge\n"
        "temperature_celsius 21.5\n"
        "# TYPE loose unknown\n"
        "# HELP loose Untyped.\n"
        "loose 3\n"
        "# TYPE latency_seconds summary\n"
        "# HELP latency_seconds Latency.\n"
        "latency_seconds_count 4\n"
        "latency_seconds_sum 2\n"
        "latency_seconds{quantile=\"0.5\"} 0.25\n"
        "latency_seconds{quantile=\"0.99\"} 1\n"
        "# TYPE size_bytes histogram\n"
        "# HELP size_bytes Sizes.\n"
        "size_bytes_count{kind=\"k\"} 3\n"
        "size_bytes_sum{kind=\"k\"} 6\n"
        "size_bytes_bucket{kind=\"k\",le=\"1e-05\"} 1\n"
        "size_bytes_bucket{kind=\"k\",le=\"0.005\"} 2\n"
        "size_bytes_bucket{kind=\"k\",le=\"1\"} 2\n"
        "size_bytes_bucket{kind=\"k\",le=\"+Inf\"} 3\n");
  // Every sample line is prometheus-cpp's own 0.0.4 line (without the help
  // texts: prometheus-cpp does not escape a newline in them).
  auto without_help = families;
  for (auto& f : without_help) f.help.clear();
  std::string classic;
  test::append_text_exposition(without_help, classic);
  CHECK(samples(text) == samples(classic));

  // A timestamp is in seconds.
  families.resize(1);
  families[0].metric[0].timestamp_ms = 1'700'000'000'123;
  text.clear();
  test::append_openmetrics_exposition(families, text);
  CHECK_THAT(text, Catch::EndsWith("requests_total{path=\"/a\\\"b\"} 7 1700000000.123\n"));
}

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <prometheus/text_serializer.h>

#include "exporters/metric_catalogue.h"
#include "exporters/prometheus_collector.h"
#include "metrics/source.h"
#include "metrics/sources/skips.h"
#include "tests/unit/exposition_fixture.h"

using namespace jank;

namespace {

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(sep, start);
    std::string part(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    const auto first = part.find_first_not_of(' ');
    const auto last = part.find_last_not_of(' ');
    out.push_back(first == std::string::npos ? "" : part.substr(first, last - first + 1));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

std::string every_feature_exposition() {
  metrics::Store store;
  metrics::DaemonMetrics daemon;
  metrics::RunBook runs;
  test::fill_every_feature(store, daemon);
  test::fill_runs(store, runs);
  exporters::StoreCollector collector(store, exporters::input_time_now(), nullptr, &daemon, &runs);
  collector.set_window_span(test::whole_window());  // serves the replay-only span family too
  collector.set_series_budget(exporters::series_budget({"all"}, 0));  // the daemon's budget series too
  return collector.Text().str();
}

std::string read_doc() {
  std::ifstream in(std::string(JANK_SOURCE_DIR) + "/docs/metrics.md");
  std::ostringstream doc;
  doc << in.rdbuf();
  return doc.str();
}

}  // namespace

TEST_CASE("the catalogue declares each family once, named by the conventions", "[catalogue]") {
  std::set<std::string_view> names;
  for (const auto& f : exporters::catalogue()) {
    INFO(f.name);
    CHECK(names.insert(f.name).second);
    CHECK((f.name.starts_with("android_") || f.name.starts_with("jank_exporter_")));
    CHECK(f.name.ends_with("_total") == (f.type == exporters::FamilyType::counter));
    if (!f.unit.empty()) CHECK(f.name.find("_" + std::string(f.unit)) != std::string_view::npos);
    CHECK_FALSE(f.help.empty());
    CHECK(f.help.back() == '.');
  }
  // The exporter's own families, then each source module's, each at the index family_index() gives.
  std::size_t index = 0;
  for (std::size_t i = 0; i < exporters::kFamilyCount; ++i, ++index) {
    const auto& spec = exporters::family(static_cast<exporters::Family>(i));
    CHECK(exporters::family_index(spec) == index);
    CHECK(exporters::catalogue()[index].name == spec.name);
  }
  for (const auto* source : metrics::device_sources()) {
    for (const auto& spec : source->families()) {
      INFO(source->name() << ": " << spec.name);
      CHECK(exporters::family_index(spec) == index);
      CHECK(exporters::catalogue()[index++].name == spec.name);
    }
  }
  CHECK(names.size() == index);
  CHECK(exporters::catalogue().size() == index);
}

// Parses the tables of docs/metrics.md: `family` | type | labels | meaning.
TEST_CASE("docs/metrics.md documents every catalogued family with its type and labels, and no other", "[docs]") {
  std::map<std::string, std::vector<std::string>> rows;  // family → its table cells
  std::istringstream doc(read_doc());
  for (std::string line; std::getline(doc, line);) {
    if (!line.starts_with("| `")) continue;
    const auto cells = split(std::string_view(line).substr(1), '|');
    if (cells.size() < 4) continue;
    const std::string name = cells[0].substr(1, cells[0].size() - 2);  // without the backticks
    CHECK(rows.emplace(name, cells).second);
  }
  std::set<std::string> catalogued;
  for (const auto& f : exporters::catalogue()) {
    catalogued.insert(std::string(f.name));
    INFO(f.name);
    const auto it = rows.find(std::string(f.name));
    REQUIRE(it != rows.end());
    CHECK(it->second[1] == exporters::family_type_name(f.type));
    const auto expected = f.labels.empty() ? std::vector<std::string>{"—"} : split(f.labels, ',');
    CHECK(split(it->second[2], ',') == expected);
  }
  for (const auto& [name, cells] : rows) {
    INFO(name << " is documented but not in the catalogue");
    CHECK(catalogued.contains(name));
  }
}

// Every family of an exposition with every feature, the catalogue's types,
// and each series' label names as the catalogue declares them.
TEST_CASE("the exposition serves exactly the catalogued families, types and label names", "[catalogue][exporter]") {
  const std::string text = every_feature_exposition();
  std::map<std::string, std::string> types;  // family → type from # TYPE
  std::istringstream in(text);
  std::string family;
  std::size_t samples = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("# TYPE ")) {
      const auto parts = split(std::string_view(line).substr(7), ' ');
      REQUIRE(parts.size() == 2);
      CHECK(types.emplace(parts[0], parts[1]).second);
      family = parts[0];
      continue;
    }
    if (line.starts_with("#")) continue;
    ++samples;
    const auto& spec = [&]() -> const exporters::FamilySpec& {
      for (const auto& f : exporters::catalogue()) {
        if (f.name == family) return f;
      }
      FAIL("not catalogued: " << family);
      return exporters::catalogue()[0];
    }();
    // Label names of the sample, without the histogram's le.
    std::vector<std::string> names;
    const auto open = line.find('{');
    if (open != std::string::npos) {
      std::string_view labels(line);
      labels = labels.substr(open + 1, line.rfind('}') - open - 1);
      std::size_t at = 0;
      while (at < labels.size()) {
        const auto eq = labels.find("=\"", at);
        std::string name(labels.substr(at, eq - at));
        std::size_t end = eq + 2;
        while (labels[end] != '"') end += labels[end] == '\\' ? 2 : 1;
        if (name != "le") names.push_back(name);
        at = end + 2;  // past `",`
      }
    }
    INFO(line);
    CHECK(names == split(spec.labels, ','));
  }
  CHECK(samples > 100);
  std::map<std::string, std::string> expected;
  for (const auto& f : exporters::catalogue()) {
    expected.emplace(std::string(f.name), std::string(exporters::family_type_name(f.type)));
  }
  CHECK(types == expected);
}

// prometheus-cpp as the independent oracle: the same series as real
// prometheus::MetricFamily values, written by prometheus::TextSerializer.
// The fixture's values print alike in both float formats, so the texts must
// be equal byte for byte with no normalisation.
TEST_CASE("Text() equals prometheus-cpp's TextSerializer of the same series byte for byte", "[exporter][oracle]") {
  metrics::Store store;
  metrics::DaemonMetrics daemon;
  metrics::RunBook runs;
  test::fill_every_feature(store, daemon);
  test::fill_runs(store, runs);
  // Label values that need repair and escaping on both paths.
  auto& odd = store.device("odd\"serial\\\n\xff");
  jank::metrics::record_skip(store, odd, "com.\xc3\xa9t\xc3\xa9", 2'000'000'000, true, 60);  // SM 60 - 60/60 = 59
  exporters::StoreCollector collector(store, exporters::input_time_now(), nullptr, &daemon, &runs);
  collector.set_window_span(test::whole_window());
  collector.set_series_budget(exporters::series_budget({"all"}, 0));
  const auto families = collector.Collect();
  REQUIRE(families.size() == exporters::catalogue().size());
  const std::string oracle = prometheus::TextSerializer().Serialize(families);
  const std::string text = collector.Text().str();
  CHECK_THAT(text, Catch::Contains("serial=\"odd\\\"serial\\\\\\n\\\\xFF\""));
  // The first line that differs, for a readable failure; then the whole.
  std::istringstream a(text), b(oracle);
  std::string line_a, line_b;
  for (int n = 1; std::getline(a, line_a) && std::getline(b, line_b); ++n) {
    INFO("line " << n);
    CHECK(line_a == line_b);
    if (line_a != line_b) break;
  }
  CHECK(text == oracle);
}

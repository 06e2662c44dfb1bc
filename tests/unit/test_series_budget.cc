// The series budget (docs/metrics.md, "Series budget"): the default profile,
// the detailed groups, and the per-device cap with its counted drops.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <prometheus/text_serializer.h>

#include "exporters/metric_catalogue.h"
#include "exporters/prometheus_collector.h"
#include "exporters/series_budget.h"
#include "metrics/sources/skips.h"
#include "tests/unit/exposition_fixture.h"

using namespace jank;

namespace {

// Sample lines per family, from the text exposition's `# TYPE` headers.
using Lines = std::map<std::string, std::vector<std::string>>;
Lines lines_by_family(const std::string& text) {
  Lines out;
  std::istringstream in(text);
  std::string family;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("# TYPE ")) {
      family = line.substr(7, line.find(' ', 7) - 7);
      out[family];
    } else if (!line.empty() && line[0] != '#') {
      out[family].push_back(line);
    }
  }
  return out;
}

// The sample lines of `text` carrying `label`.
std::vector<std::string> lines_with(const std::string& text, const std::string& label) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#' && line.find(label) != std::string::npos) out.push_back(line);
  }
  return out;
}

metrics::SeriesGroup group_of(const std::string& family) {
  for (const auto& f : exporters::catalogue()) {
    if (f.name == family) return f.group;
  }
  FAIL("not catalogued: " << family);
  return metrics::SeriesGroup::core;
}

std::string every_feature_text(const exporters::SeriesBudget* budget) {
  metrics::Store store;
  metrics::DaemonMetrics daemon;
  test::fill_every_feature(store, daemon);
  exporters::StoreCollector collector(store, exporters::input_time_now(), nullptr, &daemon);
  if (budget != nullptr) collector.set_series_budget(*budget);
  return collector.Text().str();
}

double sample_value(const std::string& text, const std::string& series) {
  const auto at = text.find("\n" + series + " ");
  REQUIRE(at != std::string::npos);
  return std::stod(text.substr(at + series.size() + 2));
}

}  // namespace

TEST_CASE("the default profile leaves out the detailed groups and keeps every other series as it was",
          "[exporter][budget]") {
  const auto everything = lines_by_family(every_feature_text(nullptr));
  const auto budget = exporters::series_budget({}, 0);
  const auto text = every_feature_text(&budget);
  const auto profile = lines_by_family(text);
  std::size_t detailed = 0;
  for (const auto& [family, lines] : everything) {
    INFO(family);
    if (group_of(family) == metrics::SeriesGroup::core) {
      REQUIRE(profile.contains(family));
      CHECK(profile.at(family) == lines);
    } else {
      CHECK_FALSE(profile.contains(family));
      ++detailed;
    }
  }
  CHECK(detailed >= 15);  // the every-feature store has series of every detailed group but one or two
  // Beside them, only the budget's own two series per device, which count
  // the device's other series.
  for (const auto& [family, lines] : profile) {
    if (!everything.contains(family)) {
      CHECK((family == "jank_exporter_device_series" || family == "jank_exporter_device_series_dropped"));
      CHECK(lines.size() == 2);  // devices s and s5
    }
  }
  for (const std::string serial : {"s", "s5"}) {
    INFO(serial);
    const std::string label = "serial=\"" + serial + "\"";
    CHECK(sample_value(text, "jank_exporter_device_series_dropped{" + label + "}") == 0);
    // The flight recorder's trace list is the daemon's, not the device's.
    const auto traces = lines_with(text, "jank_exporter_trace_info{" + label).size();
    CHECK(sample_value(text, "jank_exporter_device_series{" + label + "}") ==
          static_cast<double>(lines_with(text, label).size() - 2 - traces));
  }
}

TEST_CASE("a detailed group named in series.detailed comes back whole, the others stay out", "[exporter][budget]") {
  const auto everything = lines_by_family(every_feature_text(nullptr));
  const auto budget = exporters::series_budget({"windows", "stages"}, 0);
  const auto profile = lines_by_family(every_feature_text(&budget));
  std::set<metrics::SeriesGroup> seen;
  for (const auto& [family, lines] : everything) {
    INFO(family);
    const auto g = group_of(family);
    if (g == metrics::SeriesGroup::core || g == metrics::SeriesGroup::windows || g == metrics::SeriesGroup::stages) {
      REQUIRE(profile.contains(family));
      CHECK(profile.at(family) == lines);
      seen.insert(g);
    } else {
      CHECK_FALSE(profile.contains(family));
    }
  }
  CHECK(seen.size() == 3);
  const auto every_group = exporters::series_budget({"all"}, 0);
  const auto all = lines_by_family(every_feature_text(&every_group));
  for (const auto& [family, lines] : everything) CHECK(all.at(family) == lines);
}

TEST_CASE("a device over its cap keeps its own series and whole apps in order, counts the rest, and leaves the "
          "other devices alone",
          "[exporter][budget]") {
  metrics::Store store;
  auto& big = store.device("big");
  auto& small = store.device("small");
  for (int app = 0; app < 20; ++app) {
    const std::string package = "app" + std::string(app < 10 ? "0" : "") + std::to_string(app);
    metrics::record_skip(store, big, package, 1'000'000'000 + app, true, 5);
  }
  metrics::record_skip(store, small, "only", 1'000'000'000, true, 5);
  exporters::StoreCollector collector(store, exporters::input_time_now());

  collector.set_series_budget(exporters::series_budget({"all"}, 0));
  const std::string uncapped = collector.Text().str();
  const auto big_all = lines_with(uncapped, "serial=\"big\"");
  collector.set_series_budget(exporters::series_budget({}, 0));
  const std::string default_profile = collector.Text().str();
  const auto per_app = lines_with(default_profile, "package=\"app00\"").size();
  const auto device_own = lines_with(default_profile, "serial=\"big\"").size() - 20 * per_app - 2;
  REQUIRE(per_app > 3);

  // Room for the device's own series and seven apps, not eight.
  const std::size_t cap = device_own + 7 * per_app + per_app / 2;
  collector.set_series_budget(exporters::series_budget({"all"}, cap));
  const std::string capped = collector.Text().str();
  const auto big_capped = lines_with(capped, "serial=\"big\"");
  const double written = sample_value(capped, "jank_exporter_device_series{serial=\"big\"}");
  const double dropped = sample_value(capped, "jank_exporter_device_series_dropped{serial=\"big\"}");
  CHECK(written == static_cast<double>(device_own + 7 * per_app));
  CHECK(written <= static_cast<double>(cap));
  CHECK(written == static_cast<double>(big_capped.size() - 2));
  CHECK(written + dropped == static_cast<double>(big_all.size() - 2));
  for (int app = 0; app < 20; ++app) {
    const std::string label = "package=\"app" + std::string(app < 10 ? "0" : "") + std::to_string(app) + "\"";
    INFO(label);
    // Kept apps whole, as the default profile writes them; the others not at all.
    CHECK(lines_with(capped, label) == (app < 7 ? lines_with(default_profile, label) : std::vector<std::string>{}));
  }
  // The other device as it was, and nothing of a detailed group on the capped one.
  auto sorted = [](std::vector<std::string> lines) {
    std::sort(lines.begin(), lines.end());  // families first seen on "small" now come later
    return lines;
  };
  CHECK(sorted(lines_with(capped, "serial=\"small\"")) == sorted(lines_with(uncapped, "serial=\"small\"")));
  CHECK(lines_with(capped, "android_choreographer_skip_size_frames").size() ==
        lines_with(uncapped, "android_choreographer_skip_size_frames{serial=\"small\"").size() +
            lines_with(uncapped, "android_choreographer_skip_size_frames_bucket{serial=\"small\"").size() +
            lines_with(uncapped, "android_choreographer_skip_size_frames_count{serial=\"small\"").size() +
            lines_with(uncapped, "android_choreographer_skip_size_frames_sum{serial=\"small\"").size());

  // prometheus-cpp's families (Collect) take the same series back.
  const std::string oracle = prometheus::TextSerializer().Serialize(collector.Collect());
  CHECK(lines_with(oracle, "serial=\"big\"").size() == big_capped.size());
  CHECK(lines_with(oracle, "package=\"app07\"").empty());
  CHECK(lines_with(oracle, "serial=\"small\"").size() == lines_with(capped, "serial=\"small\"").size());

  // One device's view applies the same budget.
  const std::string one = collector.Text("big").str();
  CHECK(lines_with(one, "serial=\"big\"") == big_capped);
}

TEST_CASE("a cap the device's detailed series alone pass drops only those", "[exporter][budget]") {
  metrics::Store store;
  auto& d = store.device("d");
  metrics::record_skip(store, d, "a", 1'000'000'000, true, 5);
  exporters::StoreCollector collector(store, exporters::input_time_now());
  collector.set_series_budget(exporters::series_budget({}, 0));
  const auto core = lines_with(collector.Text().str(), "serial=\"d\"");
  collector.set_series_budget(exporters::series_budget({"all"}, 0));
  const auto all = lines_with(collector.Text().str(), "serial=\"d\"");
  REQUIRE(all.size() > core.size());
  collector.set_series_budget(exporters::series_budget({"all"}, all.size() - 3));  // one series short
  const std::string text = collector.Text().str();
  auto without_budget = [](std::vector<std::string> lines) {
    std::erase_if(lines, [](const std::string& l) { return l.starts_with("jank_exporter_device_series"); });
    return lines;
  };
  CHECK(without_budget(lines_with(text, "serial=\"d\"")) == without_budget(core));
  CHECK(sample_value(text, "jank_exporter_device_series_dropped{serial=\"d\"}") ==
        static_cast<double>(all.size() - core.size()));
  // At exactly its size nothing is dropped.
  collector.set_series_budget(exporters::series_budget({"all"}, all.size() - 2));
  CHECK(sample_value(collector.Text().str(), "jank_exporter_device_series_dropped{serial=\"d\"}") == 0);
}

TEST_CASE("docs/metrics.md lists each detailed group with exactly the families the catalogue puts in it",
          "[docs][budget]") {
  std::ifstream in(std::string(JANK_SOURCE_DIR) + "/docs/metrics.md");
  std::map<std::string, std::set<std::string>> documented;
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("| **")) continue;
    const std::string group = line.substr(4, line.find("**", 4) - 4);
    auto& families = documented[group];
    const auto last_cell = line.rfind('|', line.size() - 2);
    for (auto at = line.find('`', last_cell); at != std::string::npos; at = line.find('`', line.find('`', at + 1) + 1)) {
      families.insert(line.substr(at + 1, line.find('`', at + 1) - at - 1));
    }
  }
  std::map<std::string, std::set<std::string>> catalogued;
  for (const auto& f : exporters::catalogue()) {
    if (f.group != metrics::SeriesGroup::core) {
      catalogued[std::string(metrics::series_group_name(f.group))].insert(std::string(f.name));
    }
  }
  CHECK(catalogued.size() == metrics::kSeriesGroups - 1);
  CHECK(documented == catalogued);
}

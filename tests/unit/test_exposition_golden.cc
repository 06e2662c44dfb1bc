// The whole exposition of a store holding every kind of state, byte for
// byte: the order of its families (the order they first appear) and of the
// series within each. Moving a source into a module (docs/architecture.md,
// "Adding a data source") must leave it as it is. JANK_UPDATE_GOLDEN=1
// rewrites the files; review the diff.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/unit/exposition_fixture.h"

using namespace jank;

namespace {

// Devices sorted before "s" whose first series decide where some families
// stand: one with only a power state (SurfaceFlinger's device series with
// zeros), one with only log patterns.
void fill_first_devices(metrics::Store& store) {
  auto& power = store.device("a-power");
  metrics::record_power_state(store, power, parsers::parse_power_state("  mWakefulness=Asleep\nDisplay Power: state=OFF\nbad\n"));
  auto& patterns = store.device("b-patterns");
  parsers::LogPatternHit hit;
  hit.name = "crash";
  metrics::record_log_pattern(store, patterns, "q", hit, 50);
}

void compare_with(const std::string& name, const std::string& actual) {
  const std::string path = std::string(JANK_SOURCE_DIR) + "/tests/golden/" + name;
  if (std::getenv("JANK_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream expected;
  expected << in.rdbuf();
  INFO(path << " (JANK_UPDATE_GOLDEN=1 rewrites it)");
  std::istringstream a(actual), b(expected.str());
  std::string line_a, line_b;
  for (int n = 1; std::getline(a, line_a) && std::getline(b, line_b); ++n) {
    INFO("line " << n);
    REQUIRE(line_a == line_b);
  }
  CHECK(actual == expected.str());
}

}  // namespace

TEST_CASE("the exposition of every feature is the golden one, families and series in order", "[exporter][golden]") {
  metrics::Store store;
  metrics::DaemonMetrics daemon;
  metrics::RunBook runs;
  fill_first_devices(store);
  test::fill_every_feature(store, daemon);
  test::fill_runs(store, runs);
  exporters::StoreCollector collector(store, exporters::input_time_now(), nullptr, &daemon, &runs);
  collector.set_window_span(test::whole_window());
  compare_with("every_feature.prom.txt", collector.Text().str());
  compare_with("every_feature.openmetrics.txt", collector.Text(exporters::ExpositionFormat::openmetrics_1_0_0).str());

  // Restored from its checkpoint, the store serves the same counts.
  metrics::Store restored;
  std::string error;
  REQUIRE(restored.load(store.save(), error));
  exporters::StoreCollector again(restored, exporters::input_time_now(), nullptr, &daemon, &runs);
  again.set_window_span(test::whole_window());
  compare_with("every_feature_restored.prom.txt", again.Text().str());
}

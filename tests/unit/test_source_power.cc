// The power module (metrics/sources/power): its record, and state files of
// releases that kept its counts inside the surface record.
#include <catch2/catch.hpp>

#include <string>

#include "exporters/prometheus_collector.h"
#include "metrics/device_view.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/power.h"
#include "metrics/store.h"
#include "parsers/power_state.h"

using namespace jank;

namespace {

// Three lines, one of them a key with a value no Android prints.
constexpr std::string_view kOff = "  mWakefulness=Sideways\nDisplay Power: state=OFF\nother\n";

std::string exposition(const metrics::Store& store) {
  return exporters::StoreCollector(store, exporters::input_time_now()).Text().str();
}

}  // namespace

TEST_CASE("power's counts have a record of their own and come back from it", "[source][checkpoint]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_power_state(store, d, parsers::parse_power_state(kOff));
  REQUIRE(metrics::power_of(d) != nullptr);
  CHECK(metrics::screen_dark(d));
  const std::string text = store.save();
  CHECK(text.find("\npower 3 1\n") != std::string::npos);
  CHECK(text.find("\nsurface ") == std::string::npos);  // nothing of SurfaceFlinger's to keep

  metrics::Store restored;
  std::string error;
  REQUIRE(restored.load(text, error));
  const auto* p = metrics::power_of(restored.device("s"));
  REQUIRE(p != nullptr);
  CHECK(p->lines == 3);
  CHECK(p->malformed_lines == 1);
  CHECK_FALSE(p->screen);  // an old panel state is no current state
  CHECK(restored.save() == text);
}

TEST_CASE("a state file that kept power's counts in the surface record loads them, and exports them",
          "[source][checkpoint]") {
  // As releases before the power module wrote it: dumpsys power's lines were
  // the 5th and 6th counts of the surface record, written for them alone.
  const std::string old =
      "jank_exporter_state 2 1\n"
      "device \"s 60 1\n"
      "0 0 0 0 4 0 0 0 0\n"
      "0 0 0 0 0\n"
      "0\n"
      "cursor 0 \" 0 0 rebase 0\n"
      "continuity 0 0 0 0 0 0\n"
      "clock 0 0 0\n"
      "dump_input 0 0 0 0\n"
      "0\n"
      "surface 0 0 0 0 3 1 0 0 0\n"
      "0\n"
      "end\n";
  metrics::Store store;
  std::string error;
  metrics::Store::LoadReport report;
  const bool ok = store.load(old, error, &report);
  INFO(error);
  REQUIRE(ok);
  CHECK(report.rejected.empty());
  const auto* p = metrics::power_of(store.device("s"));
  REQUIRE(p != nullptr);
  CHECK(p->lines == 3);
  CHECK(p->malformed_lines == 1);
  const std::string text = exposition(store);
  CHECK_THAT(text, Catch::Contains(
                       "jank_exporter_surfaceflinger_lines_total{serial=\"s\",source=\"power\",result=\"parsed\"} 2\n"
                       "jank_exporter_surfaceflinger_lines_total{serial=\"s\",source=\"power\",result=\"discarded\"} 1\n"));
  CHECK_THAT(text, Catch::Contains("android_device_active_seconds_total{serial=\"s\"} 0\n"));

  // Saved again, the counts are in power's record and the surface record is gone.
  const std::string saved = store.save();
  CHECK(saved.find("\npower 3 1\n") != std::string::npos);
  CHECK(saved.find("\nsurface ") == std::string::npos);
  metrics::Store again;
  REQUIRE(again.load(saved, error));
  CHECK(exposition(again) == text);
}

TEST_CASE("power counts that cannot be true in an old surface record drop power's alone", "[source][checkpoint]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::layers_state(d).input.list_lines = 7;
  metrics::record_power_state(store, d, parsers::parse_power_state(kOff));
  std::string text = store.save();
  // The old layout: power's counts in the surface record (more discarded than read), no record of its own.
  const auto power_at = text.find("\npower 3 1\n");
  REQUIRE(power_at != std::string::npos);
  text.erase(power_at, std::string_view("\npower 3 1").size());
  const auto fields = text.find("surface 7 0 0 0 0 0 ");
  REQUIRE(fields != std::string::npos);
  text.replace(fields, std::string_view("surface 7 0 0 0 0 0 ").size(), "surface 7 0 0 0 1 5 ");
  metrics::Store restored;
  std::string error;
  metrics::Store::LoadReport report;
  REQUIRE(restored.load(text, error, &report));
  CHECK(metrics::power_of(restored.device("s")) == nullptr);
  CHECK(metrics::layers_state(restored.device("s")).input.list_lines == 7);  // the surface record is kept
  CHECK(report.rejected_by_record.at("surface_counters") == 1);
  CHECK(report.rejected.size() == 1);
}

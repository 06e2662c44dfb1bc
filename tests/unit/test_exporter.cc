#include <catch2/catch.hpp>

#include "exporters/prometheus_collector.h"
#include "metrics/daemon_status.h"
#include "metrics/sources/gfxinfo.h"
#include "metrics/sources/skips.h"
#include "metrics/store.h"
#include "parsers/gfxinfo.h"

using namespace jank;

TEST_CASE("exposition carries device and package series with SM over the window", "[exporter]") {
  metrics::StoreOptions o;
  o.sm_window = std::chrono::seconds(10);
  o.default_refresh_hz = 90;
  metrics::Store store(o);
  auto& d = store.device("emulator-5554");
  const std::int64_t s = 1'000'000'000;
  jank::metrics::record_skip(store, d, "com.a", 100 * s, true, 40);
  jank::metrics::record_skip(store, d, "com.a", 105 * s, true, 20);
  jank::metrics::record_skip(store, d, "com.b", 105 * s, true, 10);
  exporters::StoreCollector c(store, exporters::input_time_now());
  const std::string text = c.Text().str();

  CHECK_THAT(text, Catch::Contains(
                       "android_choreographer_skipped_frames_total{serial=\"emulator-5554\",package=\"com.a\"} 60"));
  CHECK_THAT(text, Catch::Contains(
                       "android_choreographer_skip_events_total{serial=\"emulator-5554\",package=\"com.b\"} 1"));
  // SM of com.a: 90 − 60/10 = 84; device: 90 − 70/10 = 83.
  CHECK_THAT(text, Catch::Contains("android_choreographer_sm{serial=\"emulator-5554\",package=\"com.a\"} 84"));
  CHECK_THAT(text, Catch::Contains("android_choreographer_device_sm{serial=\"emulator-5554\"} 83"));
  CHECK_THAT(text, Catch::Contains(
                       "android_choreographer_max_skipped_frames{serial=\"emulator-5554\",package=\"com.a\"} 40"));
  CHECK_THAT(text, Catch::Contains(
                       "android_choreographer_skip_size_frames_bucket{serial=\"emulator-5554\",package=\"com.a\",le=\"30\"} 1"));
  CHECK_THAT(text, Catch::Contains("# TYPE android_choreographer_skip_size_frames histogram"));
  CHECK_THAT(text, Catch::Contains("android_display_refresh_rate_hertz{serial=\"emulator-5554\"} 90"));
}

TEST_CASE("exposition omits families that have no series", "[exporter]") {
  metrics::Store store;
  store.device("x");
  exporters::StoreCollector c(store, exporters::input_time_now());
  const std::string text = c.Text().str();
  CHECK_THAT(text, !Catch::Contains("android_choreographer_skipped_frames_total"));
  CHECK_THAT(text, !Catch::Contains("android_hwui_davey_frames_total"));
  CHECK_THAT(text, Catch::Contains("jank_exporter_logcat_lines_total{serial=\"x\",result=\"parsed\"} 0"));
}

TEST_CASE("gfxinfo lines and framestats rows: received = parsed + discarded", "[exporter]") {
  metrics::Store store;
  auto& d = store.device("x");
  const auto dump = parsers::parse_gfxinfo(
      "** Graphics info for pid 7 [com.a] **\n"
      "Total frames rendered: 4\n"
      "Janky frames: four (100%)\n"
      "---PROFILEDATA---\n"
      "Flags,IntendedVsync,FrameCompleted,\n"
      "0,1000000,9000000,\n"
      "0,x,9000000,\n"
      "0,2000000,\n"
      "---PROFILEDATA---\n");
  REQUIRE(dump.lines == 9);
  metrics::record_gfxinfo(store, d, dump);
  metrics::record_gfxinfo(store, d, dump);  // a second poll adds its lines and rows again
  const std::string text = exporters::StoreCollector(store, exporters::input_time_now()).Text().str();
  CHECK_THAT(text, Catch::Contains("jank_exporter_gfxinfo_lines_total{serial=\"x\",result=\"parsed\"} 16\n"));
  CHECK_THAT(text, Catch::Contains("jank_exporter_gfxinfo_lines_total{serial=\"x\",result=\"discarded\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("jank_exporter_framestats_rows_total{serial=\"x\",result=\"parsed\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("jank_exporter_framestats_rows_total{serial=\"x\",result=\"discarded\"} 4\n"));
}

TEST_CASE("device list lines and polls of each adb server are exported", "[exporter]") {
  metrics::Store store;
  metrics::DaemonMetrics daemon;
  auto& tracker = daemon.adb_servers["127.0.0.1:5037"].tracker;
  tracker.list_lines = 7;
  tracker.list_malformed_lines = 2;
  tracker.polls_ok = 10;
  tracker.polls_discarded = 3;
  tracker.polls_failed = 1;
  const std::string text = exporters::StoreCollector(store, exporters::input_time_now(), nullptr, &daemon).Text().str();
  const std::string server = "{server=\"127.0.0.1:5037\",result=";
  CHECK_THAT(text, Catch::Contains("jank_exporter_adb_device_list_lines_total" + server + "\"parsed\"} 5\n"));
  CHECK_THAT(text, Catch::Contains("jank_exporter_adb_device_list_lines_total" + server + "\"discarded\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("jank_exporter_adb_device_list_polls_total" + server + "\"applied\"} 7\n"));
  CHECK_THAT(text, Catch::Contains("jank_exporter_adb_device_list_polls_total" + server + "\"discarded\"} 3\n"));
  CHECK_THAT(text, Catch::Contains("jank_exporter_adb_device_list_polls_total" + server + "\"failed\"} 1\n"));
}

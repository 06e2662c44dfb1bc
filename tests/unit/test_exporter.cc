#include <catch2/catch.hpp>

#include "exporters/prometheus_collector.h"
#include "metrics/store.h"

using namespace jank;

TEST_CASE("exposition carries device and package series with SM over the window", "[exporter]") {
  metrics::StoreOptions o;
  o.window_seconds = 10;
  o.default_refresh_hz = 90;
  metrics::Store store(o);
  auto& d = store.device("emulator-5554");
  const std::int64_t s = 1'000'000'000;
  store.record_skip(d, "com.a", 100 * s, true, 40);
  store.record_skip(d, "com.a", 105 * s, true, 20);
  store.record_skip(d, "com.b", 105 * s, true, 10);
  exporters::StoreCollector c(store, exporters::input_time_now());
  const std::string text = exporters::serialize_text(c.Collect());
  CHECK(c.Text().str() == text);

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
  const std::string text = exporters::serialize_text(c.Collect());
  CHECK(c.Text().str() == text);
  CHECK_THAT(text, !Catch::Contains("android_choreographer_skipped_frames_total"));
  CHECK_THAT(text, !Catch::Contains("android_hwui_davey_frames_total"));
  CHECK_THAT(text, Catch::Contains("jank_exporter_logcat_lines_total{serial=\"x\",result=\"parsed\"} 0"));
}

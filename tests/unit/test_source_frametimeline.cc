// The FrameTimeline module (metrics/sources/frametimeline): a state file of
// the release before it loads its counts (the package parts "frametimeline"
// and "ft_windows" and the "ft_device" record keep the store's layout), and
// a device record with values that cannot be true is dropped alone.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "exporters/prometheus_collector.h"
#include "metrics/sources/frametimeline.h"
#include "metrics/store.h"
#include "tests/unit/exposition_fixture.h"
#include "tests/unit/state_fixture.h"

using namespace jank;

namespace {

using test::series;

// Written by the release before the module: an app with 3 judged frames (1
// missed its deadline), one window, and the device's window and line counts.
const std::string kOld =
    "jank_exporter_state 2 1\n"
    "device \"s 60 1\n"
    "0 0 0 0 4 0 0 0 0\n"
    "0 0 0 0 0\n"
    "0\n"
    "cursor 0 \" 0 0 rebase 0\n"
    "continuity 0 0 0 0 0 0\n"
    "clock 0 0 0\n"
    "dump_input 0 0 0 0\n"
    "1\n"
    "package \"com.example.feed\n"
    "0 0 9 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "0 0 9 0 0 0 0 0 0 0 0 0 0 0\n"
    "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 10 0 0 0 0 0 0 0 0 0 0 "
    "0 0 0 0 vitals 0 0 0 0\n"
    "0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 "
    "0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 "
    "0 0 0 0 fs_legacy 0 fs_interval_fallbacks 0\n"
    "frametimeline 3 1 0 0 11 2 0 0 0 1 0 0 0 0 0 0 0\n"
    "ft_windows 1 \"com.example.feed/com.example.feed.MainActivity 3 1 2 0 0 0 1 0 0 0 0 0 0\n"
    "ft_device 40 2 ft_tracker 502 1 0 3 500 57 501 57 502 57 0\n"
    "end\n";

}  // namespace

TEST_CASE("a state file of the release before the FrameTimeline module loads its counts",
          "[source][checkpoint][frametimeline]") {
  metrics::Store store;
  CHECK(test::load_state(store, kOld).rejected.empty());
  const auto& d = store.device("s");
  const auto* ft = metrics::frametimeline_of(d.packages.at("com.example.feed"));
  REQUIRE(ft != nullptr);
  CHECK(ft->frames == 3);
  CHECK(ft->janky == 1);
  CHECK(ft->by_label[4] == 1);
  const auto* windows = metrics::frametimeline_windows_of(d.packages.at("com.example.feed"));
  REQUIRE(windows != nullptr);
  CHECK(windows->windows().at("com.example.feed/com.example.feed.MainActivity").frames == 3);
  const auto* device = metrics::frametimeline_of(d);
  REQUIRE(device != nullptr);
  CHECK(device->lines == 40);
  CHECK(device->malformed_lines == 2);
  CHECK(device->tracker.overflows() == 1);
  CHECK(series(store, "android_frametimeline_frames_total") ==
        "android_frametimeline_frames_total{serial=\"s\",package=\"com.example.feed\"} 3\n");
  CHECK(series(store, "android_frametimeline_window_janky_frames_total") ==
        "android_frametimeline_window_janky_frames_total{serial=\"s\",package=\"com.example.feed\","
        "window=\"com.example.feed/com.example.feed.MainActivity\"} 1\n");
  CHECK(series(store, "jank_exporter_frametimeline_overflows_total") ==
        "jank_exporter_frametimeline_overflows_total{serial=\"s\"} 1\n");
  CHECK(series(store, "jank_exporter_surfaceflinger_lines_total") ==
        "jank_exporter_surfaceflinger_lines_total{serial=\"s\",source=\"frametimeline\",result=\"parsed\"} 38\n"
        "jank_exporter_surfaceflinger_lines_total{serial=\"s\",source=\"frametimeline\",result=\"discarded\"} 2\n");
  // Written again, the same text.
  CHECK(store.save() == kOld);
}

TEST_CASE("a FrameTimeline device record with impossible values is dropped alone and reported",
          "[source][checkpoint][frametimeline]") {
  // More malformed lines than lines.
  const std::string bad = test::replaced(kOld, "ft_device 40 2 ", "ft_device 40 41 ");
  metrics::Store store;
  auto report = test::load_state(store, bad);
  CHECK(report.rejected_by_record["frametimeline"] == 1);
  REQUIRE(report.rejected.size() == 1);
  CHECK(report.rejected[0] == "s: frametimeline: a value that cannot be true; the window is read afresh");
  const auto& d = store.device("s");
  CHECK(metrics::frametimeline_of(d) == nullptr);
  // The app's counts are kept.
  REQUIRE(metrics::frametimeline_of(d.packages.at("com.example.feed")) != nullptr);
  CHECK(metrics::frametimeline_of(d.packages.at("com.example.feed"))->frames == 3);
  CHECK(series(store, "jank_exporter_frametimeline_overflows_total").empty());
}

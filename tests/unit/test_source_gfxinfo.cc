// The gfxinfo module (metrics/sources/gfxinfo): a state file of the release
// before it loads its counts where the store wrote them (the dump count in
// the device's counters line, the "dump_input" and "profile_input" records,
// and the package record's gfxinfo and framestats fields, "hwui_profile" and
// "windows"), is written back byte for byte, and a record with a value that
// cannot be true is dropped alone and reported.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "metrics/sources/gfxinfo.h"
#include "metrics/store.h"
#include "tests/unit/exposition_fixture.h"
#include "tests/unit/state_fixture.h"

using namespace jank;

namespace {

using test::series;

// Written by the release before the module: one dump of an app with 5
// frames rendered (2 janky), a window of 3 framestats rows (one flagged, one
// janky, one malformed), 2 HWUI profile rows (one more malformed), 40 lines
// (2 malformed).
const std::string kOld =
    "jank_exporter_state 2 1\n"
    "device \"s 60 1\n"
    "0 0 0 0 4 0 0 0 0\n"
    "0 0 1 0 0\n"
    "0\n"
    "cursor 0 \" 0 0 rebase 0\n"
    "continuity 0 0 0 0 0 0\n"
    "clock 0 0 0\n"
    "dump_input 40 2 4 1\n"
    "profile_input 3 1\n"
    "1\n"
    "package \"com.example.feed\n"
    "0 0 9 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "0 0 9 0 0 0 0 0 0 0 0 0 0 0\n"
    "1 1 0 0 1 5 1 2 1 1 0 0 0 0 1 1 0 0 0 0 0 0 0 0 1 5 1 9 1 20 1 750 0 0 0 0 0 0 0 0 3 5 3 20 1 750 1 "
    "0 5 2 1 0 1 1 0 0 0 0 0 1 1 0 0 0 0 0 0 0 0 17 0 0 0 3 0 0 0 0 0 0 0 0 0 0 1 0 1 5 0.785 10 0 0 0 0 "
    "0 0 0 0 0 0 0 0 1 1 5 9 20 750 0 vitals 1 2 2 1\n"
    "1 1 \"com.example.feed/com.example.feed.MainActivity 1032000000 2 1 1 0 0 0 17 1 0 0 0 0 0 1 0 0 0 "
    "0 0 0 0 0 0 0 2 0.048 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 "
    "0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 "
    "fs_legacy 1 fs_interval_fallbacks 0\n"
    "hwui_profile 2 11 0 0 0 1 1 0 0 0 0 0 0 2 0.01 11 1 1 0 0 0 0 0 0 0 0 0 2 0.0015 11 0 0 1 1 0 0 0 0 "
    "0 0 0 2 0.005 11 0 1 1 0 0 0 0 0 0 0 0 2 0.003\n"
    "windows 1 \"com.example.feed/com.example.feed.MainActivity 2 1 17 1 0 0 0 0 0 1 0 0 0 0 0 0 0 0 0 0 "
    "2 0.048 0 0\n"
    "peaks 0 40000000\n"
    "end\n";

}  // namespace

TEST_CASE("a state file of the release before the gfxinfo module loads its counts",
          "[source][checkpoint][gfxinfo]") {
  metrics::Store store;
  CHECK(test::load_state(store, kOld).rejected.empty());
  const auto& d = store.device("s");
  const auto* device = metrics::gfxinfo_of(d);
  REQUIRE(device != nullptr);
  CHECK(device->dumps == 1);
  CHECK(device->input.gfxinfo_lines == 40);
  CHECK(device->input.framestats_malformed_rows == 1);
  CHECK(device->input.profile_rows == 3);
  const auto* app = metrics::gfxinfo_of(d.packages.at("com.example.feed"));
  REQUIRE(app != nullptr);
  CHECK(app->has_gfxinfo);
  CHECK(app->gfxinfo.frames_rendered() == 5);
  CHECK(app->has_framestats);
  CHECK(app->framestats.frames() == 2);
  CHECK(app->has_hwui_profile);
  CHECK(app->hwui_profile.frames() == 2);
  CHECK(app->windows.windows().at("com.example.feed/com.example.feed.MainActivity").frames == 2);
  CHECK(d.packages.at("com.example.feed").peaks.frame_ns == 40'000'000);
  CHECK(series(store, "android_gfxinfo_frames_rendered_total") ==
        "android_gfxinfo_frames_rendered_total{serial=\"s\",package=\"com.example.feed\"} 5\n");
  CHECK(series(store, "android_gfxinfo_janky_frames_total") ==
        "android_gfxinfo_janky_frames_total{serial=\"s\",package=\"com.example.feed\"} 2\n");
  CHECK(series(store, "android_gfxinfo_frozen_frames_total") ==
        "android_gfxinfo_frozen_frames_total{serial=\"s\",package=\"com.example.feed\"} 1\n");
  CHECK(series(store, "android_framestats_frames_total") ==
        "android_framestats_frames_total{serial=\"s\",package=\"com.example.feed\"} 2\n");
  CHECK(series(store, "android_framestats_flagged_frames_total") ==
        "android_framestats_flagged_frames_total{serial=\"s\",package=\"com.example.feed\"} 1\n");
  CHECK(series(store, "android_hwui_profile_frames_total") ==
        "android_hwui_profile_frames_total{serial=\"s\",package=\"com.example.feed\"} 2\n");
  CHECK(series(store, "android_gfxinfo_window_janky_frames_total") ==
        "android_gfxinfo_window_janky_frames_total{serial=\"s\",package=\"com.example.feed\","
        "window=\"com.example.feed/com.example.feed.MainActivity\"} 1\n");
  CHECK(series(store, "jank_exporter_gfxinfo_lines_total") ==
        "jank_exporter_gfxinfo_lines_total{serial=\"s\",result=\"parsed\"} 38\n"
        "jank_exporter_gfxinfo_lines_total{serial=\"s\",result=\"discarded\"} 2\n");
  CHECK(series(store, "jank_exporter_framestats_rows_total") ==
        "jank_exporter_framestats_rows_total{serial=\"s\",result=\"parsed\"} 3\n"
        "jank_exporter_framestats_rows_total{serial=\"s\",result=\"discarded\"} 1\n");
  CHECK(series(store, "jank_exporter_gfxinfo_profile_rows_total") ==
        "jank_exporter_gfxinfo_profile_rows_total{serial=\"s\",result=\"parsed\"} 2\n"
        "jank_exporter_gfxinfo_profile_rows_total{serial=\"s\",result=\"discarded\"} 1\n");
  // Written again, the same text.
  CHECK(store.save() == kOld);
}

TEST_CASE("gfxinfo input counts that cannot be true are dropped alone and reported",
          "[source][checkpoint][gfxinfo]") {
  // More malformed lines than lines; more discarded profile rows than rows.
  const std::string bad = test::replaced(test::replaced(kOld, "dump_input 40 2 4 1", "dump_input 40 41 4 1"),
                                         "profile_input 3 1", "profile_input 3 4");
  metrics::Store store;
  auto report = test::load_state(store, bad);
  CHECK(report.rejected_by_record["device_counters"] == 2);
  REQUIRE(report.rejected.size() == 2);
  CHECK(report.rejected[0] == "s: device_counters: gfxinfo input counts out of range; restart from 0");
  CHECK(report.rejected[1] == "s: device_counters: profile row counts out of range; restart from 0");
  CHECK(series(store, "jank_exporter_gfxinfo_lines_total") ==
        "jank_exporter_gfxinfo_lines_total{serial=\"s\",result=\"parsed\"} 0\n"
        "jank_exporter_gfxinfo_lines_total{serial=\"s\",result=\"discarded\"} 0\n");
  CHECK(series(store, "jank_exporter_gfxinfo_profile_rows_total").empty());
  // The app's counts are kept.
  CHECK(series(store, "android_gfxinfo_frames_rendered_total") ==
        "android_gfxinfo_frames_rendered_total{serial=\"s\",package=\"com.example.feed\"} 5\n");
}

TEST_CASE("a dump count out of range drops the device's counters line and the gfxinfo input series",
          "[source][checkpoint][gfxinfo]") {
  const std::string bad = test::replaced(kOld, "\n0 0 1 0 0\n", "\n0 0 18446744073709551615 0 0\n");
  metrics::Store store;
  auto report = test::load_state(store, bad);
  REQUIRE(report.rejected.size() == 1);
  CHECK(report.rejected[0] == "s: device_counters: a count out of range; the device's line counts restart from 0");
  // No dump counted: no input series, though their counts were kept.
  CHECK(series(store, "jank_exporter_gfxinfo_lines_total").empty());
  CHECK(series(store, "android_framestats_frames_total") ==
        "android_framestats_frames_total{serial=\"s\",package=\"com.example.feed\"} 2\n");
}

TEST_CASE("a package record with an impossible gfxinfo value is dropped alone and reported",
          "[source][checkpoint][gfxinfo]") {
  const std::string bad = test::replaced(kOld, "hwui_profile 2 ", "hwui_profile 18446744073709551615 ");
  metrics::Store store;
  auto report = test::load_state(store, bad);
  REQUIRE(report.rejected.size() == 1);
  CHECK(report.rejected[0] == "s: package com.example.feed: a count out of range; its series restart from 0");
  CHECK(series(store, "android_hwui_profile_frames_total").empty());
  CHECK(series(store, "android_gfxinfo_frames_rendered_total").empty());
  // The device's input counts are kept.
  CHECK(series(store, "jank_exporter_framestats_rows_total") ==
        "jank_exporter_framestats_rows_total{serial=\"s\",result=\"parsed\"} 3\n"
        "jank_exporter_framestats_rows_total{serial=\"s\",result=\"discarded\"} 1\n");
}

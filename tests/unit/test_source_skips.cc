// The skips and Davey module (metrics/sources/skips): a state file of the
// release before it loads its counts and windows (the head of each package
// record and the device window in the device record keep the store's
// layout), shows them in the exposition and is written back byte for byte;
// a package record with an impossible count is dropped alone and reported.
#include <catch2/catch.hpp>

#include <string>

#include "metrics/sources/skips.h"
#include "metrics/store.h"
#include "tests/unit/exposition_fixture.h"
#include "tests/unit/state_fixture.h"

using namespace jank;

namespace {

using test::series;

// Written by the release before the module: com.example.feed skipped 31, 4
// and 7 frames (two seconds of its window) and logged two Davey lines, one
// of 850 ms and one with a garbage duration; com.example.chat skipped 12
// frames on a line without a timestamp (placed at the newest time);
// com.example.mail logged a Davey of 120 ms; the device window sums them.
const std::string kOld =
    "jank_exporter_state 2 1\n"
    "device \"s 60 1\n"
    "0 0 0 0 4 0 0 0 0\n"
    "2 100 31 31 101 23 12 0 0 101000000009 1\n"
    "0\n"
    "cursor 0 \" 0 0 rebase 0\n"
    "continuity 0 0 0 0 0 0\n"
    "clock 0 0 0\n"
    "dump_input 0 0 0 0\n"
    "3\n"
    "package \"com.example.chat\n"
    "12 1 9 0 0 0 0 0 1 0 0 0 1 12 1 101 12 12\n"
    "0 0 9 0 0 0 0 0 0 0 0 0 0 0\n"
    "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 10 0 0 0 0 0 "
    "0 0 0 0 0 0 0 0 0 vitals 0 0 0 0\n"
    "0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 "
    "0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 "
    "0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 fs_legacy 0 fs_interval_fallbacks 0\n"
    "peaks 12 0\n"
    "package \"com.example.feed\n"
    "42 3 9 0 0 0 1 1 0 1 0 0 3 42 2 100 31 31 101 11 7\n"
    "2 1 9 0 1 0 0 0 0 0 0 0 1 0.85\n"
    "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 10 0 0 0 0 0 "
    "0 0 0 0 0 0 0 0 0 vitals 0 0 0 0\n"
    "0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 "
    "0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 "
    "0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 fs_legacy 0 fs_interval_fallbacks 0\n"
    "peaks 31 0\n"
    "package \"com.example.mail\n"
    "0 0 9 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "1 0 9 1 0 0 0 0 0 0 0 0 1 0.12\n"
    "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 10 0 0 0 0 0 "
    "0 0 0 0 0 0 0 0 0 vitals 0 0 0 0\n"
    "0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 "
    "0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 "
    "0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 fs_legacy 0 fs_interval_fallbacks 0\n"
    "end\n";

}  // namespace

TEST_CASE("a state file of the release before the skips module loads its counts and windows",
          "[source][checkpoint][skips]") {
  metrics::Store store;
  CHECK(test::load_state(store, kOld).rejected.empty());
  const auto& d = store.device("s");
  const auto* feed = metrics::skips_of(d.packages.at("com.example.feed"));
  REQUIRE(feed != nullptr);
  CHECK(feed->skipped_frames == 42);
  CHECK(feed->skip_events == 3);
  CHECK(feed->davey_frames == 2);
  CHECK(feed->davey_invalid_durations == 1);
  CHECK(d.packages.at("com.example.feed").peaks.skip_frames == 31);
  const auto* device = metrics::skips_of(d);
  REQUIRE(device != nullptr);
  CHECK(device->window.frames(101'000'000'009) == 54);
  CHECK(series(store, "android_choreographer_skipped_frames_total") ==
        "android_choreographer_skipped_frames_total{serial=\"s\",package=\"com.example.chat\"} 12\n"
        "android_choreographer_skipped_frames_total{serial=\"s\",package=\"com.example.feed\"} 42\n");
  CHECK(series(store, "android_choreographer_max_skipped_frames") ==
        "android_choreographer_max_skipped_frames{serial=\"s\",package=\"com.example.chat\"} 12\n"
        "android_choreographer_max_skipped_frames{serial=\"s\",package=\"com.example.feed\"} 31\n");
  CHECK(series(store, "android_choreographer_sm") ==
        "android_choreographer_sm{serial=\"s\",package=\"com.example.chat\"} 59.8\n"
        "android_choreographer_sm{serial=\"s\",package=\"com.example.feed\"} 59.3\n");
  CHECK(series(store, "android_choreographer_device_sm") == "android_choreographer_device_sm{serial=\"s\"} 59.1\n");
  CHECK(series(store, "android_hwui_davey_frames_total") ==
        "android_hwui_davey_frames_total{serial=\"s\",package=\"com.example.feed\"} 2\n"
        "android_hwui_davey_frames_total{serial=\"s\",package=\"com.example.mail\"} 1\n");
  CHECK(series(store, "android_hwui_davey_invalid_durations_total") ==
        "android_hwui_davey_invalid_durations_total{serial=\"s\",package=\"com.example.feed\"} 1\n"
        "android_hwui_davey_invalid_durations_total{serial=\"s\",package=\"com.example.mail\"} 0\n");
  // Written again, the same text.
  CHECK(store.save() == kOld);
}

TEST_CASE("a package record with an impossible skip count is dropped alone and reported",
          "[source][checkpoint][skips]") {
  // com.example.chat's skipped frames near 2^64.
  const std::string bad =
      test::replaced(kOld, "package \"com.example.chat\n12 ", "package \"com.example.chat\n18446744073709551610 ");
  metrics::Store store;
  auto report = test::load_state(store, bad);
  CHECK(report.rejected_by_record["package"] == 1);
  REQUIRE(report.rejected.size() == 1);
  CHECK(report.rejected[0] == "s: package com.example.chat: a count out of range; its series restart from 0");
  const auto& d = store.device("s");
  CHECK(metrics::skips_of(d.packages.at("com.example.chat")) == nullptr);
  // The others and the device window are kept.
  CHECK(metrics::skips_of(d.packages.at("com.example.feed"))->skipped_frames == 42);
  CHECK(metrics::skips_of(d)->window.frames(101'000'000'009) == 54);
  CHECK(series(store, "android_choreographer_skipped_frames_total") ==
        "android_choreographer_skipped_frames_total{serial=\"s\",package=\"com.example.feed\"} 42\n");
}

// Framestats frames per window: titles, the per-app cap, exactly-once
// counting across overlapping polls, the exposition and the checkpoint.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "exporters/prometheus_collector.h"
#include "metrics/store.h"
#include "metrics/window_frames.h"
#include "parsers/gfxinfo.h"
#include "tests/unit/gfxinfo_state.h"

using namespace jank;
using test::gfx;

namespace {

constexpr std::int64_t kMs = 1'000'000;

struct Rows {
  std::string window;                                  // the Window: title
  std::vector<std::pair<std::int64_t, std::int64_t>> frames;  // IntendedVsync, duration
};

// An Android 12+ dump of `pkg`: a Window: block with framestats per window.
std::string dump_of(const std::string& pkg, const std::vector<Rows>& windows) {
  std::string s = "Applications Graphics Acceleration Info:\n** Graphics info for pid 42 [" + pkg + "] **\n" +
                  "Profile data in ms:\n";
  for (const auto& w : windows) {
    s += "\t" + w.window + "/android.view.ViewRootImpl@1 (visibility=0)\nWindow: " + w.window + "\n";
    s += "---PROFILEDATA---\nFlags,IntendedVsync,FrameCompleted,\n";
    for (const auto& [intended, duration] : w.frames) {
      s += "0," + std::to_string(intended) + "," + std::to_string(intended + duration) + ",\n";
    }
    s += "---PROFILEDATA---\n\n";
  }
  return s + "View hierarchy:\n";
}

const metrics::WindowCounts& window(const metrics::Store& store, const std::string& pkg, const std::string& title) {
  return gfx(store.devices().at("s")->packages.at(pkg)).windows.windows().at(title);
}

std::string exposition(const metrics::Store& store) {
  return exporters::StoreCollector(store, exporters::input_time_now()).Text().str();
}

}  // namespace

TEST_CASE("window frames: titles are the Window title or the view root's without its instance", "[windows]") {
  using metrics::WindowFrames;
  CHECK(WindowFrames::title_of("com.a/com.a.Main") == "com.a/com.a.Main");
  CHECK(WindowFrames::title_of("com.a/com.a.Main/android.view.ViewRootImpl@859603c") == "com.a/com.a.Main");
  CHECK(WindowFrames::title_of("PopupWindow:1/android.view.ViewRootImpl@b") == "PopupWindow:1");
  CHECK(WindowFrames::title_of("android.view.ViewRootImpl@b") == "android.view.ViewRootImpl@b");
  CHECK(WindowFrames::title_of("") == "_unnamed_");
  // Cut at 128 bytes, never inside a character: 127 bytes and a two-byte é.
  const std::string long_title = std::string(127, 'a') + "\xC3\xA9" + "tail";
  CHECK(WindowFrames::title_of(long_title) == std::string(127, 'a'));
  CHECK(WindowFrames::title_of(std::string(300, 'b')).size() == metrics::kMaxWindowTitleBytes);
}

TEST_CASE("window frames: overlapping polls count each frame once under its window", "[windows][store]") {
  metrics::Store store;
  auto& d = store.device("s");
  const std::string main = "com.a/com.a.Main", dialog = "com.a/com.a.Dialog";
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo(dump_of(
                              "com.a", {{main, {{1000 * kMs, 8 * kMs}, {1016 * kMs, 30 * kMs}}},
                                        {dialog, {{1008 * kMs, 5 * kMs}}}})));
  // The next poll repeats the older rows and brings new ones.
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo(dump_of(
                              "com.a", {{main, {{1016 * kMs, 30 * kMs}, {1033 * kMs, 9 * kMs}}},
                                        {dialog, {{1008 * kMs, 5 * kMs}, {1024 * kMs, 40 * kMs}}}})));
  const auto& m = window(store, "com.a", main);
  CHECK(m.frames == 3);
  CHECK(m.janky == 1);
  CHECK(m.duration.count() == 3);
  CHECK(m.duration.sum() == Approx(0.047));
  const auto& g = window(store, "com.a", dialog);
  CHECK(g.frames == 2);
  CHECK(g.janky == 1);
  const auto& app = d.packages.at("com.a");
  CHECK(gfx(app).framestats.frames() == m.frames + g.frames);
  CHECK(gfx(app).framestats.janky_frames() == m.janky + g.janky);
  CHECK(gfx(app).windows.overflowed() == 0);

  const std::string text = exposition(store);
  CHECK(text.find("android_gfxinfo_window_frames_total{serial=\"s\",package=\"com.a\",window=\"com.a/com.a.Dialog\"} 2\n") !=
        std::string::npos);
  CHECK(text.find("android_gfxinfo_window_janky_frames_total{serial=\"s\",package=\"com.a\",window=\"com.a/com.a.Main\"} 1\n") !=
        std::string::npos);
  CHECK(text.find("android_gfxinfo_window_frame_duration_seconds_count{serial=\"s\",package=\"com.a\","
                  "window=\"com.a/com.a.Main\"} 3\n") != std::string::npos);
  CHECK(text.find("jank_exporter_gfxinfo_windows_overflowed_total{serial=\"s\",package=\"com.a\"} 0\n") !=
        std::string::npos);
}

TEST_CASE("window frames: a recreated view root on Android 7-11 counts under the same title", "[windows][store]") {
  metrics::Store store;
  auto& d = store.device("s");
  auto dump = [](const std::string& root, std::int64_t intended) {
    return "** Graphics info for pid 7 [com.r] **\nProfile data in ms:\n\n\tcom.r/com.r.Main/android.view.ViewRootImpl@" +
           root + " (visibility=0)\n\n---PROFILEDATA---\nFlags,IntendedVsync,FrameCompleted,\n0," +
           std::to_string(intended) + "," + std::to_string(intended + 4 * kMs) + ",\n---PROFILEDATA---\n\nView hierarchy:\n";
  };
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo(dump("1a", 10 * kMs)));
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo(dump("2b", 90 * kMs)));
  const auto& windows = gfx(d.packages.at("com.r")).windows.windows();
  REQUIRE(windows.size() == 1);
  CHECK(windows.at("com.r/com.r.Main").frames == 2);
}

TEST_CASE("window frames: windows past the cap count under _other_ and once each as overflowed", "[windows][store]") {
  metrics::StoreOptions options;
  options.max_windows_per_package = 2;
  metrics::Store store(options);
  auto& d = store.device("s");
  std::int64_t t = 1000 * kMs;
  auto poll = [&](const std::vector<std::string>& titles) {
    std::vector<Rows> rows;
    for (const auto& title : titles) {
      rows.push_back({title, {{t, 5 * kMs}}});
      t += 16 * kMs;
    }
    metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo(dump_of("com.a", rows)));
  };
  poll({"com.a/com.a.Main"});
  poll({"com.a/com.a.Main", "PopupWindow:1", "PopupWindow:2", "PopupWindow:3"});
  poll({"PopupWindow:2", "PopupWindow:3"});
  // A window without a new frame takes no series.
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo(dump_of("com.a", {{"PopupWindow:4", {}}})));
  const auto& w = gfx(d.packages.at("com.a")).windows;
  REQUIRE(w.windows().size() == 3);
  CHECK(w.windows().at("com.a/com.a.Main").frames == 2);
  CHECK(w.windows().at("PopupWindow:1").frames == 1);
  CHECK(w.windows().at("_other_").frames == 4);
  CHECK(w.overflowed() == 2);
  CHECK(gfx(d.packages.at("com.a")).framestats.frames() == 7);
  CHECK(exposition(store).find("jank_exporter_gfxinfo_windows_overflowed_total{serial=\"s\",package=\"com.a\"} 2\n") !=
        std::string::npos);
}

TEST_CASE("window frames: device bytes in a title make a valid label", "[windows][store]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo(dump_of("com.a", {{"Bad \"q\" \xFF\\", {{1000 * kMs, 5 * kMs}}}})));
  const std::string text = exposition(store);
  CHECK(text.find("android_gfxinfo_window_frames_total{serial=\"s\",package=\"com.a\",window=\"Bad \\\"q\\\" \\\\xFF\\\\\"} 1\n") !=
        std::string::npos);
}

TEST_CASE("window frames: the checkpoint keeps each window and the overflowed titles", "[windows][store][state]") {
  metrics::StoreOptions options;
  options.max_windows_per_package = 1;
  metrics::Store store(options);
  auto& d = store.device("s");
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo(dump_of(
                              "com.a", {{"com.a/com.a.Main", {{1000 * kMs, 20 * kMs}}},
                                        {"PopupWindow:1", {{1016 * kMs, 5 * kMs}}}})));
  const std::string saved = store.save();
  metrics::Store restored(options);
  std::string error;
  REQUIRE(restored.load(saved, error));
  CHECK(restored.save() == saved);
  auto& r = restored.device("s");
  const auto& w = gfx(r.packages.at("com.a")).windows;
  CHECK(w.windows().at("com.a/com.a.Main").janky == 1);
  CHECK(w.overflowed() == 1);
  // The same overflowed window again is not a new one; the same rows add nothing.
  metrics::record_gfxinfo(restored, r, parsers::parse_gfxinfo(dump_of(
                                 "com.a", {{"com.a/com.a.Main", {{1000 * kMs, 20 * kMs}}},
                                           {"PopupWindow:1", {{1016 * kMs, 5 * kMs}, {1032 * kMs, 5 * kMs}}}})));
  CHECK(w.overflowed() == 1);
  CHECK(w.windows().at("_other_").frames == 2);
  CHECK(w.windows().at("com.a/com.a.Main").frames == 1);
}

TEST_CASE("window frames: a saved window that cannot be true drops the package record", "[windows][store][state]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo(dump_of("com.a", {{"com.a/com.a.Main", {{1000 * kMs, 5 * kMs}}}})));
  std::string saved = store.save();
  const std::string record = "windows 1 \"com.a/com.a.Main 1 0";
  const auto at = saved.find(record);
  REQUIRE(at != std::string::npos);
  saved.replace(at, record.size(), "windows 1 \"com.a/com.a.Main 1 3");  // janky > frames
  metrics::Store restored;
  std::string error;
  metrics::Store::LoadReport report;
  REQUIRE(restored.load(saved, error, &report));
  CHECK(report.rejected_by_record["package"] == 1);
  CHECK(gfx(restored.device("s").packages.at("com.a")).windows.windows().empty());
}

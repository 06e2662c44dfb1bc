// The FrameTimeline module's counts: frames once across overlapping polls,
// by app and jank type, the join with framestats rows by token, and the
// checkpoint.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "metrics/sources/frametimeline.h"
#include "metrics/sources/gfxinfo.h"
#include "metrics/store.h"
#include "parsers/frametimeline.h"
#include "parsers/gfxinfo.h"

using namespace jank;

namespace {

struct Frame {
  std::string layer;
  std::int64_t token;
  std::int64_t layer_id;
  std::string jank = "None";
  std::string present = "Presented";
  std::int64_t pid = 4321;
};

// A -all dump in FrameTimeline's layout: one display frame per app frame.
std::string dump_of(const std::vector<Frame>& frames) {
  std::string s = "Number of display frames : " + std::to_string(frames.size()) + "\n";
  int i = 0;
  for (const auto& f : frames) {
    s += "Display Frame " + std::to_string(i++) + "\nPrediction State : Valid\nJank Type : None\n"
         "Present Metadata : On Time Present\nFinish Metadata: On Time Finish\nStart Metadata: Unknown Start\n"
         "Vsync Period:   8.333333\nPresent delta:   0.000000\nPresent delta % refreshrate:   0.000000\n\n";
    s += "    Layer - TX - " + f.layer + (f.jank == "None" ? "" : " [*] ") + "\n";
    s += "    Token: " + std::to_string(f.token) + "\n    Is Buffer?: 1\n    Owner Pid : " + std::to_string(f.pid) +
         "\n    Scheduled rendering rate: 120 fps\n    Layer ID : " + std::to_string(f.layer_id) +
         "\n    Present State : " + f.present + "\n    Prediction State : Valid\n    Jank Type : " + f.jank +
         "\n    Present Metadata : " + (f.jank == "None" ? "On Time Present" : "Late Present") +
         "\n    Finish Metadata: On Time Finish\n    Last latch time:   1.000000\n\n";
  }
  return s;
}

// A gfxinfo dump of `pkg` whose Window block holds framestats rows with
// these tokens, each 2 ms of draw (DrawStart to SyncQueued).
parsers::GfxinfoDump framestats_of(const std::string& pkg, const std::string& window,
                                   const std::vector<std::int64_t>& tokens) {
  parsers::GfxinfoDump dump;
  parsers::GfxProcess proc;
  proc.pid = 4321;
  proc.package = pkg;
  parsers::GfxWindow w;
  w.name = window;
  parsers::FramestatsTable t;
  t.columns = {"Flags", "FrameTimelineVsyncId", "IntendedVsync", "DrawStart", "SyncQueued", "FrameCompleted"};
  for (const auto token : tokens) {
    const std::int64_t at = token * 8'333'333;  // the vsync of the token
    t.rows.push_back({0, token, at, at + 1'000'000, at + 3'000'000, at + 6'000'000});
  }
  w.framestats = t;
  proc.windows.push_back(w);
  dump.processes.push_back(proc);
  return dump;
}

const std::string kFeed = "com.example.feed/com.example.feed.MainActivity#57";

}  // namespace

TEST_CASE("frametimeline store: overlapping polls count each frame once by app and type", "[frametimeline][store]") {
  metrics::Store store;
  auto& d = store.device("s");
  const std::vector<Frame> first = {{kFeed, 100, 57}, {kFeed, 101, 57, "App Deadline Missed"},
                                    {kFeed, 102, 57, "Buffer Stuffing"}};
  auto poll = metrics::record_frametimeline(store, d, parsers::parse_frametimeline(dump_of(first)));
  CHECK(poll.frames == 3);
  CHECK_FALSE(poll.overflow);
  REQUIRE(poll.vsync_period_ms);
  CHECK(*poll.vsync_period_ms == Approx(8.333333));
  // The next poll repeats two frames and brings two new ones, one with two causes.
  const std::vector<Frame> second = {{kFeed, 101, 57, "App Deadline Missed"},
                                     {kFeed, 102, 57, "Buffer Stuffing"},
                                     {kFeed, 103, 57, "SurfaceFlinger CPU Deadline Missed, Buffer Stuffing"},
                                     {kFeed, 104, 57}};
  poll = metrics::record_frametimeline(store, d, parsers::parse_frametimeline(dump_of(second)));
  CHECK(poll.frames == 2);
  const auto& ft = (*metrics::frametimeline_of(d.packages.at("com.example.feed")));
  CHECK(ft.frames == 5);
  CHECK(ft.janky == 2);  // app deadline and SF CPU; stuffing alone is not janky
  CHECK(ft.by_label[0] == 2);
  CHECK(ft.by_label[4] == 1);  // app_deadline_missed (bit 0x8)
  CHECK(metrics::jank_label(4) == "app_deadline_missed");
  CHECK(ft.by_label[7] == 2);  // buffer_stuffing (bit 0x40)
  CHECK(ft.by_label[2] == 1);  // sf_cpu_deadline_missed
  CHECK(metrics::frametimeline_of(d)->lines > 0);
  CHECK(metrics::frametimeline_of(d)->malformed_lines == 0);
}

TEST_CASE("frametimeline store: a layer without an app name goes to its owner pid's process", "[frametimeline][store]") {
  metrics::Store store;
  auto& d = store.device("s");
  store.record_process(d, parsers::ProcessEvent{parsers::ProcessEvent::Kind::start, 900, "com.android.systemui"});
  metrics::record_frametimeline(store, d, parsers::parse_frametimeline(dump_of({{"StatusBar#75", 10, 75, "None", "Presented", 900},
                                                                      {"NavigationBar0#77", 10, 77, "None", "Presented", 901}})));
  CHECK((*metrics::frametimeline_of(d.packages.at("com.android.systemui"))).frames == 1);
  CHECK((*metrics::frametimeline_of(d.packages.at("pid:901"))).frames == 1);
}

TEST_CASE("frametimeline store: a dropped frame and a frame that left unjudged", "[frametimeline][store]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_frametimeline(store, d, parsers::parse_frametimeline(dump_of({{kFeed, 200, 57, "None", "Dropped"},
                                                                      {kFeed, 201, 57, "None", "Unknown"}})));
  const auto& ft = (*metrics::frametimeline_of(d.packages.at("com.example.feed")));
  CHECK(ft.frames == 1);
  CHECK(ft.by_label[10] == 1);  // dropped, though Android 14 printed None
  CHECK(ft.unjudged == 0);
  // 201 never got its verdict and the window moved past it.
  metrics::record_frametimeline(store, d, parsers::parse_frametimeline(dump_of({{kFeed, 205, 57}})));
  CHECK(ft.frames == 2);
  CHECK(ft.unjudged == 1);
}

TEST_CASE("frametimeline store: verdicts join framestats rows by token whichever comes first", "[frametimeline][store][join]") {
  metrics::Store store;
  auto& d = store.device("s");
  const std::string window = "com.example.feed/com.example.feed.MainActivity";
  // Rows for 300..303 first; 303's verdict never comes, 299 has no row.
  metrics::record_gfxinfo(store, d, framestats_of("com.example.feed", window, {300, 301, 302, 303}));
  metrics::record_frametimeline(store, d, parsers::parse_frametimeline(dump_of({{kFeed, 299, 57},
                                                                      {kFeed, 300, 57},
                                                                      {kFeed, 301, 57, "App Deadline Missed"},
                                                                      {kFeed, 302, 57, "App Deadline Missed, Buffer Stuffing"}})));
  // Then a verdict first (304) and its row later.
  metrics::record_frametimeline(store, d, parsers::parse_frametimeline(dump_of({{kFeed, 302, 57, "App Deadline Missed, Buffer Stuffing"},
                                                                      {kFeed, 304, 57, "App Deadline Missed"}})));
  metrics::record_gfxinfo(store, d, framestats_of("com.example.feed", window, {303, 304}));
  const auto& ft = (*metrics::frametimeline_of(d.packages.at("com.example.feed")));
  CHECK(ft.frames == 5);
  CHECK(ft.joined == 4);  // 300, 301, 302, 304
  const std::size_t draw = static_cast<std::size_t>(metrics::FrameStage::draw);
  CHECK(ft.stage_frames[4][draw] == 3);  // app_deadline_missed: 301, 302, 304
  CHECK(ft.stage_seconds[4][draw] == Approx(0.006));
  CHECK(ft.stage_frames[7][draw] == 1);  // buffer_stuffing: 302
  CHECK(ft.stage_frames[0][draw] == 1);  // none: 300
  CHECK(ft.stage_frames[2][draw] == 0);
  CHECK(ft.stage_seconds[2][draw] == 0);
}

TEST_CASE("frametimeline store: another window or a SurfaceView layer does not join", "[frametimeline][store][join]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_gfxinfo(store, d, framestats_of("com.example.feed", "com.example.feed/com.example.feed.Settings", {400}));
  metrics::record_frametimeline(store, 
      d, parsers::parse_frametimeline(dump_of({{kFeed, 400, 57},
                                               {"SurfaceView[com.example.feed/com.example.feed.MainActivity](BLAST)#60",
                                                400, 60}})));
  const auto& ft = (*metrics::frametimeline_of(d.packages.at("com.example.feed")));
  CHECK(ft.frames == 2);
  CHECK(ft.joined == 0);
  // The Settings window's own verdict finds its row.
  metrics::record_frametimeline(store, 
      d, parsers::parse_frametimeline(dump_of({{"com.example.feed/com.example.feed.Settings#61", 400, 61}})));
  CHECK(ft.joined == 1);
}

TEST_CASE("frametimeline store: the checkpoint keeps counts and the window", "[frametimeline][store][state]") {
  metrics::Store store;
  auto& d = store.device("s");
  const auto dump = parsers::parse_frametimeline(dump_of({{kFeed, 500, 57}, {kFeed, 501, 57, "App Deadline Missed"},
                                                          {kFeed, 502, 57, "None", "Unknown"}}));
  metrics::record_gfxinfo(store, d, framestats_of("com.example.feed", "com.example.feed/com.example.feed.MainActivity", {501}));
  metrics::record_frametimeline(store, d, dump);
  const std::string saved = store.save();

  metrics::Store restored;
  std::string error;
  REQUIRE(restored.load(saved, error));
  auto& r = restored.device("s");
  const auto& ft = (*metrics::frametimeline_of(r.packages.at("com.example.feed")));
  CHECK(ft.frames == 2);
  CHECK(ft.janky == 1);
  CHECK(ft.joined == 1);
  CHECK(ft.stage_frames[4][static_cast<std::size_t>(metrics::FrameStage::draw)] == 1);
  CHECK(metrics::frametimeline_of(r)->lines == metrics::frametimeline_of(d)->lines);
  CHECK(restored.save() == saved);
  // The same window again adds nothing; the pending frame's verdict is counted once.
  metrics::record_frametimeline(restored, r, dump);
  CHECK(ft.frames == 2);
  metrics::record_frametimeline(restored, r, parsers::parse_frametimeline(dump_of({{kFeed, 502, 57}})));
  CHECK(ft.frames == 3);
}

TEST_CASE("frametimeline store: a saved count that cannot be true drops the package record", "[frametimeline][store][state]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_frametimeline(store, d, parsers::parse_frametimeline(dump_of({{kFeed, 600, 57, "App Deadline Missed"}})));
  std::string saved = store.save();
  // frames 1, janky 1 → frames 0, janky 1.
  const auto at = saved.find("frametimeline 1 1 0 0");
  REQUIRE(at != std::string::npos);
  saved.replace(at, std::string("frametimeline 1 1").size(), "frametimeline 0 1");
  metrics::Store restored;
  std::string error;
  metrics::Store::LoadReport report;
  REQUIRE(restored.load(saved, error, &report));
  CHECK(report.rejected_by_record["package"] == 1);
  CHECK(metrics::frametimeline_of(restored.device("s").packages.at("com.example.feed")) == nullptr);
}

TEST_CASE("frametimeline store: judged frames per activity with gfxinfo's window title and a cap", "[frametimeline][store][windows]") {
  metrics::StoreOptions options;
  options.max_windows_per_package = 2;
  metrics::Store store(options);
  auto& d = store.device("s");
  const std::string a = "com.example.feed/com.example.feed.MainActivity";
  const std::string b = "com.example.feed/com.example.feed.DetailActivity";
  const std::string c = "com.example.feed/com.example.feed.SettingsActivity";
  const std::string game = "SurfaceView[com.example.feed/com.example.feed.MainActivity](BLAST)#60";
  metrics::record_frametimeline(store, d, parsers::parse_frametimeline(dump_of({{a + "#57", 700, 57},
                                                                       {a + "#57", 701, 57, "App Deadline Missed"},
                                                                       {b + "#58", 702, 58, "Buffer Stuffing"},
                                                                       {c + "#59", 703, 59, "App Deadline Missed"},
                                                                       {game, 704, 60}})));
  // A recreated activity (new instance suffix) continues its window.
  metrics::record_frametimeline(store, d, parsers::parse_frametimeline(dump_of({{a + "#61", 705, 61, "Display HAL"}})));
  const auto& pkg = d.packages.at("com.example.feed");
  const auto& w = metrics::frametimeline_windows_of(pkg)->windows();
  REQUIRE(w.size() == 3);
  CHECK(w.at(a).frames == 3);
  CHECK(w.at(a).janky == 2);
  CHECK(w.at(a).by_label[4] == 1);
  CHECK(w.at(a).by_label[1] == 1);  // display_hal
  CHECK(w.at(b).frames == 1);
  CHECK(w.at(b).janky == 0);
  CHECK(w.at(b).by_label[7] == 1);
  // The third window is past the cap of 2; the SurfaceView layer is no window.
  CHECK(w.at("_other_").frames == 1);
  CHECK(metrics::frametimeline_of(pkg)->frames == 6);
  // gfxinfo's title of the same window is the same string.
  CHECK(metrics::WindowFrames::title_of(a) == a);

  const std::string saved = store.save();
  metrics::Store restored(options);
  std::string error;
  REQUIRE(restored.load(saved, error));
  CHECK((*metrics::frametimeline_windows_of(restored.device("s").packages.at("com.example.feed"))).windows() == w);
  CHECK(restored.save() == saved);
  // A saved window whose janky frames exceed its frames is refused with its package record.
  std::string bad = saved;
  const auto at = bad.find("ft_windows");
  REQUIRE(at != std::string::npos);
  const auto frames_at = bad.find(" 3 2 ", at);
  REQUIRE(frames_at != std::string::npos);
  bad.replace(frames_at, 5, " 1 2 ");
  metrics::Store refused(options);
  metrics::Store::LoadReport report;
  REQUIRE(refused.load(bad, error, &report));
  CHECK(report.rejected_by_record["package"] == 1);
}

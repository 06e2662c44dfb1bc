// An app with several windows on the simulator, polled as the exporter's
// gfxinfo poller polls it: each window's framestats frames, read back by the
// exporter's parser and store, equal the simulator's truth per window.
#include <catch2/catch.hpp>

#include <string>

#include "devsim/model.h"
#include "devsim/shell.h"
#include "metrics/store.h"
#include "parsers/gfxinfo.h"
#include "tests/devsim/truth.h"
#include "tests/unit/gfxinfo_state.h"

using namespace jank::devsim;
using jank::test::gfx;
namespace parsers = jank::parsers;
namespace metrics = jank::metrics;

namespace {

constexpr const char* kFeed = "com.example.feed";
const std::string kMain = "com.example.feed/com.example.feed.MainActivity";
const std::string kSettings = "com.example.feed/com.example.feed.SettingsActivity";
const std::string kPopup = "PopupWindow:5c2a9e1";

DeviceConfig windows_config(int sdk, bool profile) {
  DeviceConfig c;
  c.sdk = sdk;
  c.noise_lines_per_sec = 0;
  AppConfig a;
  a.package = kFeed;
  a.stall_prob = 0.05;
  a.bands = {{1, 4, 3}, {5, 12, 1}};
  a.hwui_profile = profile;
  a.extra_windows = {kSettings, kPopup};
  c.apps.push_back(a);
  AppConfig other;  // a one-window app beside it
  other.package = "com.example.shop";
  other.stall_prob = 0.02;
  c.apps.push_back(other);
  return c;
}

void poll(Device& dev, metrics::Store& store, const std::string& package) {
  const auto out = run_shell(dev, "dumpsys gfxinfo " + package + " framestats");
  REQUIRE(out.exit == 0);
  metrics::record_gfxinfo(store, store.device("sim0"), parsers::parse_gfxinfo(out.out));
}

const SimWindow* sim_window(const AppState& a, const std::string& title) {
  for (const auto& w : a.windows) {
    if (w.title == title) return &w;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("devsim windows: each window's frames polled through framestats equal its truth", "[devsim][windows]") {
  for (const int sdk : {28, 33, 36}) {
    CAPTURE(sdk);
    ManualClock clock;
    Device dev(windows_config(sdk, true), clock);
    metrics::Store store;
    for (int step = 0; step < 40; ++step) {  // a poll a second: 20 frames per window at 60 Hz
      clock.advance_ms(1000);
      poll(dev, store, kFeed);
      poll(dev, store, "com.example.shop");
      if (step == 20) {
        REQUIRE(dev.restart_app(kFeed));  // a new process: new view roots, counters and rings
      }
    }
    dev.set_paused(true);
    poll(dev, store, kFeed);
    poll(dev, store, "com.example.shop");

    const AppState& a = *dev.app(kFeed);
    REQUIRE(a.windows.size() == 3);
    const auto& pkg = store.device("sim0").packages.at(kFeed);
    const auto& windows = gfx(pkg).windows.windows();
    REQUIRE(windows.size() == 3);
    std::uint64_t frames = 0;
    for (const std::string& title : {kMain, kSettings, kPopup}) {
      CAPTURE(title);
      const SimWindow* w = sim_window(a, title);
      REQUIRE(w != nullptr);
      REQUIRE(windows.count(title) == 1);
      const auto& got = windows.at(title);
      CHECK(got.frames == w->frames);
      CHECK(got.janky == w->janky);
      CHECK(got.duration.count() == w->frames);
      CHECK(w->frames > 300);
      CHECK(w->janky > 0);
      frames += w->frames;
      CHECK(w->profile.rows == w->frames);  // every frame printed once as a profile row too
    }
    CHECK(frames == a.truth.frames_rendered);
    CHECK(gfx(pkg).framestats.frames() == frames);
    // The new process's rings hold nothing the tracker saw: one apparent gap per window, no frame missed.
    CHECK(gfx(pkg).framestats.overflows() == 3);
    CHECK(gfx(pkg).hwui_profile.frames() == frames);
    CHECK(gfx(pkg).windows.overflowed() == 0);
    const auto& shop = gfx(store.device("sim0").packages.at("com.example.shop")).windows.windows();
    REQUIRE(shop.size() == 1);
    CHECK(shop.begin()->second.frames == dev.app("com.example.shop")->windows[0].frames);
    const auto first = test::truth_app(dev, kFeed).at("windows").at(0);
    CHECK(first.at("title").get<std::string>() == kMain);
    CHECK(first.at("frames").get<std::uint64_t>() == sim_window(a, kMain)->frames);
  }
}

TEST_CASE("devsim windows: each Window block prints that window's own counters", "[devsim][windows]") {
  ManualClock clock;
  Device dev(windows_config(33, false), clock);
  clock.advance_ms(3000);
  int code = -1;
  const auto dump = parsers::parse_gfxinfo(dev.dumpsys_gfxinfo({kFeed}, &code));
  REQUIRE(dump.processes.size() == 1);
  const auto& p = dump.processes[0];
  const AppState& a = *dev.app(kFeed);
  REQUIRE(p.windows.size() == 3);
  std::uint64_t total = 0;
  for (const auto& w : p.windows) {
    CAPTURE(w.name);
    const SimWindow* sw = sim_window(a, w.name);
    REQUIRE(sw != nullptr);
    REQUIRE(w.stats);
    CHECK(*w.stats->total_frames == sw->gfx.total);
    CHECK(*w.stats->janky_frames == sw->gfx.janky);
    CHECK_FALSE(w.has_profile_table);
    total += *w.stats->total_frames;
  }
  CHECK(*p.stats->total_frames == total);
}

TEST_CASE("devsim windows: past the exporter's window cap the rest count under _other_", "[devsim][windows]") {
  ManualClock clock;
  Device dev(windows_config(33, false), clock);
  metrics::StoreOptions options;
  options.max_windows_per_package = 2;
  metrics::Store store(options);
  for (int step = 0; step < 10; ++step) {
    clock.advance_ms(1000);
    poll(dev, store, kFeed);
  }
  dev.set_paused(true);
  poll(dev, store, kFeed);
  const auto& w = gfx(store.device("sim0").packages.at(kFeed)).windows;
  REQUIRE(w.windows().size() == 3);
  CHECK(w.overflowed() == 1);
  std::uint64_t frames = 0;
  for (const auto& [title, c] : w.windows()) frames += c.frames;
  CHECK(frames == dev.app(kFeed)->truth.frames_rendered);
}

// The simulator's "Profile data in ms" tables read back by the exporter's
// parser and store: every profiled frame once, on every release's layout,
// equal to the simulator's truth.
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

DeviceConfig profiled_config(int sdk, bool profile_app) {
  DeviceConfig c;
  c.sdk = sdk;
  c.noise_lines_per_sec = 0;
  AppConfig a;
  a.package = kFeed;
  a.stall_prob = 0.05;
  a.bands = {{1, 4, 3}, {5, 12, 1}};  // some frames over 50 ms: clamped cells on 6+
  a.hwui_profile = profile_app;
  c.apps.push_back(a);
  return c;
}

// One poll as the exporter's gfxinfo poller runs it.
void poll(Device& dev, metrics::Store& store) {
  const auto out = run_shell(dev, std::string("dumpsys gfxinfo ") + kFeed + " framestats");
  REQUIRE(out.exit == 0);
  metrics::record_gfxinfo(store, store.device("sim0"), parsers::parse_gfxinfo(out.out));
}

double stage_sum(const metrics::PackageMetrics& p, metrics::ProfileStage s) {
  return gfx(p).hwui_profile.stage_duration()[static_cast<std::size_t>(s)].sum();
}

double truth_seconds(const ProfileTruth& t, std::size_t stage) {
  return static_cast<double>(t.centi_ms[stage]) / 100'000.0;
}

std::uint64_t pending(const AppState& a) {
  std::uint64_t n = 0;
  for (const auto& w : a.windows) n += w.profile.frames - w.profile.rows - w.profile.lost;
  return n;
}

}  // namespace

TEST_CASE("devsim hwui profile: polls read every profiled frame once on each release's layout", "[devsim][hwui_profile]") {
  for (const int sdk : {16, 19, 21, 22, 23, 30, 33, 36}) {
    CAPTURE(sdk);
    ManualClock clock;
    Device dev(profiled_config(sdk, sdk >= 23), clock);
    metrics::Store store;
    for (int step = 0; step < 30; ++step) {  // 30 s, a poll a second: under every buffer's size
      clock.advance_ms(1000);
      poll(dev, store);
    }
    dev.set_paused(true);
    poll(dev, store);
    const AppState& a = *dev.app(kFeed);
    REQUIRE(a.windows.size() == 1);
    const ProfileTruth& t = a.windows[0].profile;
    const auto& p = store.device("sim0").packages.at(kFeed);
    CHECK(a.profiling);
    CHECK(gfx(p).has_hwui_profile);
    CHECK(t.frames == a.truth.frames_rendered);
    CHECK(t.lost == 0);
    CHECK(pending(a) == 0);
    CHECK(gfx(p).hwui_profile.frames() == t.rows);
    CHECK(t.rows == t.frames);
    CHECK(gfx(store.device("sim0")).input.profile_rows_discarded == 0);
    CHECK(stage_sum(p, metrics::ProfileStage::draw) == Approx(truth_seconds(t, 0)).epsilon(1e-9));
    CHECK(stage_sum(p, metrics::ProfileStage::process) == Approx(truth_seconds(t, 2)).epsilon(1e-9));
    CHECK(stage_sum(p, metrics::ProfileStage::execute) == Approx(truth_seconds(t, 3)).epsilon(1e-9));
    const auto& prepare = gfx(p).hwui_profile.stage_duration()[static_cast<std::size_t>(metrics::ProfileStage::prepare)];
    if (sdk <= 20) {
      CHECK(prepare.count() == 0);  // three columns
    } else {
      CHECK(prepare.count() == t.rows);
      CHECK(prepare.sum() == Approx(truth_seconds(t, 1)).epsilon(1e-9));
    }
    if (sdk >= 23) {
      // The same frames through framestats, de-duplicated there: every one seen both ways.
      CHECK(gfx(p).framestats.frames() == t.rows);
      CHECK(gfx(p).has_gfxinfo);
    } else {
      CHECK_FALSE(gfx(p).has_framestats);
      CHECK_FALSE(gfx(p).has_gfxinfo);
    }
    CHECK(t.rows > 1500);
    const auto profile = test::truth_app(dev, kFeed).at("profile");
    CHECK(profile.at("on").get<bool>());
    CHECK(profile.at("frames").get<std::uint64_t>() == t.frames);
    CHECK(profile.at("rows").get<std::uint64_t>() == t.rows);
    CHECK(profile.at("lost").get<std::uint64_t>() == 0);
    CHECK(profile.at("pending").get<std::uint64_t>() == 0);
  }
}

TEST_CASE("devsim hwui profile: on 6+ the property counts from the next process", "[devsim][hwui_profile]") {
  ManualClock clock;
  Device dev(profiled_config(33, false), clock);
  metrics::Store store;
  clock.advance_ms(1000);
  poll(dev, store);
  CHECK_FALSE(gfx(store.device("sim0").packages.at(kFeed)).has_hwui_profile);
  REQUIRE(run_shell(dev, "setprop debug.hwui.profile true").exit == 0);
  clock.advance_ms(1000);
  poll(dev, store);
  CHECK_FALSE(gfx(store.device("sim0").packages.at(kFeed)).has_hwui_profile);  // read when the process starts
  REQUIRE(dev.restart_app(kFeed));
  for (int step = 0; step < 10; ++step) {
    clock.advance_ms(1000);
    poll(dev, store);
  }
  const AppState& a = *dev.app(kFeed);
  CHECK(a.profiling);
  const auto& p = store.device("sim0").packages.at(kFeed);
  CHECK(gfx(p).hwui_profile.frames() == a.windows[0].profile.rows);
  CHECK(a.windows[0].profile.rows + pending(a) == a.windows[0].profile.frames);
  CHECK(a.windows[0].profile.frames > 500);
}

TEST_CASE("devsim hwui profile: frames the buffer or a death took are lost and never read", "[devsim][hwui_profile]") {
  for (const int sdk : {19, 21, 33}) {
    CAPTURE(sdk);
    ManualClock clock;
    Device dev(profiled_config(sdk, true), clock);
    if (sdk < 23) {
      REQUIRE(run_shell(dev, "setprop debug.hwui.profile.maxframes 32").exit == 0);
      REQUIRE(dev.restart_app(kFeed));
    }
    metrics::Store store;
    for (int step = 0; step < 10; ++step) {  // 3 s apart: more frames than any buffer holds
      clock.advance_ms(3000);
      poll(dev, store);
    }
    clock.advance_ms(300);
    REQUIRE(dev.crash_app(kFeed));  // its last frames die with it
    clock.advance_ms(2000);         // restarted
    poll(dev, store);
    dev.set_paused(true);
    poll(dev, store);
    const AppState& a = *dev.app(kFeed);
    const ProfileTruth& t = a.windows[0].profile;
    const auto& p = store.device("sim0").packages.at(kFeed);
    CHECK(t.lost > 0);
    CHECK(pending(a) == 0);
    CHECK(t.rows + t.lost == t.frames);
    CHECK(gfx(p).hwui_profile.frames() == t.rows);
  }
}

TEST_CASE("devsim hwui profile: another dumper takes the rows it prints", "[devsim][hwui_profile]") {
  ManualClock clock;
  Device dev(profiled_config(33, true), clock);
  metrics::Store store;
  clock.advance_ms(1000);
  poll(dev, store);
  clock.advance_ms(1000);
  const std::uint64_t before = dev.app(kFeed)->windows[0].profile.rows;
  run_shell(dev, "dumpsys gfxinfo");  // e.g. a bugreport: every process
  const std::uint64_t taken = dev.app(kFeed)->windows[0].profile.rows - before;
  CHECK(taken > 30);
  clock.advance_ms(1000);
  poll(dev, store);
  const auto& t = dev.app(kFeed)->windows[0].profile;
  CHECK(gfx(store.device("sim0").packages.at(kFeed)).hwui_profile.frames() == t.rows - taken);
}

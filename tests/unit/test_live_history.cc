// The live view's history ring (metrics/live_history.h) on worked-out
// numbers, and what it reads from a device (metrics/device_view.h): the
// jank counters and, from the resource poll, CPU, memory and clocks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "metrics/device_view.h"
#include "metrics/live_history.h"
#include "metrics/sources/clocks.h"
#include "metrics/sources/cpu.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/memory.h"
#include "metrics/sources/power.h"
#include "metrics/sources/skips.h"
#include "metrics/store.h"
#include "parsers/gfxinfo.h"
#include "parsers/power_state.h"
#include "parsers/resource_files.h"
#include "parsers/sf_latency.h"
#include "parsers/sf_layers.h"
#include "tests/unit/live_fixture.h"

using namespace jank;
using metrics::LiveHistory;
using metrics::LiveReading;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kT0 = 1'764'061'000LL * kSec;
constexpr std::chrono::seconds kSmWindow(60);

LiveReading reading(std::uint64_t skipped, std::uint64_t davey = 0) {
  LiveReading r;
  r.totals.skipped_frames = skipped;
  r.totals.davey_frames = davey;
  r.refresh_hz = 60;
  r.sm = 60;
  r.status = metrics::LiveStatus::following;
  return r;
}

// Layers with `intervals` frame intervals over `active_s` seconds in total, gfxinfo `rendered` with `janky`.
LiveReading drawing(std::uint64_t skipped, std::uint64_t intervals, double active_s, std::uint64_t rendered,
                    std::uint64_t janky, std::uint64_t big_jank = 0) {
  LiveReading r = reading(skipped);
  r.has_layers = true;
  r.totals.frame_intervals = intervals;
  r.totals.active_ns = static_cast<std::uint64_t>(active_s * 1e9);
  r.totals.big_jank = big_jank;
  r.has_gfxinfo = true;
  r.totals.rendered_frames = rendered;
  r.totals.janky_frames = janky;
  return r;
}

}  // namespace

TEST_CASE("live history: the first sample is the baseline and each next one holds its interval's growth",
          "[live][history]") {
  LiveHistory h;
  h.configure(3, 5000);
  REQUIRE(h.capacity() == 3);
  h.record(kT0, reading(10, 1));
  REQUIRE(h.size() == 1);
  CHECK(h.at(0).t_ms == kT0 / 1'000'000);
  CHECK(h.at(0).span_ms == 0);
  CHECK(h.at(0).skipped_frames == 0);  // what came before the ring is not this interval's
  CHECK(h.at(0).davey_frames == 0);

  h.record(kT0 + 5 * kSec, reading(25, 3));
  CHECK(h.at(1).span_ms == 5000);
  CHECK(h.at(1).skipped_frames == 15);
  CHECK(h.at(1).davey_frames == 2);
  // A total that went down (an app's series expired) adds 0 ...
  h.record(kT0 + 10 * kSec, reading(20, 3));
  CHECK(h.at(2).skipped_frames == 0);
  // ... and the next interval counts from the lower total.
  h.record(kT0 + 15 * kSec, reading(30, 4));
  REQUIRE(h.size() == 3);  // wrapped: the baseline is gone
  CHECK(h.at(0).t_ms == (kT0 + 5 * kSec) / 1'000'000);
  CHECK(h.at(1).t_ms == (kT0 + 10 * kSec) / 1'000'000);
  CHECK(h.at(2).t_ms == (kT0 + 15 * kSec) / 1'000'000);
  CHECK(h.at(2).skipped_frames == 10);
  CHECK(h.at(2).davey_frames == 1);
  CHECK(h.newest() == &h.at(2));
  const auto copy = h.copy();
  REQUIRE(copy.size() == 3);
  CHECK(copy[0].skipped_frames == 15);
  CHECK(copy[2].skipped_frames == 10);

  // Wrapping again keeps the order: oldest first.
  h.record(kT0 + 20 * kSec, reading(31, 4));
  h.record(kT0 + 25 * kSec, reading(33, 4));
  CHECK(h.at(0).skipped_frames == 10);
  CHECK(h.at(1).skipped_frames == 1);
  CHECK(h.at(2).skipped_frames == 2);
}

TEST_CASE("live history: the exporter's commands and KiB a second over each interval", "[live][history]") {
  LiveHistory h;
  h.configure(4, 5000);
  LiveReading r = reading(0);
  r.totals.commands = 100;
  r.totals.command_bytes = 50 * 1024;
  h.record(kT0, r);
  CHECK_FALSE(h.newest()->commands_per_second().has_value());  // the baseline
  r.totals.commands = 120;
  r.totals.command_bytes = 150 * 1024;
  h.record(kT0 + 5 * kSec, r);
  CHECK(h.newest()->commands == 20);
  CHECK(h.newest()->commands_per_second() == Approx(4));
  CHECK(h.newest()->command_kib_per_second() == Approx(20));
  // A count that went down adds nothing.
  r.totals.commands = 3;
  h.record(kT0 + 10 * kSec, r);
  CHECK(h.newest()->commands == 0);
}

TEST_CASE("live history: counts saturate at their field's width", "[live][history]") {
  LiveHistory h;
  h.configure(4, 5000);
  h.record(kT0, reading(0, 0));
  h.record(kT0 + 5 * kSec, reading(5'000'000'000ULL, 70'000));
  CHECK(h.at(1).skipped_frames == 4'294'967'295U);  // uint32
  CHECK(h.at(1).davey_frames == 65'535);            // uint16
  // The totals are kept whole: the next interval is exact again.
  h.record(kT0 + 10 * kSec, reading(5'000'000'007ULL, 70'001));
  CHECK(h.at(2).skipped_frames == 7);
  CHECK(h.at(2).davey_frames == 1);
  // An interval longer than 65.535 s saturates its span.
  h.record(kT0 + 100 * kSec, reading(5'000'000'007ULL, 70'001));
  CHECK(h.at(3).span_ms == 65'535);
}

TEST_CASE("live history: a sample's gauges and its FPS and jank % over its own interval", "[live][history]") {
  LiveHistory h;
  h.configure(8, 5000);
  h.record(kT0, drawing(0, 0, 0, 0, 0));
  LiveReading r = drawing(0, 290, 5, 300, 15, 2);
  r.sm = 57.5;
  r.refresh_hz = 90;
  r.thermal_status = 3;
  r.status = metrics::LiveStatus::idle;
  h.record(kT0 + 5 * kSec, r);
  const auto& s = h.at(1);
  CHECK(s.frame_intervals == 290);
  CHECK(s.active_ms == 5000);
  CHECK(s.rendered_frames == 300);
  CHECK(s.janky_frames == 15);
  CHECK(s.big_jank == 2);
  CHECK(*s.fps() == Approx(58.0));
  CHECK(*s.jank_percent() == Approx(5.0));
  CHECK(*s.sm_value() == Approx(57.5));
  CHECK(s.refresh_hz == Approx(90));
  CHECK(s.thermal() == 3);
  CHECK(s.status() == metrics::LiveStatus::idle);
  CHECK(s.has_layers());
  CHECK(s.has_gfxinfo());

  // Nothing presented or rendered in an interval: null, not 0; no SM or thermal reading: null.
  LiveReading still = drawing(0, 290, 5, 300, 15, 2);
  still.sm.reset();
  h.record(kT0 + 10 * kSec, still);
  CHECK_FALSE(h.at(2).fps().has_value());
  CHECK_FALSE(h.at(2).jank_percent().has_value());
  CHECK_FALSE(h.at(2).sm_value().has_value());
  CHECK_FALSE(h.at(2).thermal().has_value());
  // Without layers or gfxinfo, their counts stay 0 and the flags say so.
  h.record(kT0 + 15 * kSec, reading(0));
  CHECK_FALSE(h.at(3).has_layers());
  CHECK_FALSE(h.at(3).has_gfxinfo());
  CHECK(h.at(3).frame_intervals == 0);
}

TEST_CASE("live history: the window's FPS and jank % and per-minute counts", "[live][history]") {
  LiveHistory h;
  h.configure(180, 5000);
  CHECK_FALSE(h.window(60'000).fps.has_value());  // no sample: every value null
  CHECK_FALSE(h.window(60'000).skipped_per_minute.has_value());
  h.record(kT0, drawing(100, 1000, 20, 1000, 10, 5));
  // Only the baseline: nothing known yet.
  CHECK_FALSE(h.window(60'000).skipped_per_minute.has_value());
  CHECK_FALSE(h.window(60'000).fps.has_value());
  // Three intervals of 5 s.
  h.record(kT0 + 5 * kSec, drawing(130, 1300, 25, 1300, 25, 6));   // +30 skipped, 300 in 5 s, 15 janky of 300
  h.record(kT0 + 10 * kSec, drawing(140, 1590, 30, 1590, 30, 6));  // +10, 290 in 5 s, 5 of 290
  h.record(kT0 + 15 * kSec, drawing(150, 1590, 30, 1590, 30, 9));  // +10, nothing drawn, +3 BigJank

  // The newest 10 s: the last two samples.
  const auto w10 = h.window(10'000);
  CHECK(*w10.fps == Approx(290.0 / 5.0));
  CHECK(*w10.jank_percent == Approx(100.0 * 5 / 290));
  CHECK(*w10.skipped_per_minute == Approx(20.0 * 6));
  CHECK(*w10.davey_per_minute == Approx(0));
  CHECK(*w10.big_jank_per_minute == Approx(3.0 * 6));
  // The whole minute: the baseline counts nothing and no time.
  const auto w60 = h.window(60'000);
  CHECK(*w60.fps == Approx(590.0 / 10.0));
  CHECK(*w60.jank_percent == Approx(100.0 * 20 / 590));
  CHECK(*w60.skipped_per_minute == Approx(50.0 * 60 / 15));
  CHECK(*w60.big_jank_per_minute == Approx(4.0 * 60 / 15));
  // The newest 5 s drew nothing: FPS and jank % are null, the counts are rates.
  const auto w5 = h.window(5'000);
  CHECK_FALSE(w5.fps.has_value());
  CHECK_FALSE(w5.jank_percent.has_value());
  CHECK(*w5.skipped_per_minute == Approx(120));

  // Without layers in the window, BigJank per minute is null, not 0.
  LiveHistory plain;
  plain.configure(4, 5000);
  plain.record(kT0, reading(0));
  plain.record(kT0 + 5 * kSec, reading(5));
  CHECK_FALSE(plain.window(60'000).big_jank_per_minute.has_value());
  CHECK(*plain.window(60'000).skipped_per_minute == Approx(60));
}

TEST_CASE("live history: a new size or interval starts afresh while the same one keeps the samples", "[live][history]") {
  LiveHistory h;
  h.record(kT0, reading(1));  // not configured: nothing kept
  CHECK(h.size() == 0);
  h.configure(4, 5000);
  h.record(kT0, reading(1));
  h.record(kT0 + 5 * kSec, reading(3));
  h.configure(4, 5000);
  CHECK(h.size() == 2);
  h.configure(8, 5000);
  CHECK(h.size() == 0);
  CHECK(h.capacity() == 8);
  h.record(kT0 + 10 * kSec, reading(10));
  CHECK(h.at(0).skipped_frames == 0);  // a new baseline
  h.configure(8, 1000);
  CHECK(h.size() == 0);
}

TEST_CASE("live history: capacity is the history over the interval rounded up", "[live][history]") {
  CHECK(metrics::live_capacity(900, 5) == 180);
  CHECK(metrics::live_capacity(900, 7) == 129);
  CHECK(metrics::live_capacity(60, 60) == 1);
  CHECK(metrics::live_capacity(3600, 1) == 3600);
}

TEST_CASE("live reading: gfxinfo's frame-time buckets merge exactly into the ring's", "[live][history]") {
  // Every live bound is a bound of the exported layout.
  const auto exported = metrics::buckets::frame_duration_seconds();
  for (const double b : metrics::kLiveFrameTimeBounds) {
    INFO(b);
    CHECK(std::find(exported.begin(), exported.end(), b) != exported.end());
  }

  metrics::Store store;
  auto& d = store.device("s");
  test::record_example_gfxinfo(store, d, "p");

  const LiveReading r = metrics::live_reading(d, kT0, kSmWindow);
  CHECK(r.has_gfxinfo);
  CHECK_FALSE(r.has_layers);
  CHECK(r.totals.rendered_frames == 11);
  CHECK(r.totals.janky_frames == 4);
  // ≤8, ≤11, ≤17, ≤34, ≤53, ≤101, ≤700, over 700 ms.
  CHECK(r.totals.frame_time == std::array<std::uint64_t, 8>{2, 0, 3, 1, 0, 0, 4, 1});
  const auto slow_ui = static_cast<std::size_t>(metrics::JankCause::slow_ui_thread);
  const auto missed = static_cast<std::size_t>(metrics::JankCause::missed_vsync);
  CHECK(r.totals.jank_causes[slow_ui] == 3);
  CHECK(r.totals.jank_causes[missed] == 1);
  CHECK(r.jank_causes_seen == ((1u << slow_ui) | (1u << missed)));
}

TEST_CASE("live reading: totals and SM and status and thermal status as /metrics derives them", "[live][history]") {
  metrics::Store store;
  auto& d = store.device("s");
  d.live.live = true;
  d.live.up = true;
  d.live.state = metrics::DeviceState::following;
  jank::metrics::record_skip(store, d, "a", kT0 - 2 * kSec, true, 30);
  jank::metrics::record_skip(store, d, "b", kT0 - kSec, true, 12);
  parsers::DaveyFrame davey;
  davey.duration_ms = 900;
  jank::metrics::record_davey(store, d, "a", davey);
  const auto totals = metrics::device_totals(d);
  CHECK(totals.skipped_frames == 42);
  CHECK(totals.davey_frames == 1);
  CHECK_FALSE(totals.big_jank.has_value());  // no layers

  LiveReading r = metrics::live_reading(d, kT0, kSmWindow);
  CHECK(r.totals.skipped_frames == 42);
  CHECK(*r.sm == Approx(60 - 42.0 / 60));
  CHECK(r.status == metrics::LiveStatus::following);  // nothing known of the screen
  CHECK_FALSE(r.thermal_status.has_value());

  metrics::record_power_state(store, d, parsers::parse_power_state("  mWakefulness=Awake\nDisplay Power: state=ON\n"));
  metrics::record_layer_list(d, parsers::parse_sf_layer_list("a/a.Main#7\n"));
  parsers::SfLatency latency;
  latency.refresh_period_ns = 16'666'667;
  for (const std::int64_t at : {1'000'000'000LL, 1'016'666'667LL, 1'033'333'334LL}) latency.rows.push_back({at, at, at});
  metrics::record_layer_latency(store, d, *parsers::classify_layer("a/a.Main#7"), latency);
  r = metrics::live_reading(d, kT0, kSmWindow);
  CHECK(r.has_layers);
  // Three presents are two frame intervals: FPS counts intervals, not presents.
  CHECK(metrics::layers_of(d).begin()->second.presents.frames() == 3);
  CHECK(r.totals.frame_intervals == 2);
  CHECK(r.totals.active_ns == 33'333'334);
  CHECK(metrics::device_totals(d).big_jank == std::optional<std::uint64_t>(0));
  const bool presenting = metrics::layers_of(d).begin()->second.presenting;
  CHECK(r.status == (presenting ? metrics::LiveStatus::following : metrics::LiveStatus::idle));

  metrics::record_power_state(store, d, parsers::parse_power_state("  mWakefulness=Asleep\nDisplay Power: state=OFF\n"));
  r = metrics::live_reading(d, kT0, kSmWindow);
  CHECK(r.status == metrics::LiveStatus::off);
  CHECK_FALSE(r.sm.has_value());  // a dark screen has no SM

  d.live.state = metrics::DeviceState::stalled;
  CHECK(metrics::live_status(d, kT0, kSmWindow) == metrics::LiveStatus::stalled);
  d.live.state = metrics::DeviceState::disconnected;
  CHECK(metrics::live_status(d, kT0, kSmWindow) == metrics::LiveStatus::disconnected);
}

TEST_CASE("live status: never idle while an app skipped frames or a layer presented within the window",
          "[live][history][status]") {
  metrics::Store store;
  auto& d = store.device("s");
  d.live.live = true;
  d.live.up = true;
  d.live.state = metrics::DeviceState::following;
  metrics::record_power_state(store, d, parsers::parse_power_state("  mWakefulness=Awake\nDisplay Power: state=ON\n"));
  const auto layer = *parsers::classify_layer("a/a.Main#7");
  parsers::SfLatency latency;
  latency.refresh_period_ns = 16'666'667;
  for (const std::int64_t at : {1'000'000'000LL, 1'016'666'667LL, 1'033'333'334LL}) latency.rows.push_back({at, at, at});
  store.set_host_time(kT0);
  metrics::record_layer_latency(store, d, layer, latency);
  CHECK(metrics::live_status(d, kT0, kSmWindow) == metrics::LiveStatus::following);

  // The next poll brings nothing: the layer rests, so the panel's activity is idle,
  // but it presented 10 s ago, within the 60 s window.
  store.set_host_time(kT0 + 10 * kSec);
  metrics::record_layer_latency(store, d, layer, latency);
  REQUIRE(metrics::activity_state(d) == std::optional<std::string_view>("idle"));
  CHECK(metrics::live_status(d, kT0 + 10 * kSec, kSmWindow) == metrics::LiveStatus::following);
  CHECK(metrics::live_reading(d, kT0 + 10 * kSec, kSmWindow).status == metrics::LiveStatus::following);
  // The window's last instant still holds it; past the window the screen is idle.
  CHECK(metrics::live_status(d, kT0 + 60 * kSec - 1, kSmWindow) == metrics::LiveStatus::following);
  CHECK(metrics::live_status(d, kT0 + 60 * kSec, kSmWindow) == metrics::LiveStatus::idle);

  // An app that skips frames draws, whatever its layers show: 40 s after the
  // skip it is still in the window, 61 s after it is not.
  jank::metrics::record_skip(store, d, "b", kT0 + 100 * kSec, true, 5);
  CHECK(metrics::live_status(d, kT0 + 140 * kSec, kSmWindow) == metrics::LiveStatus::following);
  CHECK(metrics::live_status(d, kT0 + 161 * kSec, kSmWindow) == metrics::LiveStatus::idle);

  // A dark screen stays off, skips or not.
  metrics::record_power_state(store, d, parsers::parse_power_state("  mWakefulness=Asleep\nDisplay Power: state=OFF\n"));
  CHECK(metrics::live_status(d, kT0 + 140 * kSec, kSmWindow) == metrics::LiveStatus::off);
}

namespace {

// A device whose cores were read: `clock` ticks on its first core (the
// device's own clock of the time its polls covered), `cpu` over all its
// cores, `busy` of them neither idle nor iowait.
LiveReading resources(std::uint64_t clock, std::uint64_t cpu, std::uint64_t busy,
                      std::vector<metrics::LiveAppCpu> apps) {
  LiveReading r = reading(0);
  r.totals.cpu_clock_ticks = clock;
  r.totals.cpu_ticks = cpu;
  r.totals.cpu_busy_ticks = busy;
  r.totals.apps = std::move(apps);
  return r;
}

metrics::LiveAppCpu app(std::uint64_t key, std::uint64_t ticks, std::optional<std::uint64_t> main = std::nullopt) {
  metrics::LiveAppCpu a;
  a.key = key;
  a.ticks = ticks;
  a.main_thread_ticks = main;
  return a;
}

}  // namespace

TEST_CASE("live history: the interval's CPU as shares of the time its polls covered, worked by hand",
          "[live][history][resources]") {
  LiveHistory h;
  h.configure(16, 5000);
  // Ticks are 10 ms. Two cores; app 1 with its main thread, app 2 without one read.
  h.record(kT0, resources(10'000, 20'000, 4'000, {app(1, 3'000, 1'000), app(2, 700)}));
  CHECK_FALSE(h.at(0).app_cpu_percent());  // the baseline measures nothing
  CHECK_FALSE(h.at(0).device_cpu_percent());

  // One poll 5 s later: the first core's clock +500 ticks (5 s), both cores
  // +1000 of which 450 busy; app 1 +250 ticks (2.5 s in 5 s: half a core),
  // its main thread +160; app 2 +40.
  h.record(kT0 + 5 * kSec, resources(10'500, 21'000, 4'450, {app(1, 3'250, 1'160), app(2, 740)}));
  CHECK(h.at(1).app_cpu == 580);  // (250 + 40) / 500
  CHECK(*h.at(1).app_cpu_percent() == Approx(58.0));
  CHECK(*h.at(1).main_thread_cpu_percent() == Approx(32.0));  // 160 / 500: app 2 has no main thread read
  CHECK(*h.at(1).device_cpu_percent() == Approx(45.0));       // 450 / 1000

  // No poll in the next interval: nothing grew, and that is "not measured", not 0.
  h.record(kT0 + 10 * kSec, resources(10'500, 21'000, 4'450, {app(1, 3'250, 1'160), app(2, 740)}));
  CHECK_FALSE(h.at(2).app_cpu_percent());
  CHECK_FALSE(h.at(2).main_thread_cpu_percent());
  CHECK_FALSE(h.at(2).device_cpu_percent());

  // Two polls in the next: 10 s of the device's clock, so app 1's +500
  // ticks are still half a core, not a whole one.
  h.record(kT0 + 15 * kSec, resources(11'500, 23'000, 5'450, {app(1, 3'750, 1'460), app(2, 740)}));
  CHECK(*h.at(3).app_cpu_percent() == Approx(50.0));
  CHECK(*h.at(3).main_thread_cpu_percent() == Approx(30.0));
  CHECK(*h.at(3).device_cpu_percent() == Approx(50.0));

  // App 1's totals went down (its series expired and came back): it adds 0
  // for the interval; app 2's +100 and its first main thread reading count
  // as they are (the main thread is a baseline). A new app 3 with a long
  // life behind it is its own baseline.
  h.record(kT0 + 20 * kSec, resources(12'000, 24'000, 5'650, {app(1, 30, 10), app(2, 840, 5), app(3, 90'000, 50'000)}));
  CHECK(*h.at(4).app_cpu_percent() == Approx(20.0));        // 100 / 500
  CHECK(*h.at(4).main_thread_cpu_percent() == Approx(0.0));  // app 1's went down; app 2's is new
  CHECK(*h.at(4).device_cpu_percent() == Approx(20.0));
  // The next interval counts from the lower totals, and app 3 from its baseline.
  h.record(kT0 + 25 * kSec, resources(12'500, 25'000, 5'850, {app(1, 130, 60), app(2, 840, 5), app(3, 90'010, 50'010)}));
  CHECK(*h.at(5).app_cpu_percent() == Approx(22.0));         // (100 + 0 + 10) / 500
  CHECK(*h.at(5).main_thread_cpu_percent() == Approx(10.0));  // app 1's 50 is the busiest

  // No app read, cores read: the device's share alone.
  h.record(kT0 + 30 * kSec, resources(13'000, 26'000, 6'850, {}));
  CHECK_FALSE(h.at(6).app_cpu_percent());
  CHECK(*h.at(6).device_cpu_percent() == Approx(100.0));

  // Shares round to permille and saturate below "not measured".
  h.record(kT0 + 35 * kSec, resources(13'300, 26'600, 6'950, {}));  // 100 / 600 = 16.67 %
  CHECK(h.at(7).device_cpu == 167);
  h.record(kT0 + 40 * kSec, resources(13'300, 26'600, 6'950, {app(9, 0)}));
  h.record(kT0 + 45 * kSec, resources(13'301, 26'602, 6'952, {app(9, 1'000'000)}));
  CHECK(h.at(9).app_cpu == metrics::kLiveUnmeasured - 1);
}

TEST_CASE("live history: without the cores, an app's CPU is over the sample's span", "[live][history][resources]") {
  LiveHistory h;
  h.configure(4, 5000);
  h.record(kT0, resources(0, 0, 0, {app(1, 1'000, 400)}));
  // 250 ticks in a 5 s sample: 2.5 s of CPU, 50 % of one core.
  h.record(kT0 + 5 * kSec, resources(0, 0, 0, {app(1, 1'250, 500)}));
  CHECK(*h.at(1).app_cpu_percent() == Approx(50.0));
  CHECK(*h.at(1).main_thread_cpu_percent() == Approx(20.0));
  CHECK_FALSE(h.at(1).device_cpu_percent());
}

TEST_CASE("live history: the apps' memory and a capped CPU cluster are gauges at the sample",
          "[live][history][resources]") {
  LiveHistory h;
  h.configure(8, 5000);
  LiveReading r = reading(0);
  h.record(kT0, r);
  CHECK_FALSE(h.at(0).app_rss().has_value());  // not measured
  CHECK_FALSE(h.at(0).cpu_capped().has_value());

  constexpr std::uint64_t kMiB = 1024 * 1024;
  r.app_rss_bytes = 305 * kMiB + kMiB / 2;  // 305.5 MiB rounds up
  r.cpu_capped = true;
  h.record(kT0 + 5 * kSec, r);
  CHECK(h.at(1).app_rss() == 306U);
  CHECK(h.at(1).cpu_capped() == true);
  CHECK(h.at(1).status() == metrics::LiveStatus::following);  // the flags leave the status alone

  r.app_rss_bytes = 305 * kMiB + kMiB / 2 - 1;
  r.cpu_capped = false;
  h.record(kT0 + 10 * kSec, r);
  CHECK(h.at(2).app_rss() == 305U);
  CHECK(h.at(2).cpu_capped() == false);

  r.app_rss_bytes = 70'000 * kMiB;  // saturates below "not measured"
  h.record(kT0 + 15 * kSec, r);
  CHECK(h.at(3).app_rss() == 65'534U);
}

TEST_CASE("live reading: the resource poll's CPU counters, the apps' memory and the clocks' cap",
          "[live][history][resources]") {
  metrics::Store store;
  auto& d = store.device("s");
  LiveReading r = metrics::live_reading(d, kT0, kSmWindow);
  CHECK(r.totals.cpu_ticks == 0);  // nothing polled
  CHECK(r.totals.apps.empty());
  CHECK_FALSE(r.app_rss_bytes.has_value());
  CHECK_FALSE(r.cpu_capped.has_value());

  d.pid_names.started(4242, "com.example.feed");
  d.pid_names.started(4343, "com.example.chat");
  const std::string stat = " S 1 1 0 0 -1 0 0 0 0 0 ";
  const auto answer = parsers::parse_resource_answer(
      "/proc/sys/kernel/random/boot_id:b1\n"
      "/proc/stat:cpu0 100 10 50 800 20 5 5 0 0 0\n"  // 990 ticks, busy 170
      "/proc/stat:cpu4 300 0 100 500 40 0 0 0 0 0\n"  // 940 ticks, busy 400
      "/proc/4242/stat:4242 (om.example.feed)" + stat + "120 30 0 0 10 -10 20 0 5000 1 512\n"
      "/proc/4242/task/4242/stat:4242 (om.example.feed)" + stat + "70 10 0 0 10 -10 20 0 5000 1 512\n"
      "/proc/4343/stat:4343 (om.example.chat)" + stat + "9 1 0 0 10 -10 20 0 6000 1 512\n"
      "/proc/4242/status:VmRSS:\t  204800 kB\n"
      "/proc/4343/status:VmRSS:\t  102400 kB\n"
      "/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq:1800000\n"
      "/sys/devices/system/cpu/cpufreq/policy0/cpuinfo_max_freq:1800000\n"
      "/sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq:2000000\n"
      "/sys/devices/system/cpu/cpufreq/policy4/cpuinfo_max_freq:3000000\n");
  REQUIRE(answer.malformed_lines == 0);
  store.set_host_time(kT0);
  metrics::record_cpu(store, d, answer, {});
  metrics::record_memory(store, d, answer);
  metrics::record_clocks(store, d, answer);

  r = metrics::live_reading(d, kT0, kSmWindow);
  CHECK(r.totals.cpu_ticks == 990 + 940);
  CHECK(r.totals.cpu_busy_ticks == 170 + 400);
  CHECK(r.totals.cpu_clock_ticks == 990);  // the first core's
  REQUIRE(r.totals.apps.size() == 2);
  // The store's order: by package name.
  CHECK(r.totals.apps[0].key == std::hash<std::string_view>{}("com.example.chat"));
  CHECK(r.totals.apps[0].ticks == 10);
  CHECK_FALSE(r.totals.apps[0].main_thread_ticks.has_value());  // its threads were not read
  CHECK(r.totals.apps[1].ticks == 150);
  CHECK(r.totals.apps[1].main_thread_ticks == std::optional<std::uint64_t>(80));
  CHECK(r.app_rss_bytes == std::optional<std::uint64_t>(300ULL * 1024 * 1024));
  CHECK(r.cpu_capped == true);  // policy 4 at 2.0 of 3.0 GHz

  // The clocks uncapped: known and false.
  metrics::record_clocks(store, d, parsers::parse_resource_answer(
                                       "/sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq:3000000\n"
                                       "/sys/devices/system/cpu/cpufreq/policy4/cpuinfo_max_freq:3000000\n"));
  CHECK(metrics::live_reading(d, kT0, kSmWindow).cpu_capped == false);
}

#include <catch2/catch.hpp>

#include <chrono>
#include <limits>

#include "metrics/framestats_tracker.h"
#include "metrics/gfxinfo_tracker.h"
#include "metrics/histogram.h"
#include "metrics/skip_window.h"
#include "metrics/sources/skips.h"
#include "metrics/store.h"
#include "metrics/sources/traces.h"

using namespace jank::metrics;
using jank::parsers::FramestatsTable;
using jank::parsers::GfxStats;
using jank::parsers::HistogramBin;

namespace {
constexpr std::int64_t kSec = 1'000'000'000;
}

TEST_CASE("SM is refresh minus skipped per second, clamped", "[metrics][sm]") {
  const std::chrono::seconds minute(60);
  CHECK(smoothness(60, 0, minute) == Approx(60));
  CHECK(smoothness(60, 600, minute) == Approx(50));
  CHECK(smoothness(120, 600, minute) == Approx(110));
  CHECK(smoothness(60, 100000, minute) == Approx(0));  // clamped at 0
}

TEST_CASE("skip window keeps only the last window_seconds", "[metrics][window]") {
  SkipWindow w(std::chrono::seconds(10));
  w.add(100 * kSec, 5);
  w.add(105 * kSec + 1, 30);
  w.add(109 * kSec, 2);
  CHECK(w.frames(109 * kSec) == 37);
  CHECK(w.max_skip(109 * kSec) == 30);
  CHECK(w.frames(110 * kSec) == 32);  // second 100 fell out of (100, 110]
  CHECK(w.frames(116 * kSec) == 2);   // only second 109 is in (106, 116]
  CHECK(w.frames(120 * kSec) == 0);
  CHECK(w.max_skip(120 * kSec) == 0);
  w.add(104 * kSec, 1);  // late entry still counted while inside the window
  CHECK(w.frames(109 * kSec) == 38);
  w.add(500 * kSec, 1);  // old seconds are released
  CHECK(w.buckets() == 1);
}

TEST_CASE("histogram buckets observations by upper bound", "[metrics][histogram]") {
  Histogram h(buckets::skip_size_frames());
  for (double v : {1.0, 2.0, 4.0, 30.0, 31.0, 500.0}) h.observe(v);
  const auto& c = h.counts();
  CHECK(c[0] == 1);  // ≤1
  CHECK(c[1] == 1);  // ≤2
  CHECK(c[3] == 1);  // ≤5
  CHECK(c[5] == 1);  // ≤30
  CHECK(c[6] == 1);  // ≤60
  CHECK(c[8] == 1);  // +Inf
  CHECK(h.count() == 6);
  CHECK(h.sum() == Approx(568));
}

namespace {
GfxStats stats(std::uint64_t since, std::uint64_t total, std::uint64_t janky, std::uint64_t slow_ui,
               std::vector<HistogramBin> hist) {
  GfxStats s;
  s.stats_since_ns = since;
  s.total_frames = total;
  s.janky_frames = janky;
  s.slow_ui_thread = slow_ui;
  s.p50_ms = 5;
  s.p90_ms = 10;
  s.p95_ms = 20;
  s.p99_ms = 40;
  s.histogram = std::move(hist);
  return s;
}
}  // namespace

TEST_CASE("gfxinfo counters add deltas and start a new baseline on reset", "[metrics][gfxinfo]") {
  GfxinfoTracker t;
  t.apply(stats(1000, 10, 2, 1, {{5, 6}, {16, 2}, {17, 1}, {150, 1}}));
  CHECK(t.frames_rendered() == 10);
  CHECK(t.janky_frames() == 2);
  t.apply(stats(1000, 15, 3, 1, {{5, 9}, {16, 3}, {17, 1}, {150, 2}}));
  CHECK(t.frames_rendered() == 15);
  CHECK(t.janky_frames() == 3);
  CHECK(t.baseline_resets() == 0);
  // Process restarted: new "Stats since", smaller values. Counters keep going up.
  t.apply(stats(9000, 4, 1, 1, {{5, 4}}));
  CHECK(t.frames_rendered() == 19);
  CHECK(t.janky_frames() == 4);
  CHECK(t.causes()[static_cast<std::size_t>(JankCause::slow_ui_thread)] == 2);
  CHECK(t.baseline_resets() == 1);
  // gfxinfo reset behind our back: same Stats since is impossible, but values falling alone is enough.
  t.apply(stats(9000, 1, 0, 0, {{5, 1}}));
  CHECK(t.frames_rendered() == 20);
  CHECK(t.baseline_resets() == 2);
  CHECK(t.frame_duration().count() == 20);
}

TEST_CASE("gfxinfo HISTOGRAM bins land at or below the next bin's label", "[metrics][gfxinfo]") {
  GfxinfoTracker t;
  // 7 ms bin → ≤ 8 ms; 16 ms bin → ≤ 17 ms; 48 ms bin → ≤ 53 ms; last bin → +Inf.
  t.apply(stats(1, 4, 0, 0, {{7, 1}, {8, 0}, {16, 1}, {17, 0}, {48, 1}, {53, 0}, {4950, 1}}));
  const auto& h = t.frame_duration();
  const auto bounds = h.upper_bounds();
  auto bucket_of = [&](double le) {
    for (std::size_t i = 0; i < bounds.size(); ++i)
      if (bounds[i] == Approx(le)) return i;
    FAIL("no bucket " << le);
    return std::size_t{0};
  };
  CHECK(h.counts()[bucket_of(0.008)] == 1);
  CHECK(h.counts()[bucket_of(0.017)] == 1);
  CHECK(h.counts()[bucket_of(0.053)] == 1);
  CHECK(h.counts().back() == 1);
}

TEST_CASE("a zero-frame dump's 4950 ms percentiles are not reported", "[metrics][gfxinfo]") {
  GfxinfoTracker t;
  GfxStats s = stats(1, 0, 0, 0, {});
  s.p50_ms = s.p90_ms = s.p95_ms = s.p99_ms = 4950;
  t.apply(s);
  CHECK_FALSE(t.percentiles().has_value());
  t.apply(stats(1, 3, 0, 0, {}));
  REQUIRE(t.percentiles().has_value());
  CHECK(t.percentiles()->p99_ms == 40);
}

namespace {
FramestatsTable table(std::vector<std::vector<std::int64_t>> rows) {
  FramestatsTable t;
  t.columns = {"Flags", "IntendedVsync", "Vsync", "HandleInputStart", "AnimationStart", "PerformTraversalsStart",
               "DrawStart", "SyncQueued", "SyncStart", "IssueDrawCommandsStart", "FrameCompleted"};
  t.rows = std::move(rows);
  return t;
}
std::vector<std::int64_t> frame(std::int64_t flags, std::int64_t start_ms, std::int64_t duration_ms) {
  const std::int64_t s = start_ms * 1'000'000, ms = 1'000'000;
  return {flags, s, s, s + ms, s + 2 * ms, s + 3 * ms, s + 4 * ms, s + 5 * ms, s + 6 * ms, s + 7 * ms,
          s + duration_ms * ms};
}
}  // namespace

TEST_CASE("framestats de-duplicates overlapping polls by IntendedVsync", "[metrics][framestats]") {
  FramestatsTracker t;
  const std::int64_t interval = 16'666'667;
  t.apply("w", table({frame(0, 100, 10), frame(0, 117, 30), frame(1, 133, 10)}), interval);
  CHECK(t.frames() == 2);
  CHECK(t.janky_frames() == 1);
  CHECK(t.flagged_frames() == 1);
  t.apply("w", table({frame(0, 117, 30), frame(1, 133, 10), frame(0, 150, 12)}), interval);
  CHECK(t.frames() == 3);
  CHECK(t.overflows() == 0);
  // A different window of the same process is tracked on its own.
  t.apply("other", table({frame(0, 101, 9)}), interval);
  CHECK(t.frames() == 4);
  // A poll that does not overlap: frames were lost in between.
  t.apply("w", table({frame(0, 900, 8)}), interval);
  CHECK(t.overflows() == 1);
  CHECK(t.frames() == 5);
  CHECK(t.frame_duration().count() == 5);
  CHECK(t.stage_duration()[static_cast<std::size_t>(FrameStage::input)].count() == 5);
}

TEST_CASE("framestats not polled on purpose: the next table of each window may not overlap, once",
          "[metrics][framestats]") {
  FramestatsTracker t;
  const std::int64_t interval = 16'666'667;
  t.apply("w", table({frame(0, 100, 10)}), interval);
  t.apply("v", table({frame(0, 100, 10)}), interval);
  t.expect_gap();  // polled without framestats for a while
  t.apply("w", table({frame(0, 900, 8)}), interval);
  t.apply("v", table({frame(0, 900, 8)}), interval);
  CHECK(t.overflows() == 0);
  CHECK(t.frames() == 4);
  // Polled again: a gap now is frames lost.
  t.apply("w", table({frame(0, 2000, 8)}), interval);
  CHECK(t.overflows() == 1);
}

TEST_CASE("framestats rows with garbage timestamps are counted, not timed", "[metrics][framestats]") {
  FramestatsTracker t;
  auto zero = frame(0, 100, 10);
  zero.back() = 0;
  auto early = frame(0, 200, 10);
  early.back() = early[1] - 5;
  auto huge = frame(0, 300, 10);
  huge.back() = std::numeric_limits<std::int64_t>::max();
  t.apply("w", table({zero, early, huge, frame(0, 400, 5)}), 16'666'667);
  CHECK(t.invalid_frames() == 3);
  CHECK(t.frames() == 1);
}

TEST_CASE("store caps packages per device and names processes", "[metrics][store]") {
  StoreOptions o;
  o.max_packages_per_device = 2;
  Store store(o);
  auto& d = store.device("s1");
  jank::metrics::record_skip(store, d, "a", 1 * kSec, true, 3);
  jank::metrics::record_skip(store, d, "b", 2 * kSec, true, 4);
  jank::metrics::record_skip(store, d, "c", 3 * kSec, true, 5);
  jank::metrics::record_skip(store, d, "d", 3 * kSec, true, 6);
  CHECK(d.packages.size() == 3);  // a, b and the overflow series
  CHECK(jank::metrics::skips_of(d.packages.at(std::string(kOverflowPackage)))->skipped_frames == 11);
  CHECK(d.package_overflow_events == 2);

  jank::parsers::ProcessEvent start{jank::parsers::ProcessEvent::Kind::start, 77, "com.x:svc"};
  store.record_process(d, start);
  CHECK(Store::package_label(d, 77, "") == "com.x:svc");
  CHECK(Store::package_label(d, 78, "") == "pid:78");
  CHECK(Store::package_label(d, 78, "com.printed") == "com.printed");
  CHECK(Store::package_label(d, -1, "?") == "unknown");
  jank::parsers::ProcessEvent death{jank::parsers::ProcessEvent::Kind::death, 77, "com.x:svc"};
  store.record_process(d, death);
  CHECK(Store::package_label(d, 77, "") == "pid:77");
}

TEST_CASE("series of dead processes expire after the grace period", "[metrics][store]") {
  Store store;
  auto& d = store.device("s");
  store.set_host_time(100 * kSec);
  jank::metrics::record_skip(store, d, "com.alive", 0, false, 1);
  jank::metrics::record_skip(store, d, "com.dead", 0, false, 1);
  jank::metrics::record_skip(store, d, "pid:42", 0, false, 1);
  store.set_host_time(200 * kSec);
  store.record_process_list(d, {{10, "com.alive"}, {42, "sh"}});  // com.alive and pid 42 run
  using jank::metrics::ExemplarCounter;
  jank::metrics::trace_state(d).exemplars[{ExemplarCounter::skipped_frames, "com.dead", ""}] = {"t1", 40, 1};
  jank::metrics::trace_state(d).exemplars[{ExemplarCounter::skipped_frames, "com.alive", ""}] = {"t2", 50, 2};
  store.set_host_time(250 * kSec);
  CHECK(store.expire_packages(d, 120 * kSec) == 1);  // com.dead: last alive at 100 s
  CHECK(d.packages.count("com.dead") == 0);
  // An exemplar goes with its series.
  REQUIRE(jank::metrics::trace_state(d).exemplars.size() == 1);
  CHECK(jank::metrics::trace_state(d).exemplars.begin()->second.trace_id == "t2");
  CHECK(d.packages.count("com.alive") == 1);
  CHECK(d.packages.count("pid:42") == 1);
  // Replays never tell the time: nothing expires.
  Store replay;
  auto& r = replay.device("r");
  jank::metrics::record_skip(replay, r, "x", 0, false, 1);
  CHECK(replay.expire_packages(r, 0) == 0);
}

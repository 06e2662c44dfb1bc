#include <catch2/catch.hpp>

#include <limits>

#include "metrics/active_time.h"
#include "metrics/present_tracker.h"
#include "metrics/state_io.h"

using jank::metrics::PresentTracker;
using jank::parsers::SfLatency;

namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t k60Hz = 16'666'667;

// A --latency table whose frames were presented at `presents` (ns), padded
// with `unused` all-zero slots; desired and ready a little before each present.
SfLatency table(const std::vector<std::int64_t>& presents, std::int64_t period = k60Hz, int unused = 0) {
  SfLatency t;
  t.refresh_period_ns = period;
  for (int i = 0; i < unused; ++i) t.rows.push_back({0, 0, 0});
  for (const auto p : presents) t.rows.push_back({p - 2 * kMs, p, p - 4 * kMs});
  return t;
}

// Presents `gaps` apart (ms, may be fractional), starting at `start` ms
// (present times are ns since boot: never 0, which marks an unused slot).
std::vector<std::int64_t> presents_after(double start, const std::vector<double>& gaps) {
  std::vector<std::int64_t> out{static_cast<std::int64_t>(start * kMs)};
  double at = start;
  for (const double g : gaps) {
    at += g;
    out.push_back(static_cast<std::int64_t>(at * kMs));
  }
  return out;
}

}  // namespace

TEST_CASE("PerfDog Jank and BigJank on a worked sequence at 60 Hz", "[metrics][present]") {
  PresentTracker t;
  // Frame times (ms): 16.667 ×3, then 100, 16.667 ×3, then 150, then 50.
  // - 100: mean of the previous three 16.667 → 100 > 33.3 and > 83.3: Jank;
  //   not > 125: no BigJank. In periods: 6 ≥ 1 + 2: refresh jank.
  // - 150: previous three 16.667: > 33.3 and > 125: Jank and BigJank; 9 periods: refresh jank.
  // - 50: previous three (16.667, 16.667, 150) mean 61.1 → 50 < 122: no Jank;
  //   in periods 3 < round(61.1/16.667)=4 + 2: no refresh jank either.
  const double f = 1000.0 / 60;
  const auto p = presents_after(1000, {f, f, f, 100, f, f, f, 150, 50});
  CHECK(t.observe(table(p, k60Hz, 20)) == 10);
  CHECK(t.frames() == 10);
  CHECK(t.jank() == 2);
  CHECK(t.big_jank() == 1);
  CHECK(t.refresh_jank() == 2);
  CHECK(t.jank_ns() == (p[4] - p[3]) + (p[8] - p[7]));
  CHECK(t.active_ns() == p.back() - p.front());
  CHECK(t.frame_time().count() == 9);
  CHECK(t.overflows() == 0);
}

TEST_CASE("a 50 ms hitch at 120 Hz is a refresh-aware jank that PerfDog's 83 ms floor misses", "[metrics][present]") {
  PresentTracker t;
  const std::int64_t period = 8'333'333;
  const double f = 1000.0 / 120;
  // 50 ms = 6 periods ≥ 1 + 2; PerfDog: 50 > 2 × 8.33 but not > 83.3.
  t.observe(table(presents_after(1000, {f, f, f, 50, f}), period));
  CHECK(t.refresh_jank() == 1);
  CHECK(t.jank() == 0);
  // A steady 30 fps game on a 60 Hz panel expects 2 periods per frame: a
  // 3-period frame is no jank, a 4-period one is.
  PresentTracker game;
  const double g = 2000.0 / 60;
  game.observe(table(presents_after(1000, {g, g, g, 3000.0 / 60, g, g, g, 4000.0 / 60}), k60Hz));
  CHECK(game.refresh_jank() == 1);
}

TEST_CASE("polls overlap: each present counts once, pending and empty slots never", "[metrics][present]") {
  PresentTracker t;
  const double f = 1000.0 / 60;
  auto p = presents_after(500, {f, f, f, f});
  auto first = table({p[0], p[1], p[2]}, k60Hz, 100);
  first.rows.push_back({p[3] - 2 * kMs, std::numeric_limits<std::int64_t>::max(), p[3] - 4 * kMs});  // not yet
  CHECK(t.observe(first) == 3);
  CHECK(t.observe(table({p[0], p[1], p[2], p[3], p[4]}, k60Hz, 98)) == 2);  // the pending one, now presented
  CHECK(t.observe(table({p[0], p[1], p[2], p[3], p[4]}, k60Hz, 98)) == 0);  // nothing new: a resting layer
  CHECK(t.frames() == 5);
  CHECK(t.frame_time().count() == 4);
  CHECK(t.overflows() == 0);
}

TEST_CASE("a full table without the last counted frame is an overflow, a fresh layer instance is not",
          "[metrics][present]") {
  const double f = 1000.0 / 60;
  PresentTracker t;
  t.observe(table(presents_after(1000, {f, f}), k60Hz, 120));
  // 127 frames later and more: the ring wrapped, the table is full.
  std::vector<double> gaps(126, f);
  const auto wrapped = presents_after(3000, gaps);
  CHECK(t.observe(table(wrapped)) == 127);
  CHECK(t.overflows() == 1);
  // The gap across the unseen frames is not a frame time.
  CHECK(t.frame_time().count() == 2 + 126);
  // The activity was recreated: a new layer instance, a table with unused slots.
  CHECK(t.observe(table(presents_after(9000, {f, f}), k60Hz, 100)) == 3);
  CHECK(t.overflows() == 1);
  CHECK(t.frames() == 3 + 127 + 3);
}

TEST_CASE("a layer not polled on purpose: the next full table without the last frame is no overflow, once",
          "[metrics][present]") {
  const double f = 1000.0 / 60;
  PresentTracker t;
  t.observe(table(presents_after(1000, {f, f}), k60Hz, 120));
  t.expect_gap();
  // Still resting when asked: the gap stays expected.
  CHECK(t.observe(table(presents_after(1000, {f, f}), k60Hz, 120)) == 0);
  std::vector<double> gaps(126, f);
  CHECK(t.observe(table(presents_after(3000, gaps))) == 127);
  CHECK(t.overflows() == 0);
  // The gap across the frames not polled is no frame time.
  CHECK(t.frame_time().count() == 2 + 126);
  CHECK(t.observe(table(presents_after(9000, gaps))) == 127);
  CHECK(t.overflows() == 1);
}

TEST_CASE("a gap longer than the idle gap is rest, not a BigJank", "[metrics][present]") {
  PresentTracker t;
  const double f = 1000.0 / 60;
  // Animating, then a static screen for 5 s, then animating again.
  t.observe(table(presents_after(1000, {f, f, f, 5000, f, f, f}), k60Hz, 50));
  CHECK(t.jank() == 0);
  CHECK(t.big_jank() == 0);
  CHECK(t.refresh_jank() == 0);
  CHECK(t.frames() == 8);
  CHECK(t.frame_time().count() == 6);
  // The stretch after the rest starts without history: a slow fourth frame
  // there is judged only once three frames are known.
  PresentTracker u;
  u.observe(table(presents_after(1000, {f, f, f, 5000, 100}), k60Hz, 50));
  CHECK(u.jank() == 0);
  CHECK(u.refresh_jank() == 1);  // 6 periods against the one expected
}

TEST_CASE("a table from before the newest counted frame is a rebooted device: its frames are new",
          "[metrics][present]") {
  PresentTracker t;
  t.observe(table(presents_after(3'600'000, {16.7, 16.7, 16.7})));
  REQUIRE(t.frames() == 4);
  // After a reboot the clock restarts near 0: every frame is older than the
  // newest counted one, which the table no longer holds.
  const std::uint64_t added = t.observe(table(presents_after(5'000, {16.7, 16.7}), k60Hz, 100));
  CHECK(added == 3);
  CHECK(t.frames() == 7);
  CHECK(t.overflows() == 0);
  CHECK(t.last_present() == presents_after(5'000, {16.7, 16.7}).back());
  // Only the gaps within the new boot were timed: 3 before, 2 after.
  CHECK(t.frame_time().count() == 5);
}

TEST_CASE("active spans are the timed gaps and the checkpoint keeps dedup and judging state", "[metrics][present]") {
  PresentTracker t;
  std::vector<jank::metrics::ActiveSpan> spans;
  t.observe(table(presents_after(1'000, {20, 20, 2'000, 20})), &spans);
  REQUIRE(spans.size() == 3);  // the 2 s rest is no active time
  CHECK(spans[0].begin_ns == 1'000 * kMs);
  CHECK(spans[0].end_ns == 1'020 * kMs);
  CHECK(spans[2].begin_ns == 3'040 * kMs);
  CHECK(t.active_ns() == 60 * kMs);

  jank::metrics::StateWriter w;
  t.save(w);
  PresentTracker back;
  jank::metrics::StateReader r(w.text());
  REQUIRE(back.load(r));
  CHECK(back.frames() == t.frames());
  CHECK(back.active_ns() == t.active_ns());
  CHECK(back.frame_time().count() == t.frame_time().count());
  // The same table again adds nothing after the restore.
  CHECK(back.observe(table(presents_after(1'000, {20, 20, 2'000, 20}))) == 0);

  // A checkpoint claiming more BigJank than Jank cannot be true.
  jank::metrics::StateWriter bad;
  bad.u64(10).u64(0).u64(1).u64(2).u64(0).i64(0).i64(0);
  jank::metrics::Histogram(jank::metrics::buckets::frame_duration_seconds()).save(bad);
  bad.boolean(false).i64(0).u64(0);
  PresentTracker rejected;
  jank::metrics::StateReader rr(bad.text());
  CHECK_FALSE(rejected.load(rr));
  CHECK(rejected.frames() == 0);
}

TEST_CASE("active time: overlapping spans of several layers count once, late spans still count",
          "[metrics][present]") {
  jank::metrics::ActiveTime a;
  CHECK(a.add({0, 100}) == 100);
  CHECK(a.add({50, 150}) == 50);    // overlaps the first by 50
  CHECK(a.add({300, 400}) == 100);  // disjoint
  CHECK(a.add({120, 320}) == 150);  // fills 150..300 only
  CHECK(a.add({0, 400}) == 0);      // all covered
  CHECK(a.add({400, 400}) == 0);    // empty
  CHECK(a.total_ns() == 400);
  // A span far older than the newest one: a clock that started again.
  const std::int64_t late = 200'000'000'000;
  CHECK(a.add({late, late + 10}) == 10);
  CHECK(a.add({5, 25}) == 20);
  CHECK(a.total_ns() == 430);
}

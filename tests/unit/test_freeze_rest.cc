// Freezes and rests in a layer's presents, checked against a reference
// written here from the published definitions, not from the tracker:
//   - PerfDog (perfdog.qq.com, "Jank" / "BigJank" / "Stutter"): a frame is a
//     Jank when its time is more than twice the mean of the previous three
//     frame times and more than two frames of a 24 fps film (2 × 1000/24 ms);
//     a BigJank likewise with three film frames (125 ms); Stutter is the time
//     in Jank frames over the time measured.
//   - Android vitals (developer.android.com, "Slow rendering" and "Frozen
//     frames"): a frame rendered in more than 16 ms is slow, one in more
//     than 700 ms frozen.
// What happened is known to the generator: a freeze is one long frame (the
// app was stalled and says so), a rest is no frame and ends the stretch.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <random>
#include <vector>

#include "metrics/present_tracker.h"
#include "metrics/state_io.h"
#include "metrics/stall_reports.h"

using jank::metrics::PresentTracker;
using jank::metrics::StallReports;
using jank::parsers::SfLatency;

namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kSec = 1'000'000'000;

enum class Gap { frame, freeze, rest };

struct Step {
  std::int64_t gap_ns;
  Gap kind;
};

struct Expected {
  std::uint64_t frames = 0, intervals = 0, jank = 0, big_jank = 0, frozen = 0, slow = 0, slow_refresh = 0;
  std::int64_t active_ns = 0, jank_ns = 0;
};

// The reference: every frame and freeze is a frame time of the stretch it
// ends; a rest starts a new stretch with no history.
Expected reference(const std::vector<Step>& steps, std::int64_t period_ns) {
  Expected e;
  e.frames = 1 + steps.size();
  std::deque<double> last3;
  for (const Step& s : steps) {
    if (s.kind == Gap::rest) {
      last3.clear();
      continue;
    }
    const double ft_ms = static_cast<double>(s.gap_ns) / 1e6;
    ++e.intervals;
    e.active_ns += s.gap_ns;
    if (last3.size() == 3) {
      const double mean = (last3[0] + last3[1] + last3[2]) / 3;
      if (ft_ms > 2 * mean && ft_ms > 2 * 1000.0 / 24) {
        ++e.jank;
        e.jank_ns += s.gap_ns;
        if (ft_ms > 3 * 1000.0 / 24) ++e.big_jank;
      }
    }
    // A frame presented on time shows one period: the rest of its gap is
    // what its rendering took beyond the period it had.
    if (ft_ms - static_cast<double>(period_ns) / 1e6 > 16) ++e.slow;
    // Slow at the panel's rate: at least one vsync later than the cadence of
    // the three frames before (one period without them).
    const double period_ms = static_cast<double>(period_ns) / 1e6;
    double cadence = 1;
    if (!last3.empty()) {
      double sum = 0;
      for (const double x : last3) sum += x;
      cadence = std::max(1.0, std::round(sum / static_cast<double>(last3.size()) / period_ms));
    }
    if (std::round(ft_ms / period_ms) >= cadence + 1) ++e.slow_refresh;
    if (ft_ms > 700) ++e.frozen;
    last3.push_back(ft_ms);
    if (last3.size() > 3) last3.pop_front();
  }
  return e;
}

// When the app's report of a freeze arrives: before the poll that shows the
// freeze's end, after a poll ending with it, or after a poll that also shows
// up to two frames after it.
enum class Report { before, after_end, after_frames };

// Presents of the steps from `start`, fed to the tracker in overlapping polls
// of at most 127 rows, as SurfaceFlinger's ring shows them. A freeze is
// reported by the app (a stall of its gap less two periods, as Choreographer
// counts it) at `when`. A last poll a minute after everything decides what
// is still undecided.
struct Feed {
  PresentTracker tracker;
  StallReports reports;
  std::int64_t host_ns = 1'000'000'000;

  void run(const std::vector<Step>& steps, std::int64_t period_ns, Report when) {
    const bool late = when != Report::before;
    std::vector<std::int64_t> presents{5'000 * kMs};
    for (const Step& s : steps) presents.push_back(presents.back() + s.gap_ns);
    const jank::metrics::FreezeCheck check = [&](std::int64_t gap, std::int64_t period, std::int64_t seen) {
      return reports.explain(gap, period, "layer", seen, host_ns);
    };
    std::size_t next = 1;  // presents[0] is fed alone first
    feed(presents, 0, 1, period_ns, check);
    std::size_t step = 0;
    while (next < presents.size()) {
      // A poll every 20 frames, or at each freeze's end.
      std::size_t upto = std::min(presents.size(), next + 20);
      for (std::size_t k = next; k < upto; ++k) {
        if (steps[k - 1].kind == Gap::freeze) {
          upto = k + 1;
          // Two more frames, unless another gap comes first.
          for (int more = 0; when == Report::after_frames && more < 2 && upto < presents.size() &&
                             steps[upto - 1].kind == Gap::frame;
               ++more) {
            ++upto;
          }
          break;
        }
      }
      std::vector<std::int64_t> stalls;
      for (; step < upto - 1; ++step) {
        if (steps[step].kind == Gap::freeze) stalls.push_back(steps[step].gap_ns - 2 * period_ns);
      }
      if (!late) {
        for (const auto d : stalls) reports.add(d, host_ns);
      }
      feed(presents, upto > 127 ? upto - 127 : 0, upto, period_ns, check);
      if (late) {
        for (const auto d : stalls) {
          reports.add(d, host_ns);
          tracker.confirm_freeze(check, host_ns);
        }
      }
      next = upto;
      host_ns += 1'000'000'000;
    }
    host_ns += PresentTracker::kRestKeepNs + 1;
    feed(presents, presents.size() > 127 ? presents.size() - 127 : 0, presents.size(), period_ns, check);
  }

  void feed(const std::vector<std::int64_t>& presents, std::size_t from, std::size_t to, std::int64_t period_ns,
            const jank::metrics::FreezeCheck& check) {
    SfLatency t;
    t.refresh_period_ns = period_ns;
    for (std::size_t k = from; k < to; ++k) t.rows.push_back({presents[k] - 2 * kMs, presents[k], presents[k] - 4 * kMs});
    tracker.observe(t, nullptr, check, host_ns);
  }
};

void check_equal(const PresentTracker& t, const Expected& e) {
  CHECK(t.frames() == e.frames);
  CHECK(t.frame_time().count() == e.intervals);
  CHECK(t.active_ns() == e.active_ns);
  CHECK(t.jank() == e.jank);
  CHECK(t.big_jank() == e.big_jank);
  CHECK(t.jank_ns() == e.jank_ns);
  CHECK(t.frozen_frames() == e.frozen);
  CHECK(t.slow_frames() == e.slow);
  CHECK(t.slow_frames_refresh() == e.slow_refresh);
}

std::vector<Step> steady(int n, std::int64_t period_ns) { return std::vector<Step>(n, Step{period_ns, Gap::frame}); }

}  // namespace

TEST_CASE("freezes of 1.5, 3 and 6 s are three BigJank and three frozen frames and a 10 s rest is none",
          "[metrics][present][freeze]") {
  for (const std::int64_t period : {16'666'667LL, 8'333'333LL}) {
    for (const Report when : {Report::before, Report::after_end, Report::after_frames}) {
      INFO("period " << period << " report " << static_cast<int>(when));
      std::vector<Step> steps = steady(30, period);
      for (const std::int64_t freeze_ms : {1500, 3000, 6000}) {
        steps.push_back({freeze_ms * kMs, Gap::freeze});
        const auto more = steady(30, period);
        steps.insert(steps.end(), more.begin(), more.end());
      }
      steps.push_back({10'000 * kMs, Gap::rest});
      const auto more = steady(30, period);
      steps.insert(steps.end(), more.begin(), more.end());
      Feed f;
      f.run(steps, period, when);
      CHECK(f.tracker.big_jank() == 3);
      CHECK(f.tracker.jank() == 3);
      CHECK(f.tracker.frozen_frames() == 3);
      CHECK(f.tracker.freezes() == 3);
      check_equal(f.tracker, reference(steps, period));
    }
  }
}

TEST_CASE("a gap the app reported no stall for is a rest, however it ends", "[metrics][present][freeze]") {
  const std::int64_t period = 16'666'667;
  // A static UI between animations: 2 s and 5 s without frames, no report.
  std::vector<Step> steps = steady(20, period);
  steps.push_back({2000 * kMs, Gap::rest});
  auto more = steady(20, period);
  steps.insert(steps.end(), more.begin(), more.end());
  steps.push_back({5000 * kMs, Gap::rest});
  steps.insert(steps.end(), more.begin(), more.end());
  Feed f;
  f.run(steps, period, Report::before);
  CHECK(f.tracker.jank() == 0);
  CHECK(f.tracker.frozen_frames() == 0);
  CHECK(f.tracker.freezes() == 0);
  check_equal(f.tracker, reference(steps, period));

  // A short stall after a long rest explains no gap: 0.95 s reported, 5 s gap.
  PresentTracker t;
  StallReports r;
  r.add(950 * kMs, 1);
  const jank::metrics::FreezeCheck check = [&](std::int64_t gap, std::int64_t p, std::int64_t seen) {
    return r.explain(gap, p, "layer", seen, 1);
  };
  SfLatency a;
  a.refresh_period_ns = period;
  for (int k = 0; k < 5; ++k) a.rows.push_back({0, 1000 * kMs + k * period, 0});
  t.observe(a, nullptr, check, 1);
  SfLatency b = a;
  b.rows.push_back({0, a.rows.back()[1] + 5000 * kMs, 0});
  t.observe(b, nullptr, check, 1);
  CHECK(t.freezes() == 0);
  CHECK(t.frame_time().count() == 4);
}

TEST_CASE("freezes and rests at random, at 60, 90 and 120 Hz, match the reference", "[metrics][present][freeze]") {
  std::mt19937_64 rng(20261128);
  for (const std::int64_t period : {16'666'667LL, 11'111'111LL, 8'333'333LL}) {
    for (int round = 0; round < 20; ++round) {
      std::vector<Step> steps;
      std::uniform_real_distribution<double> u(0, 1);
      // Freeze lengths 0.4 s apart: two stalls of one length (±0.1 s) within
      // 15 s are taken for one reported twice (metrics/stall_reports.h).
      std::vector<double> lengths;
      for (int k = 0; k < 20; ++k) lengths.push_back(1300 + 400 * k);
      std::shuffle(lengths.begin(), lengths.end(), rng);
      for (int k = 0; k < 600; ++k) {
        const double x = u(rng);
        if (x < 0.01 && !lengths.empty()) {
          steps.push_back({static_cast<std::int64_t>((lengths.back() + u(rng) * 50) * kMs), Gap::freeze});
          lengths.pop_back();
        } else if (x < 0.02) {
          steps.push_back({static_cast<std::int64_t>((1300 + u(rng) * 20000) * kMs), Gap::rest});
        } else {
          // Mostly on time, sometimes a few periods, sometimes a hitch.
          const std::int64_t periods = x < 0.9 ? 1 : x < 0.97 ? 2 + static_cast<std::int64_t>(u(rng) * 3)
                                                                : 5 + static_cast<std::int64_t>(u(rng) * 60);
          steps.push_back({periods * period, Gap::frame});
        }
      }
      Feed f;
      f.run(steps, period, static_cast<Report>(round % 3));
      INFO("period " << period << " round " << round);
      check_equal(f.tracker, reference(steps, period));
    }
  }
}

TEST_CASE("a stall report explains one gap per layer, within the slack, for a minute", "[metrics][present][freeze]") {
  StallReports r;
  const std::int64_t p = 16'666'667;
  r.add(800 * kMs, 1);  // too short to explain any gap over 1.2 s: not kept
  CHECK(r.size() == 0);
  r.add(2000 * kMs, 1'000);
  CHECK_FALSE(r.explain(2200 * kMs, p, "a", 1'000, 1'000));  // 200 ms short: over 5 periods (83 ms) and 100 ms
  CHECK(r.explain(2050 * kMs, p, "a", 1'000, 1'000));
  CHECK_FALSE(r.explain(2050 * kMs, p, "a", 1'000, 1'000));  // taken by this layer
  CHECK(r.explain(2050 * kMs, p, "b", 1'000, 1'000));        // another layer of the app froze with it
  // The same stall reported again by another source (Davey after the skip,
  // a framestats row seconds later) is that one, already taken.
  r.add(2010 * kMs, 5 * kSec);
  CHECK(r.size() == 1);
  CHECK_FALSE(r.explain(2050 * kMs, p, "a", 5 * kSec, 5 * kSec));
  // A stall of that length 15 s later is another one.
  r.add(2010 * kMs, 20 * kSec);
  CHECK(r.size() == 2);
  // A rest seen before that stall began is not what it explains.
  CHECK_FALSE(r.explain(2000 * kMs, p, "a", 16 * kSec, 20 * kSec));
  CHECK(r.explain(2000 * kMs, p, "a", 19 * kSec, 20 * kSec));
  r.add(3000 * kMs, 21 * kSec);
  CHECK_FALSE(r.explain(3050 * kMs, p, "a", 0, 21 * kSec + StallReports::kKeepNs + 1));  // too old
  CHECK(r.size() == 0);
  CHECK(StallReports::slack_ns(8'333'333) == 100 * kMs);
  CHECK(StallReports::slack_ns(41'666'667) == 208'333'335);
  CHECK(StallReports::slack_ns(100 * kMs) == 300 * kMs);
}

TEST_CASE("a rest a late report explains becomes a freeze once, and old rests are forgotten",
          "[metrics][present][freeze]") {
  PresentTracker t;
  const std::int64_t p = 16'666'667;
  SfLatency a;
  a.refresh_period_ns = p;
  for (int k = 0; k < 5; ++k) a.rows.push_back({0, 1000 * kMs + k * p, 0});
  a.rows.push_back({0, a.rows.back()[1] + 3000 * kMs, 0});
  t.observe(a, nullptr, {}, 10);
  CHECK(t.freezes() == 0);
  const jank::metrics::FreezeCheck yes = [](std::int64_t gap, std::int64_t, std::int64_t) { return gap == 3000 * kMs; };
  CHECK_FALSE(t.confirm_freeze(yes, 10 + PresentTracker::kRestKeepNs + 1));  // forgotten
  PresentTracker u;
  u.observe(a, nullptr, {}, 10);
  std::vector<jank::metrics::ActiveSpan> spans;
  CHECK(u.confirm_freeze(yes, 20, &spans));
  CHECK_FALSE(u.confirm_freeze(yes, 20, &spans));
  REQUIRE(spans.size() == 1);
  CHECK(spans[0].end_ns - spans[0].begin_ns == 3000 * kMs);
  CHECK(u.freezes() == 1);
  CHECK(u.big_jank() == 1);  // judged with the four frames before the gap
  CHECK(u.frozen_frames() == 1);
}

TEST_CASE("the frames after a gap wait for the report that decides it: in time in the freeze's stretch, later as a new one",
          "[metrics][present][freeze]") {
  // A 60 fps game on a 120 Hz panel: two periods a frame. The first frame of
  // a new stretch is judged against one period (slow at the panel's rate);
  // in the freeze's stretch, against the freeze's cadence (not slow).
  const std::int64_t period = 8'333'333;
  SfLatency a;
  a.refresh_period_ns = period;
  for (int k = 0; k < 5; ++k) a.rows.push_back({0, 1000 * kMs + 2 * k * period, 0});
  a.rows.push_back({0, a.rows.back()[1] + 1500 * kMs, 0});  // the gap
  for (int k = 0; k < 2; ++k) a.rows.push_back({0, a.rows.back()[1] + 2 * period, 0});
  const jank::metrics::FreezeCheck yes = [](std::int64_t gap, std::int64_t, std::int64_t) { return gap == 1500 * kMs; };
  for (const bool in_time : {true, false}) {
    INFO((in_time ? "in time" : "too late"));
    PresentTracker t;
    t.observe(a, nullptr, {}, 10);
    CHECK(t.frame_time().count() == 6);  // the two frames after the gap are timed at once
    CHECK(t.slow_frames_refresh() == 1);  // and judged once the gap is decided
    // A report can explain a 1.5 s gap up to 1.5 s (its length) + 0.3 s
    // (the slack) + 1 s (the log's latency) after the gap was seen.
    REQUIRE(PresentTracker::undecided_ns(1500 * kMs) == 2800 * kMs);
    const std::int64_t delay = PresentTracker::undecided_ns(1500 * kMs) + (in_time ? 0 : 1);
    REQUIRE(t.confirm_freeze(yes, 10 + delay));
    CHECK(t.freezes() == 1);
    CHECK(t.big_jank() == 1);
    CHECK(t.frozen_frames() == 1);
    CHECK(t.frame_time().count() == 7);
    // Slow at the panel's rate: the first frame of the five before the gap
    // (against one period), the freeze, and the first frame after it only
    // in a new stretch.
    CHECK(t.slow_frames_refresh() == (in_time ? 2 : 3));
  }
  // Replay has no host time to wait on: the frames after a gap are judged at
  // once, as a new stretch's.
  PresentTracker replay;
  replay.observe(a, nullptr, {}, 0);
  CHECK(replay.frame_time().count() == 6);
  CHECK(replay.slow_frames_refresh() == 2);
}

TEST_CASE("a checkpoint taken while frames after a rest are undecided saves them judged as a new stretch",
          "[metrics][present][freeze]") {
  const std::int64_t period = 8'333'333;
  PresentTracker t;
  SfLatency a;
  a.refresh_period_ns = period;
  for (int k = 0; k < 5; ++k) a.rows.push_back({0, 1000 * kMs + 2 * k * period, 0});
  a.rows.push_back({0, a.rows.back()[1] + 3000 * kMs, 0});   // a rest
  a.rows.push_back({0, a.rows.back()[1] + 2 * period, 0});   // a frame after it, undecided
  t.observe(a, nullptr, {}, 10);
  CHECK(t.frame_time().count() == 5);   // the frame after the rest is timed
  CHECK(t.slow_frames_refresh() == 1);  // but not judged: the first of the five, against one period

  jank::metrics::StateWriter w;
  t.save(w);
  PresentTracker loaded;
  jank::metrics::StateReader r(w.text());
  REQUIRE(loaded.load(r));
  CHECK(loaded.frames() == 7);
  CHECK(loaded.frame_time().count() == 5);
  CHECK(loaded.slow_frames_refresh() == 2);  // the frame after the rest, in a new stretch

  // Without a report, the first poll after one could come decides the same.
  t.observe(a, nullptr, {}, 10 + PresentTracker::undecided_ns(3000 * kMs));
  CHECK(t.slow_frames_refresh() == 1);
  t.observe(a, nullptr, {}, 10 + PresentTracker::undecided_ns(3000 * kMs) + 1);
  CHECK(t.frame_time().count() == 5);
  CHECK(t.slow_frames_refresh() == 2);
}

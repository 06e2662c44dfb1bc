// Verdicts of `jank_exporter compare` on hand-made run results.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "metrics/run_compare.h"

using namespace jank::metrics;

namespace {

using Metrics = std::map<std::string, double, std::less<>>;

CompareRun run_of(const std::string& id, double duration, std::vector<Metrics> devices) {
  CompareRun r{id, "com.example.feed", duration, {}};
  for (std::size_t i = 0; i < devices.size(); ++i) r.devices.push_back({"dev" + std::to_string(i), devices[i], ""});
  return r;
}

// One single-device run of 60 s per value of `key`.
std::vector<CompareRun> runs_with(const std::string& key, const std::vector<double>& values) {
  std::vector<CompareRun> runs;
  for (double v : values) runs.push_back(run_of("r" + std::to_string(runs.size()), 60, {{{key, v}}}));
  return runs;
}

// start, start + step, … (count values).
std::vector<double> series(double start, double step, int count) {
  std::vector<double> v;
  for (int i = 0; i < count; ++i) v.push_back(start + step * i);
  return v;
}

const MetricComparison& only(const Comparison& c) {
  REQUIRE(c.metrics.size() == 1);
  return c.metrics.front();
}

}  // namespace

TEST_CASE("janky percent up by two points on ten runs a side is a regression", "[compare]") {
  // 2.0 … 2.9 against 4.0 … 4.9: fully separated, U = 100 of 100, exact
  // two-sided p = 2 / C(20, 10) = 1.08e-5; medians 2.45 → 4.45 (+2 points ≥ 1).
  const auto c = compare_runs(runs_with("janky_percent", series(2.0, 0.1, 10)),
                              runs_with("janky_percent", series(4.0, 0.1, 10)), {});
  const auto& m = only(c);
  CHECK(m.def->name == "janky_percent");
  CHECK(m.n_baseline == 10);
  CHECK(m.n_candidate == 10);
  CHECK(m.median_baseline == Approx(2.45));
  CHECK(m.median_candidate == Approx(4.45));
  CHECK(m.change == Approx(2.0));
  CHECK(*m.relative_change == Approx(2.0 / 2.45 * 100));
  CHECK(m.test.exact);
  CHECK(m.test.p_value == Approx(1.0825e-5).epsilon(1e-3));
  REQUIRE(m.shift);
  CHECK(m.shift->shift == Approx(2.0));
  CHECK(*m.shift->low <= 2.0);
  CHECK(*m.shift->high >= 2.0);
  CHECK_FALSE(m.few_samples);
  CHECK(m.verdict == Verdict::kRegression);
  CHECK(c.overall == Verdict::kRegression);
}

TEST_CASE("identical sets give no change", "[compare]") {
  const auto runs = runs_with("janky_percent", series(2.0, 0.1, 12));
  const auto c = compare_runs(runs, runs, {});
  CHECK(only(c).test.p_value == 1);
  CHECK(only(c).verdict == Verdict::kNoChange);
  CHECK(c.overall == Verdict::kNoChange);
}

TEST_CASE("a higher SM and lower jank are improvements", "[compare]") {
  // SM is better higher: 55.0 … 55.9 → 58.0 … 58.9, +3 ≥ 1 with p = 1.08e-5.
  const auto c = compare_runs(runs_with("sm", series(55, 0.1, 10)), runs_with("sm", series(58, 0.1, 10)), {});
  CHECK(only(c).verdict == Verdict::kImprovement);
  CHECK(c.overall == Verdict::kImprovement);
  const auto lower = compare_runs(runs_with("sm", series(58, 0.1, 10)), runs_with("sm", series(55, 0.1, 10)), {});
  CHECK(only(lower).verdict == Verdict::kRegression);
}

TEST_CASE("significant but below the threshold is no change until the threshold is lowered", "[compare]") {
  // 2.00 … 2.09 against 2.50 … 2.59: p = 1.08e-5 but the medians move 0.5 < 1 point.
  const auto a = runs_with("janky_percent", series(2.0, 0.01, 10));
  const auto b = runs_with("janky_percent", series(2.5, 0.01, 10));
  const auto c = compare_runs(a, b, {});
  CHECK(only(c).test.p_value < 0.001);
  CHECK(only(c).change == Approx(0.5));
  CHECK(only(c).verdict == Verdict::kNoChange);
  CompareOptions strict;
  strict.thresholds["janky_percent"] = {0.2, false};
  CHECK(only(compare_runs(a, b, strict)).verdict == Verdict::kRegression);
  // 0.5 / 2.045 = 24 % of the baseline median: a 30 % threshold is not met, 20 % is.
  strict.thresholds["janky_percent"] = {30, true};
  CHECK(only(compare_runs(a, b, strict)).verdict == Verdict::kNoChange);
  strict.thresholds["janky_percent"] = {20, true};
  CHECK(only(compare_runs(a, b, strict)).verdict == Verdict::kRegression);
}

TEST_CASE("the verdict needs p below alpha and the threshold in the worse direction", "[compare]") {
  const Threshold one{1, false}, tenth{10, true};
  CHECK(judge(Better::kLower, 0.01, 0.05, 1.5, 50, one) == Verdict::kRegression);
  CHECK(judge(Better::kLower, 0.05, 0.05, 1.5, 50, one) == Verdict::kNoChange);  // p = alpha is not below it
  CHECK(judge(Better::kLower, 0.01, 0.05, -1.5, -50, one) == Verdict::kImprovement);
  CHECK(judge(Better::kHigher, 0.01, 0.05, -1.5, -3, one) == Verdict::kRegression);
  CHECK(judge(Better::kLower, 0.01, 0.05, 0.5, 9.9, tenth) == Verdict::kNoChange);
  CHECK(judge(Better::kLower, 0.01, 0.05, 0.5, 10, tenth) == Verdict::kRegression);
  // From a baseline median of 0 any rise is an unbounded relative change.
  CHECK(judge(Better::kLower, 0.01, 0.05, 0.5, std::nullopt, tenth) == Verdict::kRegression);
  CHECK(judge(Better::kLower, 0.01, 0.05, 0, 0, Threshold{0, false}) == Verdict::kNoChange);
}

TEST_CASE("five runs a side are compared with a warning and two are insufficient data", "[compare]") {
  // 5 against 5 fully separated: p = 2 / 252 = 0.0079 < 0.05; +2 points.
  const auto few = compare_runs(runs_with("janky_percent", series(2, 0.1, 5)),
                                runs_with("janky_percent", series(4, 0.1, 5)), {});
  CHECK(only(few).few_samples);
  CHECK(only(few).test.p_value == Approx(2.0 / 252));
  CHECK(only(few).verdict == Verdict::kRegression);
  const auto two = compare_runs(runs_with("janky_percent", {2, 2.1}), runs_with("janky_percent", series(4, 0.1, 10)), {});
  CHECK(only(two).n_baseline == 2);
  CHECK(only(two).verdict == Verdict::kInsufficientData);
  CHECK_FALSE(only(two).few_samples);
  CHECK(two.overall == Verdict::kInsufficientData);
}

TEST_CASE("counts are compared per minute of each run", "[compare]") {
  // 100 skipped frames in 60 s, 200 in 120 s and 50 in 30 s are all 100 a minute.
  const CompareRun minute = run_of("a", 60, {{{"skipped_frames", 100}}});
  const CompareRun two_minutes = run_of("b", 120, {{{"skipped_frames", 200}}});
  const CompareRun half = run_of("c", 30, {{{"skipped_frames", 50}}});
  const auto& def = *find_compared_metric("skipped_frames_per_minute");
  CHECK(*metric_value(def, minute, minute.devices[0]) == Approx(100));
  CHECK(*metric_value(def, two_minutes, two_minutes.devices[0]) == Approx(100));
  CHECK(*metric_value(def, half, half.devices[0]) == Approx(100));
  const CompareRun instant = run_of("d", 0, {{{"skipped_frames", 5}}});
  CHECK_FALSE(metric_value(def, instant, instant.devices[0]));
  // Runs twice as long with twice the skips: raw counts doubled, no change per minute.
  std::vector<CompareRun> a, b;
  for (int i = 0; i < 10; ++i) {
    a.push_back(run_of("a" + std::to_string(i), 60, {{{"skipped_frames", 100.0 + i}}}));
    b.push_back(run_of("b" + std::to_string(i), 120, {{{"skipped_frames", 2 * (100.0 + i)}}}));
  }
  CompareOptions lengths_differ;
  lengths_differ.work_tolerance_percent = -1;  // twice the duration is unequal work otherwise (below)
  const auto c = compare_runs(a, b, lengths_differ);
  CHECK(only(c).def->name == "skipped_frames_per_minute");
  CHECK(only(c).change == Approx(0));
  CHECK(only(c).verdict == Verdict::kNoChange);
}

TEST_CASE("samples are one per run and device or with per run the mean of the devices", "[compare]") {
  const std::vector<CompareRun> runs{run_of("a", 60, {{{"janky_percent", 2}}, {{"janky_percent", 4}}, {{"fps", 60}}})};
  const auto& def = *find_compared_metric("janky_percent");
  CHECK(metric_samples(def, runs, false) == std::vector<double>{2, 4});  // the third device has none: skipped
  CHECK(metric_samples(def, runs, true) == std::vector<double>{3});
  CHECK(metric_samples(*find_compared_metric("fps"), runs, true) == std::vector<double>{60});
}

TEST_CASE("the FrameTimeline janky share is janky over all FrameTimeline frames", "[compare]") {
  const auto& def = *find_compared_metric("ft_janky_percent");
  const CompareRun r = run_of("a", 60, {{{"ft_frames", 3100}, {"ft_janky_frames", 31}}, {{"ft_frames", 0}, {"ft_janky_frames", 0}}});
  CHECK(*metric_value(def, r, r.devices[0]) == Approx(1.0));
  CHECK_FALSE(metric_value(def, r, r.devices[1]));
}

TEST_CASE("only metrics present in some run are listed and a regression anywhere decides", "[compare]") {
  // Ties: max_skipped_frames 30 or 60 in the baseline, 60 or 120 in the candidate.
  std::vector<CompareRun> a, b;
  for (int i = 0; i < 10; ++i) {
    a.push_back(run_of("a" + std::to_string(i), 60, {{{"max_skipped_frames", i < 5 ? 30.0 : 60.0}, {"fps", 59.0 + i * 0.01}}}));
    b.push_back(run_of("b" + std::to_string(i), 60, {{{"max_skipped_frames", i < 5 ? 60.0 : 120.0}, {"fps", 59.0 + i * 0.01}}}));
  }
  const auto c = compare_runs(a, b, {});
  REQUIRE(c.metrics.size() == 2);
  CHECK(c.metrics[0].def->name == "max_skipped_frames");
  CHECK(c.metrics[1].def->name == "fps");
  // U_B: each 60 of B beats five 30s and ties five 60s (5 + 2.5), each 120
  // beats all ten: 5 × 7.5 + 5 × 10 = 87.5; medians 45 → 90.
  CHECK(c.metrics[0].test.u_b == 87.5);
  CHECK_FALSE(c.metrics[0].test.exact);
  CHECK(c.metrics[0].test.p_value < 0.01);
  CHECK(c.metrics[0].verdict == Verdict::kRegression);
  CHECK(c.metrics[1].verdict == Verdict::kNoChange);
  CHECK(c.overall == Verdict::kRegression);
  CompareOptions only_fps;
  only_fps.metrics = {"fps"};
  CHECK(compare_runs(a, b, only_fps).overall == Verdict::kNoChange);
}

namespace {

// Ten single-device runs of 60 s a side: `frames` drawn and `janky_percent`.
std::vector<CompareRun> runs_drawing(double frames, double janky_percent) {
  std::vector<CompareRun> runs;
  for (int i = 0; i < 10; ++i) {
    runs.push_back(run_of("r" + std::to_string(i), 60,
                          {{{"frames", frames + i}, {"janky_percent", janky_percent + 0.1 * i}}}));
  }
  return runs;
}

const WorkComparison& work(const Comparison& c, std::string_view name) {
  for (const auto& w : c.work) {
    if (w.def->name == name) return w;
  }
  FAIL("no work measure " << name);
  return c.work.front();
}

}  // namespace

TEST_CASE("a candidate that drew half the frames is unequal work, however smooth it looks", "[compare]") {
  const auto c = compare_runs(runs_drawing(1000, 5), runs_drawing(500, 2), {});
  CHECK(c.overall == Verdict::kUnequalWork);
  const auto& slots = work(c, "frame_slots");
  CHECK(slots.n_baseline == 10);
  CHECK(slots.n_candidate == 10);
  CHECK(slots.median_baseline == Approx(1004.5));
  CHECK(slots.median_candidate == Approx(504.5));
  CHECK(*slots.relative_difference == Approx(-500.0 / 1004.5 * 100));
  CHECK(slots.unequal);
  // What was equal is said so; the metrics are still computed, not trusted.
  CHECK_FALSE(work(c, "duration_seconds").unequal);
  CHECK(work(c, "duration_seconds").median_candidate == 60);
  CHECK(c.work.size() == 2);
  CHECK(only(c).verdict == Verdict::kImprovement);
}

TEST_CASE("a build that janks draws fewer frames and skips the rest: the same work and a regression", "[compare]") {
  // The baseline draws 1 000 frames and skips 20; the candidate stalls, draws
  // 600 and skips 420: the frames asked of the app are the same.
  auto base = runs_drawing(1000, 5), worse = runs_drawing(600, 9);
  for (auto& run : base) run.devices[0].metrics["skipped_frames"] = 20;
  for (auto& run : worse) run.devices[0].metrics["skipped_frames"] = 420;
  const auto c = compare_runs(base, worse, {});
  CHECK(work(c, "frame_slots").median_baseline == Approx(1024.5));
  CHECK(work(c, "frame_slots").median_candidate == Approx(1024.5));
  CHECK_FALSE(work(c, "frame_slots").unequal);
  CHECK(c.overall == Verdict::kRegression);
}

TEST_CASE("work within the tolerance leaves the verdict to the metrics and the tolerance is the caller's",
          "[compare]") {
  // 5 % fewer frames: same work at the default 20 %.
  auto c = compare_runs(runs_drawing(1000, 5), runs_drawing(950, 7), {});
  CHECK_FALSE(work(c, "frame_slots").unequal);
  CHECK(c.overall == Verdict::kRegression);
  CompareOptions strict;
  strict.work_tolerance_percent = 4;
  CHECK(compare_runs(runs_drawing(1000, 5), runs_drawing(950, 7), strict).overall == Verdict::kUnequalWork);
  CompareOptions loose;
  loose.work_tolerance_percent = 60;
  c = compare_runs(runs_drawing(1000, 5), runs_drawing(500, 2), loose);
  CHECK_FALSE(work(c, "frame_slots").unequal);
  CHECK(c.overall == Verdict::kImprovement);
  CompareOptions off;
  off.work_tolerance_percent = -1;
  c = compare_runs(runs_drawing(1000, 5), runs_drawing(500, 2), off);
  CHECK_FALSE(work(c, "frame_slots").unequal);
  CHECK(work(c, "frame_slots").relative_difference.has_value());  // still shown
  CHECK(c.overall == Verdict::kImprovement);
}

TEST_CASE("work from nothing to something is unequal at any tolerance", "[compare]") {
  auto with_frames = [](double frames) {
    std::vector<CompareRun> runs;
    for (int i = 0; i < 5; ++i) runs.push_back(run_of("r" + std::to_string(i), 60, {{{"frames", frames}}}));
    return runs;
  };
  CompareOptions loose;
  loose.work_tolerance_percent = 1000;
  const auto c = compare_runs(with_frames(0), with_frames(300), loose);
  CHECK_FALSE(work(c, "frame_slots").relative_difference);
  CHECK(work(c, "frame_slots").unequal);
  CHECK(c.overall == Verdict::kUnequalWork);
  CHECK(verdict_name(c.overall) == "unequal_work");
  CHECK_FALSE(work(compare_runs(with_frames(0), with_frames(0), loose), "frame_slots").unequal);
}

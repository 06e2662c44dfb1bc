// compare --history: the build where a metric stepped, by Pettitt's
// change-point test over the boundaries between builds.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "metrics/run_history.h"

using namespace jank::metrics;

namespace {

// `runs` single-device runs of 60 s of one build with janky percent `level`
// plus noise (sd 0.1).
std::vector<CompareRun> build(double level, int runs, std::mt19937_64& rng) {
  std::normal_distribution<double> noise(0, 0.1);
  std::vector<CompareRun> out;
  for (int r = 0; r < runs; ++r) {
    out.push_back({"b" + std::to_string(level) + "-" + std::to_string(r), "com.example.feed", 60,
                   {{"d", {{"janky_percent", level + noise(rng)}}, ""}}});
  }
  return out;
}

const MetricStep& only(const std::vector<MetricStep>& steps) {
  REQUIRE(steps.size() == 1);
  return steps.front();
}

CompareOptions janky_only() {
  CompareOptions o;
  o.metrics = {"janky_percent"};
  return o;
}

}  // namespace

TEST_CASE("a step at the seventh of ten builds is found there and judged a regression", "[history]") {
  std::mt19937_64 rng(1);
  std::vector<std::vector<CompareRun>> builds;
  for (int b = 0; b < 10; ++b) builds.push_back(build(b < 6 ? 2.0 : 4.0, 5, rng));
  const auto s = only(find_steps(builds, janky_only()));  // a copy: the vector is a temporary
  CHECK(s.step_at == 6);
  CHECK(s.samples_per_build == std::vector<std::size_t>(10, 5));
  CHECK(s.k == Approx(30 * 20));  // every later value above every earlier one
  CHECK(s.p_value < 1e-6);
  CHECK(s.median_before == Approx(2.0).margin(0.1));
  CHECK(s.median_after == Approx(4.0).margin(0.1));
  CHECK(s.verdict == Verdict::kRegression);
}

TEST_CASE("a slow drift no pair of builds shows is seen over ten builds", "[history]") {
  std::mt19937_64 rng(2);
  std::vector<std::vector<CompareRun>> builds;
  for (int b = 0; b < 10; ++b) builds.push_back(build(2.0 + 0.3 * b, 5, rng));
  // Each build against the one before: 0.3 points, under the 1-point threshold.
  for (std::size_t b = 1; b < builds.size(); ++b) {
    CHECK(compare_runs(builds[b - 1], builds[b], janky_only()).overall != Verdict::kRegression);
  }
  const auto s = only(find_steps(builds, janky_only()));  // a copy: the vector is a temporary
  CHECK(s.step_at >= 3);
  CHECK(s.step_at <= 7);
  CHECK(s.change >= 1);
  CHECK(s.verdict == Verdict::kRegression);
}

TEST_CASE("builds of one level have no step", "[history]") {
  std::mt19937_64 rng(3);
  std::vector<std::vector<CompareRun>> builds;
  for (int b = 0; b < 8; ++b) builds.push_back(build(2.0, 5, rng));
  const auto s = only(find_steps(builds, janky_only()));  // a copy: the vector is a temporary
  CHECK(s.verdict == Verdict::kNoChange);
  CHECK(std::abs(s.change) < 1);
}

TEST_CASE("Pettitt's statistic and p-value on a hand-counted series", "[history]") {
  auto one = [](std::vector<double> values) {
    std::vector<CompareRun> runs;
    for (double v : values) runs.push_back({"r" + std::to_string(v), "p", 60, {{"d", {{"janky_percent", v}}, ""}}});
    return runs;
  };
  const std::vector<std::vector<CompareRun>> builds = {one({1, 2, 3}), one({4, 5, 6})};
  const auto s = only(find_steps(builds, janky_only()));  // a copy: the vector is a temporary
  // U_t = 9 pairs later-above-earlier − 0 below: K = 9; T = 6:
  // p = 2·exp(−6·81 / (216 + 36)) = 0.2907.
  CHECK(s.k == 9);
  CHECK(s.p_value == Approx(2 * std::exp(-486.0 / 252)));
  CHECK(s.p_value == Approx(0.2907).epsilon(1e-3));
  CHECK(s.verdict == Verdict::kNoChange);  // p above alpha: six samples cannot tell
  // One build, or too few samples on a side of every boundary: nothing or no verdict.
  CHECK(find_steps(std::vector<std::vector<CompareRun>>{one({1, 2, 3})}, janky_only()).empty());
  CHECK(only(find_steps(std::vector<std::vector<CompareRun>>{one({1}), one({2})}, janky_only())).verdict ==
        Verdict::kInsufficientData);
}

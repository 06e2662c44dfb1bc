// A/A calibration of compare's gate on made-up runs of one build whose
// spread is known: the rates the splits measure, and what the minimum
// detectable effect promises.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "metrics/run_calibration.h"

using namespace jank::metrics;

namespace {

// `count` runs of one build: each run on `devices` phones of `model`; a
// device's janky percent is 2 + the run's shared offset (sd `run_sd`) + its
// own noise (sd `device_sd`).
std::vector<CompareRun> aa_runs(int count, int devices, double run_sd, double device_sd, std::uint64_t seed,
                                const std::string& model = "M1") {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> run_noise(0, run_sd), device_noise(0, device_sd);
  std::vector<CompareRun> runs;
  for (int r = 0; r < count; ++r) {
    CompareRun run{"r" + std::to_string(r), "com.example.feed", 60, {}};
    const double shared = run_noise(rng);
    for (int d = 0; d < devices; ++d) {
      run.devices.push_back({"d" + std::to_string(d), {{"janky_percent", 2 + shared + device_noise(rng)}}, model});
    }
    runs.push_back(run);
  }
  return runs;
}

// The gate with no practical threshold: a change counts on p alone, so the
// false-regression rate is the test's own.
CalibrationOptions bare_gate() {
  CalibrationOptions o;
  o.compare.thresholds["janky_percent"] = Threshold{0, false};
  o.compare.metrics = {"janky_percent"};
  return o;
}

const MetricCalibration& overall(const std::vector<MetricCalibration>& c) {
  REQUIRE_FALSE(c.empty());
  REQUIRE(c.front().model.empty());
  return c.front();
}

}  // namespace

TEST_CASE("runs of independent phones keep the gate's false alarms at its alpha", "[calibration]") {
  const auto runs = aa_runs(20, 1, 0, 0.3, 7);
  const auto c = calibrate(runs, bare_gate());
  REQUIRE(c.size() == 1);  // one model: no per-model rows
  const auto& m = overall(c);
  CHECK(m.def->name == "janky_percent");
  CHECK(m.runs == 20);
  CHECK(m.samples == 20);
  CHECK(m.split_runs == 10);
  // Two-sided alpha 0.05: about 5 % of the splits flagged, half of them the worse way.
  CHECK(m.flagged_rate <= 0.08);
  CHECK(m.false_regression_rate <= 0.05);
  // The default threshold (a whole point against a spread of 0.3) never fails a build.
  CalibrationOptions shipped;
  shipped.compare.metrics = {"janky_percent"};
  CHECK(overall(calibrate(runs, shipped)).false_regression_rate == 0);
}

TEST_CASE("a room that slows a whole run shows as false alarms unless runs are the samples", "[calibration]") {
  // Five phones a run share most of their spread: counted as 5 independent
  // samples a run, the test is far too sure.
  const auto runs = aa_runs(20, 5, 0.5, 0.05, 11);
  const auto per_device = overall(calibrate(runs, bare_gate()));
  CHECK(per_device.samples == 100);
  CHECK(per_device.flagged_rate > 0.25);
  auto per_run = bare_gate();
  per_run.compare.per_run = true;
  const auto averaged = overall(calibrate(runs, per_run));
  CHECK(averaged.samples == 20);
  CHECK(averaged.flagged_rate <= 0.10);
}

TEST_CASE("the minimum detectable effect shrinks with runs and is what the gate then sees", "[calibration]") {
  const auto runs = aa_runs(30, 1, 0, 0.4, 3);
  auto o = bare_gate();
  o.runs_per_side = {4, 6, 10, 20};  // 3 against 3 single samples can never reach p < 0.05
  const auto m = overall(calibrate(runs, o));
  REQUIRE(m.effects.size() == 4);
  for (const auto& e : m.effects) {
    INFO(e.runs_per_side);
    REQUIRE(e.shift);
    CHECK(*e.shift > 0);
  }
  CHECK(*m.effects[0].shift > *m.effects[1].shift);
  CHECK(*m.effects[1].shift > *m.effects[2].shift);
  CHECK(*m.effects[2].shift > *m.effects[3].shift);
  // Roughly as 1/sqrt(n): 10 runs a side see well under what 4 do.
  CHECK(*m.effects[2].shift < 0.75 * *m.effects[0].shift);

  // Fresh runs of the same build, the candidate's moved by 1.2× the effect
  // promised for 10 runs a side: seen most of the time; by 0.3× of it, rarely.
  auto detection = [&](double shift) {
    int seen = 0;
    for (std::uint64_t trial = 0; trial < 40; ++trial) {
      auto base = aa_runs(10, 1, 0, 0.4, 100 + 2 * trial);
      auto cand = aa_runs(10, 1, 0, 0.4, 101 + 2 * trial);
      for (auto& run : cand) run.devices[0].metrics["janky_percent"] += shift;
      CompareOptions gate;
      gate.thresholds["janky_percent"] = Threshold{0, false};
      seen += compare_runs(base, cand, gate).overall == Verdict::kRegression;
    }
    return seen / 40.0;
  };
  CHECK(detection(1.2 * *m.effects[2].shift) >= 0.7);
  CHECK(detection(0.3 * *m.effects[2].shift) <= 0.35);
}

TEST_CASE("detects reads the table at the largest run count not above the gate's", "[calibration]") {
  MetricCalibration c;
  c.effects = {{3, 1.5}, {10, 0.6}, {20, std::nullopt}};
  CHECK_FALSE(detects(c, 2, 100));  // below the table
  CHECK_FALSE(detects(c, 5, 1.0));  // 3 runs' row: 1.5 > 1.0
  CHECK(detects(c, 5, 1.5));
  CHECK(detects(c, 12, 0.6));
  CHECK_FALSE(detects(c, 12, 0.59));
  CHECK_FALSE(detects(c, 25, 100));  // never reached with that many runs
  CHECK(configured_effect(Threshold{10, true}, 40) == Approx(4));
  CHECK(configured_effect(Threshold{1, false}, 40) == 1);
}

TEST_CASE("calibration is the same for the same runs and seed, per model too", "[calibration]") {
  auto runs = aa_runs(8, 1, 0, 0.3, 5, "Pixel 7");
  const auto more = aa_runs(8, 1, 0, 0.3, 6, "SM-A546B");
  for (std::size_t i = 0; i < runs.size(); ++i) runs[i].devices.push_back(more[i].devices[0]);
  auto o = bare_gate();
  o.resamples = 100;
  const auto a = calibrate(runs, o);
  const auto b = calibrate(runs, o);
  REQUIRE(a.size() == 3);  // every device together, then each model
  CHECK(a[0].model.empty());
  CHECK(a[1].model == "Pixel 7");
  CHECK(a[2].model == "SM-A546B");
  CHECK(a[0].samples == 16);
  CHECK(a[1].samples == 8);
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].false_regression_rate == b[i].false_regression_rate);
    CHECK(a[i].effects.back().shift == b[i].effects.back().shift);
  }
  // Too few runs for a split of two a side: no row.
  CHECK(calibrate(aa_runs(3, 1, 0, 0.3, 5), o).empty());
}

TEST_CASE("a comparison whose runs could not see the configured change is insufficient power", "[calibration]") {
  const auto base = aa_runs(10, 1, 0, 0.3, 21);
  const auto cand = aa_runs(10, 1, 0, 0.3, 22);
  MetricCalibration row;
  row.def = find_compared_metric("janky_percent");
  row.effects = {{5, 3.0}, {10, 0.8}};
  auto c = compare_runs(base, cand, {});
  REQUIRE(c.overall == Verdict::kNoChange);
  // 10 runs a side see 0.8 points; the gate is set for 1 point.
  apply_power(c, std::span<const MetricCalibration>(&row, 1), 10);
  CHECK(c.metrics.front().powered == true);
  CHECK(c.overall == Verdict::kNoChange);
  // With 5 runs a side only 3 points would be seen.
  c = compare_runs(base, cand, {});
  apply_power(c, std::span<const MetricCalibration>(&row, 1), 5);
  CHECK(c.metrics.front().powered == false);
  CHECK(c.overall == Verdict::kInsufficientPower);
  CHECK(verdict_name(c.overall) == "insufficient_power");
  // A regression was seen whatever the power; a row of one model is not the gate's.
  auto worse = cand;
  for (auto& run : worse) run.devices[0].metrics["janky_percent"] += 3;
  c = compare_runs(base, worse, {});
  REQUIRE(c.overall == Verdict::kRegression);
  apply_power(c, std::span<const MetricCalibration>(&row, 1), 5);
  CHECK_FALSE(c.metrics.front().powered.has_value());
  CHECK(c.overall == Verdict::kRegression);
  row.model = "Pixel 7";
  c = compare_runs(base, cand, {});
  apply_power(c, std::span<const MetricCalibration>(&row, 1), 5);
  CHECK_FALSE(c.metrics.front().powered.has_value());
  CHECK(c.overall == Verdict::kNoChange);
}

// Budgets per device tier: the budgets file (config/budgets.h), the pure
// evaluation (metrics/run_budgets.h) and `jank_exporter check` in-process.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/check.h"
#include "app/core/exit_codes.h"
#include "config/budgets.h"
#include "metrics/run_budgets.h"
#include "test_support.h"

namespace {

using jank::metrics::BudgetDevice;
using jank::metrics::LimitKind;
using jank::metrics::LimitOutcome;

// The example of docs/runs.md "Budgets".
constexpr const char* kExample = R"(tiers:
  - name: mid-tier 90 Hz phones
    model: "Pixel 6*"
    refresh_hz: 90
    sdk: {min: 31}
    limits:
      janky_percent: {max: 2}
      frozen_frames: {max: 0}
      sm: {min: 85}
  - name: any 90 Hz phone
    model: "*"
    refresh_hz: {min: 89, max: 91}
    limits:
      janky_percent: {max: 5}
)";

// The first error of `yaml`, as the command prints it.
std::string first_error(const std::string& yaml) {
  const auto load = jank::config::parse_budgets(yaml, "b.yaml");
  REQUIRE_FALSE(load.ok());
  CHECK(load.budgets.tiers.empty());
  return load.errors.front().to_string();
}

// One tier named "a" for any model whose limits are `limits_yaml` (indented 6).
std::string with_limits(const std::string& limits_yaml) {
  return "tiers:\n  - name: a\n    model: \"*\"\n    limits:\n" + limits_yaml;
}

BudgetDevice device(std::string serial, std::string model, std::optional<double> sdk, std::optional<double> hz,
                    std::map<std::string, double, std::less<>> metrics) {
  return {std::move(serial), std::move(model), sdk, hz, std::move(metrics)};
}

jank::metrics::Budgets example() {
  auto load = jank::config::parse_budgets(kExample, "budgets.yaml");
  REQUIRE(load.ok());
  return load.budgets;
}

}  // namespace

TEST_CASE("a budgets file gives its tiers, selectors and limits in order", "[budgets]") {
  const auto load = jank::config::parse_budgets(kExample, "budgets.yaml");
  REQUIRE(load.ok());
  const auto& tiers = load.budgets.tiers;
  REQUIRE(tiers.size() == 2);
  CHECK(tiers[0].name == "mid-tier 90 Hz phones");
  CHECK(tiers[0].model == "Pixel 6*");
  CHECK(tiers[0].refresh_hz == 90);
  CHECK_FALSE(tiers[0].refresh_range);
  REQUIRE(tiers[0].sdk);
  CHECK(tiers[0].sdk->min == 31);
  CHECK_FALSE(tiers[0].sdk->max);
  REQUIRE(tiers[0].limits.size() == 3);
  CHECK(tiers[0].limits[0].metric == "janky_percent");
  CHECK(tiers[0].limits[0].kind == LimitKind::kMax);
  CHECK(tiers[0].limits[0].value == 2);
  CHECK(tiers[0].limits[1].metric == "frozen_frames");
  CHECK(tiers[0].limits[1].value == 0);
  CHECK(tiers[0].limits[2].metric == "sm");
  CHECK(tiers[0].limits[2].kind == LimitKind::kMin);
  CHECK(tiers[0].limits[2].value == 85);
  CHECK(tiers[1].model == "*");
  CHECK_FALSE(tiers[1].refresh_hz);
  REQUIRE(tiers[1].refresh_range);
  CHECK(tiers[1].refresh_range->min == 89);
  CHECK(tiers[1].refresh_range->max == 91);
  // Every metric the task names may be limited, in its direction.
  const auto all = jank::config::parse_budgets(with_limits(
                                                   "      janky_percent: {max: 2}\n"
                                                   "      frozen_frames: {max: 0}\n"
                                                   "      slow_percent: {max: 10}\n"
                                                   "      sm: {min: 55}\n"
                                                   "      fps: {min: 50.5}\n"
                                                   "      frame_time_p95_ms: {max: 17}\n"
                                                   "      cpu_percent: {max: 150}\n"
                                                   "      main_thread_cpu_percent: {max: 90}\n"),
                                               "b.yaml");
  REQUIRE(all.ok());
  CHECK(all.budgets.tiers.at(0).limits.size() == 8);
  CHECK(all.budgets.tiers.at(0).limits[4].value == 50.5);
}

TEST_CASE("a budgets file's errors name the file, line, column and key", "[budgets]") {
  CHECK(first_error("tier:\n  - name: a\n") == "b.yaml:1:1: unknown key 'tier' (allowed: tiers)");
  CHECK(first_error("tiers:\n  - name: a\n    model: x\n    colour: red\n    limits:\n      sm: {min: 1}\n") ==
        "b.yaml:4:5: unknown key 'tiers[0].colour' (allowed in a tier: name, model, refresh_hz, sdk, limits)");
  CHECK_THAT(first_error(with_limits("      jank_percent: {max: 2}\n")),
             Catch::StartsWith("b.yaml:5:7: tiers[0].limits.jank_percent: unknown metric 'jank_percent' (metrics: "
                               "janky_percent, slow_percent,"));
  CHECK(first_error(with_limits("      janky_percent: {min: 2}\n")) ==
        "b.yaml:5:23: tiers[0].limits.janky_percent: lower is better, so its limit is a max, not a min");
  CHECK(first_error(with_limits("      sm: {max: 50}\n")) ==
        "b.yaml:5:12: tiers[0].limits.sm: higher is better, so its limit is a min, not a max");
  CHECK(first_error(with_limits("      janky_percent: {max: two}\n")) ==
        "b.yaml:5:28: tiers[0].limits.janky_percent.max: expected a number, not 'two'");
  CHECK(first_error(with_limits("      frozen_frames: {max: -1}\n")) ==
        "b.yaml:5:28: tiers[0].limits.frozen_frames.max: -1 is negative: a limit is 0 or more");
  CHECK(first_error(with_limits("      janky_percent: 2\n")) ==
        "b.yaml:5:22: tiers[0].limits.janky_percent: expected {max: N}");
  CHECK(first_error("tiers:\n  - name: a\n    limits:\n      sm: {min: 1}\n") ==
        "b.yaml:2:5: tiers[0]: missing model: a glob on the device's model ('*': any)");
  CHECK(first_error("tiers:\n  - name: a\n    model: x\n    refresh_hz: {min: 120, max: 60}\n    limits:\n"
                    "      sm: {min: 1}\n") == "b.yaml:4:17: tiers[0].refresh_hz: min is above max");
  CHECK(first_error("tiers:\n  - name: a\n    model: x\n    sdk: {min: 30.5}\n    limits:\n      sm: {min: 1}\n") ==
        "b.yaml:4:16: tiers[0].sdk.min: expected a whole API level");
  CHECK(first_error(with_limits("      sm: {min: 1}\n") + "  - name: a\n    model: y\n    limits:\n      sm: {min: 2}\n") ==
        "b.yaml:6:11: tiers[1].name: 'a' already names tiers[0]");
  CHECK(first_error("tiers: []\n") == "b.yaml:1:8: tiers: expected a list of tiers");
  CHECK(first_error("") == "b.yaml: empty: expected a mapping with the key tiers");
  CHECK_THAT(first_error("tiers: [\n"), Catch::StartsWith("b.yaml:2:1: "));
  // Every fault is told, not only the first.
  const auto many = jank::config::parse_budgets(with_limits("      sm: {max: 1}\n      fps: {min: x}\n"), "b.yaml");
  CHECK(many.errors.size() == 2);
}

TEST_CASE("a hostile budgets file is refused with a clear error", "[budgets]") {
  // yaml-cpp's mark of where it gave up varies with the document: the message is what counts.
  const std::string deep = first_error("tiers: " + std::string(100000, '['));
  CHECK_THAT(deep, Catch::StartsWith("b.yaml:") && Catch::EndsWith(": nested too deeply, not a budgets file"));
  jank::test::TempDir dir;
  const std::string big = dir.path() + "/big.yaml";
  std::ofstream(big) << "# " << std::string(jank::config::kMaxBudgetsBytes, 'x') << "\n";
  const auto load = jank::config::load_budgets_file(big);
  REQUIRE(load.errors.size() == 1);
  CHECK(load.errors[0].to_string() == big + ": larger than 1 MiB, not a budgets file");
}

TEST_CASE("an unreadable budgets file is an error naming it", "[budgets]") {
  const auto load = jank::config::load_budgets_file("/nonexistent/budgets.yaml");
  REQUIRE(load.errors.size() == 1);
  CHECK(load.errors[0].to_string() == "/nonexistent/budgets.yaml: cannot read the file");
}

TEST_CASE("each device is judged against the limits of the first tier it matches", "[budgets]") {
  const auto budgets = example();
  const std::vector<jank::metrics::BudgetRun> runs = {{
      "r1",
      "com.example.feed",
      {
          device("pass", "Pixel 6a", 33, 90.00001, {{"janky_percent", 1.5}, {"frozen_frames", 0}, {"sm", 88}}),
          device("janky", "Pixel 6 Pro", 34, 90, {{"janky_percent", 3.2}, {"frozen_frames", 1}, {"sm", 89}}),
          device("slow", "Pixel 6", 34, 90, {{"janky_percent", 2}, {"frozen_frames", 0}, {"sm", 80.5}}),
          device("nosm", "Pixel 6", 34, 90, {{"janky_percent", 0.5}, {"frozen_frames", 0}}),
          device("galaxy60", "Galaxy A52", 30, 60, {{"janky_percent", 9}}),
          device("galaxy90", "Galaxy S21", 33, 90, {{"janky_percent", 3}}),
          device("oldpixel", "Pixel 6", 30, 90, {{"janky_percent", 3}}),
          device("norate", "Pixel 6", 34, std::nullopt, {{"janky_percent", 3}}),
      },
  }};
  const auto check = jank::metrics::check_budgets(budgets, runs);
  REQUIRE(check.runs.size() == 1);
  const auto& d = check.runs[0].devices;
  REQUIRE(d.size() == 8);

  // In the tier, every limit held (2 % exactly on "slow" holds too).
  CHECK(d[0].tier == 0u);
  REQUIRE(d[0].limits.size() == 3);
  for (const auto& l : d[0].limits) CHECK(l.outcome == LimitOutcome::kPass);

  // Janky frames and a frozen frame: two breaches with their values.
  CHECK(d[1].tier == 0u);
  CHECK(d[1].limits[0].outcome == LimitOutcome::kBreach);
  CHECK(d[1].limits[0].value == 3.2);
  CHECK(d[1].limits[0].limit.value == 2);
  CHECK(d[1].limits[1].outcome == LimitOutcome::kBreach);
  CHECK(d[1].limits[1].value == 1);
  CHECK(d[1].limits[1].limit.value == 0);
  CHECK(d[1].limits[2].outcome == LimitOutcome::kPass);

  // A min breached: SM below 85.
  CHECK(d[2].limits[0].outcome == LimitOutcome::kPass);
  CHECK(d[2].limits[2].outcome == LimitOutcome::kBreach);
  CHECK(d[2].limits[2].value == 80.5);
  CHECK(d[2].limits[2].limit.kind == LimitKind::kMin);

  // No SM in the results: no value, not a breach.
  CHECK(d[3].limits[2].outcome == LimitOutcome::kNoValue);
  CHECK_FALSE(d[3].limits[2].value);

  // 60 Hz matches neither tier: reported, not judged.
  CHECK_FALSE(d[4].tier);
  CHECK(d[4].limits.empty());

  // Not a Pixel 6, or too old an Android: the second tier, where 3 % holds.
  CHECK(d[5].tier == 1u);
  CHECK(d[5].limits.size() == 1);
  CHECK(d[5].limits[0].outcome == LimitOutcome::kPass);
  CHECK(d[6].tier == 1u);

  // A device that does not report its rate matches no tier that asks for one.
  CHECK_FALSE(d[7].tier);

  CHECK(check.breaches == 3);
  CHECK(check.passes == 3 + 1 + 2 + 2 + 1 + 1);
  CHECK(check.no_values == 1);
  CHECK(check.untiered == 2);
  CHECK(check.breached());
}

TEST_CASE("the first matching tier wins even when a later one would pass", "[budgets]") {
  const auto budgets = example();
  const auto pixel = device("p", "Pixel 6", 34, 90, {{"janky_percent", 3}});
  CHECK(jank::metrics::tier_matches(budgets.tiers[0], pixel));
  CHECK(jank::metrics::tier_matches(budgets.tiers[1], pixel));
  CHECK(jank::metrics::tier_of(budgets, pixel) == 0u);
  const std::vector<jank::metrics::BudgetRun> runs = {{"r", "com.a", {pixel}}};
  const auto check = jank::metrics::check_budgets(budgets, runs);
  CHECK(check.runs[0].devices[0].tier == 0u);
  CHECK(check.runs[0].devices[0].limits[0].outcome == LimitOutcome::kBreach);
  // An exact refresh rate allows half a hertz: 90.4 matches, 90.6 does not.
  CHECK(jank::metrics::tier_matches(budgets.tiers[0], device("p", "Pixel 6", 34, 90.4, {})));
  CHECK_FALSE(jank::metrics::tier_matches(budgets.tiers[0], device("p", "Pixel 6", 34, 90.6, {})));
  CHECK_FALSE(jank::metrics::tier_matches(budgets.tiers[0], device("p", "Pixel 6", std::nullopt, 90, {})));
}

// `jank_exporter check` driven in-process: budgets against results files,
// the table, JSON and JUnit outputs, and each exit status.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/check.h"
#include "app/core/exit_codes.h"
#include "test_support.h"

namespace {

constexpr const char* kBudgets = R"(tiers:
  - name: mid-tier 90 Hz phones
    model: "Pixel 6*"
    refresh_hz: 90
    limits:
      janky_percent: {max: 2}
      frozen_frames: {max: 0}
      sm: {min: 85}
)";

struct Dev {
  std::string serial;
  std::string model = "Pixel 6a";
  int refresh_hz = 90;
  std::string metrics;  // the `metrics` object's members
  bool settled = true;
};

std::string device_json(const Dev& d) {
  return R"({"serial":")" + d.serial + R"(","model":")" + d.model + R"(","sdk":33,"refresh_hz":)" +
         std::to_string(d.refresh_hz) + R"(,"settled":)" + (d.settled ? "true" : "false") +
         R"(,"versions":[],"version_changed":false,"metrics":{)" + d.metrics + "}}";
}

std::string run_json(const std::string& id, const std::vector<Dev>& devices, const std::string& state = "finished") {
  std::string s = R"({"format":1,"id":")" + id + R"(","name":"scroll","package":"com.example.feed","tags":{},"state":")" +
                  state + R"(","duration_seconds":60,"devices":[)";
  for (std::size_t i = 0; i < devices.size(); ++i) s += (i ? "," : "") + device_json(devices[i]);
  return s + "]}";
}

std::string write(const jank::test::TempDir& dir, const std::string& name, const std::string& text) {
  return dir.write(name, text);
}

using Result = jank::test::CommandResult;

Result check(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int status = jank::app::run_check(args, out, err);
  return {status, out.str(), err.str()};
}

const Dev kGood{"good", "Pixel 6a", 90, R"("janky_percent":1.5,"frozen_frames":0,"sm":88.25)"};
const Dev kBad{"bad", "Pixel 6 Pro", 90, R"("janky_percent":3.5,"frozen_frames":2,"sm":80,"fps":null)"};
const Dev kNoSm{"nosm", "Pixel 6", 90, R"("janky_percent":1,"frozen_frames":0)"};
const Dev kOther{"other", "Galaxy A52", 60, R"("janky_percent":9)"};

// Tags open and close in order, attributes are quoted, no bare '&' or '<':
// enough to tell well-formed output from a broken one; xmllint checks the
// same file as an XML parser.
bool well_formed(const std::string& x) {
  std::vector<std::string> open;
  std::size_t i = x.find("?>");
  if (!x.starts_with("<?xml ") || i == std::string::npos) return false;
  for (i += 2; i < x.size();) {
    if (x[i] == '&') {
      const auto semi = x.find(';', i);
      if (semi == std::string::npos) return false;
      const std::string entity = x.substr(i, semi - i + 1);
      if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" && entity != "&apos;")
        return false;
      i = semi + 1;
      continue;
    }
    if (x[i] != '<') {
      ++i;
      continue;
    }
    const auto end = x.find('>', i);
    if (end == std::string::npos) return false;
    std::string tag = x.substr(i + 1, end - i - 1);
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0 || tag.find('<') != std::string::npos) return false;
    if (tag.starts_with("/")) {
      if (open.empty() || open.back() != tag.substr(1)) return false;
      open.pop_back();
    } else if (!tag.ends_with("/")) {
      open.push_back(tag.substr(0, tag.find(' ')));
    }
    i = end + 1;
  }
  return open.empty();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("check exits 0 when every limit held and prints the table", "[budgets][check_cli]") {
  jank::test::TempDir dir;
  const auto budgets = write(dir, "budgets.yaml", kBudgets);
  const auto results = write(dir, "r1.json", run_json("r1", {kGood, kOther}));
  const auto r = check({"--budgets", budgets, results});
  CHECK(r.status == jank::app::kExitOk);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::StartsWith("budgets: " + budgets + " (1 tier)\n"));
  CHECK_THAT(r.out, Catch::Contains("\nrun r1 (com.example.feed), device good (Pixel 6a, sdk 33, 90 Hz): "
                                    "tier mid-tier 90 Hz phones\n"));
  CHECK_THAT(r.out, Catch::Contains("\n  janky_percent                       1.5          max 2  pass\n"));
  CHECK_THAT(r.out, Catch::Contains("\n  frozen_frames                         0          max 0  pass\n"));
  CHECK_THAT(r.out, Catch::Contains("\n  sm                                88.25         min 85  pass\n"));
  CHECK_THAT(r.out, Catch::Contains("device other (Galaxy A52, sdk 33, 60 Hz): no tier matches\n"));
  CHECK_THAT(r.out, Catch::EndsWith("\ncheck: every limit held; 3 limits held, 0 without a value, 1 device of no tier\n"));
}

TEST_CASE("check exits 4 on a breach and names each one", "[budgets][check_cli]") {
  jank::test::TempDir dir;
  const auto budgets = write(dir, "budgets.yaml", kBudgets);
  const auto results = write(dir, "runs.json",
                             R"({"format":1,"runs":[)" + run_json("r1", {kGood, kBad}) + "," +
                                 run_json("r2", {kNoSm, Dev{"late", "Pixel 6", 90, R"("janky_percent":9)", false}}) +
                                 "," + run_json("r3", {kBad}, "running") + "]}");
  const auto r = check({"--budgets", budgets, results});
  CHECK(r.status == jank::app::kExitBudgetBreached);
  CHECK(r.status == 4);
  CHECK_THAT(r.out, Catch::Contains("\n  janky_percent                       3.5          max 2  BREACH\n"));
  CHECK_THAT(r.out, Catch::Contains("\n  sm                                   80         min 85  BREACH\n"));
  CHECK_THAT(r.out, Catch::Contains("\n  sm                                    -         min 85  no value\n"));
  CHECK_THAT(r.out, Catch::Contains("\nbreach: run r1, device bad: janky_percent 3.5 > max 2\n"
                                    "breach: run r1, device bad: frozen_frames 2 > max 0\n"
                                    "breach: run r1, device bad: sm 80 < min 85\n"));
  CHECK_THAT(r.out, Catch::EndsWith("\ncheck: BREACHED, 3 limits broken; 5 limits held, 1 without a value, "
                                    "0 devices of no tier\n"));
  // The unsettled device and the open run are left out, and told.
  CHECK_THAT(r.err, Catch::Contains("run r2: device late left out"));
  CHECK_THAT(r.err, Catch::Contains("run r3 left out: it is running, not finished"));
  CHECK_THAT(r.out, !Catch::Contains("device late"));
}

TEST_CASE("check --json gives every device and limit with its outcome", "[budgets][check_cli]") {
  jank::test::TempDir dir;
  const auto budgets = write(dir, "budgets.yaml", kBudgets);
  const auto results = write(dir, "r1.json", run_json("r1", {kBad, kNoSm, kOther}));
  const auto r = check({"--json", "--budgets", budgets, results});
  CHECK(r.status == 4);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["format"] == 1);
  CHECK(j["verdict"] == "breach");
  CHECK(j["breaches"] == 3);
  CHECK(j["passes"] == 2);
  CHECK(j["no_values"] == 1);
  CHECK(j["untiered_devices"] == 1);
  const auto& devices = j["runs"][0]["devices"];
  REQUIRE(devices.size() == 3);
  CHECK(devices[0]["serial"] == "bad");
  CHECK(devices[0]["model"] == "Pixel 6 Pro");
  CHECK(devices[0]["refresh_hz"] == 90);
  CHECK(devices[0]["tier"] == "mid-tier 90 Hz phones");
  CHECK(devices[0]["limits"][0] == nlohmann::json{{"metric", "janky_percent"}, {"kind", "max"}, {"limit", 2},
                                                  {"value", 3.5}, {"outcome", "breach"}});
  CHECK(devices[0]["limits"][2]["kind"] == "min");
  CHECK(devices[1]["limits"][2]["value"].is_null());
  CHECK(devices[1]["limits"][2]["outcome"] == "no_value");
  CHECK(devices[2]["tier"].is_null());
  CHECK(devices[2]["limits"].empty());
}

TEST_CASE("check --junit writes a testsuite per run with a failure per breach", "[budgets][check_cli]") {
  jank::test::TempDir dir;
  const auto budgets = write(dir, "budgets.yaml", kBudgets);
  // A serial with XML's specials must reach the file escaped.
  const Dev odd{R"(a<b>&\"c\")", "Pixel 6", 90, R"("janky_percent":2.5,"frozen_frames":0,"sm":90)"};
  const auto results = write(dir, "runs.json",
                             R"({"format":1,"runs":[)" + run_json("r1", {kGood, kBad}) + "," +
                                 run_json("r2", {kNoSm, kOther, odd}) + "]}");
  const auto junit = dir.path() + "/junit.xml";
  const auto r = check({"--budgets", budgets, "--junit", junit, results});
  CHECK(r.status == 4);
  const std::string x = jank::test::read_file(junit);
  CHECK(well_formed(x));
  CHECK(std::system((std::string(JANK_XMLLINT_PROGRAM) + " --noout '" + junit + "'").c_str()) == 0);
  CHECK_THAT(x, Catch::Contains("<testsuites name=\"jank_exporter check\" tests=\"13\" failures=\"4\" errors=\"0\" "
                                "skipped=\"2\">"));
  CHECK(count(x, "<testsuite ") == 2);
  CHECK_THAT(x, Catch::Contains("<testsuite name=\"run r1\" tests=\"6\" failures=\"3\" errors=\"0\" skipped=\"0\">"));
  CHECK_THAT(x, Catch::Contains("<testsuite name=\"run r2\" tests=\"7\" failures=\"1\" errors=\"0\" skipped=\"2\">"));
  CHECK(count(x, "<testcase ") == 13);
  CHECK(count(x, "<failure ") == 4);
  CHECK(count(x, "<skipped ") == 2);
  CHECK_THAT(x, Catch::Contains("<testcase classname=\"bad\" name=\"janky_percent max 2 (tier mid-tier 90 Hz phones)\">\n"
                                "      <failure type=\"budget_breach\" message=\"janky_percent 3.5 &gt; max 2\">"
                                "run r1, device bad (Pixel 6 Pro, sdk 33, 90 Hz), tier mid-tier 90 Hz phones: "
                                "janky_percent 3.5 &gt; max 2</failure>"));
  CHECK_THAT(x, Catch::Contains("message=\"frozen_frames 2 &gt; max 0\""));
  CHECK_THAT(x, Catch::Contains("message=\"sm 80 &lt; min 85\""));
  CHECK_THAT(x, Catch::Contains("<testcase classname=\"nosm\" name=\"sm min 85 (tier mid-tier 90 Hz phones)\">\n"
                                "      <skipped message=\"no value: the results have no sm\"/>"));
  CHECK_THAT(x, Catch::Contains("<testcase classname=\"other\" name=\"tier\">\n"
                                "      <skipped message=\"no tier matches Galaxy A52, sdk 33, 60 Hz\"/>"));
  CHECK_THAT(x, Catch::Contains("classname=\"a&lt;b&gt;&amp;&quot;c&quot;\""));
  // Every limit held: the file has testcases and no failure.
  const auto good = write(dir, "good.json", run_json("g1", {kGood}));
  CHECK(check({"--budgets", budgets, "--junit", junit, good}).status == 0);
  const std::string passed = jank::test::read_file(junit);
  CHECK(well_formed(passed));
  CHECK(count(passed, "<testcase ") == 3);
  CHECK(count(passed, "<failure") == 0);
}

TEST_CASE("check's well-formedness test tells a broken document", "[budgets]") {
  CHECK(well_formed("<?xml version=\"1.0\"?>\n<a><b x=\"1\"/>&amp;</a>\n"));
  CHECK_FALSE(well_formed("<?xml version=\"1.0\"?>\n<a><b></a></b>\n"));
  CHECK_FALSE(well_formed("<?xml version=\"1.0\"?>\n<a>&</a>\n"));
  CHECK_FALSE(well_formed("<?xml version=\"1.0\"?>\n<a x=\"1>\n"));
}

TEST_CASE("check exits 78 on an invalid budgets file, naming the place", "[budgets][check_cli]") {
  jank::test::TempDir dir;
  const auto budgets = write(dir, "budgets.yaml", "tiers:\n  - name: a\n    model: x\n    limits:\n      sm: {max: 50}\n");
  const auto results = write(dir, "r1.json", run_json("r1", {kGood}));
  const auto r = check({"--budgets", budgets, results});
  CHECK(r.status == jank::app::kExitConfig);
  CHECK(r.out.empty());
  CHECK(r.err == "jank_exporter check: " + budgets +
                     ":5:12: tiers[0].limits.sm: higher is better, so its limit is a min, not a max\n");
  CHECK(check({"--budgets", dir.path() + "/none.yaml", results}).status == 78);
}

TEST_CASE("check exits 66 on an unreadable source or without a finished run", "[budgets][check_cli]") {
  jank::test::TempDir dir;
  const auto budgets = write(dir, "budgets.yaml", kBudgets);
  const auto missing = check({"--budgets", budgets, dir.path() + "/none.json"});
  CHECK(missing.status == jank::app::kExitNoInput);
  CHECK_THAT(missing.err, Catch::Contains("none.json: no such file or directory"));
  const auto bad = write(dir, "bad.json", R"({"format":1,"runs":[{"id":"r1","state":"finished","duration_seconds":"x"}]})");
  CHECK(check({"--budgets", budgets, bad}).status == 66);
  const auto open = write(dir, "open.json", run_json("r1", {kGood}, "running"));
  const auto r = check({"--budgets", budgets, open});
  CHECK(r.status == 66);
  CHECK_THAT(r.err, Catch::Contains("jank_exporter check: no finished run in the sources\n"));
  const auto other = write(dir, "r1.json", run_json("r1", {kGood}));
  CHECK(check({"--budgets", budgets, "--package", "com.other", other}).status == 66);
}

TEST_CASE("check exits 73 when the JUnit file cannot be written", "[budgets][check_cli]") {
  jank::test::TempDir dir;
  const auto budgets = write(dir, "budgets.yaml", kBudgets);
  const auto results = write(dir, "r1.json", run_json("r1", {kGood}));
  const auto r = check({"--budgets", budgets, "--junit", dir.path() + "/no/such/dir/junit.xml", results});
  CHECK(r.status == jank::app::kExitCantCreate);
  CHECK_THAT(r.err, Catch::StartsWith("jank_exporter check: " + dir.path() + "/no/such/dir/junit.xml: "));
}

TEST_CASE("check's usage: help on standard output, errors with 64", "[budgets][check_cli]") {
  const auto help = check({"--help"});
  CHECK(help.status == 0);
  CHECK(help.err.empty());
  CHECK_THAT(help.out, Catch::StartsWith("Usage: jank_exporter check --budgets FILE"));
  CHECK_THAT(help.out, Catch::Contains("4 a limit was breached"));
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"r.json"}, "--budgets FILE is required"},
           {{"--budgets", "b.yaml"}, "give one or more SOURCEs"},
           {{"--budgets"}, "--budgets needs a value"},
           {{"--budgets", "b.yaml", "--timeout", "0", "r.json"}, "--timeout needs a positive number of seconds"},
           {{"--budgets", "b.yaml", "--frobnicate", "r.json"}, "--frobnicate"},
       }) {
    INFO(args.front());
    const auto r = check(args);
    CHECK(r.status == jank::app::kExitUsage);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::StartsWith("jank_exporter check: "));
    CHECK_THAT(r.err, Catch::Contains(message));
  }
}

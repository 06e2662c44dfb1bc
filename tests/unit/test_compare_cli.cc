// `jank_exporter compare` driven in-process: sources, selections, output and
// exit statuses.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/compare.h"
#include "app/cli/replay.h"
#include "loopback_servers.h"
#include "test_support.h"

namespace {

struct RunSpec {
  std::string id;
  double janky = 2;
  std::string version = "1.0";
  int code = 1;
  std::string build = "a";
  std::string state = "finished";
  std::string serial = "emu";
  double frames = 1000;
};

std::string run_json(const RunSpec& s) {
  return R"({"format":1,"id":")" + s.id + R"(","name":"scroll","package":"com.example.feed","tags":{"build":")" +
         s.build + R"("},"state":")" + s.state + R"(","duration_seconds":60,"devices":[{"serial":")" + s.serial + R"(","settled":true,)" +
         R"("versions":[{"name":")" + s.version + R"(","code":)" + std::to_string(s.code) +
         R"(,"at_seconds":0}],"version_changed":false,"metrics":{"janky_percent":)" + std::to_string(s.janky) +
         R"(,"skipped_frames":120,"frames":)" + std::to_string(s.frames) + R"(,"fps":null}}]})";
}

std::string list_json(const std::vector<RunSpec>& runs) {
  std::string s = R"({"format":1,"runs":[)";
  for (std::size_t i = 0; i < runs.size(); ++i) s += (i ? "," : "") + run_json(runs[i]);
  return s + "]}";
}

// Ten runs named prefix0…prefix9 with janky percent start, start + 0.1, …
std::vector<RunSpec> ten(const std::string& prefix, double start, RunSpec base = {}) {
  std::vector<RunSpec> runs;
  for (int i = 0; i < 10; ++i) {
    base.id = prefix + std::to_string(i);
    base.janky = start + 0.1 * i;
    runs.push_back(base);
  }
  return runs;
}

std::string write(const jank::test::TempDir& dir, const std::string& name, const std::string& text) {
  return dir.write(name, text);
}

using Result = jank::test::CommandResult;

Result compare(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int status = jank::app::run_compare(args, out, err);
  return {status, out.str(), err.str()};
}

}  // namespace

TEST_CASE("compare exits 1 on a regression and prints a table naming it", "[compare_cli]") {
  jank::test::TempDir dir;
  const auto a = write(dir, "a.json", list_json(ten("a", 2.0)));
  const auto b = write(dir, "b.json", list_json(ten("b", 4.0)));
  const auto r = compare({a, b});
  CHECK(r.status == jank::app::kExitRegression);
  CHECK_THAT(r.out, Catch::Contains("baseline:  " + a + " (10 runs, 10 run × device results)"));
  CHECK_THAT(r.out, Catch::Contains("janky_percent              %      lower"));
  CHECK_THAT(r.out, Catch::Contains("verdict: REGRESSION in janky_percent\n"));
  // 120 skipped frames in every 60 s run on both sides: 120 a minute, no change.
  CHECK_THAT(r.out, Catch::Contains("skipped_frames_per_minute  /min   lower"));
  CHECK_THAT(r.out, Catch::Contains("no change"));
  CHECK_THAT(r.out, !Catch::Contains("\nfps "));  // null on every run: not compared
}

TEST_CASE("compare exits 0 without a regression and reports an improvement", "[compare_cli]") {
  jank::test::TempDir dir;
  const auto a = write(dir, "a.json", list_json(ten("a", 2.0)));
  const auto same = write(dir, "same.json", list_json(ten("s", 2.0)));
  const auto better = write(dir, "better.json", list_json(ten("b", 0.5)));
  const auto r = compare({a, same});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("verdict: no regression\n"));
  const auto improved = compare({a, better});
  CHECK(improved.status == 0);
  CHECK_THAT(improved.out, Catch::Contains("verdict: no regression; improvement in janky_percent"));
  CHECK(improved.err.empty());
  const auto elsewhere = write(dir, "elsewhere.json", list_json(ten("e", 2.0, RunSpec{"", 0, "1.0", 1, "a", "finished", "pixel"})));
  const auto moved = compare({a, elsewhere});
  CHECK(moved.status == 0);
  CHECK_THAT(moved.err, Catch::Contains("the baseline's devices (1) and the candidate's (1) are not the same"));
}

TEST_CASE("compare --json gives the verdict and every figure", "[compare_cli]") {
  jank::test::TempDir dir;
  const auto a = write(dir, "a.json", list_json(ten("a", 2.0)));
  const auto b = write(dir, "b.json", list_json(ten("b", 4.0)));
  const auto r = compare({"--json", a, b});
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Catch::Contains(R"("verdict": "regression")"));
  CHECK_THAT(r.out, Catch::Contains(R"("name": "janky_percent")"));
  CHECK_THAT(r.out, Catch::Contains(R"("exact": true)"));
  CHECK_THAT(r.out, Catch::Contains(R"("n_baseline": 10)"));
}

TEST_CASE("compare --by version takes the lower version code as the baseline", "[compare_cli]") {
  jank::test::TempDir dir;
  auto runs = ten("old", 2.0, RunSpec{"", 0, "1.1", 11});
  for (auto& r : ten("new", 4.0, RunSpec{"", 0, "1.2", 12})) runs.push_back(r);
  const auto all = write(dir, "all.json", list_json(runs));
  const auto r = compare({"--by", "version", all});
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Catch::Contains("baseline:  version 1.1 (10 runs"));
  CHECK_THAT(r.out, Catch::Contains("candidate: version 1.2 (10 runs"));
  // Named the other way round, the same runs are an improvement.
  const auto reversed = compare({"--by", "version", "--baseline", "1.2", "--candidate", "1.1", all});
  CHECK(reversed.status == 0);
  CHECK_THAT(reversed.out, Catch::Contains("improvement in janky_percent"));
}

TEST_CASE("compare --by tag and --by id select the sides from the sources", "[compare_cli]") {
  jank::test::TempDir dir;
  auto runs = ten("a", 2.0, RunSpec{"", 0, "1.0", 1, "rc1"});
  for (auto& r : ten("b", 4.0, RunSpec{"", 0, "1.0", 1, "rc2"})) runs.push_back(r);
  const auto all = write(dir, "all.json", list_json(runs));
  const auto by_tag = compare({"--by", "tag=build", "--baseline", "rc1", "--candidate", "rc2", all});
  CHECK(by_tag.status == 1);
  CHECK_THAT(by_tag.out, Catch::Contains("baseline:  build=rc1"));
  // Three runs a side: computed with a warning; p = 2 / C(6, 3) = 0.1, no verdict of regression.
  const auto by_id = compare({"--by", "id", "--baseline", "a0,a1,a2", "--candidate", "b0,b1,b2", all});
  CHECK(by_id.status == 0);
  CHECK_THAT(by_id.out, Catch::Contains("warning: janky_percent: 3 baseline and 3 candidate samples, fewer than 10"));
  CHECK_THAT(by_id.out, Catch::Contains("[unbounded]"));
  const auto unknown = compare({"--by", "id", "--baseline", "a0,zz", "--candidate", "b0", all});
  CHECK(unknown.status == jank::app::kExitNoInput);
  CHECK_THAT(unknown.err, Catch::Contains("run zz is not among the finished runs"));
}

TEST_CASE("compare reads directories of single runs and leaves unfinished runs out", "[compare_cli]") {
  jank::test::TempDir dir;
  std::filesystem::create_directory(dir.path() + "/base");
  std::filesystem::create_directory(dir.path() + "/cand");
  for (const auto& r : ten("a", 2.0)) write(dir, "base/" + r.id + ".json", run_json(r));
  for (const auto& r : ten("b", 2.0)) write(dir, "cand/" + r.id + ".json", run_json(r));
  write(dir, "cand/open.json", run_json(RunSpec{"open", 9, "1.0", 1, "a", "running"}));
  write(dir, "cand/notes.txt", "not results");
  const auto r = compare({dir.path() + "/base", dir.path() + "/cand"});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("(10 runs, 10 run × device results)\ncandidate:"));
  CHECK_THAT(r.err, Catch::Contains("open.json: run open left out: it is running, not finished"));
}

TEST_CASE("compare of malformed results exits 66 naming the file and the field", "[compare_cli]") {
  jank::test::TempDir dir;
  const auto good = write(dir, "good.json", list_json(ten("a", 2.0)));
  const auto truncated = write(dir, "truncated.json", R"({"format":1,"runs":[)");
  auto r = compare({good, truncated});
  CHECK(r.status == jank::app::kExitNoInput);
  CHECK_THAT(r.err, Catch::Contains(truncated + ": not JSON (at byte 21)"));

  std::string no_duration = list_json(ten("b", 2.0));
  no_duration.replace(no_duration.find(R"("duration_seconds":60,)"), 22, "");
  r = compare({good, write(dir, "no_duration.json", no_duration)});
  CHECK(r.status == jank::app::kExitNoInput);
  CHECK_THAT(r.err, Catch::Contains("no_duration.json: runs[0].duration_seconds: missing"));

  std::string text_value = list_json(ten("b", 2.0));
  text_value.replace(text_value.find(R"("janky_percent":)") + 16, 8, R"("high")");
  r = compare({good, write(dir, "text.json", text_value)});
  CHECK(r.status == jank::app::kExitNoInput);
  CHECK_THAT(r.err, Catch::Contains("text.json: runs[0].devices[0].metrics.janky_percent: expected a number"));

  r = compare({good, write(dir, "v2.json", R"({"format":2,"runs":[]})")});
  CHECK(r.status == jank::app::kExitNoInput);
  CHECK_THAT(r.err,
             Catch::Contains("v2.json: format: expected 1 (the only results format this build reads), found 2"));

  // The one reader of format 1 (exporters/run_results_input.h) with compare's own needs on top.
  std::string no_state = list_json(ten("b", 2.0));
  no_state.replace(no_state.find(R"("state":"finished",)"), 19, "");
  r = compare({good, write(dir, "no_state.json", no_state)});
  CHECK(r.status == jank::app::kExitNoInput);
  CHECK_THAT(r.err, Catch::Contains("no_state.json: runs[0].state: missing"));

  r = compare({good, write(dir, "array.json", "[1, 2]")});
  CHECK(r.status == jank::app::kExitNoInput);
  CHECK_THAT(r.err, Catch::Contains("array.json: top level: expected an object"));

  r = compare({good, dir.path() + "/missing.json"});
  CHECK(r.status == jank::app::kExitNoInput);
  CHECK_THAT(r.err, Catch::Contains("missing.json: no such file or directory"));
}

TEST_CASE("compare refuses bad usage with 64", "[compare_cli]") {
  jank::test::TempDir dir;
  const auto a = write(dir, "a.json", list_json(ten("a", 2.0)));
  const auto b = write(dir, "b.json", list_json(ten("b", 2.0)));
  CHECK(compare({}).status == jank::app::kExitUsage);
  CHECK(compare({a}).status == jank::app::kExitUsage);
  CHECK(compare({"--frobnicate", a, b}).status == jank::app::kExitUsage);
  CHECK(compare({"--alpha", "0.7", a, b}).status == jank::app::kExitUsage);
  CHECK(compare({"--baseline", "1.0", a, b}).status == jank::app::kExitUsage);
  CHECK(compare({"--by", "tag=build", "--baseline", "a", a}).status == jank::app::kExitUsage);
  const auto threshold = compare({"--threshold", "janky_percent=lots", a, b});
  CHECK(threshold.status == jank::app::kExitUsage);
  CHECK_THAT(threshold.err, Catch::Contains("--threshold janky_percent=lots: the value must be a number"));
  const auto unknown = compare({"--threshold", "smoothness=1", a, b});
  CHECK(unknown.status == jank::app::kExitUsage);
  CHECK_THAT(unknown.err, Catch::Contains("unknown metric 'smoothness'; metrics: janky_percent, "));
  const auto help = compare({"--help"});
  CHECK(help.status == 0);
  CHECK_THAT(help.out, Catch::Contains("Usage: jank_exporter compare"));
}

TEST_CASE("compare without three runs a side or with a run on both sides exits 66", "[compare_cli]") {
  jank::test::TempDir dir;
  const auto a = write(dir, "a.json", list_json(ten("a", 2.0)));
  const auto two = write(dir, "two.json", list_json({RunSpec{"t0", 3}, RunSpec{"t1", 4}}));
  const auto r = compare({a, two});
  CHECK(r.status == jank::app::kExitNoInput);
  CHECK_THAT(r.out, Catch::Contains("insufficient data"));
  const auto both = compare({a, a});
  CHECK(both.status == jank::app::kExitNoInput);
  CHECK_THAT(both.err, Catch::Contains("run a0 is both in the baseline and in the candidate"));
}

TEST_CASE("a threshold given on the command line changes the verdict", "[compare_cli]") {
  jank::test::TempDir dir;
  const auto a = write(dir, "a.json", list_json(ten("a", 2.0)));
  const auto b = write(dir, "b.json", list_json(ten("b", 2.5)));  // +0.5 points; U = 87.5 of 100, p = 0.005
  CHECK(compare({a, b}).status == 0);
  CHECK(compare({"--threshold", "janky_percent=0.25", a, b}).status == 1);
  CHECK(compare({"--threshold", "janky_percent=20%", a, b}).status == 1);  // 0.5 / 2.45 = 20.4 %
  CHECK(compare({"--threshold", "janky_percent=25%", a, b}).status == 0);
}

TEST_CASE("compare fetches the run list of a live exporter over HTTP", "[compare_cli]") {
  auto runs = ten("old", 2.0, RunSpec{"", 0, "1.1", 11});
  for (auto& r : ten("new", 4.0, RunSpec{"", 0, "1.2", 12})) runs.push_back(r);
  const std::string body = list_json(runs);
  jank::test::OneShotServer server("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                       std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
  const auto r = compare({"--by", "version", "http://127.0.0.1:" + std::to_string(server.port()) + "/farm/"});
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Catch::Contains("verdict: REGRESSION in janky_percent"));
  CHECK_THAT(server.request(), Catch::StartsWith("GET /farm/api/runs HTTP/1.1\r\n"));
}

TEST_CASE("compare of an exporter that answers an error exits 66", "[compare_cli]") {
  jank::test::OneShotServer server("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port());
  const auto r = compare({"--by", "version", url});
  CHECK(r.status == jank::app::kExitNoInput);
  CHECK_THAT(r.err, Catch::Contains(url + "/api/runs: HTTP 404"));
  CHECK(compare({"--by", "version", "https://example.invalid"}).status == jank::app::kExitNoInput);
}

TEST_CASE("compare exits 3 when the candidate did not do the baseline's work and names the difference",
          "[compare_cli]") {
  jank::test::TempDir dir;
  const auto a = write(dir, "a.json", list_json(ten("a", 2.0)));
  RunSpec half;
  half.frames = 500;  // the screen failed to load: half the frames, and "smoother"
  const auto b = write(dir, "b.json", list_json(ten("b", 0.5, half)));
  const auto r = compare({a, b});
  CHECK(r.status == jank::app::kExitUnequalWork);
  CHECK(r.status == 3);
  // Frames drawn and skipped: 1 000 + 120 against 500 + 120.
  CHECK_THAT(r.out, Catch::Contains("frame_slots                    10/10         1120          620       -44.6%  UNEQUAL"));
  CHECK_THAT(r.out, Catch::Contains("verdict: UNEQUAL WORK, no verdict on the metrics: frame_slots -44.6% beyond the tolerance of 20%\n"));
  const auto j = compare({"--json", a, b});
  CHECK(j.status == 3);
  CHECK_THAT(j.out, Catch::Contains(R"("verdict": "unequal_work")"));
  CHECK_THAT(j.out, Catch::Contains(R"("name": "frame_slots")"));
  CHECK_THAT(j.out, Catch::Contains(R"("unequal": true)"));
  CHECK_THAT(j.out, Catch::Contains(R"("work_tolerance_percent": 20.0)"));
  // The caller's tolerance, or none.
  CHECK(compare({"--work-tolerance", "60", a, b}).status == 0);
  const auto off = compare({"--work-tolerance", "off", a, b});
  CHECK(off.status == 0);
  CHECK_THAT(off.out, Catch::Contains("not checked"));
  CHECK_THAT(off.out, Catch::Contains("verdict: no regression; improvement in janky_percent"));
  CHECK(compare({"--work-tolerance", "-5", a, b}).status == jank::app::kExitUsage);
  CHECK(compare({"--work-tolerance", "lots", a, b}).status == jank::app::kExitUsage);
}

TEST_CASE("compare --calibrate measures the gate on runs of one build and --calibration refuses an underpowered "
          "verdict",
          "[compare_cli][calibration]") {
  jank::test::TempDir dir;
  auto aa = ten("a", 2.0);
  for (const auto& r : ten("b", 2.05)) aa.push_back(r);
  const auto runs = write(dir, "aa.json", list_json(aa));
  const auto text = compare({"--calibrate", "--resamples", "100", "--runs-per-side", "3,10", runs});
  CHECK(text.status == 0);
  CHECK_THAT(text.out, Catch::Contains("calibration: " + runs + " (20 runs of one build)"));
  CHECK_THAT(text.out, Catch::Contains("janky_percent"));
  CHECK_THAT(text.out, Catch::Contains("3: not seen"));  // 3 against 3 samples never reach p < 0.05
  const auto json = compare({"--calibrate", "--json", "--resamples", "100", "--runs-per-side", "3,10", runs});
  CHECK(json.status == 0);
  CHECK_THAT(json.out, Catch::Contains(R"("kind": "calibration")"));
  CHECK_THAT(json.out, Catch::Contains(R"("runs": 20)"));
  CHECK_THAT(json.out, Catch::Contains(R"("runs_per_side": 10)"));
  const auto calibration = write(dir, "calibration.json", json.out);

  // Ten runs a side see a change of the threshold (1 point): the verdict stands.
  const auto a = write(dir, "a.json", list_json(ten("x", 2.0)));
  const auto same = write(dir, "same.json", list_json(ten("y", 2.0)));
  const auto powered = compare({"--calibration", calibration, "--json", a, same});
  CHECK(powered.status == 0);
  CHECK_THAT(powered.out, Catch::Contains(R"("powered": true)"));
  // Three runs a side could not have seen it: no verdict but insufficient power.
  auto three_a = ten("p", 2.0), three_b = ten("q", 2.0);
  three_a.resize(3);
  three_b.resize(3);
  const auto few_a = write(dir, "few_a.json", list_json(three_a));
  const auto few_b = write(dir, "few_b.json", list_json(three_b));
  const auto weak = compare({"--calibration", calibration, few_a, few_b});
  CHECK(weak.status == jank::app::kExitInsufficientPower);
  CHECK(weak.status == 5);
  CHECK_THAT(weak.out, Catch::Contains("no change (underpowered)"));
  CHECK_THAT(weak.out, Catch::Contains("verdict: INSUFFICIENT POWER"));
  CHECK_THAT(weak.out, Catch::Contains("in janky_percent"));

  // Bad calibrations and misuse.
  const auto not_one = write(dir, "not.json", R"({"format":1,"runs":[]})");
  const auto bad = compare({"--calibration", not_one, a, same});
  CHECK(bad.status == jank::app::kExitNoInput);
  CHECK_THAT(bad.err, Catch::Contains(not_one + ": kind: not a calibration"));
  CHECK(compare({"--calibration", calibration, "--per", "run", a, same}).status == jank::app::kExitNoInput);
  CHECK(compare({"--seed", "3", a, same}).status == jank::app::kExitUsage);
  CHECK(compare({"--calibrate", "--runs-per-side", "1", runs}).status == jank::app::kExitUsage);
  CHECK(compare({"--calibrate", "--calibration", calibration, runs}).status == jank::app::kExitUsage);
}

TEST_CASE("compare --history names the build where a metric stepped and exits 1 for a step the worse way",
          "[compare_cli][history]") {
  jank::test::TempDir dir;
  std::vector<std::string> builds;
  for (int b = 0; b < 6; ++b) {
    // Builds 0-3 at about 2 %, builds 4 and 5 at about 4 %: each build a directory of its own.
    builds.push_back(write(dir, "build" + std::to_string(b) + ".json",
                           list_json(ten("b" + std::to_string(b) + "-", b < 4 ? 2.0 : 4.0))));
  }
  std::vector<std::string> args = {"--history"};
  args.insert(args.end(), builds.begin(), builds.end());
  const auto r = compare(args);
  CHECK(r.status == jank::app::kExitRegression);
  CHECK_THAT(r.out, Catch::Contains("janky_percent              build 4         2.45      4.45         2  5.091e-08  REGRESSION"));
  CHECK_THAT(r.out, Catch::Contains("verdict: REGRESSION: janky_percent at " + builds[4]));
  args.insert(args.begin() + 1, "--json");
  const auto j = compare(args);
  CHECK(j.status == 1);
  CHECK_THAT(j.out, Catch::Contains(R"("kind": "history")"));
  CHECK_THAT(j.out, Catch::Contains(R"("step_index": 4)"));
  // Builds of one level: no step; one build is not a series.
  const auto flat = compare({"--history", builds[0], builds[1], builds[2]});
  CHECK(flat.status == 0);
  CHECK_THAT(flat.out, Catch::Contains("verdict: no step the worse way"));
  CHECK(compare({"--history", builds[0]}).status == jank::app::kExitUsage);
}

TEST_CASE("compare --junit writes a testcase per work measure and metric, failing the regressed ones",
          "[compare_cli]") {
  jank::test::TempDir dir;
  const auto a = write(dir, "a.json", list_json(ten("a", 2.0)));
  const auto b = write(dir, "b.json", list_json(ten("b", 4.0)));
  const auto junit = dir.path() + "/compare.xml";
  const auto r = compare({"--junit", junit, a, b});
  CHECK(r.status == 1);
  const std::string x = jank::test::read_file(junit);
  CHECK(std::system((std::string(JANK_XMLLINT_PROGRAM) + " --noout '" + junit + "'").c_str()) == 0);
  // duration_seconds and frame_slots, janky_percent and skipped_frames_per_minute.
  CHECK_THAT(x, Catch::Contains("<testsuites name=\"jank_exporter compare\" tests=\"4\" failures=\"1\" errors=\"0\" "
                                "skipped=\"0\">"));
  CHECK_THAT(x, Catch::Contains("<property name=\"verdict\" value=\"regression\"/>"));
  CHECK_THAT(x, Catch::Contains("<testcase classname=\"metric\" name=\"janky_percent\">\n      <failure "
                                "type=\"regression\" message=\"median 2.45 → 4.45, change +2 (+81.6%)"));
  CHECK_THAT(x, Catch::Contains("<testcase classname=\"work\" name=\"frame_slots\">\n    </testcase>"));
  CHECK(compare({"--junit", dir.path() + "/no/such/dir/x.xml", a, b}).status == jank::app::kExitCantCreate);
  CHECK(compare({"--history", "--junit", junit, a, b}).status == jank::app::kExitUsage);
}

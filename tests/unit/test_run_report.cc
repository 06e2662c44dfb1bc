// The run report's generator (exporters/run_report.h) and its command
// (app/cli/report.h): escaping, the embedded data, the table's numbers, missing
// metrics, errors that name file and field, determinism.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/cli/report.h"
#include "exporters/report_assets.h"
#include "exporters/run_report.h"
#include "tests/browser/html_scan.h"

namespace {

using nlohmann::json;
using jank::exporters::RunReportRequest;
using jank::exporters::render_run_report;
using jank::test::find_tags;
using jank::test::scan_tags;

json device(const std::string& serial, double sm) {
  return {{"serial", serial},
          {"model", "Pixel 7"},
          {"sdk", 34},
          {"refresh_hz", 60},
          {"settled", true},
          {"versions", {{{"name", "1.4.2"}, {"code", 10402}, {"at_seconds", 0}}}},
          {"metrics",
           {{"frames", 3600},
            {"janky_frames", 120},
            {"janky_percent", 3.333},
            {"slow_percent", 12.5},
            {"frame_time_p90_ms", 13},
            {"frame_time_p95_ms", 17},
            {"frame_time_p99_ms", 32},
            {"skipped_frames", 250},
            {"max_skipped_frames", 60},
            {"sm", sm},
            {"davey_frames", 2},
            {"frozen_frames", 4},
            {"fps", 59.97},
            {"jank", 3},
            {"big_jank", 1}}},
          {"jank_causes", {{"slow_ui_thread", 60}}},
          {"histograms", {{"frame_duration_seconds", {{"bounds", {0.008, 0.017}}, {"counts", {10, 20, 1}}}}}},
          {"series",
           {{"interval_seconds", 5},
            {"t", {5, 10, 15}},
            {"skipped_frames", {0, 61, 0}},
            {"sm", {60, 47.8, 60}},
            {"fps", {59.8, nullptr, 60}}}}};
}

json run(const std::string& id, std::vector<json> devices) {
  return {{"format", 1}, {"id", id}, {"name", "scroll-feed"}, {"package", "com.example.feed"},
          {"tags", {{"build", "1.4.2-rc1"}}}, {"state", "finished"}, {"duration_seconds", 60.333},
          {"devices", devices}};
}

RunReportRequest one(const json& j, const std::string& name = "run.json") {
  RunReportRequest r;
  r.runs.push_back({name, j.dump()});
  return r;
}

std::string render(const RunReportRequest& r) {
  auto result = render_run_report(r);
  INFO(result.error);
  REQUIRE(result.ok());
  return result.html;
}

std::string error_of(const std::string& text) {
  RunReportRequest r;
  r.runs.push_back({"bad.json", text});
  auto result = render_run_report(r);
  CHECK(result.html.empty());
  return result.error;
}

// The body of <script id="report-data">, parsed as the page's JS would.
json embedded_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"report-data\">";
  const auto from = html.find(open);
  REQUIRE(from != std::string::npos);
  const auto to = html.find("</script>", from);
  REQUIRE(to != std::string::npos);
  return json::parse(html.substr(from + open.size(), to - from - open.size()));
}

}  // namespace

TEST_CASE("run report escapes a hostile serial in text and attributes", "[report]") {
  const std::string hostile = "<script>alert(1)</script>";
  json d = device(hostile, 55.86);
  d["model"] = "\"><img src=x onerror=alert(2)>";
  json r = run("r1", {d});
  r["name"] = "it's <b>bold</b> & \"quoted\"";
  r["tags"] = {{"<k>", "<v>"}};
  const std::string html = render(one(r));
  CHECK(html.find("<script>alert(1)") == std::string::npos);
  CHECK(html.find("<img src=x") == std::string::npos);
  CHECK(html.find("<b>bold") == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(html.find("it&#39;s &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;") != std::string::npos);
  // Attribute values read back as the input's strings.
  const auto tags = scan_tags(html);
  CHECK(find_tags(tags, {{"data-serial", hostile}, {"data-metric", "sm"}}).size() == 1);
}

TEST_CASE("run report embeds a name holding </script> as inert JSON", "[report]") {
  json r = run("r1", {device("s1", 50)});
  const std::string name = "x</script><script>alert(2)</script><!-- & </SCRIPT >";
  r["name"] = name;
  const std::string html = render(one(r));
  // Four script elements (error catcher, data, charts, report), so four ends.
  std::size_t ends = 0;
  for (auto p = html.find("</script"); p != std::string::npos; p = html.find("</script", p + 1)) ++ends;
  CHECK(ends == 4);
  CHECK(html.find("<!--") == std::string::npos);
  const json data = embedded_data(html);
  CHECK(data["runs"][0]["name"] == name);
  CHECK(data["runs"][0]["devices"][0]["serial"] == "s1");
}

TEST_CASE("run report table values equal the input", "[report]") {
  json r = run("r20261124T101500-0001", {device("emulator-5554", 55.86), device("emulator-5556", 47.5)});
  const std::string html = render(one(r));
  const auto tags = scan_tags(html);
  const json& metrics = r["devices"][0]["metrics"];
  for (const auto& [key, value] : metrics.items()) {
    if (key == "janky_frames") continue;  // not a table column
    INFO(key);
    const auto cells = find_tags(tags, {{"data-run", "r20261124T101500-0001"}, {"data-serial", "emulator-5554"}, {"data-metric", key}});
    REQUIRE(cells.size() == 1);
    CHECK(std::stod(cells[0].get("data-value")) == value.get<double>());
  }
  auto cell = [&](const std::string& serial, const std::string& metric) {
    auto found = find_tags(tags, {{"data-serial", serial}, {"data-metric", metric}});
    REQUIRE(found.size() == 1);
    return found[0].text;
  };
  CHECK(cell("emulator-5554", "sm") == "55.9");
  CHECK(cell("emulator-5556", "sm") == "47.5");
  CHECK(cell("emulator-5554", "janky_percent") == "3.33");
  CHECK(cell("emulator-5554", "slow_percent") == "12.50");
  CHECK(cell("emulator-5554", "frozen_frames") == "4");
  CHECK(cell("emulator-5554", "frame_time_p99_ms") == "32");
  CHECK(cell("emulator-5554", "frames") == "3600");
  CHECK(cell("emulator-5554", "duration_seconds") == "60.3");
  CHECK(cell("emulator-5554", "jank") == "3");
  CHECK(cell("emulator-5554", "big_jank") == "1");
}

TEST_CASE("run report shows a missing metric as an en dash", "[report]") {
  json d = device("game-phone", 58);
  d["metrics"].erase("frames");
  d["metrics"].erase("frame_time_p90_ms");
  d["metrics"]["fps"] = nullptr;  // null says "never seen" too
  const auto tags = scan_tags(render(one(run("r1", {d}))));
  for (const std::string metric : {"frames", "frame_time_p90_ms", "fps"}) {
    INFO(metric);
    const auto cells = find_tags(tags, {{"data-serial", "game-phone"}, {"data-metric", metric}});
    REQUIRE(cells.size() == 1);
    CHECK(cells[0].text == "\u2013");
    CHECK_FALSE(cells[0].has("data-value"));
    CHECK(cells[0].get("class").find("missing") != std::string::npos);
  }
}

TEST_CASE("run report output is deterministic", "[report]") {
  json a = run("r1", {device("s1", 50), device("s2", 51)});
  const std::string first = render(one(a));
  CHECK(render(one(a)) == first);
  // The same results with the keys in another order make the same page.
  std::string reordered = "{";
  bool comma = false;
  std::vector<std::string> keys;
  for (const auto& [k, v] : a.items()) keys.push_back(k);
  for (auto it = keys.rbegin(); it != keys.rend(); ++it) {
    reordered += (comma ? "," : "") + json(*it).dump() + ":" + a[*it].dump(2);
    comma = true;
  }
  reordered += "}";
  RunReportRequest r;
  r.runs.push_back({"run.json", reordered});
  CHECK(render(r) == first);
}

TEST_CASE("run report names the file and field of bad input", "[report]") {
  json r = run("r1", {device("s1", 50)});
  CHECK(error_of("{\"format\": 1, ") == "bad.json: not JSON (at byte 15)");
  CHECK(error_of("[1, 2]") == "bad.json: top level: expected an object, found an array");
  CHECK(error_of("{\"id\": \"x\", \"devices\": []}") == "bad.json: format: missing (expected 1)");
  CHECK(error_of("{\"format\": 2}") == "bad.json: format: expected 1 (the only results format this build reads), found 2");
  json bad = r;
  bad["devices"][0]["metrics"]["sm"] = "55";
  CHECK(error_of(bad.dump()) == "bad.json: devices[0].metrics.sm: expected a number, found a string");
  // A name this build does not know may hold anything a later format puts there.
  bad = r;
  bad["devices"][0]["metrics"]["from_a_later_format"] = {{"p50", 1}};
  CHECK(render_run_report(one(bad)).error.empty());
  bad = r;
  bad["devices"][0]["versions"] = {{{"name", "1.0"}, {"code", 1.5}}};
  CHECK(error_of(bad.dump()) == "bad.json: devices[0].versions[0].code: expected an integer, found a number");
  bad = r;
  bad["devices"][0]["histograms"]["frame_duration_seconds"]["counts"] = {1, 2};
  CHECK(error_of(bad.dump()) ==
        "bad.json: devices[0].histograms.frame_duration_seconds.counts: expected 3 entries (bounds and +Inf), found 2");
  bad = r;
  bad["devices"][0]["series"]["sm"] = {60, 60};
  CHECK(error_of(bad.dump()) == "bad.json: devices[0].series.sm: expected 3 entries (one per step of t), found 2");
  bad = r;
  bad["devices"][0].erase("serial");
  CHECK(error_of(bad.dump()) == "bad.json: devices[0].serial: missing");
  json list = {{"format", 1}, {"runs", {r, r}}};
  list["runs"][1]["id"] = "r2";
  list["runs"][1]["devices"][0]["series"]["t"] = {5, "ten", 15};
  CHECK(error_of(list.dump()) == "bad.json: runs[1].devices[0].series.t[1]: expected a number, found a string");
  CHECK(error_of(std::string("{\"format\":1,\"id\":\"\xff\"}")).rfind("bad.json: not JSON", 0) == 0);
  // Deep nesting is refused or read, never a crash.
  const std::string deep = "{\"format\":1,\"id\":\"x\",\"devices\":[],\"extra\":" + std::string(100000, '[') +
                           std::string(100000, ']') + "}";
  RunReportRequest deep_request;
  deep_request.runs.push_back({"deep.json", deep});
  const auto deep_result = render_run_report(deep_request);
  CHECK(deep_result.ok() != deep_result.html.empty());
}

TEST_CASE("run report refuses a run id given twice", "[report]") {
  RunReportRequest r;
  r.runs.push_back({"a.json", run("r1", {device("s1", 50)}).dump()});
  r.runs.push_back({"b.json", run("r1", {device("s1", 50)}).dump()});
  CHECK(render_run_report(r).error == "b.json: id: run \"r1\" is also in a.json");
}

TEST_CASE("run report reads a run list without series", "[report]") {
  json d = device("s1", 50);
  d.erase("series");
  d.erase("histograms");
  d.erase("jank_causes");
  json list = {{"format", 1}, {"runs", {run("r1", {d}), run("r2", {d})}}};
  const std::string html = render(one(list));
  const auto tags = scan_tags(html);
  CHECK(find_tags(tags, {{"data-run", "r2"}, {"data-metric", "sm"}}).size() == 1);
  CHECK(html.find("No series, causes or histograms") != std::string::npos);
}

TEST_CASE("run report compares medians without a verdict", "[report]") {
  RunReportRequest r;
  const double base[] = {50, 54, 52};
  const double cand[] = {58, 56, 60, 59};
  int n = 0;
  for (double sm : base) r.baseline.push_back({"b.json", run("b" + std::to_string(++n), {device("s1", sm)}).dump()});
  for (double sm : cand) r.candidate.push_back({"c.json", run("c" + std::to_string(++n), {device("s1", sm)}).dump()});
  const std::string html = render(r);
  const auto tags = scan_tags(html);
  auto value = [&](const std::string& metric) {
    auto found = find_tags(tags, {{"data-row", "sm"}, {"data-metric", metric}});
    REQUIRE(found.size() == 1);
    return found[0];
  };
  CHECK(value("baseline_median").get("data-value") == "52");
  CHECK(value("candidate_median").get("data-value") == "58.5");
  CHECK(std::stod(value("change").get("data-value")) == Approx(12.5));
  CHECK(value("change").text == "+12.5 %");
  CHECK(find_tags(tags, {{"data-metric", "verdict"}}).empty());
  const json data = embedded_data(html);
  REQUIRE(data["comparison"]["metrics"].is_array());
  bool found = false;
  for (const auto& m : data["comparison"]["metrics"]) {
    if (m["metric"] != "sm") continue;
    found = true;
    CHECK(m["baseline"] == json({50, 54, 52}));
    CHECK(m["candidate"].size() == 4);
  }
  CHECK(found);
}

TEST_CASE("run report shows the verdict of compare", "[report]") {
  RunReportRequest r;
  r.baseline.push_back({"b.json", run("b1", {device("s1", 50)}).dump()});
  r.candidate.push_back({"c.json", run("c1", {device("s1", 40)}).dump()});
  json verdict = {{"verdict", "regression"},
                  {"metrics",
                   {{{"name", "sm"}, {"median_baseline", 50}, {"median_candidate", 40}, {"relative_change_percent", -20}, {"verdict", "regression"}},
                    {{"name", "<odd>"}, {"median_baseline", nullptr}, {"median_candidate", 1}, {"relative_change_percent", nullptr}, {"verdict", "no_change"}}}}};
  r.verdict = jank::exporters::results::InputFile{"v.json", verdict.dump()};
  const std::string html = render(r);
  const auto tags = scan_tags(html);
  const auto banner = find_tags(tags, {{"data-metric", "verdict"}});
  REQUIRE(banner.size() == 1);
  CHECK(banner[0].get("data-value") == "regression");
  CHECK(banner[0].get("class") == "verdict v-regression");
  CHECK(find_tags(tags, {{"data-row", "sm"}, {"data-metric", "change"}})[0].text == "\u221220.0 %");
  CHECK(html.find("&lt;odd&gt;") != std::string::npos);
  CHECK(find_tags(tags, {{"data-row", "<odd>"}, {"data-metric", "baseline_median"}})[0].text == "\u2013");

  // What compare --json writes when no metric could be judged.
  verdict["verdict"] = "insufficient_data";
  r.verdict = jank::exporters::results::InputFile{"v.json", verdict.dump()};
  const auto insufficient = render_run_report(r);
  REQUIRE(insufficient.error.empty());
  const auto insufficient_banner = find_tags(scan_tags(insufficient.html), {{"data-metric", "verdict"}});
  REQUIRE(insufficient_banner.size() == 1);
  CHECK(insufficient_banner[0].get("data-value") == "insufficient data");
  CHECK(insufficient_banner[0].get("class") == "verdict v-insufficient-data");
  CHECK(insufficient.html.find("<span class=\"verdict-word\">Insufficient data</span>") != std::string::npos);

  // And when the builds did not do the same work.
  verdict["verdict"] = "unequal_work";
  r.verdict = jank::exporters::results::InputFile{"v.json", verdict.dump()};
  const auto unequal = render_run_report(r);
  REQUIRE(unequal.error.empty());
  const auto unequal_banner = find_tags(scan_tags(unequal.html), {{"data-metric", "verdict"}});
  REQUIRE(unequal_banner.size() == 1);
  CHECK(unequal_banner[0].get("class") == "verdict v-unequal-work");
  CHECK(unequal.html.find("<span class=\"verdict-word\">Unequal work</span>") != std::string::npos);

  verdict["verdict"] = "maybe";
  r.verdict = jank::exporters::results::InputFile{"v.json", verdict.dump()};
  CHECK(render_run_report(r).error ==
        "v.json: verdict: \"maybe\" is none of regression, no_change, improvement, insufficient_data, unequal_work, insufficient_power");
  verdict["verdict"] = "no_chnage";  // quoted as written, not as the page would spell it
  r.verdict = jank::exporters::results::InputFile{"v.json", verdict.dump()};
  CHECK(render_run_report(r).error ==
        "v.json: verdict: \"no_chnage\" is none of regression, no_change, improvement, insufficient_data, unequal_work, insufficient_power");
  // A metric's verdict is held to the same names.
  verdict["verdict"] = "regression";
  verdict["metrics"][0]["verdict"] = "worse";
  r.verdict = jank::exporters::results::InputFile{"v.json", verdict.dump()};
  CHECK(render_run_report(r).error ==
        "v.json: metrics[0].verdict: \"worse\" is none of regression, no_change, improvement, insufficient_data, unequal_work, insufficient_power");
}

TEST_CASE("run report page loads nothing from outside", "[report]") {
  const std::string html = render(one(run("r1", {device("s1", 50)})));
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find(" src=") == std::string::npos);
  CHECK(html.find("@import") == std::string::npos);
  CHECK(html.find("url(") == std::string::npos);
  CHECK(html.find("Content-Security-Policy\" content=\"default-src 'none'") != std::string::npos);
  // The only URL is the SVG namespace, a name and never fetched.
  for (auto p = html.find("://"); p != std::string::npos; p = html.find("://", p + 1)) {
    const std::string svg_namespace = "http://www.w3.org/2000/svg'";
    CHECK(html.compare(p - 4, svg_namespace.size(), svg_namespace) == 0);
  }
  // The assets go inline as they are: nothing in them may end their element.
  for (auto asset : {jank::exporters::assets::charts_js(), jank::exporters::assets::report_js(),
                     jank::exporters::assets::report_css()}) {
    CHECK(asset.size() > 1000);
    CHECK(asset.find("</") == std::string_view::npos);
    CHECK(asset.find("innerHTML") == std::string_view::npos);
  }
}

TEST_CASE("run report formats numbers without a negative zero", "[report]") {
  using jank::exporters::format_fixed;
  CHECK(format_fixed(-0.0001, 2) == "0.00");
  CHECK(format_fixed(-0.4, 0) == "0");
  CHECK(format_fixed(-0.6, 0) == "-1");
  CHECK(format_fixed(59.97, 1) == "60.0");
  CHECK(jank::exporters::format_exact(0.1) == "0.1");
}

TEST_CASE("report command writes the page and fails with 2 on bad input and 64 on bad usage", "[report][cli]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("jank_report_cli_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream(dir / "a.json") << run("r1", {device("s1", 50)}).dump();
    std::ofstream(dir / "bad.json") << "{\"format\": 1, \"id\": 5, \"devices\": []}";
  }
  std::ostringstream out, err;
  const std::string page = (dir / "page.html").string();
  CHECK(jank::app::run_report({"-o", page, (dir / "a.json").string()}, stdin, out, err) == 0);
  CHECK(err.str().empty());
  CHECK(fs::file_size(page) > 10000);

  std::ostringstream out2, err2;
  CHECK(jank::app::run_report({"-o", (dir / "no.html").string(), (dir / "bad.json").string()}, stdin, out2, err2) == 2);
  CHECK(err2.str().find("bad.json: id: expected a string, found a number") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "no.html"));

  std::ostringstream out3, err3;
  CHECK(jank::app::run_report({(dir / "missing.json").string()}, stdin, out3, err3) == 2);
  CHECK(err3.str().find("cannot open") != std::string::npos);
  CHECK(out3.str().empty());

  std::ostringstream out4, err4;
  // A usage error exits 64, like every command's (it was 2 before the commands moved to CLI11).
  CHECK(jank::app::run_report({"--baseline", (dir / "a.json").string()}, stdin, out4, err4) == jank::app::kExitUsage);
  CHECK(err4.str().find("--baseline and --candidate go together") != std::string::npos);

  std::ostringstream out5, err5;
  CHECK(jank::app::run_report({"--help"}, stdin, out5, err5) == 0);
  CHECK(out5.str().find("Usage: jank_exporter report") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("run report shows a run without devices as one row", "[report]") {
  const std::string html = render(one(run("empty-run", {})));
  const auto tags = scan_tags(html);
  const auto body = find_tags(tags, {{"data-run", "empty-run"}});
  REQUIRE(body.size() >= 1);
  CHECK(body[0].name == "tbody");
  CHECK(html.find("no device in this run") != std::string::npos);
}

TEST_CASE("run report shows compare's work check and its underpowered metrics", "[report]") {
  RunReportRequest r;
  r.baseline.push_back({"b.json", run("b1", {device("s1", 50)}).dump()});
  r.candidate.push_back({"c.json", run("c1", {device("s1", 40)}).dump()});
  json verdict = {
      {"verdict", "unequal_work"},
      {"work_tolerance_percent", 20},
      {"work",
       {{{"name", "duration_seconds"}, {"median_baseline", 60}, {"median_candidate", 61}, {"relative_difference_percent", 1.667}, {"unequal", false}},
        {{"name", "frame_slots"}, {"median_baseline", 3600}, {"median_candidate", 1800}, {"relative_difference_percent", -50}, {"unequal", true}}}},
      {"metrics",
       {{{"name", "sm"}, {"median_baseline", 50}, {"median_candidate", 49}, {"relative_change_percent", -2}, {"verdict", "no_change"}, {"powered", false}},
        {{"name", "fps"}, {"median_baseline", 58}, {"median_candidate", 58}, {"relative_change_percent", 0}, {"verdict", "no_change"}, {"powered", true}}}}};
  r.verdict = jank::exporters::results::InputFile{"v.json", verdict.dump()};
  const std::string html = render(r);
  const auto tags = scan_tags(html);
  CHECK(find_tags(tags, {{"data-metric", "verdict"}})[0].get("class") == "verdict v-unequal-work");
  CHECK(html.find("against a tolerance of 20 %") != std::string::npos);
  const auto unequal = find_tags(tags, {{"data-work", "frame_slots"}, {"data-metric", "unequal"}});
  REQUIRE(unequal.size() == 1);
  CHECK(unequal[0].get("data-value") == "true");
  CHECK(unequal[0].text == "unequal");
  CHECK(find_tags(tags, {{"data-work", "frame_slots"}, {"data-metric", "difference"}})[0].text == "\u221250.0 %");
  CHECK(find_tags(tags, {{"data-work", "frame_slots"}, {"data-metric", "candidate_median"}})[0].get("data-value") == "1800");
  CHECK(find_tags(tags, {{"data-work", "duration_seconds"}, {"data-metric", "unequal"}})[0].text == "same");
  // Only the metric the calibration found underpowered says so.
  const auto underpowered = find_tags(tags, {{"data-metric", "powered"}});
  REQUIRE(underpowered.size() == 1);
  CHECK(underpowered[0].get("data-row") == "sm");
  // A work entry of the wrong type is refused, naming it.
  verdict["work"][1]["unequal"] = "yes";
  r.verdict = jank::exporters::results::InputFile{"v.json", verdict.dump()};
  CHECK(render_run_report(r).error == "v.json: work[1].unequal: expected a boolean, found a string");
}

TEST_CASE("run report shows each device's budget limits and breaches", "[report][budgets]") {
  auto slow = device("s2", 40);
  slow["model"] = "SM-A546B";
  auto odd = device("s3", 55);
  odd["model"] = "Nokia 3310";
  RunReportRequest r = one(run("r1", {device("s1", 58), slow, odd}));
  jank::metrics::Budgets budgets;
  jank::metrics::BudgetTier mid{"mid-tier 60 Hz", "SM-*", 60.0, std::nullopt, std::nullopt,
                               {{"janky_percent", jank::metrics::LimitKind::kMax, 2},
                                {"sm", jank::metrics::LimitKind::kMin, 50}}};
  jank::metrics::BudgetTier pixel{"pixels", "Pixel*", std::nullopt, std::nullopt, std::nullopt,
                                  {{"janky_percent", jank::metrics::LimitKind::kMax, 5},
                                   {"cpu_percent", jank::metrics::LimitKind::kMax, 80}}};
  budgets.tiers = {mid, pixel};
  r.budgets = budgets;
  r.budgets_file = "budgets.yaml";
  const std::string html = render(r);
  const auto tags = scan_tags(html);
  // SM-A546B: janky 3.333 % over 2, SM 40 under 50; the Pixel holds; the Nokia has no tier.
  CHECK(find_tags(tags, {{"data-metric", "breaches"}})[0].get("data-value") == "2");
  auto outcome = [&](const std::string& serial, const std::string& limit) {
    const auto t = find_tags(tags, {{"data-serial", serial}, {"data-limit", limit}, {"data-metric", "outcome"}});
    REQUIRE(t.size() == 1);
    return t[0].get("data-value");
  };
  CHECK(outcome("s2", "janky_percent") == "breach");
  CHECK(outcome("s2", "sm") == "breach");
  CHECK(outcome("s1", "janky_percent") == "pass");
  CHECK(outcome("s1", "cpu_percent") == "no_value");
  CHECK(find_tags(tags, {{"data-serial", "s2"}, {"data-limit", "sm"}, {"data-metric", "value"}})[0].get("data-value") ==
        "40");
  CHECK(html.find("no tier matches") != std::string::npos);
  CHECK(html.find("<code>budgets.yaml</code>") != std::string::npos);
  // Without budgets, no section.
  r.budgets.reset();
  CHECK(render(r).find("id=\"budgets\"") == std::string::npos);
}

TEST_CASE("run report shows compare's calibration and refuses a damaged one naming the field", "[report][calibration]") {
  RunReportRequest r = one(run("r1", {device("s1", 55)}));
  json cal = {{"format", 1}, {"kind", "calibration"}, {"runs", 12}, {"per", "run"}, {"alpha", 0.05}, {"power", 0.8},
              {"metrics",
               {{{"name", "janky_percent"}, {"model", nullptr}, {"runs", 12}, {"samples", 12}, {"median", 2.5},
                 {"false_regression_rate", 0.02}, {"flagged_rate", 0.05},
                 {"detectable", {{{"runs_per_side", 3}, {"shift", nullptr}}, {{"runs_per_side", 6}, {"shift", 1.5}}}}}}}};
  r.calibration = jank::exporters::results::InputFile{"cal.json", cal.dump()};
  const std::string html = render(r);
  const auto tags = scan_tags(html);
  const auto shifts = find_tags(tags, {{"data-calibration", "janky_percent"}, {"data-metric", "smallest_shift"}});
  REQUIRE(shifts.size() == 2);
  CHECK(shifts[0].get("data-runs-per-side") == "3");
  CHECK(shifts[0].text == "not seen");
  CHECK(shifts[1].get("data-runs-per-side") == "6");
  CHECK(shifts[1].get("data-value") == "1.5");
  CHECK(find_tags(tags, {{"data-calibration", "janky_percent"}, {"data-metric", "false_regression_rate"}})[0].text == "2.0 %");
  CHECK(html.find("one sample per run, alpha 0.05") != std::string::npos);
  // Damaged: each refused with its file and field, and no page.
  auto refused = [&](json bad) {
    r.calibration = jank::exporters::results::InputFile{"cal.json", bad.dump()};
    const auto result = render_run_report(r);
    CHECK(result.html.empty());
    return result.error;
  };
  json wrong_kind = cal;
  wrong_kind["kind"] = "comparison";
  CHECK(refused(wrong_kind) == "cal.json: kind: not a calibration of compare --calibrate --json (format 1)");
  json negative = cal;
  negative["metrics"][0]["flagged_rate"] = -0.1;
  CHECK(refused(negative) == "cal.json: metrics[0].flagged_rate: expected a number >= 0");
  json unknown = cal;
  unknown["metrics"][0]["name"] = "happiness";
  CHECK(refused(unknown) == "cal.json: metrics[0].name: not a compared metric");
  json fractional = cal;
  fractional["metrics"][0]["detectable"][1]["runs_per_side"] = 2.5;
  CHECK(refused(fractional) == "cal.json: metrics[0].detectable[1].runs_per_side: expected a whole number >= 1");
  r.calibration = jank::exporters::results::InputFile{"cal.json", "{\"kind\": "};
  CHECK(render_run_report(r).error.rfind("cal.json: not JSON", 0) == 0);
}

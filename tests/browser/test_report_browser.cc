// The run report in a real browser (headless Chromium): the page's JS runs
// without an error, draws the charts it should, every number in the DOM is
// the results' own, and the screenshot shows a page rather than a blank.
// Each test case writes its own results files and calls the real
// `jank_exporter report`. Without Chromium every case exits 77 (skipped).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/browser/chromium.h"
#include "tests/browser/html_scan.h"
#include "tests/browser/png_reader.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using jank::test::chromium_args;
using jank::test::console_lines;
using jank::test::find_tags;
using jank::test::require_chromium;
using jank::test::Result;
using jank::test::run;
using jank::test::scan_tags;
using jank::test::slurp;
using jank::test::Tag;

// Each test case's own directory (tests/browser/chromium.h).
struct Scratch : jank::test::Scratch {
  Scratch() : jank::test::Scratch("jank_browser_") {}
};

// Deterministic "noise" for the fixture.
struct Lcg {
  std::uint64_t s;
  double next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(s >> 11) / 9007199254740992.0;
  }
};

json device_result(const std::string& serial, const std::string& model, double hz, double slowdown, Lcg& rng, bool hwui) {
  const int steps = 24;
  json t = json::array(), frames = json::array(), janky = json::array(), skipped = json::array(), sm = json::array(),
       fps = json::array();
  double skipped_total = 0, janky_total = 0, frames_total = 0;
  for (int i = 1; i <= steps; ++i) {
    t.push_back(i * 5);
    const double skip = std::floor(rng.next() < 0.3 * slowdown ? rng.next() * 40 * slowdown : 0);
    const double f = std::floor(hz * 5 - skip);
    const double j = std::floor(rng.next() * 12 * slowdown);
    skipped.push_back(skip);
    frames.push_back(f);
    janky.push_back(j);
    sm.push_back(std::round((hz - skip / 5) * 100) / 100);
    if (i == 9) {
      fps.push_back(nullptr);  // a step without active time
    } else {
      fps.push_back(std::round((hz - skip / 5 - rng.next()) * 100) / 100);
    }
    skipped_total += skip;
    janky_total += j;
    frames_total += f;
  }
  json metrics = {{"skipped_frames", skipped_total}, {"skip_events", 9}, {"max_skipped_frames", 38},
                  {"sm", std::round((hz - skipped_total / 120) * 1000) / 1000}, {"davey_frames", 1},
                  {"sf_frames", frames_total}, {"active_seconds", 115}, {"fps", std::round(frames_total / 115 * 100) / 100},
                  {"jank", 4}, {"big_jank", 1}, {"stutter_percent", 0.42}};
  json d = {{"serial", serial}, {"model", model}, {"sdk", 34}, {"refresh_hz", hz}, {"settled", true},
            {"versions", {{{"name", "1.4.2"}, {"code", 10402}, {"at_seconds", 0}}}}, {"version_changed", false}};
  json series = {{"interval_seconds", 5}, {"t", t}, {"skipped_frames", skipped}, {"sm", sm}, {"fps", fps}};
  if (hwui) {  // a game has no HWUI frames: no frames, causes or histogram
    metrics.update({{"frames", frames_total}, {"janky_frames", janky_total},
                    {"janky_percent", std::round(janky_total / frames_total * 100000) / 1000},
                    {"frame_time_p50_ms", 8}, {"frame_time_p90_ms", 17}, {"frame_time_p95_ms", 21},
                    {"frame_time_p99_ms", 48}, {"max_frame_ms", 212.5}, {"ft_frames", frames_total - 3},
                    {"ft_janky_frames", 31}});
    d["jank_causes"] = {{"slow_ui_thread", 60}, {"missed_vsync", 12}, {"slow_bitmap_uploads", 3},
                        {"frame_deadline_missed", 41}};
    d["ft_jank_types"] = {{"App Deadline Missed", 25}, {"Buffer Stuffing", 6}};
    json counts = json::array();
    for (double c : {40.0, 1900.0, 700.0, 160.0, 90.0, 50.0, 20.0, 9.0, 4.0, 2.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0}) {
      counts.push_back(std::floor(c * slowdown));
    }
    d["histograms"] = {{"frame_duration_seconds",
                        {{"bounds", {0.008, 0.011, 0.017, 0.021, 0.025, 0.034, 0.048, 0.053, 0.101, 0.150, 0.200, 0.300,
                                     0.500, 0.700, 1.0, 2.0}},
                         {"counts", counts}}}};
    series["frames"] = frames;
    series["janky_frames"] = janky;
  } else {  // the game's CPU (the resource poll): a step without a measurement is null
    json cpu = json::array();
    for (int i = 1; i <= steps; ++i) cpu.push_back(i == 4 ? json() : json(std::round((120 + 60 * rng.next()) * 10) / 10));
    series["cpu_percent"] = cpu;
    metrics.update({{"cpu_percent", 148.3}, {"cpu_p95_percent", 176.1}, {"main_thread_cpu_percent", 31.5},
                    {"peak_rss_bytes", 612368384}, {"throttled_seconds", 12.5}, {"throttled_percent", 10.39}});
  }
  d["metrics"] = metrics;
  d["series"] = series;
  return d;
}

struct Fixture {
  std::vector<json> runs;  // every run the page shows
  std::vector<std::string> baseline, candidate;
  fs::path html;
};

// Three runs of two builds on three devices (60, 90 and 120 Hz; one a game
// without HWUI frames), a verdict, and a hostile serial.
Fixture write_fixture(const fs::path& dir) {
  Fixture f;
  Lcg rng{42};
  for (int i = 0; i < 6; ++i) {
    const bool candidate = i >= 3;
    const double slowdown = candidate ? 1.6 : 1.0;
    json run = {{"format", 1},
                {"id", std::string(candidate ? "cand-" : "base-") + std::to_string(i % 3 + 1)},
                {"name", "scroll-feed </script><b>x</b>"},
                {"package", "com.example.feed"},
                {"tags", {{"build", candidate ? "1.5.0-rc1" : "1.4.2"}}},
                {"state", "finished"},
                {"started_at", "2026-11-24T10:15:00.123Z"},
                {"stopped_at", "2026-11-24T10:17:00.456Z"},
                {"duration_seconds", 120.333}};
    run["devices"] = {device_result("emulator-5554", "Pixel 7", 60, slowdown, rng, true),
                      device_result("<script>alert(1)</script>", "Galaxy S23", 120, slowdown, rng, true),
                      device_result("R58M123", "Pixel 8", 90, slowdown, rng, false)};
    const fs::path file = dir / (run["id"].get<std::string>() + ".json");
    std::ofstream(file) << run.dump(1);
    (candidate ? f.candidate : f.baseline).push_back(file.string());
    f.runs.push_back(run);
  }
  std::ofstream(dir / "verdict.json")
      << json{{"verdict", "regression"},
              {"work_tolerance_percent", 20},
              {"work",
               {{{"name", "duration_seconds"}, {"median_baseline", 60}, {"median_candidate", 60}, {"relative_difference_percent", 0}, {"unequal", false}},
                {{"name", "frame_slots"}, {"median_baseline", 3600}, {"median_candidate", 3550}, {"relative_difference_percent", -1.39}, {"unequal", false}}}},
              {"metrics",
               {{{"name", "sm"}, {"median_baseline", 57.2}, {"median_candidate", 55.1}, {"relative_change_percent", -3.67}, {"verdict", "regression"}},
                {{"name", "janky_percent"}, {"median_baseline", 3.1}, {"median_candidate", 4.9}, {"relative_change_percent", 58.06}, {"verdict", "regression"}},
                {{"name", "fps"}, {"median_baseline", 59.1}, {"median_candidate", 58.8}, {"relative_change_percent", -0.51}, {"verdict", "no_change"}}}}}
             .dump();
  // A calibration as compare --calibrate --json writes it (format 1).
  std::ofstream(dir / "calibration.json")
      << json{{"format", 1}, {"kind", "calibration"}, {"source", "runs/1.4.2"}, {"runs", 20}, {"per", "device"},
              {"alpha", 0.05}, {"resamples", 400}, {"seed", 1}, {"power", 0.8}, {"notices", json::array()},
              {"metrics",
               {{{"name", "janky_percent"}, {"model", nullptr}, {"runs", 20}, {"samples", 60}, {"median", 3.1},
                 {"split_runs_per_side", 10}, {"false_regression_rate", 0.015}, {"flagged_rate", 0.045},
                 {"detectable", {{{"runs_per_side", 3}, {"shift", nullptr}}, {{"runs_per_side", 10}, {"shift", 0.84}}}}},
                {{"name", "sm"}, {"model", "Pixel 7"}, {"runs", 20}, {"samples", 20}, {"median", 57.2},
                 {"split_runs_per_side", 10}, {"false_regression_rate", 0}, {"flagged_rate", 0.06},
                 {"detectable", {{{"runs_per_side", 3}, {"shift", 2.5}}, {{"runs_per_side", 10}, {"shift", 1.25}}}}}}}}
             .dump();
  std::ofstream(dir / "budgets.yaml") << "tiers:\n  - name: any phone\n    model: \"*\"\n    limits:\n"
                                          "      janky_percent: {max: 4}\n      sm: {min: 55}\n";
  f.html = dir / "report.html";
  std::vector<std::string> argv = {JANK_EXPORTER_PROGRAM, "report", "--title", "Feed 1.4.2 vs 1.5.0-rc1", "-o", f.html.string(),
                                   "--verdict", (dir / "verdict.json").string(), "--calibration", (dir / "calibration.json").string(),
                                   "--budgets", (dir / "budgets.yaml").string(),
                                   "--baseline"};
  argv.insert(argv.end(), f.baseline.begin(), f.baseline.end());
  argv.push_back("--candidate");
  argv.insert(argv.end(), f.candidate.begin(), f.candidate.end());
  const Result r = run(argv, dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return f;
}

using jank::test::Dom;

Dom dump_dom(const fs::path& page, const fs::path& dir) {
  return jank::test::dump_dom(chromium_args(dir), "file://" + page.string(), dir);
}

// The page with `script` inserted before the element that starts with `before`.
fs::path with_injected(const fs::path& page, const std::string& before, const std::string& script, const fs::path& dir) {
  std::string html = slurp(page);
  const auto at = html.find(before);
  REQUIRE(at != std::string::npos);
  html.insert(at, "<script>" + script + "</script>");
  const fs::path out = dir / "injected.html";
  std::ofstream(out) << html;
  return out;
}

std::string format_value(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

// The tags of the chart `kind` drawn for a run and device: from its <svg> to
// the next one (the charts are not nested).
std::vector<Tag> in_chart(const std::vector<Tag>& tags, const std::string& kind, const std::string& run,
                          const std::string& serial) {
  std::vector<Tag> out;
  bool inside = false;
  for (const auto& t : tags) {
    if (t.name == "svg") {
      inside = t.get("data-chart") == kind && t.get("data-run") == run && t.get("data-serial") == serial;
    } else if (inside) {
      out.push_back(t);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("report in Chromium draws every chart without a console error", "[browser]") {
  require_chromium();
  Scratch scratch;
  const Fixture f = write_fixture(scratch.dir);
  const Dom dom = dump_dom(f.html, scratch.dir);
  for (const auto& line : dom.console) UNSCOPED_INFO(line);
  CHECK(dom.console.empty());
  CHECK(dom.html.get("data-js-errors") == "0");
  CHECK(dom.html.get("data-render") == "done");

  // Per device: SM and FPS, skipped and janky frames; HWUI devices also jank
  // causes, FrameTimeline jank types and the frame-time histogram.
  std::map<std::string, int> charts;
  for (const auto& t : find_tags(dom.tags, {{"class", "jank-chart"}})) ++charts[t.get("data-chart")];
  CHECK(charts["sm-fps"] == 18);
  CHECK(charts["skipped-janky"] == 18);
  CHECK(charts["jank-causes"] == 12);
  CHECK(charts["ft-jank-types"] == 12);
  CHECK(charts["frame-time"] == 12);
  CHECK(charts["cpu"] == 6);  // the game's, measured by the resource poll
  CHECK(find_tags(dom.tags, {{"data-chart", "strip"}}).size() == 3);  // one per verdict metric

  for (const json& run : f.runs) {
    const std::string id = run["id"];
    for (const json& d : run["devices"]) {
      const std::string serial = d["serial"];
      INFO(id << " " << serial);
      // The table's numbers are the results'.
      for (const auto& [metric, value] : d["metrics"].items()) {
        const auto cells = find_tags(dom.tags, {{"data-run", id}, {"data-serial", serial}, {"data-metric", metric}});
        for (const auto& c : cells) {
          INFO(metric);
          CHECK(std::stod(c.get("data-value")) == value.get<double>());
        }
      }
      const auto sm_cell = find_tags(dom.tags, {{"data-run", id}, {"data-serial", serial}, {"data-metric", "sm"}});
      REQUIRE(sm_cell.size() == 1);
      const auto fps = d["metrics"]["fps"].get<double>();
      const auto fps_cell = find_tags(dom.tags, {{"data-run", id}, {"data-serial", serial}, {"data-metric", "fps"}});
      REQUIRE(fps_cell.size() == 1);
      char expect[32];
      std::snprintf(expect, sizeof expect, "%.1f", fps);
      CHECK(fps_cell[0].text == expect);
      if (!d["metrics"].contains("frames")) {
        const auto frames = find_tags(dom.tags, {{"data-run", id}, {"data-serial", serial}, {"data-metric", "frames"}});
        REQUIRE(frames.size() == 1);
        CHECK(frames[0].text == "\u2013");
      }

      // The charts' numbers are the series'.
      CHECK(find_tags(dom.tags, {{"data-chart", "sm-fps"}, {"data-run", id}, {"data-serial", serial}}).size() == 1);
      const json& s = d["series"];
      for (const std::string metric : {"sm", "fps"}) {
        // The line's values, "null" for a gap, in the order of the steps.
        std::vector<std::string> want, drawn;
        for (const auto& v : s[metric]) want.push_back(v.is_null() ? "null" : format_value(v.get<double>()));
        const auto paths = find_tags(in_chart(dom.tags, "sm-fps", id, serial), {{"class", "series"}, {"data-metric", metric}});
        REQUIRE(paths.size() == 1);
        std::istringstream in(paths[0].get("data-values"));
        for (std::string v; std::getline(in, v, ',');) drawn.push_back(v == "null" ? v : format_value(std::stod(v)));
        CHECK(drawn == want);
      }
      if (s.contains("cpu_percent")) {
        std::vector<std::string> want, drawn;
        for (const auto& v : s["cpu_percent"]) want.push_back(v.is_null() ? "null" : format_value(v.get<double>()));
        const auto paths = find_tags(in_chart(dom.tags, "cpu", id, serial), {{"class", "series"}, {"data-metric", "cpu_percent"}});
        REQUIRE(paths.size() == 1);
        std::istringstream in(paths[0].get("data-values"));
        for (std::string v; std::getline(in, v, ',');) drawn.push_back(v == "null" ? v : format_value(std::stod(v)));
        CHECK(drawn == want);
      }
      for (const std::string metric : {"skipped_frames", "janky_frames"}) {
        std::vector<std::string> want, drawn;
        if (s.contains(metric)) {
          for (const auto& v : s[metric]) want.push_back(format_value(v.get<double>()));
        }
        for (const auto& bar : find_tags(in_chart(dom.tags, "skipped-janky", id, serial), {{"data-metric", metric}})) {
          if (bar.name == "rect") drawn.push_back(format_value(std::stod(bar.get("data-value"))));
        }
        CHECK(drawn == want);
      }
      for (const std::string key : {"jank_causes", "ft_jank_types"}) {
        if (!d.contains(key)) continue;
        std::map<std::string, double> want, drawn;
        for (const auto& [k, v] : d[key].items()) want[k] = v.get<double>();
        const std::string kind = key == "jank_causes" ? "jank-causes" : "ft-jank-types";
        for (const auto& bar : find_tags(in_chart(dom.tags, kind, id, serial), {{"class", "bar"}})) {
          drawn[bar.get("data-key")] = std::stod(bar.get("data-value"));
        }
        CHECK(drawn == want);
      }
      if (d.contains("histograms")) {
        std::vector<std::string> want, drawn;
        for (const auto& v : d["histograms"]["frame_duration_seconds"]["counts"]) want.push_back(format_value(v.get<double>()));
        for (const auto& bar : find_tags(in_chart(dom.tags, "frame-time", id, serial), {{"class", "bar"}})) {
          drawn.push_back(format_value(std::stod(bar.get("data-value"))));
        }
        CHECK(drawn == want);
      }
    }
  }
  // The verdict, as compare gave it, and its check that both builds did the same work.
  const auto verdict = find_tags(dom.tags, {{"data-metric", "verdict"}});
  REQUIRE(verdict.size() == 1);
  CHECK(verdict[0].get("data-value") == "regression");
  const auto work = find_tags(dom.tags, {{"data-metric", "unequal"}});
  REQUIRE(work.size() == 2);
  CHECK(work[0].get("data-work") == "duration_seconds");
  CHECK(work[1].get("data-work") == "frame_slots");
  CHECK(work[1].text == "same");
  CHECK(find_tags(dom.tags, {{"data-work", "frame_slots"}, {"data-metric", "difference"}})[0].text == "\u22121.4 %");
  // The calibration: a row per metric and model, its false alarms and the
  // smallest shift each run count sees, as compare wrote them.
  auto calibrated = [&](const std::string& metric, const std::string& model, const std::string& name) {
    const auto cells = find_tags(dom.tags, {{"data-calibration", metric}, {"data-model", model}, {"data-metric", name}});
    std::vector<std::string> texts;
    for (const auto& c : cells) texts.push_back(c.text);
    return texts;
  };
  CHECK(calibrated("janky_percent", "", "false_regression_rate") == std::vector<std::string>{"1.5 %"});
  CHECK(calibrated("janky_percent", "", "flagged_rate") == std::vector<std::string>{"4.5 %"});
  CHECK(calibrated("janky_percent", "", "smallest_shift") == std::vector<std::string>{"not seen", "0.84"});
  CHECK(calibrated("sm", "Pixel 7", "smallest_shift") == std::vector<std::string>{"2.50", "1.25"});
  CHECK(calibrated("sm", "Pixel 7", "median") == std::vector<std::string>{"57.20"});
  const auto cal_runs = find_tags(dom.tags, {{"data-metric", "calibration_runs"}});
  REQUIRE(cal_runs.size() == 1);
  CHECK(cal_runs[0].get("data-value") == "20");
  // The budgets: a row per device and limit, and the summary counts the breach badges.
  const auto outcomes = find_tags(dom.tags, {{"data-metric", "outcome"}});
  CHECK(outcomes.size() >= 4);
  std::size_t breach_badges = 0;
  for (const auto& o : outcomes) breach_badges += o.get("data-value") == "breach";
  const auto breaches = find_tags(dom.tags, {{"data-metric", "breaches"}});
  REQUIRE(breaches.size() == 1);
  CHECK(breaches[0].get("data-value") == std::to_string(breach_badges));
  // The hostile serial stayed text.
  CHECK(dom.text.find("<script>alert(1)") == std::string::npos);
}

TEST_CASE("report screenshot in Chromium is a page and not a blank", "[browser]") {
  require_chromium();
  Scratch scratch;
  const Fixture f = write_fixture(scratch.dir);
  const fs::path png = scratch.dir / "report.png";
  auto argv = chromium_args(scratch.dir);
  argv.insert(argv.end(), {"--screenshot=" + png.string(), "--window-size=1280,3400", "file://" + f.html.string()});
  const Result r = run(argv, scratch.dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  jank::test::Image image;
  const std::string error = jank::test::decode_png(slurp(png), image);
  INFO(error);
  REQUIRE(error.empty());
  CHECK(image.width == 1280);
  CHECK(image.height == 3400);  // tall enough for the charts below the comparison, work and budget tables
  // A blank page is one colour; this one has text, tables and charts drawn in
  // the palette's colours (sky blue: janky-frame bars only).
  std::set<std::uint32_t> colours;
  double sum = 0, sum2 = 0;
  std::size_t sky = 0, vermillion = 0;
  auto near = [](std::uint32_t p, std::uint32_t c) {
    for (int shift : {16, 8, 0}) {
      if (std::abs(static_cast<int>((p >> shift) & 0xff) - static_cast<int>((c >> shift) & 0xff)) > 12) return false;
    }
    return true;
  };
  for (std::size_t y = 0; y < image.height; ++y) {
    for (std::size_t x = 0; x < image.width; ++x) {
      const std::uint32_t p = image.pixel(x, y);
      if (colours.size() < 5000) colours.insert(p);
      const double l = 0.299 * ((p >> 16) & 0xff) + 0.587 * ((p >> 8) & 0xff) + 0.114 * (p & 0xff);
      sum += l;
      sum2 += l * l;
      sky += near(p, 0x56B4E9);
      vermillion += near(p, 0xD55E00);
    }
  }
  const double n = static_cast<double>(image.width) * image.height;
  const double variance = sum2 / n - (sum / n) * (sum / n);
  CHECK(colours.size() > 200);
  CHECK(variance > 200);
  CHECK(sky > 500);
  CHECK(vermillion > 500);
  if (const char* keep = std::getenv("JANK_REPORT_SCREENSHOT")) fs::copy_file(png, keep, fs::copy_options::overwrite_existing);
}

// The checks above must fail when the page's JS fails: a throwing script...
TEST_CASE("report browser check catches a script that throws", "[browser]") {
  require_chromium();
  Scratch scratch;
  const Fixture f = write_fixture(scratch.dir);
  const fs::path page = with_injected(f.html, "<script type=\"application/json\"",
                                      "throw new Error('injected failure')", scratch.dir);
  const Dom dom = dump_dom(page, scratch.dir);
  CHECK(dom.html.get("data-js-errors") == "1");
  REQUIRE(dom.console.size() == 1);
  CHECK(dom.console[0].find("injected failure") != std::string::npos);
  CHECK(dom.text.find("Charts failed: Uncaught Error: injected failure") != std::string::npos);
}

// ...and a chart function that fails half-way through the drawing.
TEST_CASE("report browser check catches charts that fail half-way", "[browser]") {
  require_chromium();
  Scratch scratch;
  const Fixture f = write_fixture(scratch.dir);
  // charts.js is loaded; the report's own script comes last.
  std::string html = slurp(f.html);
  const auto last = html.rfind("<script>");
  REQUIRE(last != std::string::npos);
  html.insert(last, "<script>JankCharts.histogram = function () { throw new TypeError('histogram broke'); };</script>");
  const fs::path page = scratch.dir / "broken.html";
  std::ofstream(page) << html;
  const Dom dom = dump_dom(page, scratch.dir);
  CHECK(dom.html.get("data-js-errors") == "1");
  CHECK(dom.html.get("data-render") == "pending");
  REQUIRE(dom.console.size() == 1);
  CHECK(dom.console[0].find("histogram broke") != std::string::npos);
  // The charts before the failure were drawn: the check sees a partial page.
  CHECK(!find_tags(dom.tags, {{"data-chart", "sm-fps"}}).empty());
}

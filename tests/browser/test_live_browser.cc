// The live view's pages in headless Chromium, served by the project's
// HttpServer from fixed JSON documents (no devices, no daemon): live.js
// refreshes the table from /api/devices, sorts it on a click, draws a
// device's charts with its runs and traces marked and its CPU and memory on
// the SM/FPS chart's time axis, and no string of a device ever becomes
// markup. The pages against the real exporter and simulated
// devices: test_live_rig.cc. Without Chromium every case exits 77 (skipped).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exporters/http_server.h"
#include "exporters/live_pages.h"
#include "exporters/run_report.h"
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
using jank::test::scan_tags;
using jank::test::Tag;

const std::string kHostile = "<img src=x onerror=alert(1)>";
const std::string kHostileModel = "\"'><script>alert(2)</script>";

// Each test case's own directory (tests/browser/chromium.h).
struct Scratch : jank::test::Scratch {
  Scratch() : jank::test::Scratch("jank_live_browser_") {}
};

json device(const std::string& serial, json sm, double hz, const std::string& status = "following") {
  return {{"serial", serial}, {"model", "JankSim"}, {"manufacturer", "JankSim"}, {"release", "14"}, {"sdk", 34},
          {"refresh_hz", hz}, {"status", status}, {"foreground", "com.example.feed"}, {"sm", sm},
          {"fps", 58.9}, {"jank_percent", 3.1}, {"skipped_per_minute", 150}, {"davey_per_minute", 2},
          {"big_jank_per_minute", 0}, {"thermal_status", 0}, {"trace_armed", false}, {"open_runs", 0},
          {"sampled_at", 1764061000.0},
          {"totals",
           {{"skipped_frames", 12345}, {"davey_frames", 17}, {"big_jank", 3}, {"frozen_frames", 2},
            {"layer_frozen_frames", nullptr}}}};
}

json document(std::vector<json> devices) {
  return {{"generated_at", 1764061000.125}, {"window_seconds", 60}, {"sample_seconds", 1}, {"history_seconds", 900},
          {"devices", devices}};
}

// What the server renders (`first`) and what /api/devices answers after
// (`later`: one device more, one SM changed), so that the DOM shows whether
// live.js refreshed the table.
json first_document() {
  json hostile = device(kHostile, 44.5, 60);
  hostile["model"] = kHostileModel;
  json offline = device("sim-offline", nullptr, 60, "offline");
  offline["fps"] = nullptr;
  offline["thermal_status"] = nullptr;
  json hot = device("sim-hot", 100.25, 120);
  hot["thermal_status"] = 4;
  hot["jank_percent"] = 12.5;
  return document({device("sim-a", 59.5, 60), hostile, offline, hot});
}

json later_document() {
  json doc = first_document();
  doc["devices"][0]["sm"] = 30.0;
  doc["devices"].push_back(device("sim-new", 89.0, 90));
  doc["generated_at"] = 1764061005.125;
  return doc;
}

// 30 samples, 5 s apart, with gaps (null) where the contract has them.
json detail(const json& dev) {
  json d = dev;
  json t = json::array(), sm = json::array(), fps = json::array(), skipped = json::array();
  const double end = 1764061000.0;
  d["generated_at"] = end + 3;  // made between two samples
  for (int i = 0; i < 30; ++i) {
    t.push_back(end - (29 - i) * 5.0);
    sm.push_back(i == 7 ? json(nullptr) : json(50.0 + i % 10));
    fps.push_back(i % 9 == 0 ? json(nullptr) : json(55.0 + i % 5));
    skipped.push_back((i * 7) % 11);
  }
  d["history"] = {{"t", t}, {"sm", sm}, {"fps", fps}, {"jank_percent", fps}, {"skipped_frames", skipped},
                  {"davey_frames", skipped}, {"big_jank", skipped}};
  // What the phone did: nothing at the baseline, no poll in sample 12, an
  // app past one core in sample 20, a CPU cluster capped in samples 5 to 8
  // and 20. A device without the resource poll has nulls only.
  json app_cpu = json::array(), main_cpu = json::array(), device_cpu = json::array(), rss = json::array(),
       capped = json::array();
  const bool polled = dev["serial"] != "sim-offline";
  for (int i = 0; i < 30; ++i) {
    const bool cpu = polled && i != 0 && i != 12;
    app_cpu.push_back(!cpu ? json(nullptr) : json(i == 20 ? 180.5 : 20.0 + (i % 7) * 10.5));
    main_cpu.push_back(!cpu ? json(nullptr) : json(10.0 + (i % 5) * 4.5));
    device_cpu.push_back(!cpu ? json(nullptr) : json(30.0 + (i % 4) * 7.5));
    rss.push_back(polled ? json(300 + i) : json(nullptr));
    capped.push_back(polled ? json((i >= 5 && i <= 8) || i == 20) : json(nullptr));
  }
  d["history"]["app_cpu_percent"] = app_cpu;
  d["history"]["main_thread_cpu_percent"] = main_cpu;
  d["history"]["device_cpu_percent"] = device_cpu;
  d["history"]["app_rss_mib"] = rss;
  d["history"]["cpu_capped"] = capped;
  d["frame_time"] = {{"bounds_ms", {5, 10, 16.7, 33.3, 50, 100, 700}}, {"counts", {0, 10, 900, 40, 3, 2, 1, 0}}};
  d["jank_causes"] = {{"missed_vsync", 3}, {"slow_ui_thread", 12}};
  d["runs"] = {{{"id", "r1"}, {"name", kHostileModel}, {"start", end - 120}, {"end", end - 60}},
               {{"id", "r2"}, {"name", "scroll"}, {"start", end - 30}, {"end", nullptr}}};
  d["traces"] = {{{"id", "t1_skip"}, {"time", end - 90.5}, {"rule", "skip"}, {"url", "javascript:alert(3)"}},
                 {{"id", "t2_davey"}, {"time", end - 10}, {"rule", "davey"}, {"url", "/traces/t2_davey.pftrace"}}};
  return d;
}

std::string decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Clicks header buttons once the page's own script has run and writes the
// row order after each click on <html>: a test's script, served from the
// page's origin (the policy allows nothing else).
constexpr std::string_view kClickScript = R"js(
document.addEventListener('DOMContentLoaded', function () {
  function order() {
    return Array.prototype.map.call(document.querySelectorAll('#devices tbody tr'),
                                    function (tr) { return tr.getAttribute('data-serial'); }).join('|');
  }
  function click(key) { document.querySelector('th[data-key="' + key + '"] button').click(); }
  var html = document.documentElement;
  html.setAttribute('data-order-initial', order());
  click('fps'); html.setAttribute('data-order-fps-up', order());
  click('thermal_status'); html.setAttribute('data-order-thermal-up', order());
  click('thermal_status'); html.setAttribute('data-order-thermal-down', order());
  click('serial'); html.setAttribute('data-order-serial-up', order());
});
)js";

class FixtureServer {
 public:
  FixtureServer() {
    const json first = first_document(), later = later_document();
    std::map<std::string, json> details;
    for (const json& d : later["devices"]) details[d["serial"]] = detail(d);
    jank::exporters::LiveSources sources;
    sources.devices = [first] { return first; };
    sources.device = [details](std::string_view serial) -> std::optional<json> {
      const auto it = details.find(std::string(serial));
      return it == details.end() ? std::nullopt : std::optional<json>(it->second);
    };
    jank::exporters::HttpOptions options;
    options.listen_address = "127.0.0.1:0";
    auto api = [later, details](const jank::exporters::ApiRequest& r) {
      jank::exporters::ApiResponse out;
      if (r.path == "/api/devices") {
        out.body = later.dump();
      } else if (r.path.starts_with("/api/devices/") &&
                 details.count(decode(r.path.substr(std::string_view("/api/devices/").size())))) {
        out.body = details.at(decode(r.path.substr(std::string_view("/api/devices/").size()))).dump();
      } else {
        out.status = 404;
        out.body = R"({"error": "no such device"})";
      }
      return out;
    };
    auto pages = [sources](std::string_view path) {
      if (path == "/test/click.js") {
        jank::exporters::FileResponse r;
        r.content_type = "text/javascript";
        r.body = std::string(kClickScript);
        return r;
      }
      if (path == "/click-test") {
        auto r = *jank::exporters::live_page("/", sources);
        const auto at = r.body.find("<script src=\"/assets/live.js\" defer></script>");
        r.body.insert(at + std::string_view("<script src=\"/assets/live.js\" defer></script>").size(),
                      "<script src=\"/test/click.js\" defer></script>");
        return r;
      }
      auto r = jank::exporters::live_page(path, sources);
      if (r) return *r;
      jank::exporters::FileResponse none;
      none.status = 404;
      none.content_type = "text/plain";
      none.body = "not found\n";
      return none;
    };
    server_ = std::make_unique<jank::exporters::HttpServer>(options, jank::exporters::HttpServer::MetricsSource{},
                                                            [] { return true; }, nullptr, api,
                                                            std::vector<jank::exporters::FileRoute>{{"/", pages}});
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(server_->ports().at(0)) + path;
  }

 private:
  std::unique_ptr<jank::exporters::HttpServer> server_;
};

using jank::test::Dom;

// The DOM once the page's scripts ran for `budget_ms` of virtual time (the
// timers of a few refreshes; Chromium waits for the fetches they start).
Dom dump_dom(const std::string& url, const fs::path& dir, int budget_ms = 4000, bool scripts = true) {
  auto argv = scripts ? chromium_args(dir) : jank::test::chromium_args_without_javascript(dir);
  argv.push_back("--virtual-time-budget=" + std::to_string(budget_ms));
  return jank::test::dump_dom(std::move(argv), url, dir);
}

std::vector<std::string> rows(const Dom& dom) {
  std::vector<std::string> out;
  for (const auto& t : dom.tags) {
    if (t.name == "tr" && t.has("data-serial")) out.push_back(t.get("data-serial"));
  }
  return out;
}

const Tag* cell(const Dom& dom, const std::string& serial, const std::string& metric) {
  return jank::test::live_cell(dom.tags, serial, metric);
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : "|") + s;
  return out;
}

// The tags of the chart `kind`, from its <svg> to the next one.
std::vector<Tag> in_chart(const std::vector<Tag>& tags, const std::string& kind) {
  std::vector<Tag> out;
  bool inside = false;
  for (const auto& t : tags) {
    if (t.name == "svg") {
      inside = t.get("data-chart") == kind;
    } else if (inside) {
      out.push_back(t);
    }
  }
  return out;
}

void no_markup_from_data(const Dom& dom) {
  for (const auto& t : dom.tags) {
    CHECK(t.name != "img");
    if (t.name == "script") CHECK(t.get("src").starts_with("/"));
    if (t.has("href")) CHECK(t.get("href").find("javascript:") == std::string::npos);
  }
  CHECK(dom.text.find("<script>alert") == std::string::npos);
}

}  // namespace

TEST_CASE("live page in Chromium refreshes the table from /api/devices without a console error", "[browser]") {
  require_chromium();
  Scratch scratch;
  FixtureServer server;
  const Dom dom = dump_dom(server.url("/"), scratch.dir);
  for (const auto& line : dom.console) UNSCOPED_INFO(line);
  CHECK(dom.console.empty());
  CHECK(dom.html.get("data-js-errors") == "0");
  CHECK(dom.html.get("data-render") == "done");
  REQUIRE(!dom.html.get("data-refreshes").empty());
  // The later document's rows, worst SM first, the device without SM last.
  const json later = later_document();
  CHECK(rows(dom) == std::vector<std::string>{"sim-a", kHostile, "sim-hot", "sim-new", "sim-offline"});
  const auto count = find_tags(dom.tags, {{"id", "device-count"}});
  REQUIRE(count.size() == 1);
  CHECK(count[0].get("data-value") == "5");
  for (const json& d : later["devices"]) {
    const std::string serial = d["serial"];
    INFO(serial);
    for (const std::string key : {"sm", "refresh_hz", "fps", "jank_percent", "skipped_per_minute", "thermal_status"}) {
      INFO(key);
      const Tag* c = cell(dom, serial, key);
      REQUIRE(c);
      if (d[key].is_null()) {
        CHECK(c->text == "\u2013");
        CHECK(!c->has("data-value"));
      } else {
        CHECK(std::stod(c->get("data-value")) == d[key].get<double>());
      }
    }
    const Tag* model = cell(dom, serial, "model");
    REQUIRE(model);
    CHECK(model->text == d["model"].get<std::string>());
  }
  // The marks of live.js are the server's (live_pages.cc).
  CHECK(cell(dom, "sim-a", "sm")->get("class") == "num t-bad");  // 30 of 60 Hz
  CHECK(cell(dom, "sim-hot", "sm")->get("class") == "num t-warn");  // 100.25 of 120 Hz
  CHECK(cell(dom, "sim-hot", "sm")->text == "100.2");  // a tie rounds as the server's does
  CHECK(cell(dom, "sim-hot", "jank_percent")->get("class") == "num t-bad");
  CHECK(cell(dom, "sim-hot", "thermal_status")->text == "4 critical");
  CHECK(cell(dom, "sim-hot", "refresh_hz")->text == "120");
  // The totals and the Davey cell's note of live.js are the server's too.
  bool row_seen = false;
  for (const auto& t : find_tags(dom.tags, {{"data-serial", "sim-a"}})) {
    if (t.name != "tr") continue;
    row_seen = true;
    CHECK(t.get("data-total-frozen-frames") == "2");
    CHECK(t.get("data-total-layer-frozen-frames") == "null");
  }
  CHECK(row_seen);
  CHECK(cell(dom, "sim-a", "davey_per_minute")->get("title").find("2 frozen frames in all") != std::string::npos);
  const auto links = find_tags(dom.tags, {{"href", "/devices/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"}});
  CHECK(links.size() == 1);  // encodeURIComponent leaves ( ) as they are
  no_markup_from_data(dom);
}

TEST_CASE("live page in Chromium sorts on a header click", "[browser]") {
  require_chromium();
  Scratch scratch;
  FixtureServer server;
  const Dom dom = dump_dom(server.url("/click-test"), scratch.dir, 500);
  for (const auto& line : dom.console) UNSCOPED_INFO(line);
  CHECK(dom.console.empty());
  // SM as a share of the refresh rate: 44.5 of 60, 100.25 of 120, 59.5 of 60.
  CHECK(dom.html.get("data-order-initial") == joined({kHostile, "sim-hot", "sim-a", "sim-offline"}));
  // Equal FPS: by serial; missing: last.
  CHECK(dom.html.get("data-order-fps-up") == joined({kHostile, "sim-a", "sim-hot", "sim-offline"}));
  CHECK(dom.html.get("data-order-thermal-up") == joined({kHostile, "sim-a", "sim-hot", "sim-offline"}));
  CHECK(dom.html.get("data-order-thermal-down") == joined({"sim-hot", kHostile, "sim-a", "sim-offline"}));
  CHECK(dom.html.get("data-order-serial-up") == joined({kHostile, "sim-a", "sim-hot", "sim-offline"}));
  const auto th = find_tags(dom.tags, {{"data-key", "serial"}});
  REQUIRE(th.size() == 1);
  CHECK(th[0].get("aria-sort") == "ascending");
}

TEST_CASE("live device page in Chromium draws its charts with runs and traces marked", "[browser]") {
  require_chromium();
  Scratch scratch;
  FixtureServer server;
  const json d = detail(later_document()["devices"][1]);  // the hostile serial
  const Dom dom = dump_dom(server.url("/devices/" + jank::exporters::percent_encode_segment(kHostile)), scratch.dir);
  for (const auto& line : dom.console) UNSCOPED_INFO(line);
  CHECK(dom.console.empty());
  CHECK(dom.html.get("data-js-errors") == "0");
  CHECK(dom.html.get("data-render") == "done");
  CHECK(rows(dom) == std::vector<std::string>{kHostile});

  // SM and FPS: the history's values, null as a gap.
  for (const std::string metric : {"sm", "fps"}) {
    INFO(metric);
    const auto paths = find_tags(in_chart(dom.tags, "sm-fps"), {{"class", "series"}, {"data-metric", metric}});
    REQUIRE(paths.size() == 1);
    std::string want;
    for (const auto& v : d["history"][metric]) {
      want += (want.empty() ? "" : ",") + (v.is_null() ? std::string("null") : jank::exporters::format_exact(v.get<double>()));
    }
    CHECK(paths[0].get("data-values") == want);
  }
  std::size_t bars = 0;
  for (const auto& t : find_tags(in_chart(dom.tags, "skipped"), {{"data-metric", "skipped_frames"}})) bars += t.name == "rect";
  CHECK(bars == d["history"]["skipped_frames"].size());
  CHECK(find_tags(in_chart(dom.tags, "frame-time"), {{"class", "bar"}}).size() == d["frame_time"]["counts"].size());
  std::map<std::string, std::string> causes;
  for (const auto& t : find_tags(in_chart(dom.tags, "jank-causes"), {{"class", "bar"}})) causes[t.get("data-key")] = t.get("data-value");
  CHECK(causes == std::map<std::string, std::string>{{"missed_vsync", "3"}, {"slow_ui_thread", "12"}});

  // Runs as bands, traces as lines linking to the trace, on both time charts.
  for (const std::string chart : {"sm-fps", "skipped"}) {
    INFO(chart);
    const auto tags = in_chart(dom.tags, chart);
    CHECK(find_tags(tags, {{"data-marker", "run"}}).size() == 2);
    CHECK(find_tags(tags, {{"data-marker", "trace"}}).size() == 2);
    CHECK(find_tags(tags, {{"href", "/traces/t1_skip.pftrace"}}).size() == 1);
    CHECK(find_tags(tags, {{"href", "/traces/t2_davey.pftrace"}}).size() == 1);
    const auto open = find_tags(tags, {{"data-marker", "run"}, {"data-id", "r2"}});
    REQUIRE(open.size() == 1);
    CHECK(open[0].get("data-end") == "0");  // an open run reaches the time the document was made
  }
  // The server's lists, for readers without JS.
  CHECK(find_tags(dom.tags, {{"data-trace", "t1_skip"}}).size() == 1);
  CHECK(find_tags(dom.tags, {{"data-run", "r1"}}).size() == 1);
  no_markup_from_data(dom);
}

TEST_CASE("live device page in Chromium charts CPU and memory on the SM/FPS chart's time axis", "[browser]") {
  require_chromium();
  Scratch scratch;
  FixtureServer server;
  const json d = detail(later_document()["devices"][0]);  // sim-a
  const Dom dom = dump_dom(server.url("/devices/sim-a"), scratch.dir);
  for (const auto& line : dom.console) UNSCOPED_INFO(line);
  CHECK(dom.console.empty());
  CHECK(dom.html.get("data-js-errors") == "0");
  CHECK(dom.html.get("data-render") == "done");

  // The lines are the history's values, null as a gap.
  const auto values = [&](const std::string& metric) {
    std::string want;
    for (const auto& v : d["history"][metric]) {
      want += (want.empty() ? "" : ",") + (v.is_null() ? std::string("null") : jank::exporters::format_exact(v.get<double>()));
    }
    return want;
  };
  const auto cpu = in_chart(dom.tags, "cpu");
  REQUIRE(!cpu.empty());
  for (const std::string metric : {"app_cpu_percent", "main_thread_cpu_percent", "device_cpu_percent"}) {
    INFO(metric);
    const auto paths = find_tags(cpu, {{"class", "series"}, {"data-metric", metric}});
    REQUIRE(paths.size() == 1);
    CHECK(paths[0].get("data-values") == values(metric));
    CHECK(find_tags(cpu, {{"class", "point"}, {"data-metric", metric}}).size() == 28);  // 30 less two nulls
  }
  const auto memory = find_tags(in_chart(dom.tags, "memory"), {{"class", "series"}, {"data-metric", "app_rss_mib"}});
  REQUIRE(memory.size() == 1);
  CHECK(memory[0].get("data-values") == values("app_rss_mib"));

  // The same x as SM and FPS: each sample's point at the same x value and the
  // same position on the chart's width.
  std::map<std::string, std::string> sm_cx;
  for (const auto& t : find_tags(in_chart(dom.tags, "sm-fps"), {{"class", "point"}, {"data-metric", "sm"}})) {
    sm_cx[t.get("data-t")] = t.get("cx");
  }
  REQUIRE(sm_cx.size() == 29);  // SM is null in sample 7
  std::size_t aligned = 0;
  for (const std::string chart : {"cpu", "memory"}) {
    for (const auto& t : find_tags(in_chart(dom.tags, chart), {{"class", "point"}})) {
      const auto it = sm_cx.find(t.get("data-t"));
      if (it == sm_cx.end()) continue;
      CHECK(t.get("cx") == it->second);
      ++aligned;
    }
  }
  CHECK(aligned == 3 * 27 + 29);  // the CPU lines lack samples 0 and 12, memory none; SM lacks 7

  // Capped samples as bands over their intervals: samples 5 to 8 (from sample
  // 4's time) and sample 20 (from 19's), besides the runs and traces.
  const auto bands = find_tags(cpu, {{"data-marker", "capped"}});
  REQUIRE(bands.size() == 2);
  const auto sm_point = [&](std::size_t i) {
    const auto points = find_tags(in_chart(dom.tags, "sm-fps"), {{"class", "point"}, {"data-metric", "sm"}});
    return points.at(i < 7 ? i : i - 1).get("data-t");  // sample 7 has no point
  };
  CHECK(bands[0].get("data-value") == sm_point(4));
  CHECK(bands[0].get("data-end") == sm_point(8));
  CHECK(bands[1].get("data-value") == sm_point(19));
  CHECK(bands[1].get("data-end") == sm_point(20));
  CHECK(find_tags(cpu, {{"data-legend", "capped"}}).size() == 1);
  CHECK(find_tags(cpu, {{"data-marker", "run"}}).size() == 2);
  CHECK(find_tags(cpu, {{"data-marker", "trace"}}).size() == 2);

  // A device without the resource poll: neither chart.
  const Dom bare = dump_dom(server.url("/devices/sim-offline"), scratch.dir);
  for (const auto& line : bare.console) UNSCOPED_INFO(line);
  CHECK(bare.console.empty());
  CHECK(bare.html.get("data-render") == "done");
  CHECK(!find_tags(bare.tags, {{"data-chart", "sm-fps"}}).empty());
  CHECK(find_tags(bare.tags, {{"data-chart", "cpu"}}).empty());
  CHECK(find_tags(bare.tags, {{"data-chart", "memory"}}).empty());
}

TEST_CASE("live device page in Chromium for an unknown serial is a 404 page without a console error", "[browser]") {
  require_chromium();
  Scratch scratch;
  FixtureServer server;
  const Dom dom = dump_dom(server.url("/devices/%3Cb%3Enope"), scratch.dir, 500);
  for (const auto& line : dom.console) UNSCOPED_INFO(line);
  // Chromium logs the 404 of the document itself; nothing else.
  for (const auto& line : dom.console) CHECK(line.find("404") != std::string::npos);
  CHECK(dom.console.size() <= 1);
  CHECK(dom.html.get("data-js-errors") == "0");
  CHECK(find_tags(dom.tags, {{"id", "not-found"}}).size() == 1);
  CHECK(dom.text.find("<b>nope") == std::string::npos);
}

TEST_CASE("live page in Chromium without JavaScript shows the server's rows", "[browser]") {
  require_chromium();
  Scratch scratch;
  FixtureServer server;
  const Dom dom = dump_dom(server.url("/"), scratch.dir, 500, false);
  CHECK(dom.console.empty());
  CHECK(dom.html.get("data-render") == "pending");  // no script ran
  CHECK(rows(dom) == std::vector<std::string>{kHostile, "sim-hot", "sim-a", "sim-offline"});
  const json first = first_document();
  for (const json& d : first["devices"]) {
    const Tag* sm = cell(dom, d["serial"], "sm");
    REQUIRE(sm);
    if (d["sm"].is_null()) {
      CHECK(sm->text == "\u2013");
    } else {
      CHECK(std::stod(sm->get("data-value")) == d["sm"].get<double>());
    }
  }
  no_markup_from_data(dom);
}

TEST_CASE("live pages in Chromium screenshot as pages and not blanks", "[browser]") {
  require_chromium();
  Scratch scratch;
  FixtureServer server;
  for (const std::string path : {"/", "/devices/sim-a"}) {
    INFO(path);
    const fs::path png = scratch.dir / "page.png";
    auto argv = chromium_args(scratch.dir);
    argv.insert(argv.end(), {"--virtual-time-budget=2000", "--screenshot=" + png.string(), "--window-size=1280,1600",
                             server.url(path)});
    const auto r = jank::test::run(argv, scratch.dir);
    INFO(r.err);
    REQUIRE(r.status == 0);
    jank::test::Image image;
    const std::string error = jank::test::decode_png(jank::test::slurp(png), image);
    INFO(error);
    REQUIRE(error.empty());
    CHECK(image.width == 1280);
    std::set<std::uint32_t> colours;
    std::size_t marked = 0, blue = 0;
    for (std::size_t y = 0; y < image.height; ++y) {
      for (std::size_t x = 0; x < image.width; ++x) {
        const std::uint32_t p = image.pixel(x, y);
        if (colours.size() < 5000) colours.insert(p);
        marked += p == 0xFBE1D3;  // a t-bad cell's background
        blue += p == 0x0072B2;    // links, the SM line
      }
    }
    CHECK(colours.size() > 100);
    CHECK(marked > 200);
    CHECK(blue > 50);
    if (const char* keep = std::getenv("JANK_LIVE_SCREENSHOT_DIR")) {
      fs::copy_file(png, fs::path(keep) / (path == "/" ? "devices.png" : "device.png"), fs::copy_options::overwrite_existing);
    }
  }
}

// The live view's pages (exporters/live_pages.h) from JSON documents as
// /api/devices and /api/devices/SERIAL give them: hostile strings stay text,
// null reads as a dash, worst device first, threshold marks, 404 for an
// unknown or undecodable serial, the assets and their types, the headers.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "exporters/live_pages.h"
#include "exporters/report_assets.h"
#include "parsers/utf8.h"
#include "tests/browser/html_scan.h"

namespace {

using nlohmann::json;
using jank::exporters::FileResponse;
using jank::exporters::live_page;
using jank::exporters::LiveSources;
using jank::test::find_tags;
using jank::test::scan_tags;
using jank::test::Tag;

const std::string kHostile = "<img src=x onerror=alert(1)>\"'&";

json device(const std::string& serial, json sm, double refresh = 60) {
  return {{"serial", serial},
          {"model", "JankSim 0"},
          {"manufacturer", "JankSim"},
          {"release", "14"},
          {"sdk", 34},
          {"refresh_hz", refresh},
          {"status", "following"},
          {"foreground", "com.example.feed"},
          {"sm", sm},
          {"fps", 58.9},
          {"jank_percent", 3.1},
          {"skipped_per_minute", 150},
          {"davey_per_minute", 2},
          {"big_jank_per_minute", 0},
          {"thermal_status", 0},
          {"trace_armed", false},
          {"open_runs", 0},
          {"sampled_at", 1764061000.0},
          {"totals",
           {{"skipped_frames", 12345}, {"davey_frames", 17}, {"big_jank", 3}, {"frozen_frames", 2},
            {"layer_frozen_frames", nullptr}}}};
}

json document(std::vector<json> devices) {
  return {{"generated_at", 1764061000.125}, {"window_seconds", 60}, {"sample_seconds", 5}, {"history_seconds", 900},
          {"devices", devices}};
}

LiveSources sources(const json& doc, std::map<std::string, json> details = {}) {
  LiveSources s;
  s.devices = [doc] { return doc; };
  s.device = [details](std::string_view serial) -> std::optional<json> {
    const auto it = details.find(std::string(serial));
    if (it == details.end()) return std::nullopt;
    return it->second;
  };
  return s;
}

std::string header(const FileResponse& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return {};
}

// The rows of the device table: their serial, in order.
std::vector<std::string> row_serials(const std::vector<Tag>& tags) {
  std::vector<std::string> out;
  for (const auto& t : tags) {
    if (t.name == "tr" && t.has("data-serial")) out.push_back(t.get("data-serial"));
  }
  return out;
}

const Tag* cell(const std::vector<Tag>& tags, const std::string& serial, const std::string& metric) {
  return jank::test::live_cell(tags, serial, metric);
}

}  // namespace

TEST_CASE("live page / escapes a hostile serial and model everywhere") {
  json d = device(kHostile, 50);
  d["model"] = kHostile;
  d["release"] = "</td><script>alert(2)</script>";
  const auto r = live_page("/", sources(document({d})));
  REQUIRE(r);
  CHECK(r->status == 200);
  // No markup of theirs survives: not as a tag, not as an attribute.
  CHECK(r->body.find("<img") == std::string::npos);
  CHECK(r->body.find("<script>alert") == std::string::npos);
  CHECK(r->body.find("onerror=alert(1)>") == std::string::npos);
  CHECK(r->body.find("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;") != std::string::npos);
  const auto tags = scan_tags(r->body);
  // The scanner decodes entities: the values read back exactly.
  REQUIRE(row_serials(tags) == std::vector<std::string>{kHostile});
  const Tag* serial = cell(tags, kHostile, "serial");
  REQUIRE(serial);
  CHECK(serial->get("data-value") == kHostile);
  const Tag* model = cell(tags, kHostile, "model");
  REQUIRE(model);
  CHECK(model->get("data-value") == kHostile);
  CHECK(model->text == kHostile);
  // The link to its page is percent-encoded: no quote or bracket in the URL.
  const auto links = find_tags(tags, {{"href", "/devices/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E%22%27%26"}});
  CHECK(links.size() == 1);
}

TEST_CASE("live page /devices/SERIAL decodes the serial and escapes the device's strings") {
  json d = device(kHostile, 57.5);
  d["model"] = kHostile;
  d["foreground"] = kHostile;
  d["history"] = {{"t", json::array()}};
  d["runs"] = {{{"id", "r1"}, {"name", kHostile}, {"start", 1764060200.0}, {"end", nullptr}}};
  d["traces"] = {{{"id", "sim0_x_20261125T101500Z_skip"}, {"time", 1764060300.5}, {"rule", "skip"},
                  {"url", "javascript:alert(1)"}}};
  const auto src = sources(document({d}), {{kHostile, d}});
  const auto r = live_page("/devices/" + jank::exporters::percent_encode_segment(kHostile), src);
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->body.find("<img") == std::string::npos);
  CHECK(r->body.find("javascript:") == std::string::npos);  // the trace link is made from its id
  const auto tags = scan_tags(r->body);
  CHECK(row_serials(tags) == std::vector<std::string>{kHostile});
  CHECK(find_tags(tags, {{"href", "/traces/sim0_x_20261125T101500Z_skip.pftrace"}}).size() == 1);
  const auto body = find_tags(tags, {{"data-page", "device"}});
  REQUIRE(body.size() == 1);
  CHECK(body[0].get("data-serial") == kHostile);
  CHECK(body[0].get("data-api") == "/api/devices/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E%22%27%26");
  CHECK(find_tags(tags, {{"id", "charts"}}).size() == 1);
  // A serial with a colon, as its link writes it.
  json net = device("192.168.1.5:5555", 60);
  const auto r2 = live_page("/devices/192.168.1.5%3A5555", sources(document({net}), {{"192.168.1.5:5555", net}}));
  REQUIRE(r2);
  CHECK(r2->status == 200);
}

TEST_CASE("live page shows null as a dash, never 0") {
  json d = device("sim0", nullptr);
  d["fps"] = nullptr;
  d["thermal_status"] = nullptr;
  d["release"] = nullptr;
  d["totals"]["big_jank"] = nullptr;
  const auto r = live_page("/", sources(document({d})));
  REQUIRE(r);
  const auto tags = scan_tags(r->body);
  for (const std::string metric : {"sm", "fps", "thermal_status", "release"}) {
    INFO(metric);
    const Tag* c = cell(tags, "sim0", metric);
    REQUIRE(c);
    CHECK(c->text == "\u2013");
    CHECK(!c->has("data-value"));
    CHECK(c->get("class").find("missing") != std::string::npos);
  }
  const auto rows = find_tags(tags, {{"data-serial", "sim0"}});
  REQUIRE(!rows.empty());
  CHECK(rows[0].get("data-total-big-jank") == "null");
  CHECK(rows[0].get("data-total-skipped-frames") == "12345");
  CHECK(rows[0].get("data-total-davey-frames") == "17");
  CHECK(rows[0].get("data-total-frozen-frames") == "2");
  CHECK(rows[0].get("data-total-layer-frozen-frames") == "null");
  const Tag* davey = cell(tags, "sim0", "davey_per_minute");
  REQUIRE(davey);
  CHECK(davey->get("title").find("2 frozen frames in all") != std::string::npos);
  // A value of 0 is a value.
  const Tag* big = cell(tags, "sim0", "big_jank_per_minute");
  REQUIRE(big);
  CHECK(big->text == "0.0");
  CHECK(big->get("data-value") == "0");
}

TEST_CASE("live page lists the worst device first and every column") {
  const auto r = live_page("/", sources(document({device("a", 59.5), device("b", nullptr), device("c", 31.25),
                                                  device("d", 59.5), device("e", 88.0, 120)})));
  REQUIRE(r);
  const auto tags = scan_tags(r->body);
  // SM as a share of the refresh rate ascending (e: 88 of 120 is worse than
  // a: 59.5 of 60); equal shares by serial; no SM last.
  CHECK(row_serials(tags) == std::vector<std::string>{"c", "e", "a", "d", "b"});
  const Tag* e_sm = cell(tags, "e", "sm");
  REQUIRE(e_sm);
  CHECK(e_sm->get("data-value") == "88");
  CHECK(std::stod(e_sm->get("data-sort")) == Approx(88.0 / 120));
  std::vector<std::string> keys;
  for (const auto& t : tags) {
    if (t.name == "th" && t.has("data-key")) keys.push_back(t.get("data-key"));
  }
  CHECK(keys == std::vector<std::string>{"serial", "model", "release", "refresh_hz", "status", "sm", "fps",
                                         "jank_percent", "skipped_per_minute", "davey_per_minute",
                                         "big_jank_per_minute", "thermal_status"});
  const Tag* sm = cell(tags, "c", "sm");
  REQUIRE(sm);
  CHECK(sm->get("data-value") == "31.25");
  CHECK(sm->text == "31.2");
  const Tag* refresh = cell(tags, "e", "refresh_hz");
  REQUIRE(refresh);
  CHECK(refresh->text == "120");
  const auto count = find_tags(tags, {{"id", "device-count"}});
  REQUIRE(count.size() == 1);
  CHECK(count[0].get("data-value") == "5");
  // The links a reader needs from here.
  for (const std::string href : {"/metrics", "/traces/", "/api/devices", "/devices/a"}) {
    INFO(href);
    CHECK(!find_tags(tags, {{"href", href}}).empty());
  }
}

TEST_CASE("live page marks values past their thresholds") {
  json ok = device("ok", 58);  // 96.7 % of 60 Hz
  json warn = device("warn", 50);  // 83 %
  warn["jank_percent"] = 7.5;
  json bad = device("bad", 40);  // 67 %
  bad["jank_percent"] = 12;
  bad["thermal_status"] = 3;
  json hot = device("hot", 100, 120);  // 83 % of 120 Hz
  hot["thermal_status"] = 2;
  const auto r = live_page("/", sources(document({ok, warn, bad, hot})));
  REQUIRE(r);
  const auto tags = scan_tags(r->body);
  auto cls = [&](const std::string& serial, const std::string& metric) {
    const Tag* c = cell(tags, serial, metric);
    REQUIRE(c);
    return c->get("class");
  };
  CHECK(cls("ok", "sm") == "num");
  CHECK(cls("warn", "sm") == "num t-warn");
  CHECK(cls("bad", "sm") == "num t-bad");
  CHECK(cls("hot", "sm") == "num t-warn");
  CHECK(cls("ok", "jank_percent") == "num");
  CHECK(cls("warn", "jank_percent") == "num t-warn");
  CHECK(cls("bad", "jank_percent") == "num t-bad");
  CHECK(cls("bad", "thermal_status") == "num t-bad");
  CHECK(cls("hot", "thermal_status") == "num");
  const Tag* thermal = cell(tags, "bad", "thermal_status");
  REQUIRE(thermal);
  CHECK(thermal->text == "3 severe");
  CHECK(!thermal->get("title").empty());  // a mark says why, not only by colour
}

TEST_CASE("live page answers 404 for an unknown or undecodable serial") {
  const auto src = sources(document({device("sim0", 60)}), {{"sim0", device("sim0", 60)}});
  for (const std::string path : {"/devices/nope", "/devices/", "/devices/%", "/devices/%zz", "/devices/%3"}) {
    INFO(path);
    const auto r = live_page(path, src);
    REQUIRE(r);
    CHECK(r->status == 404);
    CHECK(r->content_type == "text/html; charset=utf-8");
    CHECK(!header(*r, "Content-Security-Policy").empty());
  }
  const auto hostile = live_page("/devices/%3Cb%3E", src);
  REQUIRE(hostile);
  CHECK(hostile->status == 404);
  CHECK(hostile->body.find("<b>") == std::string::npos);
  CHECK(hostile->body.find("&lt;b&gt;") != std::string::npos);
  // Bytes that are not UTF-8 in the address (found by fuzz/fuzz_http_request.cc): the page stays UTF-8.
  const auto bytes = live_page("/devices/e\xff\xff" "5554", src);
  REQUIRE(bytes);
  CHECK(bytes->status == 404);
  CHECK(jank::parsers::is_valid_utf8(bytes->body));
  CHECK(bytes->body.find("e\xef\xbf\xbd\xef\xbf\xbd" "5554") != std::string::npos);
  CHECK(jank::parsers::is_valid_utf8(live_page("/devices/caf%E9", src)->body));
}

TEST_CASE("live page serves its assets with their types and leaves other paths") {
  const auto src = sources(document({}));
  const std::map<std::string, std::string> types = {{"/assets/charts.js", "text/javascript; charset=utf-8"},
                                                    {"/assets/live.js", "text/javascript; charset=utf-8"},
                                                    {"/assets/live.css", "text/css; charset=utf-8"}};
  for (const auto& [path, type] : types) {
    INFO(path);
    const auto r = live_page(path, src);
    REQUIRE(r);
    CHECK(r->status == 200);
    CHECK(r->content_type == type);
    CHECK(!r->body.empty());
    CHECK(header(*r, "X-Content-Type-Options") == "nosniff");
  }
  CHECK(live_page("/assets/charts.js", src)->body == jank::exporters::assets::charts_js());
  // live.css is the report's look followed by the live rules.
  CHECK(live_page("/assets/live.css", src)->body.starts_with(jank::exporters::assets::report_css()));
  for (const std::string path : {"/metrics", "/assets/report.js", "/assets/", "/index.html", "/devices", "//", ""}) {
    INFO(path);
    CHECK(!live_page(path, src));
  }
}

TEST_CASE("live pages carry the content security policy and no inline script or style") {
  json d = device("sim0", 60);
  d["history"] = {{"t", json::array()}};
  const auto src = sources(document({d}), {{"sim0", d}});
  for (const std::string path : {"/", "/devices/sim0", "/devices/none"}) {
    INFO(path);
    const auto r = live_page(path, src);
    REQUIRE(r);
    CHECK(header(*r, "Content-Security-Policy") ==
          "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
          "base-uri 'none'; frame-ancestors 'none'");
    CHECK(header(*r, "Cache-Control") == "no-store");
    const auto tags = scan_tags(r->body);
    for (const auto& t : tags) {
      INFO(t.name);
      if (t.name == "script") CHECK(t.get("src").starts_with("/assets/"));
      CHECK(t.name != "style");
      CHECK(!t.has("style"));
      CHECK(!t.has("onclick"));
      if (t.has("href")) CHECK(t.get("href").starts_with("/"));  // nothing from another host
    }
  }
}

TEST_CASE("live page / without devices still makes a page") {
  const auto r = live_page("/", sources(json::object()));
  REQUIRE(r);
  CHECK(r->status == 200);
  const auto tags = scan_tags(r->body);
  CHECK(row_serials(tags).empty());
  CHECK(find_tags(tags, {{"id", "no-devices"}}).size() == 1);
}

TEST_CASE("live page /devices/SERIAL tells what measuring costs the device, per command kind") {
  json d = device("sim0", 57.5);
  d["history"] = {{"t", json::array()}};
  d["cost"] = {{"per_frame_polling", false},
               {"budget_waits", 7},
               {"commands", {{{"kind", "gfxinfo"}, {"runs", 40}, {"seconds", 2.0}, {"output_bytes", 409600},
                              {"timed", 40}, {"device_seconds", 0.5}},
                             {{"kind", kHostile}, {"runs", 0}, {"seconds", 0}, {"output_bytes", 0}}}}};
  const auto r = live_page("/devices/sim0", sources(document({d}), {{"sim0", d}}));
  REQUIRE(r);
  const auto tags = scan_tags(r->body);
  REQUIRE(find_tags(tags, {{"id", "per-frame"}}).size() == 1);
  CHECK(find_tags(tags, {{"id", "per-frame"}})[0].get("data-value") == "0");
  CHECK(find_tags(tags, {{"id", "budget-waits"}})[0].get("data-value") == "7");
  REQUIRE(find_tags(tags, {{"data-kind", "gfxinfo"}}).size() == 1);
  // Per run: 50 ms from the host, 12.5 ms of it on the device by its shell.
  CHECK(r->body.find("<td><code>gfxinfo</code></td><td data-value=\"40\">40</td><td>50.0</td>"
                     "<td class=\"device-ms\" data-value=\"12.5\">12.5</td><td data-value=\"409600\">400.0</td>") !=
        std::string::npos);
  // A kind is text; no run has no mean, none timed no device time.
  CHECK(r->body.find("<img") == std::string::npos);
  CHECK(r->body.find("<td data-value=\"0\">0</td><td>\u2013</td><td class=\"device-ms\" data-value=\"\u2013\">\u2013</td>") !=
        std::string::npos);
  // No cost known: a note, never zeros.
  d.erase("cost");
  const auto bare = live_page("/devices/sim0", sources(document({d}), {{"sim0", d}}));
  REQUIRE(bare);
  CHECK(bare->body.find("id=\"cost-table\"") == std::string::npos);
  CHECK(bare->body.find("No command yet.") != std::string::npos);
}

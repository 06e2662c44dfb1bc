// The live view in headless Chromium against the real exporter following
// simulated devices (jank_devsim) through Debian's real adb server: `/` has
// one row per device of /metrics, and each row's SM, refresh rate, status and
// totals are /metrics' at the same moment; the screenshot is a page; a
// device's page draws its charts; without JavaScript the rows are
// /api/devices'. Labels browser and rig: it needs both Chromium (else exit 77,
// skipped) and the rig's programs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/browser/chromium.h"
#include "tests/browser/html_scan.h"
#include "tests/browser/png_reader.h"
#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using jank::test::find_tags;
using jank::test::scan_tags;
using jank::test::Tag;

// Four phones at 60, 90, 120 and 60 Hz, janky enough that every one skips
// frames within seconds; the last one throttled (thermal status 4).
struct LiveRig {
  AdbServer adb;
  DevSim sim{{"--devices", "4", "--refresh", "60,90,120,60", "--stall-prob", "0.03", "--skip-bands",
              "3-20:0.5,30-90:0.5", "--sdk", "34", "--games", "com.example.game:60"}};
  TempDir state, conf_dir, scratch;
  std::optional<Exporter> exporter;

  // `sample_seconds`: live_view.sample_seconds.
  explicit LiveRig(int sample_seconds = 1) {
    for (const auto& d : sim.devices()) adb.emulator(d.port);
    for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
    REQUIRE(sim.control("thermal " + sim.devices().back().name + " 4") == "OK");
    const std::string conf = conf_dir.path() + "/c.yaml";
    // Short samples, so that the charts fill quickly. The SM window is long
    // so that, the devices paused, no skip leaves it during a test and SM
    // holds still between two scrapes.
    std::ofstream(conf) << "choreographer:\n  sm_window_seconds: 600\nthermal:\n  poll_interval_seconds: 1\n"
                           "live_view:\n  sample_seconds: " << sample_seconds << "\n";
    exporter.emplace(std::vector<std::uint16_t>{adb.port()}, state.path(), std::vector<std::string>{"--config", conf});
  }

  std::uint16_t port() const { return exporter->port(); }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port()) + path; }

  std::vector<std::string> serials() const {
    std::vector<std::string> out;
    for (const auto& d : sim.devices()) out.push_back(emulator_serial(d));
    return out;
  }

  // Every device followed, with SM, some skipped frames, the hot one's
  // thermal status, and a few samples in its history.
  void wait_for_data() {
    const auto hot = emulator_serial(sim.devices().back());
    REQUIRE(wait_until([&] {
      const auto s = exporter->samples();
      for (const auto& serial : serials()) {
        if (!s.count(series("android_choreographer_device_sm", serial))) return false;
        const auto up = s.find(series("android_device_up", serial));
        if (up == s.end() || up->second != 1) return false;
      }
      return s.count(series("android_thermal_status", hot)) && s.at(series("android_thermal_status", hot)) == 4;
    }, 60000ms, 250ms));
    REQUIRE(wait_until([&] {
      const json doc = get_json("/api/devices");
      if (!doc.is_object() || doc["devices"].size() != serials().size()) return false;
      for (const json& d : doc["devices"]) {
        if (d["sampled_at"].is_null() || d["totals"]["skipped_frames"].is_null() ||
            d["totals"]["skipped_frames"].get<double>() <= 0) {
          return false;
        }
      }
      const json one = get_json("/api/devices/" + serials().front());
      return one.is_object() && one["history"]["t"].size() >= 3;
    }, 60000ms, 250ms));
  }

  // Holds the devices still: counters stop, and (with the long SM window)
  // so do the gauges /metrics is compared on.
  void pause() {
    REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
    std::this_thread::sleep_for(1500ms);  // lines and polls in flight arrive
  }

  json get_json(const std::string& path) const {
    const std::string r = http_get(port(), path);
    const auto body = r.find("\r\n\r\n");
    if (r.find(" 200 ") == std::string::npos || body == std::string::npos) return nullptr;
    return json::parse(r.substr(body + 4), nullptr, false);
  }
};

using jank::test::Dom;

// The DOM once the page's scripts ran through `budget_ms` of virtual time:
// live.js's first fetch (a device page) or a refresh of the table (`/`).
Dom dump_dom(const std::string& url, const fs::path& dir, int budget_ms, bool scripts = true) {
  auto argv = scripts ? jank::test::chromium_args(dir) : jank::test::chromium_args_without_javascript(dir);
  argv.push_back("--virtual-time-budget=" + std::to_string(budget_ms));
  return jank::test::dump_dom(std::move(argv), url, dir);
}

// The value of label `name` in "family{a=\"x\",b=\"y\"}" (escapes undone).
std::string label(const std::string& key, const std::string& name) {
  std::size_t at = key.find("{" + name + "=\"");
  if (at == std::string::npos) at = key.find("," + name + "=\"");
  if (at == std::string::npos) return {};
  std::string out;
  for (std::size_t i = at + name.size() + 3; i < key.size() && key[i] != '"'; ++i) {
    if (key[i] == '\\' && i + 1 < key.size()) {
      ++i;
      out += key[i] == 'n' ? '\n' : key[i];
    } else {
      out += key[i];
    }
  }
  return out;
}

std::string family(const std::string& key) { return key.substr(0, key.find('{')); }

// What /metrics says of one device, on the series the page is compared with.
struct Observed {
  std::optional<double> sm, refresh, big_jank, frozen, layer_frozen;
  double skipped = 0, davey = 0;
  std::string state, activity;  // jank_exporter_device_state, android_device_activity_state
  bool operator==(const Observed&) const = default;
};

std::map<std::string, Observed> observe(const std::string& scrape) {
  std::map<std::string, Observed> out;
  for (const auto& [key, value] : parse_samples(scrape)) {
    const std::string f = family(key), serial = label(key, "serial");
    if (serial.empty()) continue;
    if (f == "jank_exporter_device_state") {
      Observed& o = out[serial];
      if (value == 1) o.state = label(key, "state");
    } else if (f == "android_choreographer_device_sm") {
      out[serial].sm = value;
    } else if (f == "android_display_refresh_rate_hertz") {
      out[serial].refresh = value;
    } else if (f == "android_device_activity_state") {
      if (value == 1) out[serial].activity = label(key, "state");
    } else if (f == "android_choreographer_skipped_frames_total") {
      out[serial].skipped += value;
    } else if (f == "android_hwui_davey_frames_total") {
      out[serial].davey += value;
    } else if (f == "android_layer_perfdog_big_jank_total") {
      out[serial].big_jank = out[serial].big_jank.value_or(0) + value;
    } else if (f == "android_gfxinfo_frozen_frames_total") {
      out[serial].frozen = out[serial].frozen.value_or(0) + value;
    } else if (f == "android_layer_frozen_frames_total") {
      out[serial].layer_frozen = out[serial].layer_frozen.value_or(0) + value;
    }
  }
  return out;
}

std::string describe(const Observed& o) {
  auto opt = [](const std::optional<double>& v) { return v ? std::to_string(*v) : std::string("absent"); };
  return "sm " + opt(o.sm) + ", refresh " + opt(o.refresh) + ", state " + o.state + ", activity " + o.activity +
         ", skipped " + std::to_string(o.skipped) + ", davey " + std::to_string(o.davey) + ", big jank " + opt(o.big_jank) +
         ", frozen " + opt(o.frozen) + ", layer frozen " + opt(o.layer_frozen);
}

const Tag* cell(const std::vector<Tag>& tags, const std::string& serial, const std::string& metric) {
  return jank::test::live_cell(tags, serial, metric);
}

std::vector<Tag> rows(const std::vector<Tag>& tags) {
  std::vector<Tag> out;
  for (const auto& t : tags) {
    if (t.name == "tr" && t.has("data-serial")) out.push_back(t);
  }
  return out;
}

std::optional<double> cell_number(const std::vector<Tag>& tags, const std::string& serial, const std::string& metric) {
  const Tag* c = cell(tags, serial, metric);
  if (!c || !c->has("data-value")) return std::nullopt;
  return std::stod(c->get("data-value"));
}

std::optional<double> total(const Tag& row, const std::string& name) {
  const std::string v = row.get("data-total-" + name);
  if (v.empty() || v == "null") return std::nullopt;
  return std::stod(v);
}

// The page's row of a device against /metrics: what the contract
// (docs/live-view.md) says each shown value is.
void compare_row(const std::vector<Tag>& tags, const Tag& row, const Observed& o) {
  const std::string serial = row.get("data-serial");
  INFO(serial << ": /metrics has " << describe(o));
  CHECK(cell_number(tags, serial, "sm") == o.sm);
  CHECK(cell_number(tags, serial, "refresh_hz") == o.refresh);
  const Tag* status = cell(tags, serial, "status");
  REQUIRE(status);
  const std::string shown = status->get("data-value");
  INFO("status " << shown);
  // following, idle and off are the exporter's `following`, told apart by
  // the device's activity (following: active, or not known yet); the others
  // are its state as it is. An idle panel still shows `following` when a
  // layer presented or an app skipped within the window: never `idle` with
  // skips in it (SM below the refresh rate).
  if (o.state == "following") {
    if (o.activity == "idle") {
      CHECK((shown == "idle" || shown == "following"));
      if (o.sm && o.refresh && *o.sm < *o.refresh) CHECK(shown == "following");
    } else {
      CHECK(shown == (o.activity == "off" ? o.activity : std::string("following")));
    }
  } else {
    CHECK(shown == o.state);
  }
  CHECK(total(row, "skipped-frames") == std::optional<double>(o.skipped));
  CHECK(total(row, "davey-frames") == std::optional<double>(o.davey));
  CHECK(total(row, "big-jank") == o.big_jank);
  CHECK(total(row, "frozen-frames") == o.frozen);
  CHECK(total(row, "layer-frozen-frames") == o.layer_frozen);
}

bool not_blank(const std::string& png, std::uint32_t width, std::uint32_t height) {
  jank::test::Image image;
  const std::string error = jank::test::decode_png(png, image);
  INFO(error);
  REQUIRE(error.empty());
  CHECK(image.width == width);
  CHECK(image.height == height);
  std::set<std::uint32_t> colours;
  double sum = 0, sum2 = 0;
  for (std::size_t y = 0; y < image.height; ++y) {
    for (std::size_t x = 0; x < image.width; ++x) {
      const std::uint32_t p = image.pixel(x, y);
      if (colours.size() < 5000) colours.insert(p);
      const double l = 0.299 * ((p >> 16) & 0xff) + 0.587 * ((p >> 8) & 0xff) + 0.114 * (p & 0xff);
      sum += l;
      sum2 += l * l;
    }
  }
  const double n = static_cast<double>(image.width) * image.height;
  const double variance = sum2 / n - (sum / n) * (sum / n);
  INFO("colours " << colours.size() << ", variance " << variance);
  return colours.size() > 100 && variance > 100;
}

}  // namespace

TEST_CASE("live page in Chromium shows every device of /metrics with its SM refresh status and totals",
          "[browser][rig]") {
  jank::test::require_chromium();
  LiveRig rig;
  rig.wait_for_data();
  rig.pause();

  // /metrics just before and just after the page: when both agree on every
  // compared series, that is what the page saw, whenever it asked.
  Dom dom;
  std::map<std::string, Observed> before, after;
  bool agreed = false;
  for (int attempt = 0; attempt < 8 && !agreed; ++attempt) {
    before = observe(rig.exporter->scrape());
    dom = dump_dom(rig.url("/"), rig.scratch.path(), 3000);
    after = observe(rig.exporter->scrape());
    agreed = before == after;
  }
  REQUIRE(agreed);
  for (const auto& line : dom.console) UNSCOPED_INFO(line);
  CHECK(dom.console.empty());
  CHECK(dom.html.get("data-js-errors") == "0");
  CHECK(dom.html.get("data-render") == "done");
  CHECK(!dom.html.get("data-refreshes").empty());  // the rows are live.js's, from /api/devices

  const auto shown = rows(dom.tags);
  CHECK(shown.size() == after.size());
  CHECK(after.size() == rig.serials().size());
  const auto count = find_tags(dom.tags, {{"id", "device-count"}});
  REQUIRE(count.size() == 1);
  CHECK(count[0].get("data-value") == std::to_string(after.size()));
  std::optional<double> last_share;
  for (const Tag& row : shown) {
    const std::string serial = row.get("data-serial");
    REQUIRE(after.count(serial));
    compare_row(dom.tags, row, after.at(serial));
    // Worst first: SM as a share of the refresh rate.
    const auto sm = cell_number(dom.tags, serial, "sm");
    const auto hz = cell_number(dom.tags, serial, "refresh_hz");
    if (!sm || !hz || *hz <= 0) continue;
    if (last_share) CHECK(*last_share <= *sm / *hz);
    last_share = *sm / *hz;
  }
  // The page's headers: no script but its own, nothing kept.
  const std::string head = http_get(rig.port(), "/");
  CHECK(head.find("\r\nContent-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; img-src "
                  "'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'\r\n") != std::string::npos);
  CHECK(head.find("\r\nCache-Control: no-store\r\n") != std::string::npos);
  CHECK(head.find("\r\nContent-Type: text/html; charset=utf-8\r\n") != std::string::npos);

  // The throttled phone is marked.
  const Tag* hot = cell(dom.tags, emulator_serial(rig.sim.devices().back()), "thermal_status");
  REQUIRE(hot);
  CHECK(hot->get("class") == "num t-bad");

  // The page as a person sees it.
  const fs::path png = fs::path(rig.scratch.path()) / "live.png";
  auto argv = jank::test::chromium_args(rig.scratch.path());
  argv.insert(argv.end(), {"--virtual-time-budget=3000", "--screenshot=" + png.string(), "--window-size=1280,800",
                           rig.url("/")});
  const auto r = jank::test::run(argv, rig.scratch.path());
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(not_blank(jank::test::slurp(png), 1280, 800));
}

TEST_CASE("live device page in Chromium draws the device's charts from /api/devices/SERIAL", "[browser][rig]") {
  jank::test::require_chromium();
  LiveRig rig;
  const std::string serial = rig.serials().front();
  rig.wait_for_data();
  // A run on every device: the charts mark it.
  const std::string body = R"({"package": "com.example.feed", "name": "live-rig"})";
  const std::string started = http_exchange(rig.port(), "POST /api/runs HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                                                        "Content-Type: application/json\r\nContent-Length: " +
                                                            std::to_string(body.size()) + "\r\n\r\n" + body);
  INFO(started);
  REQUIRE(started.find(" 201 ") != std::string::npos);
  REQUIRE(wait_until([&] {
    const json d = rig.get_json("/api/devices/" + serial);
    return d.is_object() && !d["runs"].empty() && d["history"]["t"].size() >= 5;
  }, 30000ms, 250ms));

  const json before = rig.get_json("/api/devices/" + serial);
  const Dom dom = dump_dom(rig.url("/devices/" + serial), rig.scratch.path(), 1500);
  const json after = rig.get_json("/api/devices/" + serial);
  for (const auto& line : dom.console) UNSCOPED_INFO(line);
  CHECK(dom.console.empty());
  CHECK(dom.html.get("data-js-errors") == "0");
  CHECK(dom.html.get("data-render") == "done");
  CHECK(rows(dom.tags).size() == 1);

  std::vector<Tag> sm_paths, skipped, runs;
  bool in_time_chart = false;
  for (const auto& t : dom.tags) {
    if (t.name == "svg") in_time_chart = t.get("data-chart") == "sm-fps" || t.get("data-chart") == "skipped";
    if (t.name == "path" && t.get("data-metric") == "sm") sm_paths.push_back(t);
    if (t.name == "rect" && t.get("data-metric") == "skipped_frames") skipped.push_back(t);
    if (in_time_chart && t.get("data-marker") == "run") runs.push_back(t);
  }
  REQUIRE(sm_paths.size() == 1);
  CHECK(!skipped.empty());
  CHECK(runs.size() == 2);  // one band on each time chart
  if (!after["frame_time"].is_null()) CHECK(!find_tags(dom.tags, {{"data-chart", "frame-time"}}).empty());
  if (after["jank_causes"].is_object() && !after["jank_causes"].empty()) {
    CHECK(!find_tags(dom.tags, {{"data-chart", "jank-causes"}}).empty());
  }
  // What the phone did, one entry per sample; the CPU chart only where the resource poll measured it.
  bool cpu_measured = false;
  for (const char* key : {"app_cpu_percent", "main_thread_cpu_percent", "device_cpu_percent", "app_rss_mib",
                          "cpu_capped"}) {
    INFO(key);
    REQUIRE(after["history"][key].is_array());
    CHECK(after["history"][key].size() == after["history"]["t"].size());
    if (std::string_view(key).ends_with("_percent")) {
      for (const auto& v : after["history"][key]) cpu_measured = cpu_measured || !v.is_null();
    }
  }
  CHECK(find_tags(dom.tags, {{"data-chart", "cpu"}}).empty() == !cpu_measured);

  // What measuring costs the phone: the commands chart on the same axis, and
  // the server's table with gfxinfo's commands between the two fetches.
  REQUIRE(after["history"]["commands_per_second"].is_array());
  CHECK(after["history"]["commands_per_second"].size() == after["history"]["t"].size());
  CHECK(find_tags(dom.tags, {{"data-chart", "commands"}}).size() == 1);
  const auto per_frame = find_tags(dom.tags, {{"id", "per-frame"}});
  REQUIRE(per_frame.size() == 1);
  CHECK(per_frame[0].get("data-value") == "1");  // an open run: the whole device frame by frame
  auto gfxinfo_runs = [](const json& d) {
    for (const auto& c : d["cost"]["commands"]) {
      if (c["kind"] == "gfxinfo") return c["runs"].get<double>();
    }
    return -1.0;
  };
  double shown = -1;
  std::string on_device;
  for (auto it = dom.tags.begin(); it != dom.tags.end(); ++it) {
    if (it->name != "tr" || it->get("data-kind") != "gfxinfo") continue;
    const auto cell = std::find_if(it, dom.tags.end(), [](const Tag& t) { return t.name == "td" && t.has("data-value"); });
    if (cell != dom.tags.end()) shown = std::stod(cell->get("data-value"));
    const auto device_cell = std::find_if(it, dom.tags.end(), [](const Tag& t) { return t.get("class") == "device-ms"; });
    if (device_cell != dom.tags.end()) on_device = device_cell->get("data-value");
  }
  // Its time on the device, by the device's shell: the simulator's dumps are free.
  CHECK(on_device == "0.0");
  CHECK(shown >= gfxinfo_runs(before));
  CHECK(shown <= gfxinfo_runs(after));
  CHECK(shown > 0);

  // The line is the history the page fetched: between `before` and `after`,
  // so the first values of `after` and at least as many as `before` has.
  std::vector<std::string> drawn;
  std::istringstream in(sm_paths[0].get("data-values"));
  for (std::string v; std::getline(in, v, ',');) drawn.push_back(v);
  const json& sm = after["history"]["sm"];
  INFO("drawn " << sm_paths[0].get("data-values") << "; /api/devices/" << serial << " " << sm.dump());
  CHECK(drawn.size() >= before["history"]["sm"].size());
  REQUIRE(drawn.size() <= sm.size());
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    if (sm[i].is_null()) {
      CHECK(drawn[i] == "null");
    } else {
      CHECK(drawn[i] != "null");
      if (drawn[i] != "null") CHECK(std::stod(drawn[i]) == sm[i].get<double>());
    }
  }
}

TEST_CASE("live page without JavaScript lists the rows of /api/devices", "[browser][rig]") {
  jank::test::require_chromium();
  // Rates are over the time the samples cover, so they change with each
  // sample even while the devices are paused: samples far enough apart that
  // a page is often made within one, and tries enough for a loaded machine,
  // where a cold Chromium may take most of a sample.
  LiveRig rig(4);
  rig.wait_for_data();
  rig.pause();
  // Each device's shown fields, as /api/devices gives them.
  auto shown_fields = [](const json& doc) {
    std::map<std::string, json> out;
    for (const json& d : doc["devices"]) {
      json f;
      for (const char* k : {"model", "release", "refresh_hz", "status", "sm", "fps", "jank_percent", "skipped_per_minute",
                            "davey_per_minute", "big_jank_per_minute", "thermal_status", "totals"}) {
        f[k] = d[k];
      }
      out[d["serial"]] = f;
    }
    return out;
  };
  Dom dom;
  std::map<std::string, json> before, after;
  bool agreed = false;
  for (int attempt = 0; attempt < 20 && !agreed; ++attempt) {
    before = shown_fields(rig.get_json("/api/devices"));
    dom = dump_dom(rig.url("/"), rig.scratch.path(), 500, false);
    after = shown_fields(rig.get_json("/api/devices"));
    agreed = before == after;
  }
  REQUIRE(agreed);
  CHECK(dom.console.empty());
  CHECK(dom.html.get("data-render") == "pending");  // no script ran
  const auto shown = rows(dom.tags);
  REQUIRE(shown.size() == after.size());
  for (const Tag& row : shown) {
    const std::string serial = row.get("data-serial");
    INFO(serial);
    REQUIRE(after.count(serial));
    const json& f = after.at(serial);
    for (const char* k : {"refresh_hz", "sm", "fps", "jank_percent", "skipped_per_minute", "davey_per_minute",
                          "big_jank_per_minute", "thermal_status"}) {
      INFO(k);
      const auto v = cell_number(dom.tags, serial, k);
      if (f[k].is_null()) {
        CHECK(!v);
      } else {
        REQUIRE(v);
        CHECK(*v == f[k].get<double>());
      }
    }
    for (const char* k : {"model", "release", "status"}) {
      INFO(k);
      const Tag* c = cell(dom.tags, serial, k);
      REQUIRE(c);
      CHECK(c->get("data-value") == (f[k].is_null() ? std::string() : f[k].get<std::string>()));
    }
    for (const char* k : {"skipped_frames", "davey_frames", "big_jank", "frozen_frames", "layer_frozen_frames"}) {
      std::string name = k;
      std::replace(name.begin(), name.end(), '_', '-');
      const auto v = total(row, name);
      CHECK(v == (f["totals"][k].is_null() ? std::nullopt : std::optional<double>(f["totals"][k].get<double>())));
    }
  }
}

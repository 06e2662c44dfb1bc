// A real Prometheus (Debian's) scrapes the real jank_exporter, which follows
// simulated devices through the real adb server, with the shipped rules
// loaded. Every recording rule and every Grafana dashboard query (template
// variables set to real values) must return data through the HTTP API, every
// rule must evaluate without error, and no query may read a metric the
// exporter does not serve. The farm dashboard is checked the same way on a
// host whose target carries a farm label (rack), with the farm rules loaded.
#include <catch2/catch.hpp>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "exporters/metric_catalogue.h"
#include "tests/daemon/exporter_process.h"
#include "tests/ops/prometheus_process.h"
#include "tests/ops/promql_names.h"
#include "tests/ops/shipped_queries.h"

using namespace jank::daemon_test;
using jank::ops_test::dashboard_queries;
using jank::ops_test::grafana_variable_expr;
using jank::ops_test::PanelQuery;
using jank::ops_test::Prometheus;
using jank::ops_test::promql_metric_names;
using jank::ops_test::reads_alerts_only_while_firing;
using jank::ops_test::Rule;
using jank::ops_test::shipped_rules;
using jank::ops_test::substituted;

namespace {

const std::vector<std::string> kRuleFiles = {jank::ops_test::kShippedRules, jank::ops_test::kShippedAlerts};
const std::string& kFarmRules = jank::ops_test::kShippedFarmRules;
const std::string& kDashboard = jank::ops_test::kShippedDashboard;
const std::string& kFarmDashboard = jank::ops_test::kShippedFarmDashboard;

// Every rule of `rules` is loaded by `prom` and evaluates without error.
void check_rules_loaded(const Prometheus& prom, const std::vector<Rule>& rules) {
  auto groups = prom.api("/api/v1/rules");
  REQUIRE(groups);
  std::set<std::string> seen;
  for (const Json& g : (*groups)["groups"].arr) {
    for (const Json& r : g["rules"].arr) {
      INFO(r["name"].str << ": " << r["lastError"].str);
      CHECK(r["health"].str == "ok");
      seen.insert(r["name"].str);
    }
  }
  for (const auto& r : rules) CHECK(seen.count(r.name) == 1);
}

// The detailed series group (docs/metrics.md, "Series budget") of a family
// `expr` reads, or "" when it reads only the default profile's.
std::string detailed_group_read(const std::string& expr) {
  for (const auto& name : promql_metric_names(expr)) {
    for (const auto& f : jank::exporters::catalogue()) {
      const bool histogram_part = name == std::string(f.name) + "_bucket" || name == std::string(f.name) + "_count" ||
                                  name == std::string(f.name) + "_sum";
      if ((name == f.name || histogram_part) && f.group != jank::metrics::SeriesGroup::core) {
        return std::string(jank::metrics::series_group_name(f.group));
      }
    }
  }
  return "";
}

// Sample names the exporter serves right now (histograms as _bucket/_sum/_count).
std::set<std::string> served_names(const Exporter& ex) {
  std::set<std::string> out;
  std::istringstream in(ex.scrape());
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto end = line.find_first_of("{ ");
    const std::string name = line.substr(0, end);
    if (name.rfind("android_", 0) == 0 || name.rfind("jank_exporter_", 0) == 0) out.insert(name);
  }
  return out;
}

}  // namespace

TEST_CASE("PromQL metric names are told apart from functions labels and keywords") {
  using S = std::set<std::string>;
  CHECK(promql_metric_names(R"(sum by (le, stage) (rate(a_bucket{instance=~"$i", x="y{z}"}[$__rate_interval])))") ==
        S{"a_bucket"});
  CHECK(promql_metric_names("a - ignoring (package) group_right b or c offset 5m") == S{"a", "b", "c"});
  CHECK(promql_metric_names("topk(10, x:y:rate5m) > 0.8 * on (instance) up") == S{"x:y:rate5m", "up"});
  CHECK(promql_metric_names("count(m == 0) or vector(0)") == S{"m"});
  CHECK(promql_metric_names("a - ignoring (p) group_right rate(b[1m])") == S{"a", "b"});
  CHECK(promql_metric_names("histogram_quantile(0.9, sum without (serial) (rate(h[1h] offset 5m)))") == S{"h"});
  CHECK(grafana_variable_expr(R"(label_values(m{a=~"$a"}, serial))") == R"(m{a=~"$a"})");
}

TEST_CASE("the shipped rules, alerts and farm dashboard read only the default profile's series") {
  std::vector<PanelQuery> queries = dashboard_queries(kFarmDashboard);
  for (const auto& r : shipped_rules({kRuleFiles[0], kRuleFiles[1], kFarmRules})) queries.push_back({r.name, r.expr});
  REQUIRE(queries.size() > 80);
  for (const auto& q : queries) {
    INFO(q.panel << ": " << q.expr);
    CHECK(detailed_group_read(q.expr).empty());
  }
  CHECK(detailed_group_read("rate(android_choreographer_skip_size_frames_bucket[1m])") == "distributions");
  CHECK(detailed_group_read("android_gfxinfo_window_frames_total") == "windows");
}

// promtool runs the cases; this keeps a new alert from shipping without them.
TEST_CASE("every shipped alert has firing and not-firing promtool test cases") {
  std::map<std::string, std::pair<int, int>> cases;  // alert → (firing, not firing)
  for (const auto& r : shipped_rules(kRuleFiles)) {
    if (!r.recording) cases[r.name];
  }
  REQUIRE(cases.size() >= 5);
  for (const auto& entry : std::filesystem::directory_iterator(std::string(JANK_SOURCE_DIR) + "/tests/prometheus")) {
    if (entry.path().string().find(".test.yml") == std::string::npos) continue;
    const YAML::Node doc = YAML::LoadFile(entry.path().string());
    for (const auto& test : doc["tests"]) {
      for (const auto& a : test["alert_rule_test"]) {
        const std::string name = a["alertname"].as<std::string>();
        INFO(entry.path().filename().string() << ": " << name);
        CHECK(cases.count(name) == 1);  // no test of an alert that does not exist
        auto& [firing, quiet] = cases[name];
        (a["exp_alerts"] && a["exp_alerts"].size() > 0 ? firing : quiet)++;
      }
    }
  }
  for (const auto& [name, counts] : cases) {
    INFO(name);
    CHECK(counts.first > 0);
    CHECK(counts.second > 0);
  }
}

// What Grafana's import needs and what a person sees: no Grafana package in
// Debian, so the structure is checked here and the queries against Prometheus.
TEST_CASE("the Grafana dashboards are importable and laid out without overlaps") {
  const auto host = jank::rig::parse_json(read_file(kDashboard));
  REQUIRE(host);
  const std::string host_uid = (*host)["uid"].str;
  struct Shipped {
    std::string path;
    std::vector<std::string> variables;  // required
  };
  const auto shipped = GENERATE(values<Shipped>({{kDashboard, {"datasource", "instance", "serial", "package"}},
                                                 {kFarmDashboard, {"datasource", "job", "instance", "rack"}}}));
  INFO(shipped.path);
  const auto dash = jank::rig::parse_json(read_file(shipped.path));
  REQUIRE(dash);
  CHECK(!(*dash)["title"].str.empty());
  CHECK(!(*dash)["uid"].str.empty());
  CHECK((*dash)["schemaVersion"].num >= 30);
  std::set<std::string> variables = {"__rate_interval", "__interval", "__range"};
  for (const Json& v : (*dash)["templating"]["list"].arr) {
    variables.insert(v["name"].str);
    // Multi-valued query variables match everything (a label absent included) on All.
    if (v["type"].str == "query") CHECK(v["allValue"].str == ".*");
  }
  for (const auto& required : shipped.variables) CHECK(variables.count(required) == 1);
  if (shipped.path == kFarmDashboard) {
    CHECK((*dash)["uid"].str != host_uid);
    bool links_host = false;  // the dashboard's own links reach the host dashboard
    for (const Json& l : (*dash)["links"].arr) {
      const std::string& url = l["url"].str;
      const std::string path = url.substr(0, url.find_first_of("?#"));
      links_host |= path == "/d/" + host_uid || path.rfind("/d/" + host_uid + "/", 0) == 0;
    }
    CHECK(links_host);
  }

  struct Box {
    double x, y, w, h;
    std::string title;
  };
  std::vector<Box> boxes;
  std::set<double> ids;
  for (const Json& p : (*dash)["panels"].arr) {
    INFO("panel " << p["title"].str);
    CHECK(ids.insert(p["id"].num).second);
    const Json& g = p["gridPos"];
    CHECK(g["w"].num > 0);
    CHECK(g["x"].num + g["w"].num <= 24);
    boxes.push_back({g["x"].num, g["y"].num, g["w"].num, g["h"].num, p["title"].str});
    if (p["type"].str == "row") continue;
    CHECK(p["datasource"]["uid"].str == "${datasource}");
    CHECK(p["targets"].size() > 0);
    std::set<std::string> refs;
    for (const Json& t : p["targets"].arr) {
      CHECK(refs.insert(t["refId"].str).second);
      // Every $variable is defined (or one of Grafana's own).
      const std::string& e = t["expr"].str;
      for (std::size_t at = e.find('$'); at != std::string::npos; at = e.find('$', at + 1)) {
        std::size_t end = at + 1;
        while (end < e.size() && (std::isalnum(static_cast<unsigned char>(e[end])) || e[end] == '_')) ++end;
        INFO(e);
        CHECK(variables.count(e.substr(at + 1, end - at - 1)) == 1);
      }
    }
  }
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
      const Box& a = boxes[i];
      const Box& b = boxes[j];
      const bool overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
      INFO(a.title << " / " << b.title);
      CHECK_FALSE(overlap);
    }
  }
}

TEST_CASE("a real Prometheus evaluates every dashboard query and recording rule against the live exporter") {
  AdbServer adb;
  // Janky apps with long stalls (Davey frames), 60 and 120 Hz, and beside them
  // a game drawing through a SurfaceView with hitches (Jank, BigJank).
  DevSim sim({"--devices", "2", "--stall-prob", "0.05", "--skip-bands", "3-20:1,30-90:1", "--log-rate", "20",
              "--refresh", "60,120", "--games", "com.example.game:60"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/jank_exporter.yaml";
  {
    // The flight recorder on, so that its panels have a trace to show.
    std::ofstream(conf) << "checkpoint_interval_seconds: 1\n"
                           "gfxinfo:\n  poll_interval_seconds: 1\n  fast_poll_interval_seconds: 1\n"
                           "traces:\n  enabled: true\n  stop_delay_ms: 200\n  rules:\n    skip_frames: 30\n";
  }
  Exporter ex({adb.port()}, state.path(), {"--config", conf});
  const std::string serial = emulator_serial(sim.devices()[0]);
  const std::string package = "com.example.feed";
  // Followed, skipping frames, gfxinfo polled.
  REQUIRE(wait_until([&] {
    const auto s = ex.samples();
    auto has = [&](const std::string& k) { return s.count(k) && s.at(k) > 0; };
    return has(series("android_device_up", serial)) &&
           has(series("android_choreographer_skipped_frames_total", serial, package)) &&
           has(series("android_gfxinfo_frames_rendered_total", serial, package)) &&
           has(series("android_framestats_frames_total", serial, package)) &&
           has(series("android_hwui_davey_frames_total", serial, package)) &&
           has(series("android_app_active_seconds_total", serial, package)) &&
           s.count("jank_exporter_traces_stored") && s.at("jank_exporter_traces_stored") > 0;
  }, 30000ms, 250ms));

  Prometheus prom(ex.port(), kRuleFiles);
  INFO(prom.log());
  REQUIRE(prom.ready());
  // Enough 1 s scrapes for every [10s] rate and [1m]/[5m] rule to have points.
  REQUIRE(prom.scraped(12, 1, 40000ms));

  const std::string instance = "127.0.0.1:" + std::to_string(ex.port());
  auto substitute = [&](const std::string& expr) {
    return substituted(expr, {{"instance", instance}, {"serial", serial}, {"package", package}});
  };
  // Each query gets a few seconds: recording rules first appear one evaluation later.
  auto returns_data = [&](const std::string& expr, std::string& error) {
    return wait_until([&] {
      auto r = prom.query(expr, &error);
      return r && r->size() > 0;
    }, 8000ms, 500ms);
  };

  const auto rules = shipped_rules(kRuleFiles);
  REQUIRE(rules.size() > 20);
  std::set<std::string> known = served_names(ex);
  known.insert("up");  // Prometheus' own per target
  for (const auto& f : jank::exporters::catalogue()) {  // served with series.detailed
    if (f.group == jank::metrics::SeriesGroup::core) continue;
    for (const char* part : {"", "_bucket", "_count", "_sum"}) known.insert(std::string(f.name) + part);
  }
  for (const auto& r : rules) {
    if (r.recording) known.insert(r.name);
  }

  check_rules_loaded(prom, rules);  // one run of the rig for all checks: no SECTIONs

  {  // every recording rule returns data
    std::set<std::string> names;
    for (const auto& r : rules) {
      if (r.recording) names.insert(r.name);
    }
    for (const auto& name : names) {
      std::string error;
      INFO(name << " " << error);
      CHECK(returns_data(name, error));
    }
    // Per device and per app for the device and app under test.
    std::string error;
    CHECK(returns_data("serial_package:android_choreographer_sm:1m{serial=\"" + serial + "\",package=\"" + package +
                           "\"} >= 0",
                       error));
  }

  {  // every dashboard panel query and template variable returns data
    const std::vector<PanelQuery> queries = dashboard_queries(kDashboard);
    REQUIRE(std::count_if(queries.begin(), queries.end(),
                          [](const PanelQuery& q) { return !q.panel.starts_with("variable "); }) >= 30);
    // The exporter runs the default series profile: a query of a detailed
    // group's series is empty, and its panel says which group to turn on.
    std::set<std::string> panels;
    std::size_t detailed = 0;
    for (const auto& q : queries) {
      const std::string expr = substitute(q.expr);
      std::string error;
      INFO(q.panel << ": " << expr << "\n" << error);
      CHECK(expr.find('$') == std::string::npos);  // every variable substituted
      if (const auto group = detailed_group_read(q.expr); !group.empty()) {
        CHECK_THAT(q.description, Catch::Contains("series.detailed names " + group));
        const auto r = prom.query(expr, &error);
        CHECK((r && r->size() == 0));
        ++detailed;
      } else {
        CHECK(returns_data(expr, error));
      }
      panels.insert(q.panel);
    }
    CHECK(detailed >= 6);
    CHECK(panels.count("Skip size distribution") == 1);
    CHECK(panels.count("Frame time quantiles (gfxinfo)") == 1);
    CHECK(panels.count("FPS over active time") == 1);
    CHECK(panels.count("Display state") == 1);
    CHECK(panels.count("FPS and thermal status") == 1);
    CHECK(panels.count("Temperatures") == 1);
    CHECK(panels.count("Jank by cause") == 1);
    CHECK(panels.count("Stage time by cause") == 1);
    CHECK(panels.count("Jank per activity") == 1);
    CHECK(panels.count("App CPU beside SM and FPS") == 1);
    CHECK(panels.count("CPU busy per core") == 1);
    CHECK(panels.count("CPU clock vs allowed max") == 1);
    CHECK(panels.count("GPU clock and busy") == 1);
    CHECK(panels.count("App memory") == 1);
    CHECK(panels.count("Battery current and temperature") == 1);
    CHECK(panels.count("Charging") == 1);
  }

  {  // no query or rule reads a metric the exporter does not serve
    std::vector<PanelQuery> queries = dashboard_queries(kDashboard);
    for (const auto& r : rules) queries.push_back({"rule " + r.name, r.expr});
    std::size_t checked = 0;
    for (const auto& q : queries) {
      for (const auto& name : promql_metric_names(q.expr)) {
        INFO(q.panel << " reads " << name);
        CHECK(known.count(name) == 1);
        ++checked;
      }
    }
    CHECK(checked > 60);
  }
}

// The farm dashboard on a host whose target carries a farm label (rack, as a
// file_sd list gives it), with the per-device, alert and farm rules loaded:
// two devices of two models and two Android releases, three apps and a game
// each, and on the second a new build of one app that janks five times as
// much (the bad build the app-version view exists for). Every query parses; every one that reads the devices returns data,
// with the rack filter set to the host's rack. Only the alert queries may be
// empty (nothing needs to fire here).
TEST_CASE("a real Prometheus evaluates every farm dashboard query against the live exporter with the farm rules") {
  AdbServer adb;
  DevSim sim({"--devices", "2", "--sdk", "33,34", "--stall-prob", "0.05", "--skip-bands", "3-20:1,30-90:1",
              "--refresh", "60,120", "--games", "com.example.game:60"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/jank_exporter.yaml";
  std::ofstream(conf) << "gfxinfo:\n  poll_interval_seconds: 1\n  fast_poll_interval_seconds: 1\n";
  Exporter ex({adb.port()}, state.path(), {"--config", conf});
  const std::string game = "com.example.game";
  // Both devices followed, their facts read, apps skipping frames with their
  // versions read, the game's layer judged.
  REQUIRE(wait_until([&] {
    const auto s = ex.samples();
    const std::string text = ex.scrape();
    for (const auto& d : sim.devices()) {
      const std::string serial = emulator_serial(d);
      auto has = [&](const std::string& k) { return s.count(k) && s.at(k) > 0; };
      if (!has(series("android_device_up", serial)) ||
          !has(series("android_choreographer_skipped_frames_total", serial, "com.example.feed")) ||
          !has(series("android_gfxinfo_frames_rendered_total", serial, "com.example.feed")))
        return false;
      if (text.find("android_device_info{serial=\"" + serial + "\"") == std::string::npos ||
          text.find("android_app_info{serial=\"" + serial + "\",package=\"com.example.feed\"") == std::string::npos)
        return false;
    }
    return text.find("android_layer_perfdog_big_jank_total{") != std::string::npos;
  }, 40000ms, 250ms));
  REQUIRE(sim.control("install " + sim.devices()[1].name + " com.example.feed 2.0 2 5") == "OK");
  REQUIRE(wait_until([&] { return ex.scrape().find("version_name=\"2.0\"") != std::string::npos; }, 20000ms, 250ms));

  std::vector<std::string> rule_files = kRuleFiles;
  rule_files.push_back(kFarmRules);
  Prometheus prom(ex.port(), rule_files, {}, {{"rack", "r7"}});
  INFO(prom.log());
  REQUIRE(prom.ready());
  REQUIRE(prom.scraped(12, 1, 40000ms));

  const std::string instance = "127.0.0.1:" + std::to_string(ex.port());
  auto substitute = [&](const std::string& expr) {
    return substituted(expr, {{"job", "jank_exporter"}, {"instance", instance}, {"rack", "r7"}});
  };
  auto result_size = [&](const std::string& expr, std::string& error) -> std::optional<std::size_t> {
    std::optional<std::size_t> size;
    // Each query gets a few seconds: recording rules first appear one evaluation later.
    wait_until([&] {
      auto r = prom.query(expr, &error);
      if (r) size = r->size();
      return size && *size > 0;
    }, 8000ms, 500ms);
    return size;
  };

  const auto rules = shipped_rules(rule_files);
  check_rules_loaded(prom, rules);  // the farm's included
  {  // the farm-level series: the host's rack kept, both models and releases, no device label left
    std::string error;
    CHECK(result_size("instance:android_device_up:sum{rack=\"r7\"} == 2", error) == 1u);
    CHECK(result_size("sum(model:android_device_up:sum) == 2", error) == 1u);
    CHECK(result_size("model:android_choreographer_skipped_frames:rate5m_per_device", error) == 2u);
    CHECK(result_size("release:android_gfxinfo_janky_frames:ratio_rate5m", error) == 2u);
    CHECK(result_size("package_version:android_gfxinfo_janky_frames:ratio_rate5m{package=\"com.example.feed\"}",
                      error) == 2u);
    // The bad build stands out: its janky ratio above the old build's.
    CHECK(result_size("package_version:android_gfxinfo_janky_frames:ratio_rate5m{package=\"com.example.feed\", "
                      "version_name=\"2.0\"} > on (package) "
                      "package_version:android_gfxinfo_janky_frames:ratio_rate5m{package=\"com.example.feed\", "
                      "version_name=\"1.0\"}",
                      error) == 1u);
    CHECK(result_size("{__name__=~\"(instance|model|release|package_version):.+\", serial!=\"\"}", error) == 0u);
  }

  const auto queries = dashboard_queries(kFarmDashboard);
  REQUIRE(queries.size() >= 20);
  std::set<std::string> panels;
  std::size_t alert_queries = 0;
  for (const auto& q : queries) {
    const std::string expr = substitute(q.expr);
    std::string error;
    INFO(q.panel << ": " << expr << "\n" << error);
    CHECK(expr.find('$') == std::string::npos);  // every variable substituted
    // ALERTS exist only while an alert fires: those must parse, nothing more.
    const bool alerts = reads_alerts_only_while_firing(expr);
    alert_queries += alerts;
    const auto size = result_size(expr, error);
    CHECK(size.has_value());
    if (!alerts) CHECK(size.value_or(0) > 0);
    panels.insert(q.panel);
  }
  CHECK(alert_queries == 1);
  for (const char* title : {"Hosts reporting", "Per host", "Devices up", "Jank alerts firing", "Models", "Janky ratio by model",
                            "Skipped frames/s per device by Android release", "Janky ratio by Android release",
                            "App versions", "Worst devices now", "Firing jank alerts", "variable rack"}) {
    INFO(title);
    CHECK(panels.count(title) == 1);
  }
  {  // the worst devices carry their model from android_device_info
    std::string error;
    for (const auto& q : queries) {
      if (q.panel != "Worst devices now") continue;
      auto r = prom.query(substitute(q.expr), &error);
      REQUIRE(r);
      CHECK(r->size() == 2);
      for (const Json& row : r->arr) CHECK(!row["metric"]["model"].str.empty());
    }
  }
  {  // no farm query reads a metric the exporter does not serve, nor a rule that does not exist
    std::set<std::string> known = served_names(ex);
    known.insert("up");
    known.insert("ALERTS");
    for (const auto& r : rules) {
      if (r.recording) known.insert(r.name);
    }
    std::size_t checked = 0;
    for (const auto& q : queries) {
      for (const auto& name : promql_metric_names(q.expr)) {
        INFO(q.panel << " reads " << name);
        CHECK(known.count(name) == 1);
        ++checked;
      }
    }
    CHECK(checked >= 20);
  }
}

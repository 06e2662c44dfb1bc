// The fleet tier: a farm in small. Two hosts, each its own adb server, two
// simulated phones and a real jank_exporter; one Prometheus (Debian's 2.42)
// in agent mode scrapes both and remote-writes into a real VictoriaMetrics
// (Debian's 1.79), where vmalert evaluates the shipped per-device and farm
// recording rules and writes their results back. The farm's totals in the
// central store must equal the simulators' ground truth exactly, and every
// farm dashboard query must answer there.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/daemon/exporter_process.h"
#include "tests/daemon/sim_truth.h"
#include "tests/ops/prometheus_process.h"
#include "tests/ops/shipped_queries.h"
#include "tests/ops/victoria_metrics_process.h"

using namespace jank::daemon_test;
using jank::ops_test::dashboard_queries;
using jank::ops_test::Prometheus;
using jank::ops_test::PrometheusSetup;
using jank::ops_test::reads_alerts_only_while_firing;
using jank::ops_test::shipped_rules;
using jank::ops_test::substituted;
using jank::ops_test::VictoriaMetrics;
using jank::ops_test::VmAlert;

namespace {

const std::vector<std::string> kRuleFiles = {jank::ops_test::kShippedRules, jank::ops_test::kShippedFarmRules};
const std::string& kFarmDashboard = jank::ops_test::kShippedFarmDashboard;

// One farm host: its adb server, its simulated phones (models JankSim 0 and
// JankSim 1, as on every host) and its exporter with default series. Half
// the stalls reach Choreographer's 30-frame limit, so skips are logged within
// seconds.
struct Host {
  AdbServer adb;
  DevSim sim;
  TempDir state, conf_dir;
  std::unique_ptr<Exporter> ex;

  explicit Host(const std::string& seed)
      : sim({"--devices", "2", "--games", "com.example.game:60", "--stall-prob", "0.05", "--skip-bands", "3-20:1,30-90:1",
             "--seed", seed}) {
    for (const auto& d : sim.devices()) adb.emulator(d.port);
    for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
    const std::string conf = conf_dir.path() + "/jank_exporter.yaml";
    // gfxinfo every second, so that the janky ratios have points within the
    // test; the series profile stays the default.
    std::ofstream(conf) << "gfxinfo:\n  poll_interval_seconds: 1\n  fast_poll_interval_seconds: 1\n";
    ex = std::make_unique<Exporter>(std::vector<std::uint16_t>{adb.port()}, state.path(),
                                    std::vector<std::string>{"--config", conf});
  }
  std::string instance() const { return "127.0.0.1:" + std::to_string(ex->port()); }

  // Every phone followed, its facts read, its apps skipping frames with their
  // versions read and gfxinfo polled, the game's layer judged: what is still
  // missing, "" when nothing is.
  std::string missing() const {
    const auto s = ex->samples();
    const std::string text = ex->scrape();
    for (const auto& d : sim.devices()) {
      const std::string serial = emulator_serial(d);
      auto has = [&](const std::string& k) { return s.count(k) && s.at(k) > 0; };
      for (const auto& k : {series("android_device_up", serial),
                            series("android_choreographer_skipped_frames_total", serial, "com.example.feed"),
                            series("android_gfxinfo_frames_rendered_total", serial, "com.example.feed")}) {
        if (!has(k)) return k;
      }
      for (const auto& k : {"android_device_info{serial=\"" + serial + "\"",
                            "android_app_info{serial=\"" + serial + "\",package=\"com.example.feed\""}) {
        if (text.find(k) == std::string::npos) return k;
      }
    }
    return text.find("android_layer_perfdog_big_jank_total{") != std::string::npos
               ? ""
               : "android_layer_perfdog_big_jank_total";
  }

  // Exported skipped frames of `serial` per package of `like` (absent: 0).
  PerPackage exported(const std::string& serial, const PerPackage& like) const {
    PerPackage out;
    const auto s = ex->samples();
    for (const auto& [package, unused] : like) {
      auto it = s.find(series("android_choreographer_skipped_frames_total", serial, package));
      out[package] = it == s.end() ? 0 : it->second;
    }
    return out;
  }

  // Series the exporter itself serves for `serial` (sample lines naming it).
  std::size_t served_series(const std::string& serial) const {
    std::istringstream in(ex->scrape());
    std::size_t n = 0;
    const std::string needle = "serial=\"" + serial + "\"";
    for (std::string line; std::getline(in, line);) n += line[0] != '#' && line.find(needle) != std::string::npos;
    return n;
  }
};

double value_of(const Json& row) { return std::stod(row["value"].arr.at(1).str); }

}  // namespace

TEST_CASE("two hosts remote_write through a Prometheus agent into VictoriaMetrics where vmalert's farm rules and "
          "every farm dashboard query answer and the totals per model equal the simulators' truth") {
  Host a("11"), b("12");
  std::string missing;
  wait_until([&] { return (missing = a.missing() + b.missing()).empty(); }, 40000ms, 250ms);
  INFO("not yet exported: " << missing);
  REQUIRE(missing.empty());

  VictoriaMetrics vm;
  INFO("VictoriaMetrics log:\n" << vm.log());
  REQUIRE(vm.ready());
  VmAlert vmalert(vm, kRuleFiles);
  INFO("vmalert log:\n" << vmalert.log());
  REQUIRE(vmalert.ready());
  PrometheusSetup setup;
  setup.targets = {a.ex->port(), b.ex->port()};
  setup.agent = true;
  setup.remote_write_url = vm.remote_write_url();
  setup.labels_per_target = {{{"rack", "r1"}}, {{"rack", "r2"}}};
  Prometheus agent(setup);
  INFO("Prometheus agent log:\n" << agent.log());
  REQUIRE(agent.ready());

  auto result = [&](const std::string& q, std::string* error = nullptr) { return vm.query(q, error); };
  // Seconds of jank in the store: both hosts scraped and forwarded at least
  // 12 times, so that every [10s] rate and [5m] rule has points.
  REQUIRE(wait_until([&] {
    auto r = result("count_over_time(up{job=\"jank_exporter\"}[1m]) >= 12 and up == 1");
    return r && r->size() == 2;
  }, 60000ms, 500ms));

  // Paused, the simulators' outputs and truth agree; each exporter catches up
  // to its phones' truth exactly.
  REQUIRE(a.sim.control("pause").rfind("OK", 0) == 0);
  REQUIRE(b.sim.control("pause").rfind("OK", 0) == 0);
  std::map<std::string, double> per_model;  // model → truth summed over both hosts
  for (Host* h : {&a, &b}) {
    const Json truth = h->sim.truth();
    for (const auto& d : h->sim.devices()) {
      const Json* dev = DevSim::device(truth, d.name);
      REQUIRE(dev != nullptr);
      const PerPackage expected = exact_frames(*dev);
      REQUIRE(sum(expected) > 0);
      const std::string serial = emulator_serial(d);
      PerPackage got;
      wait_until([&] { return (got = h->exported(serial, expected)) == expected; }, 20000ms, 250ms);
      INFO(h->instance() << " " << serial << " truth: " << show(expected) << "\nexported: " << show(got));
      REQUIRE(got == expected);
      per_model[d.model] += sum(expected);
    }
  }
  REQUIRE(per_model.size() == 2);  // JankSim 0 and JankSim 1, one phone of each on each host

  {  // the central store's totals per model: both hosts' phones, exactly the truth
    const std::string q = "sum by (model) (android_choreographer_skipped_frames_total * on (instance, serial) "
                          "group_left (model) android_device_info)";
    std::map<std::string, double> stored;
    std::string error;
    wait_until([&] {
      stored.clear();
      if (auto r = result(q, &error)) {
        for (const Json& row : r->arr) stored[row["metric"]["model"].str] = value_of(row);
      }
      return stored == per_model;
    }, 30000ms, 500ms);
    for (const auto& [model, want] : per_model) {
      INFO(model << ": truth " << want << ", VictoriaMetrics " << (stored.count(model) ? stored[model] : -1) << " "
                 << error);
      CHECK(stored.count(model) == 1);
      CHECK(stored[model] == want);
    }
    CHECK(stored.size() == per_model.size());
  }

  {  // every rule of both files loaded and evaluating on VictoriaMetrics
    auto groups = vmalert.rules();
    REQUIRE(groups);
    std::set<std::string> seen;
    for (const Json& g : (*groups)["groups"].arr) {
      for (const Json& r : g["rules"].arr) {
        INFO(r["name"].str << ": " << r["lastError"].str);
        CHECK(r["health"].str == "ok");
        seen.insert(r["name"].str);
      }
    }
    for (const auto& r : shipped_rules(kRuleFiles)) {
      INFO(r.name);
      CHECK(seen.count(r.name) == 1);
    }
  }

  {  // per host: two phones up on each, the host's rack kept
    std::map<std::string, std::pair<double, std::string>> hosts;  // instance → (devices up, rack)
    wait_until([&] {
      hosts.clear();
      if (auto r = result("instance:android_device_up:sum")) {
        for (const Json& row : r->arr) hosts[row["metric"]["instance"].str] = {value_of(row), row["metric"]["rack"].str};
      }
      return hosts.size() == 2 && hosts[a.instance()].first == 2 && hosts[b.instance()].first == 2;
    }, 15000ms, 500ms);
    CHECK(hosts.size() == 2);
    CHECK(hosts[a.instance()] == std::make_pair(2.0, std::string("r1")));
    CHECK(hosts[b.instance()] == std::make_pair(2.0, std::string("r2")));
  }

  {  // the rack each target carries arrives on the raw series
    for (const auto& [host, rack] : {std::pair<Host*, std::string>{&a, "r1"}, {&b, "r2"}}) {
      auto r = result("android_device_up{rack=\"" + rack + "\"}");
      REQUIRE(r);
      CHECK(r->size() == 2);
      for (const Json& row : r->arr) CHECK(row["metric"]["instance"].str == host->instance());
    }
  }

  {  // every farm-level recorded series is in the store, without a device label
    std::size_t farm = 0;
    for (const auto& r : shipped_rules({kRuleFiles[1]})) {
      const bool farm_level = r.name.rfind("model:", 0) == 0 || r.name.rfind("release:", 0) == 0 ||
                              r.name.rfind("package_version:", 0) == 0 || r.name.rfind("instance:", 0) == 0;
      REQUIRE(farm_level);
      std::optional<Json> rows;
      std::string error;
      wait_until([&] {
        rows = result(r.name, &error);
        return rows && rows->size() > 0;
      }, 10000ms, 500ms);
      INFO(r.name << " " << error);
      REQUIRE(rows);
      CHECK(rows->size() > 0);
      for (const Json& row : rows->arr) CHECK(row["metric"]["serial"].str.empty());
      ++farm;
    }
    CHECK(farm >= 10);
    auto models = result("model:android_device_up:sum");
    REQUIRE(models);
    CHECK(models->size() == 2);
    for (const Json& row : models->arr) CHECK(value_of(row) == 2);  // one phone of each model on each host
    auto with_serial = result("{__name__=~\"(instance|model|release|package_version):.+\", serial!=\"\"}");
    REQUIRE(with_serial);
    CHECK(with_serial->size() == 0);
  }

  {  // every farm dashboard query answers on VictoriaMetrics (both hosts, both racks selected)
    const auto queries = dashboard_queries(kFarmDashboard);
    REQUIRE(queries.size() >= 20);
    const std::vector<std::pair<std::string, std::string>> variables = {
        {"job", "jank_exporter"}, {"instance", a.instance() + "|" + b.instance()}, {"rack", "r1|r2"}};
    std::size_t alert_queries = 0;
    for (const auto& q : queries) {
      const std::string expr = substituted(q.expr, variables);
      const bool alerts = reads_alerts_only_while_firing(expr);
      alert_queries += alerts;
      std::optional<std::size_t> size;
      std::string error;
      wait_until([&] {
        auto r = result(expr, &error);
        if (r) size = r->size();
        return size && (alerts || *size > 0);
      }, 8000ms, 500ms);
      INFO(q.panel << ": " << expr << "\n" << error);
      CHECK(expr.find('$') == std::string::npos);
      CHECK(size.has_value());  // parsed and answered, ALERTS queries included
      if (!alerts) CHECK(size.value_or(0) > 0);
    }
    CHECK(alert_queries == 1);
  }

  {  // the store's size, for docs/operations.md (Sizing)
    auto count = [&](const std::string& q) {
      auto r = result(q);
      return r && r->size() == 1 ? value_of(r->arr[0]) : -1.0;
    };
    std::cout << "fleet: VictoriaMetrics holds " << count("count({__name__!=\"\"})") << " series: "
              << count("count({__name__!~\".*:.*\", job=\"jank_exporter\"})") << " scraped, "
              << count("count({__name__=~\".*:.*\"})") << " recorded by vmalert\n";
    for (Host* h : {&a, &b}) {
      for (const auto& d : h->sim.devices()) {
        const std::string serial = emulator_serial(d);
        const std::string sel = "instance=\"" + h->instance() + "\", serial=\"" + serial + "\"";
        const double raw = count("count({__name__!~\".*:.*\", " + sel + "})");
        const double recorded = count("count({__name__=~\".*:.*\", " + sel + "})");
        std::cout << "fleet: " << h->instance() << " " << serial << " (" << d.model << "): " << raw
                  << " raw series in VictoriaMetrics (the exporter serves " << h->served_series(serial) << "), "
                  << recorded << " recorded per device\n";
        // Every series the exporter serves arrived; a series the exporter
        // dropped within the store's 5-minute lookback is still counted there.
        CHECK(raw >= static_cast<double>(h->served_series(serial)));
      }
    }
  }
}

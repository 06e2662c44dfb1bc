// The shipped rules and Grafana dashboards as the ops tests read them: each
// rule's name and expression, each dashboard query as Grafana would send it.
// Shared by the tests that evaluate them on Prometheus and on VictoriaMetrics.
#pragma once

#include <catch2/catch.hpp>

#include <yaml-cpp/yaml.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/daemon/exporter_process.h"
#include "tests/ops/promql_names.h"

namespace jank::ops_test {

using jank::rig::Json;

// The shipped files in the source tree (the package installs them under
// /usr/share/jank_exporter).
inline const std::string kShippedRules = std::string(JANK_SOURCE_DIR) + "/config/prometheus/jank_exporter.rules.yml";
inline const std::string kShippedAlerts = std::string(JANK_SOURCE_DIR) + "/config/prometheus/jank_exporter.alerts.yml";
inline const std::string kShippedFarmRules =
    std::string(JANK_SOURCE_DIR) + "/config/prometheus/jank_exporter.farm.rules.yml";
inline const std::string kShippedDashboard = std::string(JANK_SOURCE_DIR) + "/config/grafana/jank_exporter.json";
inline const std::string kShippedFarmDashboard =
    std::string(JANK_SOURCE_DIR) + "/config/grafana/jank_exporter_farm.json";

struct Rule {
  std::string name;  // record or alert name
  std::string expr;
  bool recording = false;
};

inline std::vector<Rule> shipped_rules(const std::vector<std::string>& files) {
  std::vector<Rule> out;
  for (const auto& file : files) {
    const YAML::Node doc = YAML::LoadFile(file);
    for (const auto& group : doc["groups"]) {
      for (const auto& r : group["rules"]) {
        const bool recording = static_cast<bool>(r["record"]);
        out.push_back({r[recording ? "record" : "alert"].as<std::string>(), r["expr"].as<std::string>(), recording});
      }
    }
  }
  return out;
}

struct PanelQuery {
  std::string panel;
  std::string expr;
  std::string description = {};
};

inline void collect_panels(const Json& panels, std::vector<PanelQuery>& out) {
  for (const Json& p : panels.arr) {
    collect_panels(p["panels"], out);  // rows hold their panels when collapsed
    for (const Json& t : p["targets"].arr) {
      if (!t["expr"].str.empty()) out.push_back({p["title"].str, t["expr"].str, p["description"].str});
    }
  }
}

// Every panel query of a dashboard, then every query variable's series selector.
inline std::vector<PanelQuery> dashboard_queries(const std::string& path) {
  const auto dash = jank::rig::parse_json(jank::rig::read_file(path));
  REQUIRE(dash);
  std::vector<PanelQuery> queries;
  collect_panels((*dash)["panels"], queries);
  for (const Json& v : (*dash)["templating"]["list"].arr) {
    if (v["type"].str == "query") queries.push_back({"variable " + v["name"].str, grafana_variable_expr(v["query"].str)});
  }
  return queries;
}

inline std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
  return s;
}

// A dashboard query as Grafana sends it: its ranges and `variables` filled in.
inline std::string substituted(std::string expr, const std::vector<std::pair<std::string, std::string>>& variables) {
  expr = replace_all(expr, "$__rate_interval", "10s");
  expr = replace_all(expr, "$__range", "1m");
  for (const auto& [name, value] : variables) expr = replace_all(expr, "$" + name, value);
  return expr;
}

// ALERTS exist only while an alert fires: a query that reads them bare (not
// `… or vector(0)`) may be empty where nothing needs to fire.
inline bool reads_alerts_only_while_firing(const std::string& expr) {
  return expr.find("ALERTS{") != std::string::npos && expr.find("or vector(0)") == std::string::npos;
}

}  // namespace jank::ops_test

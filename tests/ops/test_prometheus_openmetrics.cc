// Debian's Prometheus 2.42 scrapes the exporter with its own default Accept
// header, so it reads the OpenMetrics answer with its own parser (promtool
// 2.42 only checks the 0.0.4 text). Exact cross-checks: the scrape's sample
// count and series (names and labels) against the 0.0.4 text of the same
// moment; the exemplars Prometheus stores against the ones the store holds.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "exporters/http_server.h"
#include "exporters/prometheus_collector.h"
#include "tests/daemon/exporter_process.h"
#include "tests/ops/prometheus_process.h"
#include "tests/unit/exposition_fixture.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/traces.h"

using namespace jank::daemon_test;
using jank::ops_test::Prometheus;
using jank::ops_test::http_body;
using jank::ops_test::url_encode;

namespace {

const std::string kPrometheusAccept =
    "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
    "text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

// A series as one string: its name, then its labels sorted by name.
using Series = std::string;
Series series_key(const std::string& name, const std::map<std::string, std::string>& labels) {
  std::string key = name + "{";
  for (const auto& [k, v] : labels) key += k + "=" + v + "\x1f";
  return key + "}";
}

// The series of a 0.0.4 text (an HTTP response or the bare text), label
// values unescaped; `lines` counts the sample lines (one per series).
std::set<Series> exposition_series(const std::string& text, std::size_t* lines = nullptr) {
  const auto body_at = text.find("\r\n\r\n");
  std::istringstream in(body_at == std::string::npos ? text : text.substr(body_at + 4));
  std::set<Series> out;
  if (lines) *lines = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (lines) ++*lines;
    std::size_t at = line.find_first_of("{ ");
    const std::string name = line.substr(0, at);
    std::map<std::string, std::string> labels;
    if (at != std::string::npos && line[at] == '{') {
      ++at;
      while (at < line.size() && line[at] != '}') {
        const auto eq = line.find("=\"", at);
        const std::string label = line.substr(at, eq - at);
        std::string value;
        for (at = eq + 2; at < line.size() && line[at] != '"'; ++at) {
          if (line[at] == '\\' && at + 1 < line.size()) {
            ++at;
            value += line[at] == 'n' ? '\n' : line[at];
          } else {
            value += line[at];
          }
        }
        labels[label] = value;
        at += line[at + 1] == ',' ? 2 : 1;  // past the quote and a comma
      }
    }
    out.insert(series_key(name, labels));
  }
  return out;
}

// The series Prometheus holds from one scrape of the job (its own up and
// scrape_* series and the target labels job and instance left out).
std::set<Series> scraped_series(const jank::rig::Json& result) {
  std::set<Series> out;
  for (const auto& s : result.arr) {
    std::string name;
    std::map<std::string, std::string> labels;
    for (const auto& [k, v] : s["metric"].obj) {
      if (k == "__name__") {
        name = v.str;
      } else if (k != "job" && k != "instance") {
        labels[k] = v.str;
      }
    }
    if (name == "up" || name.starts_with("scrape_")) continue;
    out.insert(series_key(name, labels));
  }
  return out;
}

// Compares Prometheus's newest scrape with `expected` (the 0.0.4 series of
// the same moment); `why` says what differed.
bool newest_scrape_matches(const Prometheus& prom, const std::set<Series>& expected, std::size_t expected_lines,
                           std::string& why) {
  const auto stamp = prom.query("timestamp(scrape_samples_scraped{job=\"jank_exporter\"})");
  if (!stamp || stamp->size() != 1) {
    why = "no scrape yet";
    return false;
  }
  const std::string at = (*stamp)[0]["value"][1].str;  // the scrape's own time: its samples, stale ones gone
  const auto count = prom.query("scrape_samples_scraped{job=\"jank_exporter\"}", nullptr, at);
  const auto all = prom.query("{job=\"jank_exporter\"}", nullptr, at);
  if (!count || count->size() != 1 || !all) {
    why = "query failed";
    return false;
  }
  const double scraped = std::stod((*count)[0]["value"][1].str);
  const auto series = scraped_series(*all);
  if (scraped != static_cast<double>(expected_lines) || series != expected) {
    std::ostringstream s;
    s << "scrape_samples_scraped " << scraped << ", 0.0.4 samples " << expected_lines << "; series " << series.size()
      << " vs " << expected.size();
    for (const auto& k : expected) {
      if (!series.count(k)) s << "\n  only in 0.0.4: " << k;
    }
    for (const auto& k : series) {
      if (!expected.count(k)) s << "\n  only in Prometheus: " << k;
    }
    why = s.str();
    return false;
  }
  return true;
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

TEST_CASE("a real Prometheus scrapes the live exporter in OpenMetrics with its default Accept header") {
  AdbServer adb;
  DevSim sim({"--devices", "2", "--stall-prob", "0.05", "--log-rate", "20", "--games", "com.example.game:60"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  TempDir state;
  Exporter ex({adb.port()}, state.path());
  const std::string serial = emulator_serial(sim.devices()[0]);
  REQUIRE(wait_until([&] {
    const auto s = ex.samples();
    const auto up = s.find(series("android_device_up", serial));
    const auto skipped = s.find(series("android_choreographer_skipped_frames_total", serial, "com.example.feed"));
    return up != s.end() && up->second == 1 && skipped != s.end() && skipped->second > 0;
  }, 30000ms, 250ms));

  // Prometheus's header gets OpenMetrics.
  const std::string om = http_get(ex.port(), "/metrics", 5000ms, "Accept: " + kPrometheusAccept + "\r\n");
  CHECK_THAT(om, Catch::Contains("\r\nContent-Type: application/openmetrics-text; version=1.0.0; charset=utf-8\r\n"));
  CHECK_THAT(om, Catch::Contains("\n# TYPE android_choreographer_skipped_frames counter\n"));
  CHECK_THAT(om, Catch::EndsWith("\n# EOF\n"));

  Prometheus prom(ex.port());
  INFO(prom.log());
  REQUIRE(prom.ready());
  REQUIRE(wait_until([&] {
    const auto r = prom.query("up{job=\"jank_exporter\"} == 1");
    return r && r->size() == 1;
  }, 30000ms, 250ms));

  // A paused simulation adds no apps, windows or layers: the series hold
  // still, and a scrape between two equal 0.0.4 texts must be that text.
  CHECK_THAT(sim.control("pause"), Catch::StartsWith("OK"));
  std::string why;
  const bool matched = wait_until([&] {
    std::size_t lines_before = 0, lines_after = 0;
    const auto before = exposition_series(ex.scrape(), &lines_before);
    const auto stamp = [&] {
      const auto r = prom.query("timestamp(scrape_samples_scraped{job=\"jank_exporter\"})");
      return r && r->size() == 1 ? (*r)[0]["value"][1].str : std::string();
    };
    const std::string first = stamp();
    if (!wait_until([&] { return stamp() != first; }, 5000ms, 100ms)) {
      why = "no new scrape";
      return false;
    }
    const auto after = exposition_series(ex.scrape(), &lines_after);
    if (before != after) {
      why = "the 0.0.4 series changed meanwhile";
      return false;
    }
    REQUIRE(lines_before == before.size());  // every sample its own series
    return newest_scrape_matches(prom, before, lines_before, why);
  }, 60000ms, 500ms);
  INFO(why);
  CHECK(matched);
  // Prometheus read OpenMetrics: its metadata names the counter family
  // without _total and knows its unit, which the 0.0.4 text has no line for.
  const auto metadata = prom.api("/api/v1/metadata?metric=android_choreographer_skipped_frames");
  REQUIRE(metadata);
  const auto& entries = (*metadata)["android_choreographer_skipped_frames"];
  REQUIRE(entries.size() == 1);
  CHECK(entries[0]["type"].str == "counter");
  CHECK(entries[0]["unit"].str == "frames");
  CHECK(entries[0]["help"].str == "Frames Choreographer reported skipped (sum of N in \"Skipped N frames!\").");
  const auto up = prom.query("up{job=\"jank_exporter\"}");
  REQUIRE(up);
  REQUIRE(up->size() == 1);
  CHECK((*up)[0]["value"][1].str == "1");
}

// The store with every family and an exemplar on each counter the flight
// recorder decorates, served by the real HTTP server; Prometheus with
// exemplar storage must hold each exemplar as written (ms precision).
TEST_CASE("a real Prometheus stores the exemplars of the OpenMetrics answer") {
  using jank::metrics::ExemplarCounter;
  jank::metrics::Store store;
  jank::metrics::DaemonMetrics daemon;
  jank::metrics::RunBook runs;
  jank::test::fill_every_feature(store, daemon);
  jank::test::fill_runs(store, runs);
  auto& d = store.device("s");
  REQUIRE(jank::metrics::layers_of(d).size() == 1);
  const std::string layer = jank::metrics::layers_of(d).begin()->first;
  const std::int64_t at_ms = now_ms() - 5000;
  const std::int64_t at_ns = at_ms * 1'000'000 + 456'789;  // below a ms: Prometheus keeps ms
  struct Expected {
    std::string family, trace_id, value;
  };
  const std::vector<Expected> expected = {
      {"android_choreographer_skipped_frames_total", "s_p_20261124T031502Z_skip", "57"},
      {"android_hwui_davey_frames_total", "s_p_20261124T031502Z_davey", "800"},
      {"android_layer_frames_presented_total", "s_p_20261124T031502Z_fps", "12.5"},
      {"android_layer_perfdog_big_jank_total", "s_p_20261124T031502Z_big_jank", "3"},
  };
  jank::metrics::trace_state(d).exemplars[{ExemplarCounter::skipped_frames, "p", ""}] = {expected[0].trace_id, 57, at_ns};
  jank::metrics::trace_state(d).exemplars[{ExemplarCounter::davey_frames, "p", ""}] = {expected[1].trace_id, 800, at_ns};
  jank::metrics::trace_state(d).exemplars[{ExemplarCounter::layer_frames_presented, "p", layer}] = {expected[2].trace_id, 12.5, at_ns};
  jank::metrics::trace_state(d).exemplars[{ExemplarCounter::layer_big_jank, "p", layer}] = {expected[3].trace_id, 3, at_ns};
  auto collector = std::make_shared<jank::exporters::StoreCollector>(store, jank::exporters::input_time_now(), nullptr,
                                                                     &daemon, &runs);
  jank::exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  jank::exporters::HttpServer server(options, jank::exporters::text_source(collector), {});
  const auto port = static_cast<std::uint16_t>(server.ports().at(0));

  Prometheus prom(port, {}, {"--enable-feature=exemplar-storage"});
  INFO(prom.log());
  REQUIRE(prom.ready());
  REQUIRE(wait_until([&] {
    const auto r = prom.query("up{job=\"jank_exporter\"} == 1");
    return r && r->size() == 1;
  }, 30000ms, 250ms));
  // The store holds still: every scrape is exactly its 0.0.4 text's series.
  std::size_t lines = 0;
  const auto classic = exposition_series(collector->Text().str(), &lines);
  REQUIRE(lines == classic.size());
  std::string why;
  CHECK(wait_until([&] { return newest_scrape_matches(prom, classic, lines, why); }, 10000ms, 250ms));
  INFO(why);

  std::map<std::string, std::string> found;  // family → "trace_id value timestamp_ms layer"
  const std::string path =
      "/api/v1/query_exemplars?query=" +
      url_encode("{__name__=~\"android_choreographer_skipped_frames_total|android_hwui_davey_frames_total|"
                 "android_layer_frames_presented_total|android_layer_perfdog_big_jank_total\"}") +
      "&start=" + std::to_string(at_ms / 1000 - 600) + "&end=" + std::to_string(at_ms / 1000 + 600);
  CHECK(wait_until([&] {
    found.clear();
    const auto data = prom.api(path);
    if (!data) return false;
    for (const auto& s : data->arr) {
      for (const auto& e : s["exemplars"].arr) {
        const double ts = e["timestamp"].type == jank::rig::Json::Type::number ? e["timestamp"].num
                                                                                : std::stod(e["timestamp"].str);
        found[s["seriesLabels"]["__name__"].str] = e["labels"]["trace_id"].str + " " + e["value"].str + " " +
                                                    std::to_string(std::llround(ts * 1000)) + " " +
                                                    s["seriesLabels"]["layer"].str;
      }
    }
    return found.size() == expected.size();
  }, 10000ms, 250ms));
  for (const auto& e : expected) {
    INFO(e.family);
    const std::string on_layer = e.family.starts_with("android_layer_") ? layer : "";
    CHECK(found[e.family] == e.trace_id + " " + e.value + " " + std::to_string(at_ms) + " " + on_layer);
  }
}

// The flight recorder end to end on the rig: a scripted spike on a simulated
// device becomes a trace, and the exemplar Prometheus stores for the counter
// that fired names that trace.
TEST_CASE("a real Prometheus with exemplar storage links a rig spike to the trace the exporter took") {
  const std::string app = "com.example.feed";
  AdbServer adb;
  DevSim sim({"--devices", "1", "--sdk", "34", "--packages", app, "--stall-prob", "0", "--log-rate", "1"});
  adb.emulator(sim.devices()[0].port);
  const std::string serial = emulator_serial(sim.devices()[0]);
  REQUIRE(adb.wait_state(serial, "device", 10000ms));
  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/c.yaml";
  std::ofstream(conf) << "traces:\n  enabled: true\n  stop_delay_ms: 200\n  check_interval_seconds: 1\n"
                         "  rules:\n    skip_frames: 50\n";
  Exporter ex({adb.port()}, state.path(), {"--config", conf});
  const std::string armed = "jank_exporter_trace_armed{serial=\"" + serial + "\"}";
  REQUIRE(wait_until([&] { return ex.value(armed) == 1; }, 40000ms, 250ms));
  Prometheus prom(ex.port(), {}, {"--enable-feature=exemplar-storage"});
  INFO(prom.log());
  REQUIRE(prom.ready());
  const auto start_s = now_ms() / 1000;
  REQUIRE(sim.control("skip " + sim.devices()[0].name + " " + app + " 75").rfind("OK", 0) == 0);
  const std::string taken = "jank_exporter_traces_taken_total{serial=\"" + serial + "\",rule=\"skip\"}";
  REQUIRE(wait_until([&] { return ex.value(taken) == 1; }, 30000ms, 250ms));
  const auto list = jank::rig::parse_json(http_body(ex.port(), "/traces/"));
  REQUIRE(list);
  REQUIRE((*list)["traces"].arr.size() == 1);
  const std::string id = (*list)["traces"][0]["id"].str;

  const std::string path = "/api/v1/query_exemplars?query=" +
                           url_encode("android_choreographer_skipped_frames_total{serial=\"" + serial + "\"}") +
                           "&start=" + std::to_string(start_s - 60) + "&end=" + std::to_string(start_s + 600);
  std::string found;
  CHECK(wait_until([&] {
    const auto data = prom.api(path);
    if (!data) return false;
    for (const auto& s : data->arr) {
      for (const auto& e : s["exemplars"].arr) found = e["labels"]["trace_id"].str + " " + e["value"].str;
    }
    return !found.empty();
  }, 20000ms, 500ms));
  CHECK(found == id + " 75");
}

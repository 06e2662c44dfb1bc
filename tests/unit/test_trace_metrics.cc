// The flight recorder's families as the exposition writes them: per live
// device from DeviceMetrics::live.trace, for the directory from
// DaemonMetrics::traces (docs/traces.md, Metrics).
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "exporters/prometheus_collector.h"
#include "metrics/daemon_status.h"
#include "metrics/store.h"
#include "metrics/sources/traces.h"

using namespace jank;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kT0 = 1'795'490'102 * kSec;  // 2026-11-24T03:15:02Z

// The samples of the trace families, in exposition order.
std::vector<std::string> trace_samples(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("jank_exporter_trace")) out.push_back(line);
  }
  return out;
}

metrics::StoredTrace stored(std::string id, std::string serial, std::string rule, std::int64_t at_ns) {
  metrics::StoredTrace t;
  t.id = std::move(id);
  t.serial = std::move(serial);
  t.package = "com.example.feed";
  t.rule = std::move(rule);
  t.triggered_at_ns = at_ns;
  return t;
}

}  // namespace

TEST_CASE("recorder and trace directory status render the exact trace series", "[exporter][traces]") {
  metrics::Store store;
  metrics::DaemonMetrics daemon;
  auto& d = store.device("emulator-5554");
  d.live.live = true;
  auto& t = jank::metrics::trace_state(d).status;
  t.armed = true;
  t.sessions = {{"armed", 3}, {"expired", 2}};
  t.taken = {{"big_jank", 1}, {"skip", 4}};
  t.failed = {{"write_failed", 1}};
  t.suppressed = {{"not_armed", 5}, {"rate_limit", 6}};
  // Live, but the recorder never touched it (traces off): no trace series.
  store.device("quiet").live.live = true;
  // A device of a replay (not live) has no live series at all.
  jank::metrics::trace_state(store.device("replayed")).status.armed = true;
  auto& idle = store.device("idle");
  idle.live.live = true;
  jank::metrics::trace_state(idle).status.sessions["unsupported"] = 1;

  daemon.traces.enabled = true;
  daemon.traces.stored = 2;
  daemon.traces.stored_bytes = 5000;
  daemon.traces.dropped = {{"age", 1}, {"count", 3}};
  daemon.traces.recent = {stored("emulator-5554_com.example.feed_20261124T031503Z_skip", "emulator-5554", "skip",
                                 kT0 + kSec + 250'000'000),
                          stored("emulator-5554_com.example.feed_20261124T031502Z_big_jank", "emulator-5554",
                                 "big_jank", kT0)};

  const std::string text = exporters::StoreCollector(store, exporters::input_time_now(), nullptr, &daemon).Text().str();
  CHECK(trace_samples(text) ==
        std::vector<std::string>{
            "jank_exporter_traces_dropped_total{reason=\"count\"} 3",
            "jank_exporter_traces_dropped_total{reason=\"bytes\"} 0",
            "jank_exporter_traces_dropped_total{reason=\"age\"} 1",
            "jank_exporter_traces_stored 2",
            "jank_exporter_traces_stored_bytes 5000",
            "jank_exporter_trace_info{serial=\"emulator-5554\",package=\"com.example.feed\",rule=\"skip\","
            "trace_id=\"emulator-5554_com.example.feed_20261124T031503Z_skip\"} 1795490103.25",
            "jank_exporter_trace_info{serial=\"emulator-5554\",package=\"com.example.feed\",rule=\"big_jank\","
            "trace_id=\"emulator-5554_com.example.feed_20261124T031502Z_big_jank\"} 1795490102",
            "jank_exporter_trace_armed{serial=\"emulator-5554\"} 1",
            "jank_exporter_trace_armed{serial=\"idle\"} 0",
            "jank_exporter_trace_sessions_total{serial=\"emulator-5554\",result=\"armed\"} 3",
            "jank_exporter_trace_sessions_total{serial=\"emulator-5554\",result=\"expired\"} 2",
            "jank_exporter_trace_sessions_total{serial=\"idle\",result=\"unsupported\"} 1",
            "jank_exporter_traces_taken_total{serial=\"emulator-5554\",rule=\"big_jank\"} 1",
            "jank_exporter_traces_taken_total{serial=\"emulator-5554\",rule=\"skip\"} 4",
            "jank_exporter_traces_failed_total{serial=\"emulator-5554\",reason=\"write_failed\"} 1",
            "jank_exporter_trace_triggers_suppressed_total{serial=\"emulator-5554\",reason=\"not_armed\"} 5",
            "jank_exporter_trace_triggers_suppressed_total{serial=\"emulator-5554\",reason=\"rate_limit\"} 6",
        });
  CHECK_THAT(text, Catch::Contains("# TYPE jank_exporter_traces_stored_bytes gauge\n"));
  CHECK_THAT(text, Catch::Contains("# TYPE jank_exporter_trace_sessions_total counter\n"));
  // One device's view (/metrics?serial=) has its recorder, not the directory.
  const auto one = trace_samples(
      exporters::StoreCollector(store, exporters::input_time_now(), nullptr, &daemon).Text("emulator-5554").str());
  CHECK(one.size() == 8);
  CHECK(one.front() == "jank_exporter_trace_armed{serial=\"emulator-5554\"} 1");
}

TEST_CASE("jank_exporter_trace_info never has more than kRecentTraces series", "[exporter][traces]") {
  metrics::Store store;
  metrics::DaemonMetrics daemon;
  daemon.traces.enabled = true;
  for (int i = 0; i < 30; ++i) {
    daemon.traces.recent.push_back(stored("t" + std::to_string(i), "s", "skip", kT0 - i * kSec));
  }
  const std::string text = exporters::StoreCollector(store, exporters::input_time_now(), nullptr, &daemon).Text().str();
  std::size_t info = 0;
  for (const auto& line : trace_samples(text)) info += line.starts_with("jank_exporter_trace_info{") ? 1 : 0;
  CHECK(info == metrics::kRecentTraces);
  CHECK_THAT(text, Catch::Contains("trace_id=\"t19\""));
  CHECK_THAT(text, !Catch::Contains("trace_id=\"t20\""));
}

TEST_CASE("the trace directory's families are not exported while traces are off", "[exporter][traces]") {
  metrics::Store store;
  metrics::DaemonMetrics daemon;
  const std::string text = exporters::StoreCollector(store, exporters::input_time_now(), nullptr, &daemon).Text().str();
  CHECK_THAT(text, !Catch::Contains("jank_exporter_traces_"));
  daemon.traces.enabled = true;
  const std::string on = exporters::StoreCollector(store, exporters::input_time_now(), nullptr, &daemon).Text().str();
  CHECK_THAT(on, Catch::Contains("jank_exporter_traces_stored 0\n"));
}

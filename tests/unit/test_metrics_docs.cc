#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "exporters/prometheus_collector.h"
#include "metrics/store.h"
#include "parsers/gfxinfo.h"

using namespace jank;

// Every family the exporter can serve — replay and live daemon — must be in
// docs/metrics.md: a store with every kind of state, and the daemon's own.
TEST_CASE("every served metric family is documented", "[docs]") {
  metrics::Store store;
  auto& d = store.device("s");
  d.live.live = true;
  d.live.up = true;
  d.live.info["model"] = "m";
  d.live.gfxinfo_polls["ok"] = 1;
  d.live.commands["ok"] = 1;
  d.live.last_line_time_ns = 1;
  store.record_skip(d, "p", 1, true, 3);
  parsers::DaveyFrame davey;
  davey.duration_ms = 800;
  store.record_davey(d, "p", davey);
  parsers::GfxinfoDump dump;
  parsers::GfxProcess proc;
  proc.pid = 1;
  proc.package = "p";
  parsers::GfxStats stats;
  stats.total_frames = 2;
  stats.janky_frames_legacy = 1;
  stats.slow_ui_thread = 1;
  stats.p50_ms = stats.p90_ms = stats.p95_ms = stats.p99_ms = 5;
  stats.gpu_p50_ms = stats.gpu_p90_ms = stats.gpu_p95_ms = stats.gpu_p99_ms = 5;
  stats.histogram = {{5, 2}};
  stats.gpu_histogram = {{1, 2}};
  proc.stats = stats;
  parsers::FramestatsTable table;
  table.columns = {"Flags", "IntendedVsync", "FrameCompleted"};
  table.rows = {{0, 100, 200}};
  proc.framestats = table;
  dump.processes.push_back(proc);
  store.record_gfxinfo(d, dump);
  metrics::DaemonMetrics daemon;
  daemon.version = "x";
  daemon.adb_servers["127.0.0.1:5037"].errors["timeout"] = 1;

  exporters::StoreCollector collector(store, exporters::input_time_now(), nullptr, &daemon);
  const auto families = collector.Collect();
  std::ifstream in(std::string(JANK_SOURCE_DIR) + "/docs/metrics.md");
  std::ostringstream doc;
  doc << in.rdbuf();
  REQUIRE(families.size() > 40);
  for (const auto& f : families) {
    INFO(f.name);
    CHECK(doc.str().find("`" + f.name + "`") != std::string::npos);
  }
}

// A store and daemon status holding every kind of state the exporter can
// serve, so that an exposition of it carries every catalogued family. Values
// are chosen to print the same in every float format (integers, short
// decimals), so that prometheus-cpp's serializer needs no normalisation.
#pragma once

#include "exporters/prometheus_collector.h"
#include "metrics/daemon_status.h"
#include "metrics/sources/battery.h"
#include "metrics/sources/graphicsstats.h"
#include "metrics/sources/clocks.h"
#include "metrics/sources/cpu.h"
#include "metrics/sources/memory.h"
#include "metrics/sources/frametimeline.h"
#include "metrics/sources/gfxinfo.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/log_patterns.h"
#include "metrics/sources/power.h"
#include "metrics/sources/skips.h"
#include "metrics/sources/thermal.h"
#include "metrics/sources/timestats.h"
#include "metrics/sources/versions.h"
#include "metrics/run_book.h"
#include "metrics/store.h"
#include "parsers/gfxinfo.h"
#include "parsers/power_state.h"
#include "parsers/resource_files.h"
#include "parsers/sf_latency.h"
#include "parsers/sf_layers.h"
#include "parsers/thermal.h"
#include "metrics/sources/traces.h"

namespace jank::test {

inline void fill_every_feature(metrics::Store& store, metrics::DaemonMetrics& daemon) {
  auto& d = store.device("s");
  d.live.live = true;
  d.live.up = true;
  d.live.state = metrics::DeviceState::following;
  d.live.command_deadline_seconds = 5;
  d.live.info = {{"model", "m"}, {"manufacturer", "x"}, {"sdk", "34"}, {"release", "14"}, {"fingerprint", "f"}};
  d.live.gfxinfo_polls["ok"] = 1;
  d.live.commands["ok"] = 1;
  d.live.command_costs["resources"] = {2, 0.25, 8192, 2, 0.0125};
  d.live.untimed_commands["unstamped"] = 1;
  d.live.per_frame_polling = true;
  d.live.budget_waits = 3;
  d.live.budget_wait_seconds = 0.5;
  d.live.last_line_time_ns = 1'500'000'000;
  d.live.ingest_lag_seconds = 0.25;
  d.clock.restore(2'000'000'000, 1);
  auto& old = store.device("s5");  // a release that cannot be followed
  old.live.live = true;
  old.live.state = metrics::DeviceState::unsupported;
  old.live.state_reason = "Android 5.1 (API 22): no -D";
  jank::metrics::record_skip(store, d, "p", 1'000'000'000, true, 3);
  parsers::DaveyFrame davey;
  davey.duration_ms = 800;
  jank::metrics::record_davey(store, d, "p", davey);
  parsers::GfxinfoDump dump;
  dump.lines = 12;
  dump.malformed_lines = 1;
  parsers::GfxProcess proc;
  proc.pid = 1;
  proc.package = "p";
  parsers::GfxStats stats;
  stats.total_frames = 2;
  stats.janky_frames = 1;
  stats.janky_frames_legacy = 1;
  stats.slow_ui_thread = 1;
  stats.p50_ms = stats.p90_ms = stats.p95_ms = stats.p99_ms = 5;
  stats.gpu_p50_ms = stats.gpu_p90_ms = stats.gpu_p95_ms = stats.gpu_p99_ms = 5;
  stats.histogram = {{5, 2}};
  stats.gpu_histogram = {{1, 2}};
  proc.stats = stats;
  parsers::FramestatsTable table;
  table.columns = {"Flags", "FrameTimelineVsyncId", "IntendedVsync", "FrameCompleted"};
  table.rows = {{0, 77, 1'000'000, 9'000'000}};  // 8 ms, token 77 (joined with FrameTimeline below)
  table.malformed_rows = 2;
  proc.framestats = table;
  parsers::GfxWindow profiled;  // debug.hwui.profile=true: one "Profile data in ms" row, one malformed
  profiled.name = "p/p.Main";
  profiled.has_profile_table = true;
  profiled.profile_rows.push_back({4, 0.5, 2, 1});
  proc.windows.push_back(profiled);
  dump.profile_rows_malformed = 1;
  dump.processes.push_back(proc);
  metrics::record_gfxinfo(store, d, dump);

  d.live.surfaceflinger_polls[{"latency", "ok"}] = 1;
  metrics::record_power_state(store, d, parsers::parse_power_state("  mWakefulness=Awake\nDisplay Power: state=ON\n"));
  metrics::record_layer_list(d, parsers::parse_sf_layer_list("p/p.Main#7\n"));
  parsers::SfLatency latency;
  latency.refresh_period_ns = 15'625'000;  // 64 Hz: prints exactly in every format
  for (const std::int64_t at : {1'000'000'000LL, 1'250'000'000LL, 1'500'000'000LL}) latency.rows.push_back({at, at, at});
  metrics::record_layer_latency(store, d, *parsers::classify_layer("p/p.Main#7"), latency);
  // One app frame judged App Deadline Missed, whose framestats row (token 77) is above.
  parsers::FrameTimelineDump ft;
  ft.lines = 20;
  ft.malformed_lines = 1;
  parsers::DisplayFrame df;
  parsers::SurfaceFrame sf;
  sf.layer = "p/p.Main#7";
  sf.token = 77;
  sf.layer_id = 7;
  sf.owner_pid = 1;
  sf.present = parsers::FtPresentState::presented;
  sf.prediction = parsers::FtPrediction::valid;
  sf.present_timing = parsers::FtPresentTiming::late;
  sf.jank = parsers::kJankAppDeadlineMissed;
  df.surface_frames.push_back(sf);
  ft.display_frames.push_back(df);
  metrics::record_frametimeline(store, d, ft);
  // TimeStats: one rate bucket and the app's layer row.
  parsers::TimeStatsDump ts;
  ts.text = parsers::TimeStatsText::timestats;
  ts.has_jank_payload = true;
  ts.stats_start = 1700000000;
  ts.lines = 30;
  ts.malformed_lines = 1;
  parsers::TsGlobalBucket bucket;
  bucket.refresh_rate_fps = bucket.render_rate_fps = 60;
  bucket.jank[parsers::TsJankField::total_timeline_frames] = 3;
  bucket.jank[parsers::TsJankField::janky_frames] = 1;
  bucket.jank[parsers::TsJankField::app_unattributed] = 1;
  ts.global.push_back(bucket);
  parsers::TsLayer row;
  row.refresh_rate_fps = row.render_rate_fps = 60;
  row.uid = 10001;
  row.layer_name = "p/p.Main#7";
  row.total_frames = 3;
  row.dropped_frames = 1;
  row.jank = bucket.jank;
  ts.layers.push_back(row);
  metrics::record_timestats(d, ts);

  metrics::count_thermal_poll(d, "ok");
  d.live.package_polls["ok"] = 1;
  metrics::record_app_version(store, d, "p", metrics::AppVersion{"1.0", 1});
  metrics::record_thermal(store, d, parsers::parse_thermalservice("Thermal Status: 1\nCurrent temperatures from HAL:\n"
                                                        "\tTemperature{mValue=38.5, mType=3, mName=skin, mStatus=1}\n"));
  metrics::count_battery_poll(d, "ok");
  metrics::record_battery(store, d,
                          parsers::parse_battery("Current Battery Service state:\n  AC powered: false\n"
                                                 "  USB powered: true\n  Wireless powered: false\n  status: 2\n"
                                                 "  health: 2\n  present: true\n  level: 74\n  scale: 100\n"
                                                 "  voltage: 4098\n  temperature: 285\n  technology: Li-ion\n"));
  // graphicsstats: one day of app p's version 1, three frames (one janky, one frozen).
  metrics::count_graphicsstats_poll(d, "ok");
  metrics::record_graphicsstats(
      store, d,
      parsers::parse_graphicsstats("\nPackage: p\nVersion: 1\nStats since: 1732838400000ns\nStats end: "
                                   "1732838460000ns\nTotal frames rendered: 3\nJanky frames: 1 (33.33%)\n"
                                   "Number Missed Vsync: 0\nNumber Slow UI thread: 1\nHISTOGRAM: 5ms=1 8ms=1 "
                                   "750ms=1 800ms=0\nGPU HISTOGRAM: 1ms=2 2ms=1\n"),
      true);

  // A resource poll: one core, app p's process, main thread and RenderThread, a capped policy, an Adreno GPU.
  d.pid_names.started(4242, "p");
  metrics::count_resource_poll(d, "ok");
  const parsers::ResourceAnswer resources = parsers::parse_resource_answer(
      "/proc/stat:cpu0 300 0 100 600 0 0 0 0 0 0\n"
      "/proc/sys/kernel/random/boot_id:b\n"
      "/proc/4242/stat:4242 (p) S 1 1 0 0 -1 0 0 0 0 0 150 50 0 0 10 -10 12 0 100 1 512\n"
      "/proc/4242/task/4242/stat:4242 (p) S 1 1 0 0 -1 0 0 0 0 0 100 25 0 0 10 -10 12 0 100 1 512\n"
      "/proc/4242/task/4250/stat:4250 (RenderThread) S 1 1 0 0 -1 0 0 0 0 0 40 10 0 0 10 -10 12 0 101 1 512\n"
      "/sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq:1000000\n"
      "/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq:1200000\n"
      "/sys/devices/system/cpu/cpufreq/policy0/cpuinfo_max_freq:1800000\n"
      "/sys/class/kgsl/kgsl-3d0/gpuclk:500000000\n"
      "/sys/class/kgsl/kgsl-3d0/max_gpuclk:800000000\n"
      "/sys/class/kgsl/kgsl-3d0/gpubusy:25 100\n"
      "/sys/class/power_supply/battery/current_now:500000\n"
      "/proc/4242/status:VmRSS:\t 2048 kB\n"
      "/proc/4242/status:VmSwap:\t 0 kB\n");
  const std::vector<std::string> threads = {"RenderThread"};
  metrics::record_cpu(store, d, resources, {threads});
  metrics::record_clocks(store, d, resources);
  metrics::record_memory(store, d, resources);
  metrics::record_battery_current(store, d, *resources.battery_current_ua);

  // A custom log pattern with a label and a value: one summed, one discarded.
  parsers::LogPatternHit hit;
  hit.name = "anr";
  hit.has_label = true;
  hit.label = "p";
  hit.has_value = true;
  hit.value_ok = true;
  hit.value = 2;
  metrics::record_log_pattern(store, d, "p", hit, 50);
  hit.value_ok = false;
  hit.value_discard = parsers::PatternDiscard::value_negative;
  metrics::record_log_pattern(store, d, "p", hit, 50);

  daemon.version = "x";
  auto& server = daemon.adb_servers["127.0.0.1:5037"];
  server.up = true;
  server.errors["timeout"] = 1;
  server.tracker = {5, 1, 3, 1, 2};
  daemon.checkpoints_written = 2;
  daemon.state_rejected_records["package"] = 1;
  // The flight recorder: one device's counts and one stored trace.
  jank::metrics::trace_state(d).status.armed = true;
  jank::metrics::trace_state(d).status.sessions["armed"] = 1;
  jank::metrics::trace_state(d).status.taken["skip"] = 1;
  jank::metrics::trace_state(d).status.failed["pull_failed"] = 1;
  jank::metrics::trace_state(d).status.suppressed["busy"] = 2;
  daemon.traces.enabled = true;
  daemon.traces.stored = 1;
  daemon.traces.stored_bytes = 4096;
  daemon.traces.dropped["count"] = 3;
  metrics::StoredTrace trace;
  trace.id = "s_p_20261124T031502Z_skip";
  trace.serial = "s";
  trace.package = "p";
  trace.rule = "skip";
  trace.triggered_at_ns = 1'795'000'000'000'000'000;
  daemon.traces.recent.push_back(trace);
}

// An open run on device "s" for package "p" that saw a skip of 57 frames
// (the device then skipped 60 in its window: SM 59, a value every float
// format prints alike).
inline void fill_runs(metrics::Store& store, metrics::RunBook& runs) {
  auto& d = store.device("s");
  runs.start(metrics::RunSpec{"r1", "scroll", "p", {"s"}, {}}, 1'000'000'000, store);
  d.live.gfxinfo_round_begun_ns = 1'500'000'000;  // a poll after the start: the baseline may be taken
  runs.advance(2'000'000'000, store);
  jank::metrics::record_skip(store, d, "p", 1'000'000'000, true, 57);
  runs.advance(3'000'000'000, store);
}

// The exposition lines of one family, with input time as the daemon's now.
inline std::string series(const metrics::Store& store, std::string_view family) {
  const std::string text = exporters::StoreCollector(store, exporters::input_time_now()).Text().str();
  std::string out;
  std::size_t at = 0;
  while ((at = text.find(std::string("\n") + std::string(family) + "{", at)) != std::string::npos) {
    const std::size_t end = text.find('\n', at + 1);
    out += text.substr(at + 1, end - at);
    at = end;
  }
  return out;
}

// SM over the whole window, with the span exported as replay does: every
// family served, the SM figures those of the daemon.
inline exporters::WindowSpan whole_window() {
  return [](const metrics::DeviceMetrics&, std::chrono::seconds sm_window) {
    return parsers::units::Seconds(sm_window);
  };
}

}  // namespace jank::test

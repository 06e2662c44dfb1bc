// The live view's cost at farm scale (docs/live-view.md): DEVICES devices,
// each with apps that skip, two polled apps (gfxinfo and the resource poll:
// eight cores, the apps' processes, main threads and memory) and two
// followed layers, every history ring filled (SAMPLES samples, one per 5 s
// of host time). Prints the rings' heap (mallinfo2 before and after: bytes per
// device and in all), one sampler pass, and the time to build the
// /api/devices document and one device's document.
//
//   jank_bench_live_view [DEVICES] [SAMPLES] [REPEATS]     (defaults 500 180 50)
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "exporters/live_json.h"
#include "metrics/device_view.h"
#include "metrics/run_book.h"
#include "metrics/sources/gfxinfo.h"
#include "metrics/sources/cpu.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/memory.h"
#include "metrics/sources/skips.h"
#include "metrics/store.h"
#include "parsers/gfxinfo.h"
#include "parsers/resource_files.h"
#include "parsers/sf_latency.h"
#include "parsers/sf_layers.h"

using namespace jank;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kT0 = 1'764'061'000LL * kSec;

std::size_t heap_bytes() { return mallinfo2().uordblks; }

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Timing {
  double median = 0, p99 = 0, max = 0;
};
Timing timing(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 99 / 100)], v.back()};
}

void gfxinfo(metrics::Store& store, metrics::DeviceMetrics& d, const std::string& package, std::uint64_t frames) {
  parsers::GfxinfoDump dump;
  parsers::GfxProcess proc;
  proc.pid = 100;
  proc.package = package;
  parsers::GfxStats stats;
  stats.total_frames = frames;
  stats.janky_frames = frames / 20;
  stats.slow_ui_thread = frames / 40;
  stats.missed_vsync = frames / 80;
  stats.histogram = {{5, frames / 2}, {6, 0}, {16, frames / 4}, {17, 0}, {30, frames / 8}, {31, 0},
                     {150, frames / 8}, {200, 0}};
  proc.stats = stats;
  dump.processes.push_back(proc);
  metrics::record_gfxinfo(store, d, dump);
}

// A device shaped like a busy farm's: skips in five apps, two polled (gfxinfo), two layers.
void fill(metrics::Store& store, int index) {
  auto& d = store.device("bench-" + std::to_string(index));
  d.live.live = true;
  d.live.up = true;
  d.live.state = metrics::DeviceState::following;
  d.live.info = {{"model", "Pixel 8"}, {"manufacturer", "Google"}, {"release", "14"}, {"sdk", "34"}};
  d.live.foreground = "com.example.app0";
  for (int p = 0; p < 5; ++p) jank::metrics::record_skip(store, d, "com.example.app" + std::to_string(p), kT0, true, 5);
  for (int p = 0; p < 2; ++p) d.pid_names.started(1000 + p, "com.example.app" + std::to_string(p));
}

// The resource poll's answer at sample `s`: eight cores, each 5 s (500 ticks)
// further, and the two measured apps' processes, main threads and memory.
void resources(metrics::Store& store, metrics::DeviceMetrics& d, int s) {
  const auto n = [](long v) { return std::to_string(v); };
  std::string text = "/proc/sys/kernel/random/boot_id:bench\n";
  for (int c = 0; c < 8; ++c) {
    text += "/proc/stat:cpu" + n(c) + " " + n(1000 + 200L * s) + " 0 " + n(300 + 50L * s) + " " + n(9000 + 250L * s) +
            " 10 0 0 0 0 0\n";
  }
  for (int p = 0; p < 2; ++p) {
    const std::string pid = n(1000 + p);
    const std::string comm(metrics::process_comm("com.example.app" + std::to_string(p)));
    const auto stat = [&](long user) {
      return pid + " (" + comm + ") S 1 1 0 0 -1 0 0 0 0 0 " + n(user) + " " + n(10L * s) + " 0 0 10 -10 30 0 500 1 512\n";
    };
    text += "/proc/" + pid + "/stat:" + stat(100L * s) + "/proc/" + pid + "/task/" + pid + "/stat:" + stat(60L * s) +
            "/proc/" + pid + "/status:VmRSS:\t" + n(300'000 + 10L * s) + " kB\n";
  }
  const parsers::ResourceAnswer answer = parsers::parse_resource_answer(text);
  metrics::record_cpu(store, d, answer, {});
  metrics::record_memory(store, d, answer);
}

// Both layers present `frames` frames ending at `now` (a --latency poll each).
void present(metrics::Store& store, metrics::DeviceMetrics& d, std::int64_t now, int frames) {
  for (const char* name : {"com.example.app0/com.example.app0.Main#1", "SurfaceView[com.example.app1/com.example.app1.Game]#2"}) {
    const auto layer = parsers::classify_layer(name);
    if (!layer) continue;
    parsers::SfLatency latency;
    latency.refresh_period_ns = 16'666'667;
    for (int i = frames; i > 0; --i) {
      const std::int64_t at = now - i * 16'666'667LL;
      latency.rows.push_back({at, at, at});
    }
    metrics::record_layer_latency(store, d, *layer, latency);
  }
}

// One pass of the sampler: what app/daemon/live_sampler.cc does under the lock.
void sample_all(metrics::Store& store, std::int64_t now) {
  for (const auto& [serial, d] : store.devices()) {
    d->history.configure(180, 5000);
    d->history.record(now, metrics::live_reading(*d, now, store.options().sm_window));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int devices = argc > 1 ? std::atoi(argv[1]) : 500;
  const int samples = argc > 2 ? std::atoi(argv[2]) : 180;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 50;
  if (devices <= 0 || samples <= 0 || repeats <= 0) {
    std::fprintf(stderr, "usage: jank_bench_live_view [DEVICES] [SAMPLES] [REPEATS]\n");
    return 2;
  }
  metrics::Store store;
  for (int i = 0; i < devices; ++i) fill(store, i);
  for (const auto& [serial, d] : store.devices()) {
    present(store, *d, kT0, 60);
    resources(store, *d, 0);
  }
  metrics::RunBook runs;

  // The first pass allocates every ring in full (and takes the baselines);
  // later passes write in place. So the heap's growth over the first pass is
  // the rings' memory, and sizeof(LiveHistory) is the rest, inside each device.
  const std::size_t before = heap_bytes();
  sample_all(store, kT0);
  const std::size_t ring_heap = heap_bytes() - before;
  std::vector<double> pass_ms;
  pass_ms.reserve(static_cast<std::size_t>(samples));
  for (int s = 1; s < samples; ++s) {
    const std::int64_t now = kT0 + s * 5 * kSec;
    for (const auto& [serial, d] : store.devices()) {
      jank::metrics::record_skip(store, *d, "com.example.app" + std::to_string(s % 5), now - kSec, true, 3);
      gfxinfo(store, *d, "com.example.app0", static_cast<std::uint64_t>(300 * (s + 1)));
      gfxinfo(store, *d, "com.example.app1", static_cast<std::uint64_t>(290 * (s + 1)));
      present(store, *d, now, 120);
      resources(store, *d, s);
    }
    const std::size_t heap = heap_bytes();
    const auto start = Clock::now();
    sample_all(store, now);
    pass_ms.push_back(ms_since(start));
    if (heap_bytes() != heap) std::printf("a sampler pass allocated: %zu bytes\n", heap_bytes() - heap);
  }
  if (pass_ms.empty()) pass_ms.push_back(0);

  const std::int64_t now = kT0 + (samples - 1) * 5 * kSec;
  const exporters::LiveViewOptions options{std::chrono::seconds(5), std::chrono::seconds(900)};
  std::vector<double> list_ms, snapshot_ms, one_ms;
  std::size_t list_bytes = 0, one_bytes = 0;
  for (int r = 0; r < repeats; ++r) {
    auto start = Clock::now();
    const auto all = exporters::snapshot_devices(store, runs, now, options);
    snapshot_ms.push_back(ms_since(start));
    const std::string list = exporters::devices_json(all);
    list_ms.push_back(ms_since(start));
    list_bytes = list.size();
    start = Clock::now();
    const auto snapshot = exporters::snapshot_device(store, runs, "bench-0", now, options);
    const std::string one = exporters::device_json(*snapshot, {});
    one_ms.push_back(ms_since(start));
    one_bytes = one.size();
  }
  const auto list_t = timing(list_ms), snapshot_t = timing(snapshot_ms), one_t = timing(one_ms), pass_t = timing(pass_ms);
  const auto row = exporters::snapshot_devices(store, runs, now, options).devices.front();
  const metrics::LiveSample* newest = store.devices().begin()->second->history.newest();
  std::printf("%s: FPS %.1f, jank %.1f %%, skipped %.1f/min, SM %.2f, app CPU %.1f %%, device CPU %.1f %%, "
              "memory %u MiB (the numbers are the bench's own)\n",
              row.serial.c_str(), row.window.fps.value_or(-1), row.window.jank_percent.value_or(-1),
              row.window.skipped_per_minute.value_or(-1), row.sm.value_or(-1), newest->app_cpu_percent().value_or(-1),
              newest->device_cpu_percent().value_or(-1), newest->app_rss().value_or(0));
  std::printf("devices %d, samples per ring %zu (%zu bytes each)\n", devices,
              store.devices().begin()->second->history.size(), sizeof(metrics::LiveSample));
  const std::size_t per_device = ring_heap / static_cast<std::size_t>(devices) + sizeof(metrics::LiveHistory);
  std::printf("rings: %zu bytes of heap (%zu per device) + %zu bytes of state in each device: %zu bytes per device, "
              "%.2f MiB for %d devices\n",
              ring_heap, ring_heap / static_cast<std::size_t>(devices), sizeof(metrics::LiveHistory), per_device,
              static_cast<double>(per_device) * devices / (1 << 20), devices);
  std::printf("sampler pass (every device, under the lock): median %.2f ms, p99 %.2f ms, max %.2f ms\n", pass_t.median,
              pass_t.p99, pass_t.max);
  std::printf("/api/devices: %zu bytes, median %.2f ms, p99 %.2f ms, max %.2f ms; of which the snapshot (under the "
              "lock) median %.2f ms, p99 %.2f ms\n",
              list_bytes, list_t.median, list_t.p99, list_t.max, snapshot_t.median, snapshot_t.p99);
  std::printf("/api/devices/SERIAL: %zu bytes, median %.3f ms, p99 %.3f ms, max %.3f ms\n", one_bytes, one_t.median,
              one_t.p99, one_t.max);
  return 0;
}

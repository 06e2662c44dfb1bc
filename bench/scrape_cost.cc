// Scrape cost benchmark: a metric store shaped like a large farm, served by
// the real HTTP server, scraped over loopback. Prints series count, response
// size, time per scrape (median, p99, max), CPU per scrape and RSS.
//
//   jank_bench_scrape [DEVICES] [PACKAGES] [GFX_PACKAGES] [SCRAPES] [FORMAT]
// GFX_PACKAGES of the PACKAGES per device also carry gfxinfo and framestats
// series (polled apps); the others only Choreographer skips (apps that skipped).
// FORMAT: `text` (no Accept header: the 0.0.4 text, the default),
// `openmetrics` (Prometheus 2.42's Accept header), or `exemplars`
// (OpenMetrics, every app's skipped frames with a trace exemplar).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exporters/http_server.h"
#include "exporters/prometheus_collector.h"
#include "metrics/sources/gfxinfo.h"
#include "metrics/sources/skips.h"
#include "metrics/store.h"
#include "metrics/sources/traces.h"

using namespace jank;

namespace {

// One scrape; counts the response's bytes and sample lines as they arrive
// (nothing is kept, so the RSS figures are the server's).
struct Scrape {
  std::size_t bytes = 0;
  std::size_t samples = 0;
};

Scrape get(int port, const std::string& accept) {
  Scrape out;
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string req = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + accept + "\r\n";
    ::send(fd, req.data(), req.size(), 0);
    static char buf[1 << 20];
    bool in_body = false, comment = false;
    std::size_t line_length = 0;
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) {
      out.bytes += static_cast<std::size_t>(n);
      for (ssize_t i = 0; i < n; ++i) {
        if (line_length++ == 0) comment = buf[i] == '#';
        if (buf[i] != '\n') continue;
        if (in_body && !comment) ++out.samples;
        if (!in_body && line_length == 2) in_body = true;  // the "\r\n" that ends the headers
        line_length = 0;
      }
    }
  }
  ::close(fd);
  return out;
}

long rss_kib() {
  std::ifstream in("/proc/self/status");
  std::string key;
  long value = 0;
  while (in >> key) {
    if (key == "VmRSS:") {
      in >> value;
      return value;
    }
    in.ignore(1 << 10, '\n');
  }
  return 0;
}

double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

void fill(metrics::Store& store, int devices, int packages, int gfx_packages, bool exemplars) {
  parsers::GfxStats stats;
  stats.stats_since_ns = 1;
  stats.total_frames = 1000;
  stats.janky_frames = 50;
  stats.janky_frames_legacy = 80;
  stats.missed_vsync = stats.high_input_latency = stats.slow_ui_thread = stats.slow_bitmap_uploads =
      stats.slow_issue_draw_commands = stats.frame_deadline_missed = stats.frame_deadline_missed_legacy = 5;
  stats.p50_ms = 8;
  stats.p90_ms = 16;
  stats.p95_ms = 24;
  stats.p99_ms = 48;
  stats.gpu_p50_ms = stats.gpu_p90_ms = stats.gpu_p95_ms = stats.gpu_p99_ms = 4;
  for (std::uint32_t l = 5; l <= 32; ++l) stats.histogram.push_back({l, 30});
  for (std::uint32_t l = 1; l <= 25; ++l) stats.gpu_histogram.push_back({l, 40});
  stats.gpu_histogram.push_back({4950, 0});
  parsers::FramestatsTable table;
  table.columns = {"Flags", "IntendedVsync", "HandleInputStart", "AnimationStart", "PerformTraversalsStart",
                   "DrawStart", "SyncQueued", "SyncStart", "IssueDrawCommandsStart", "FrameCompleted"};
  for (std::int64_t i = 0; i < 120; ++i) {
    const std::int64_t s = 1'000'000'000 + i * 16'666'667;
    table.rows.push_back({0, s, s + 100'000, s + 200'000, s + 300'000, s + 2'000'000, s + 4'000'000, s + 4'100'000,
                          s + 5'000'000, s + 12'000'000 + (i % 7) * 3'000'000});
  }
  for (int d = 0; d < devices; ++d) {
    auto& dev = store.device("R5CT" + std::to_string(100000 + d));
    dev.live.live = true;
    dev.live.up = true;
    dev.live.info = {{"model", "SM-G991B"}, {"manufacturer", "samsung"}, {"sdk", "34"}, {"release", "14"}};
    dev.live.commands["ok"] = 100;
    dev.live.gfxinfo_polls["ok"] = 10;
    dev.live.last_line_time_ns = 1;
    for (int p = 0; p < packages; ++p) {
      const std::string name = "com.example.app" + std::to_string(p);
      for (int k = 0; k < 10; ++k) jank::metrics::record_skip(store, dev, name, 1'000'000'000LL * k, true, 1 + k * 7);
      if (exemplars) {
        jank::metrics::trace_state(dev).exemplars[{metrics::ExemplarCounter::skipped_frames, name, ""}] = {
            dev.serial + "_" + name + "_20261124T031502Z_skip", 64, 1'795'000'000'123'000'000};
      }
      if (p < gfx_packages) {
        parsers::GfxinfoDump dump;
        parsers::GfxProcess proc;
        proc.pid = 1000 + p;
        proc.package = name;
        proc.stats = stats;
        parsers::GfxWindow w;
        w.name = name + "/.Main";
        w.framestats = table;
        proc.windows.push_back(w);
        dump.processes.push_back(proc);
        metrics::record_gfxinfo(store, dev, dump);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int devices = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int packages = argc > 2 ? std::atoi(argv[2]) : 20;
  const int gfx_packages = argc > 3 ? std::atoi(argv[3]) : 2;
  const int scrapes = argc > 4 ? std::atoi(argv[4]) : 20;
  const std::string format = argc > 5 ? argv[5] : "text";
  if (format != "text" && format != "openmetrics" && format != "exemplars") {
    std::fprintf(stderr, "FORMAT is text, openmetrics or exemplars\n");
    return 2;
  }
  // Prometheus 2.42's own header.
  const std::string accept = format == "text" ? ""
                                              : "Accept: application/openmetrics-text;version=1.0.0,"
                                                "application/openmetrics-text;version=0.0.1;q=0.75,"
                                                "text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n";

  std::mutex mutex;
  metrics::Store store;
  const long rss_before = rss_kib();
  fill(store, devices, packages, gfx_packages, format == "exemplars");
  const long rss_filled = rss_kib();
  metrics::DaemonMetrics daemon;
  daemon.version = "bench";
  auto collector = std::make_shared<exporters::StoreCollector>(store, exporters::input_time_now(), &mutex, &daemon);
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  exporters::HttpServer server(options, exporters::text_source(collector), {});
  const int port = server.ports().at(0);

  std::vector<double> ms;
  std::size_t bytes = 0, series = 0;
  const double cpu0 = cpu_seconds();
  long rss_peak = 0;
  for (int i = 0; i < scrapes; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const Scrape scrape = get(port, accept);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    bytes = scrape.bytes;
    series = scrape.samples;
    rss_peak = std::max(rss_peak, rss_kib());
  }
  const double cpu = (cpu_seconds() - cpu0) / scrapes;
  std::sort(ms.begin(), ms.end());
  std::printf("devices %d, packages/device %d (with gfxinfo+framestats: %d), format %s\n", devices, packages,
              gfx_packages, format.c_str());
  std::printf("series %zu, response %.1f MB\n", series, static_cast<double>(bytes) / 1e6);
  std::printf("scrape time over %d scrapes: median %.0f ms, p99 %.0f ms, max %.0f ms; CPU %.0f ms per scrape\n",
              scrapes, ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 99 / 100)], ms.back(), cpu * 1000);
  std::printf("RSS: %ld MiB before filling, %ld MiB filled, %ld MiB peak while scraping\n", rss_before / 1024,
              rss_filled / 1024, rss_peak / 1024);
  return 0;
}

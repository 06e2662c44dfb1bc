// GraphicsStatsService as Android 7+ keeps it (frameworks/base
// services/core/java/com/android/server/GraphicsStatsService.java and
// libs/hwui/service/GraphicsStatsService.cpp): each app process draws into a
// buffer of its own, started with the process (requestBufferForProcess) and
// again at midnight UTC (normalizeDate, the rotation alarm); a buffer is
// saved into the file of its day, package and version code when its process
// dies (binderDied → processDied) or its day ends, merged with what that file
// held (saveBuffer: counts summed, the earliest start and latest end); only
// the three newest days of files are kept (deleteOldBuffers). A reboot ends
// every process with system_server: buffers not saved are lost, and the
// truth keeps of them only what a dump had printed.
//
// `dumpsys graphicsstats` prints each running process's buffer merged with
// its day's file (dumpActiveLocked, the end stamped now), then every other
// file (dumpHistoricalLocked), as dumpAsTextToFd formats them: "Number Frame
// deadline missed" from Android 12 and the GPU lines from Android 10, where
// GraphicsStatsService.cpp first prints them.
#include <algorithm>
#include <cinttypes>
#include <cmath>

#include "devsim/appendf.h"
#include "devsim/model.h"

namespace jank::devsim {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kDayMs = 86'400'000;

std::int64_t day_of(std::int64_t wall_ms) { return wall_ms - ((wall_ms % kDayMs) + kDayMs) % kDayMs; }

void merge(GraphicsStatsRecord& into, const GraphicsStatsRecord& r) {
  into.start_ms = into.start_ms == 0 ? r.start_ms : std::min(into.start_ms, r.start_ms);
  into.end_ms = std::max(into.end_ms, r.end_ms);
  into.version_code = r.version_code;
  GfxCounters& c = into.counts;
  const GfxCounters& o = r.counts;
  c.total += o.total;
  c.janky += o.janky;
  c.missed_vsync += o.missed_vsync;
  c.slow_ui += o.slow_ui;
  c.high_input += o.high_input;
  c.slow_draw += o.slow_draw;
  for (std::size_t i = 0; i < kHistBins; ++i) c.hist[i] += o.hist[i];
  for (std::size_t i = 0; i < kGpuHistBins; ++i) c.gpu_hist[i] += o.gpu_hist[i];
}

// findPercentile: from the longest bucket down, the first whose frames
// cover what lies above the percentile's position.
template <std::size_t N>
std::uint32_t find_percentile(const std::array<std::uint64_t, N>& hist, const std::uint32_t* labels,
                              std::uint64_t total, int percentile) {
  const std::int64_t pos = static_cast<std::int64_t>(static_cast<std::uint64_t>(percentile) * total / 100);
  std::int64_t remaining = static_cast<std::int64_t>(total) - pos;
  for (std::size_t i = N; i-- > 0;) {
    remaining -= static_cast<std::int64_t>(hist[i]);
    if (remaining <= 0) return labels[i];
  }
  return 0;
}

}  // namespace

void Device::graphicsstats_start(AppState& a, std::int64_t t) {
  if (a.gs_buffer) {
    // The process ended without dying in front of system_server (a reboot):
    // its buffer was never saved.
    const GraphicsStatsRecord& lost = *a.gs_buffer;
    auto& [frames, janky] = a.gs_truth[lost.version_code];
    frames -= lost.counts.total - lost.dumped_frames;
    janky -= lost.counts.janky - lost.dumped_janky;
    a.gs_buffer.reset();
  }
  if (cfg_.sdk < 24) return;
  GraphicsStatsRecord b;
  b.start_ms = wall_of(t) / kMs;
  b.end_ms = b.start_ms;
  b.version_code = a.version_code;
  a.gs_buffer = b;
}

void Device::graphicsstats_save(AppState& a, std::int64_t t) {
  if (!a.gs_buffer) return;
  GraphicsStatsRecord b = *a.gs_buffer;
  a.gs_buffer.reset();
  b.end_ms = std::max(b.end_ms, wall_of(t) / kMs);
  merge(gs_files_[{day_of(b.start_ms), a.cfg.package, b.version_code}], b);
  std::vector<std::int64_t> days;
  for (const auto& [key, r] : gs_files_) days.push_back(std::get<0>(key));
  std::sort(days.begin(), days.end());
  days.erase(std::unique(days.begin(), days.end()), days.end());
  if (days.size() > 3) {
    const std::int64_t keep_from = days[days.size() - 3];
    std::erase_if(gs_files_, [&](const auto& e) { return std::get<0>(e.first) < keep_from; });
  }
}

GfxCounters* Device::graphicsstats_counts(AppState& a, std::int64_t t) {
  if (!a.gs_buffer) return nullptr;
  const std::int64_t now_ms = wall_of(t) / kMs;
  if (a.gs_buffer->start_ms < day_of(now_ms)) {
    // The day turned: the buffer goes to its day's file and a new one starts.
    graphicsstats_save(a, t);
    graphicsstats_start(a, t);
  }
  return &a.gs_buffer->counts;
}

std::string Device::dumpsys_graphicsstats() {
  advance();
  if (cfg_.sdk < 24) return "Can't find service: graphicsstats\n";
  static const auto labels = histogram_labels();
  std::array<std::uint32_t, kGpuHistBins> gpu_labels{};
  for (std::uint32_t i = 0; i < 25; ++i) gpu_labels[i] = i + 1;
  gpu_labels[25] = 4950;
  const int sdk = cfg_.sdk;
  const std::int64_t now_ms = wall_now() / kMs;
  std::string s;
  auto block = [&](const std::string& package, const GraphicsStatsRecord& r) {
    const GfxCounters& g = r.counts;
    appendf(s, "\nPackage: %s", package.c_str());
    appendf(s, "\nVersion: %" PRId64, r.version_code);
    appendf(s, "\nStats since: %" PRId64 "ns", r.start_ms);
    appendf(s, "\nStats end: %" PRId64 "ns", r.end_ms);
    appendf(s, "\nTotal frames rendered: %" PRIu64, g.total);
    const float share = static_cast<float>(g.janky) / static_cast<float>(g.total) * 100.0f;
    if (std::isnan(share)) {
      appendf(s, "\nJanky frames: %" PRIu64 " (nan%%)", g.janky);
    } else {
      appendf(s, "\nJanky frames: %" PRIu64 " (%.2f%%)", g.janky, static_cast<double>(share));
    }
    for (int p : {50, 90, 95, 99}) appendf(s, "\n%dth percentile: %ums", p, find_percentile(g.hist, labels.data(), g.total, p));
    appendf(s, "\nNumber Missed Vsync: %" PRIu64, g.missed_vsync);
    appendf(s, "\nNumber High input latency: %" PRIu64, g.high_input);
    appendf(s, "\nNumber Slow UI thread: %" PRIu64, g.slow_ui);
    s += "\nNumber Slow bitmap uploads: 0";
    appendf(s, "\nNumber Slow issue draw commands: %" PRIu64, g.slow_draw);
    if (sdk >= 31) appendf(s, "\nNumber Frame deadline missed: %" PRIu64, g.janky);
    s += "\nHISTOGRAM:";
    for (std::size_t i = 0; i < kHistBins; ++i) appendf(s, " %ums=%" PRIu64, labels[i], g.hist[i]);
    if (sdk >= 29) {
      std::uint64_t gpu_total = 0;
      for (const auto n : g.gpu_hist) gpu_total += n;
      for (int p : {50, 90, 95, 99}) {
        appendf(s, "\n%dth gpu percentile: %ums", p, find_percentile(g.gpu_hist, gpu_labels.data(), gpu_total, p));
      }
      s += "\nGPU HISTOGRAM:";
      for (std::size_t i = 0; i < kGpuHistBins; ++i) appendf(s, " %ums=%" PRIu64, gpu_labels[i], g.gpu_hist[i]);
    }
    s += "\n";
  };
  std::vector<std::tuple<std::int64_t, std::string, std::int64_t>> shown;
  for (AppState& a : apps_) {
    if (!a.gs_buffer) continue;
    a.gs_buffer->dumped_frames = a.gs_buffer->counts.total;
    a.gs_buffer->dumped_janky = a.gs_buffer->counts.janky;
    GraphicsStatsRecord r = *a.gs_buffer;
    r.end_ms = now_ms;
    const auto key = std::make_tuple(day_of(r.start_ms), a.cfg.package, r.version_code);
    if (const auto it = gs_files_.find(key); it != gs_files_.end()) merge(r, it->second);
    block(a.cfg.package, r);
    shown.push_back(key);
  }
  for (const auto& [key, r] : gs_files_) {
    if (std::find(shown.begin(), shown.end(), key) == shown.end()) block(std::get<1>(key), r);
  }
  return s;
}

}  // namespace jank::devsim

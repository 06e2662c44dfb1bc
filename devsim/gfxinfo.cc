// `dumpsys gfxinfo` in Android 13's layout, built from the simulated frames.
#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>

#include "devsim/model.h"

namespace jank::devsim {
namespace {

constexpr std::int64_t kMs = 1'000'000;

__attribute__((format(printf, 2, 3))) void appendf(std::string& s, const char* f, ...) {
  char buf[512];
  std::va_list args;
  va_start(args, f);
  const int n = std::vsnprintf(buf, sizeof buf, f, args);
  va_end(args);
  s.append(buf, static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof buf) - 1)));
}

template <std::size_t N>
std::uint32_t percentile(const std::array<std::uint64_t, N>& hist, const std::uint32_t* labels,
                         std::uint64_t total, int p) {
  if (total == 0) return 0;
  const std::uint64_t want = (total * static_cast<std::uint64_t>(p) + 99) / 100;
  std::uint64_t cum = 0;
  for (std::size_t i = 0; i < N; ++i) {
    cum += hist[i];
    if (cum >= want) return labels[i];
  }
  return labels[N - 1];
}

double pct(std::uint64_t n, std::uint64_t total) {
  return total ? 100.0 * static_cast<double>(n) / static_cast<double>(total) : 0.0;
}

}  // namespace

std::string Device::gfx_block(const AppState& a, bool window) const {
  const GfxCounters& g = a.gfx;
  static const auto labels = histogram_labels();
  std::array<std::uint32_t, kGpuHistBins> gpu_labels{};
  for (std::uint32_t i = 0; i < 25; ++i) gpu_labels[i] = i + 1;
  gpu_labels[25] = 4950;

  std::string s;
  appendf(s, "Stats since: %" PRId64 "ns\n", g.since_mono_ns);
  appendf(s, "Total frames rendered: %" PRIu64 "\n", g.total);
  appendf(s, "Janky frames: %" PRIu64 " (%.2f%%)\n", g.janky, pct(g.janky, g.total));
  appendf(s, "Janky frames (legacy): %" PRIu64 " (%.2f%%)\n", g.janky_legacy, pct(g.janky_legacy, g.total));
  for (int p : {50, 90, 95, 99}) {
    appendf(s, "%dth percentile: %ums\n", p, percentile(g.hist, labels.data(), g.total, p));
  }
  appendf(s, "Number Missed Vsync: %" PRIu64 "\n", g.missed_vsync);
  appendf(s, "Number High input latency: %" PRIu64 "\n", g.high_input);
  appendf(s, "Number Slow UI thread: %" PRIu64 "\n", g.slow_ui);
  appendf(s, "Number Slow bitmap uploads: 0\n");
  appendf(s, "Number Slow issue draw commands: %" PRIu64 "\n", g.slow_draw);
  appendf(s, "Number Frame deadline missed: %" PRIu64 "\n", g.janky);
  appendf(s, "Number Frame deadline missed (legacy): %" PRIu64 "\n", g.missed_vsync);
  s += "HISTOGRAM:";
  for (std::size_t i = 0; i < kHistBins; ++i) appendf(s, " %ums=%" PRIu64, labels[i], g.hist[i]);
  s += "\n";
  for (int p : {50, 90, 95, 99}) {
    appendf(s, "%dth gpu percentile: %ums\n", p, percentile(g.gpu_hist, gpu_labels.data(), g.total, p));
  }
  s += "GPU HISTOGRAM:";
  for (std::size_t i = 0; i < kGpuHistBins; ++i) appendf(s, " %ums=%" PRIu64, gpu_labels[i], g.gpu_hist[i]);
  s += "\n";
  (void)window;
  return s;
}

std::string Device::dumpsys_gfxinfo(const std::vector<std::string>& args, int* exit_code) {
  advance();
  *exit_code = 0;
  std::string pkg;
  bool framestats = false, reset = false;
  for (const auto& a : args) {
    if (a == "framestats") framestats = true;
    else if (a == "reset") reset = true;
    else if (!a.empty() && a[0] != '-') pkg = a;
  }
  std::vector<AppState*> chosen;
  for (auto& a : apps_) {
    if (a.pid != 0 && (pkg.empty() || a.cfg.package == pkg)) chosen.push_back(&a);
  }
  if (chosen.empty() && !pkg.empty()) return "No process found for: " + pkg + "\n";

  const std::int64_t now = now_mono();
  std::string s = "Applications Graphics Acceleration Info:\n";
  appendf(s, "Uptime: %" PRId64 " Realtime: %" PRId64 "\n", now / kMs, now / kMs);
  for (AppState* ap : chosen) {
    AppState& a = *ap;
    const std::string& p = a.cfg.package;
    appendf(s, "\n** Graphics info for pid %d [%s] **\n\n", a.pid, p.c_str());
    s += gfx_block(a, false);
    s += "\nPipeline=Skia (OpenGL)\nCPU Caches:\n  Glyph Cache: 848.59 KB (1 entry)\n"
         "Total CPU memory usage:\n  868953 bytes, 848.59 KB (0.00 bytes is purgeable)\n\n";
    s += "Profile data in ms:\n\n";
    appendf(s, "\t%s/%s.MainActivity/android.view.ViewRootImpl@%x (visibility=0)\n", p.c_str(), p.c_str(),
            a.view_root);
    appendf(s, "Window: %s/%s.MainActivity\n", p.c_str(), p.c_str());
    s += gfx_block(a, true);
    if (framestats) {
      s += "\n\n\n---PROFILEDATA---\n"
           "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,AnimationStart,"
           "PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,FrameStartTime,SyncQueued,SyncStart,"
           "IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,"
           "GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,CommandSubmissionCompleted,\n";
      for (const FrameRecord& f : a.recent) {
        const std::int64_t own = f.duration - (f.start - f.intended);
        const std::int64_t done = f.intended + f.duration;
        const std::int64_t t = f.start;
        appendf(s,
                "0,%" PRIu64 ",%" PRId64 ",%" PRId64 ",0,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64,
                f.vsync_id, f.intended, t, t + 300'000, t + 310'000, t + own / 3, t + own / 2,
                f.intended + f.interval, f.interval, t + 200'000, t + own * 6 / 10, t + own * 7 / 10,
                t + own * 8 / 10, t + own * 9 / 10, done);
        appendf(s, ",20000,250000,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",\n",
                std::max(done, t + own * 9 / 10 + f.gpu), done - 100'000, done + f.interval, t + own * 9 / 10);
      }
      s += "---PROFILEDATA---\n";
    }
    s += "\n\nView hierarchy:\n\n";
    appendf(s, "  %s/%s.MainActivity/android.view.ViewRootImpl@%x\n  42 views, 61.20 kB of render nodes\n\n\n",
            p.c_str(), p.c_str(), a.view_root);
    s += "Total ViewRootImpl   : 1\nTotal attached Views : 42\n"
         "Total RenderNode     : 61.20 kB (used) / 120.00 kB (capacity)\n\n";
    a.truth.gfx_last_dumped = a.gfx.total;
    if (reset) {
      a.truth.gfx_dumped_before += a.gfx.total;
      a.truth.gfx_last_dumped = 0;
      a.gfx = GfxCounters{};
      a.gfx.since_mono_ns = now;
      a.recent.clear();
    }
  }
  return s;
}

}  // namespace jank::devsim

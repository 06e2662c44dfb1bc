// `dumpsys gfxinfo` built from the simulated frames: Android 13's layout from
// API 23 on, 4.x's and 5.x's below (no stats, no framestats), and each
// release's "Profile data in ms" tables while the app is profiled.
#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <utility>

#include "devsim/appendf.h"
#include "devsim/model.h"

namespace jank::devsim {
namespace {

constexpr std::int64_t kMs = 1'000'000;

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

// The times a frame's framestats row prints, from the simulated frame: the
// main thread runs its own work from `start`, the render thread's stages
// follow, and the frame completes `duration` after IntendedVsync.
struct FrameTimes {
  std::int64_t own, draw, sync_queued, sync, issue, swap, done;
};
FrameTimes times_of(const FrameRecord& f) {
  const std::int64_t own = f.duration - (f.start - f.intended);
  const std::int64_t t = f.start;
  return {own, t + own / 2, t + own * 6 / 10, t + own * 7 / 10, t + own * 8 / 10, t + own * 9 / 10,
          f.intended + f.duration};
}

// A profile row's cells in hundredths of a ms (-1: no such column), measured
// as each release measures them (docs/parsing.md, "Profile data tables"):
// 6+ from the intended vsync, each cell clamped to [0, 50] ms; 5.x the
// renderer's work; 4.x without Prepare.
std::array<std::int64_t, 4> profile_cells(const FrameRecord& f, int sdk) {
  const FrameTimes x = times_of(f);
  auto centi = [](std::int64_t ns) { return (std::max<std::int64_t>(ns, 0) + 5'000) / 10'000; };
  if (sdk >= 23) {
    auto clamped = [&](std::int64_t ns) { return centi(std::min<std::int64_t>(ns, 50 * kMs)); };
    return {clamped(x.sync - f.intended), clamped(x.issue - x.sync), clamped(x.swap - x.issue),
            clamped(x.done - x.swap)};
  }
  if (sdk >= 21) return {centi(x.sync - x.draw), centi(x.issue - x.sync), centi(x.swap - x.issue), centi(x.done - x.swap)};
  return {centi(x.sync - x.draw), -1, centi(x.swap - x.sync), centi(x.done - x.swap)};
}

// The view root's line in the "Profile data in ms:" section (4.x prints no visibility).
std::string view_root_line(const SimWindow& w, int sdk) {
  std::string s;
  appendf(s, "\t%s/android.view.ViewRootImpl@%x%s\n", w.title.c_str(), w.view_root,
          sdk <= 20 ? "" : " (visibility=0)");
  return s;
}

}  // namespace

std::string Device::gfx_block(const GfxCounters& g) const {
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
  return s;
}

// The window's frames not printed before, then forgotten as the release
// forgets them: 6+ remembers the newest IntendedVsync printed, 5.x prints
// its buffer from the oldest slot and zeroes it, 4.x prints slots in order
// up to the first empty one and resets them.
std::string Device::profile_table(SimWindow& w) {
  const int sdk = cfg_.sdk;
  std::string s = sdk <= 20 ? "\n\tDraw\tProcess\tExecute\n" : "\n\tDraw\tPrepare\tProcess\tExecute\n";
  auto row = [&](const FrameRecord& f) {
    const auto cells = profile_cells(f, sdk);
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (cells[i] < 0) continue;
      appendf(s, "\t%" PRId64 ".%02" PRId64, cells[i] / 100, cells[i] % 100);
      w.profile.centi_ms[i] += static_cast<std::uint64_t>(cells[i]);
    }
    s += "\n";
    ++w.profile.rows;
  };
  if (sdk >= 23) {
    for (const FrameRecord& f : w.recent) {
      if (f.intended <= w.profile_logged) continue;
      w.profile_logged = f.intended;
      row(f);
    }
  } else if (!w.slots.empty()) {
    const std::size_t n = w.slots.size();
    for (std::size_t k = 0; k < n; ++k) {
      auto& slot = w.slots[sdk >= 21 ? (w.slot + 1 + k) % n : k];
      if (!slot) {
        if (sdk <= 20) break;
        continue;
      }
      row(*slot);
      slot.reset();
    }
    w.slot = 0;
  }
  return s;
}

std::string Device::dumpsys_gfxinfo(const std::vector<std::string>& args, int* exit_code) {
  advance();
  *exit_code = 0;
  const int sdk = cfg_.sdk;
  std::string pkg;
  bool framestats = false, reset = false;
  for (const auto& a : args) {
    if (a == "framestats") framestats = true;
    else if (a == "reset") reset = true;
    else if (!a.empty() && a[0] != '-') pkg = a;
  }
  // Android 6 brought stats blocks and framestats; 4.x/5.x print neither.
  const bool stats = sdk >= 23;
  framestats = framestats && stats;
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
    gfxinfo_dumped(a);
    const std::string& p = a.cfg.package;
    appendf(s, "\n** Graphics info for pid %d [%s] **\n\n", a.pid, p.c_str());
    if (stats) {
      s += gfx_block(a.gfx);
      s += "\nPipeline=Skia (OpenGL)\nCPU Caches:\n  Glyph Cache: 848.59 KB (1 entry)\n"
           "Total CPU memory usage:\n  868953 bytes, 848.59 KB (0.00 bytes is purgeable)\n\n";
    } else {
      s += "Caches:\nCurrent memory usage / total memory usage (bytes):\n  TextureCache           158760 / 25165824\n"
           "Total memory usage:\n  868953 bytes, 848.59 KB\n\n";
    }
    s += "Profile data in ms:\n\n";
    for (SimWindow& w : a.windows) {
      s += view_root_line(w, sdk);
      if (a.profiling) s += profile_table(w) + "\n";
      if (!stats) continue;
      appendf(s, "Window: %s\n", w.title.c_str());
      s += gfx_block(w.gfx);
      if (framestats) {
        s += "\n\n\n---PROFILEDATA---\n"
             "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,AnimationStart,"
             "PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,FrameStartTime,SyncQueued,SyncStart,"
             "IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,"
             "GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,CommandSubmissionCompleted,\n";
        for (const FrameRecord& f : w.recent) {
          const FrameTimes x = times_of(f);
          const std::int64_t t = f.start;
          appendf(s,
                  "0,%" PRIu64 ",%" PRId64 ",%" PRId64 ",0,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                  ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                  ",%" PRId64,
                  f.vsync_id, f.intended, t, t + 300'000, t + 310'000, t + x.own / 3, x.draw,
                  f.intended + f.interval, f.interval, t + 200'000, x.sync_queued, x.sync, x.issue, x.swap,
                  x.done);
          // The GPU's fence is what completes the frame: HWUI takes
          // FrameCompleted as the later of GpuCompleted and
          // SwapBuffersCompleted (frameworks/base libs/hwui/renderthread/
          // CanvasContext.cpp, CanvasContext::onSurfaceStatsAvailable).
          appendf(s, ",20000,250000,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",\n", x.done,
                  x.done - 100'000, x.done + f.interval, x.swap);
        }
        s += "---PROFILEDATA---\n";
      }
      s += "\n\n";
    }
    s += stats ? "View hierarchy:\n\n" : "\nView hierarchy:\n\n";
    for (const SimWindow& w : a.windows) {
      appendf(s, "  %s/android.view.ViewRootImpl@%x\n  42 views, 61.20 kB of %s\n\n", w.title.c_str(), w.view_root,
              stats ? "render nodes" : "display lists");
    }
    if (stats) {
      appendf(s, "\nTotal ViewRootImpl   : %zu\nTotal attached Views : %zu\n"
              "Total RenderNode     : 61.20 kB (used) / 120.00 kB (capacity)\n\n",
              a.windows.size(), 42 * a.windows.size());
    } else {
      appendf(s, "\nTotal ViewRootImpl: %zu\nTotal Views:        %zu\nTotal DisplayList:  61.20 kB\n\n",
              a.windows.size(), 42 * a.windows.size());
    }
    a.truth.gfx_last_dumped = a.gfx.total;
    a.truth.gfx_janky_last_dumped = a.gfx.janky;
    if (reset && stats) {
      a.truth.gfx_dumped_before += a.gfx.total;
      a.truth.gfx_last_dumped = 0;
      a.truth.gfx_janky_dumped_before += std::exchange(a.truth.gfx_janky_last_dumped, 0);
      a.gfx = GfxCounters{};
      a.gfx.since_mono_ns = now;
      a.recent.clear();
      // HWUI forgets its frames: profiled ones not printed yet are gone.
      for (SimWindow& w : a.windows) {
        for (const FrameRecord& f : w.recent) w.profile.lost += a.profiling && f.intended > w.profile_logged ? 1 : 0;
        w.recent.clear();
        w.gfx = a.gfx;
      }
    }
  }
  return s;
}

}  // namespace jank::devsim

// SurfaceFlinger's FrameTimeline on the simulated device: display frames
// (compositions), the app frames in them, SurfaceFlinger's verdict on each,
// and `dumpsys SurfaceFlinger --frametimeline -all|-jank` as Android 12-16
// print it.
//
// Modelled on AOSP frameworks/native FrameTimeline.cpp (SurfaceFrame's jank
// classification, the dump format, kDefaultMaxDisplayFrames = 64) and
// JankInfo.h. Differences (docs/devsim.md): one display; a composition
// starts exactly one period before its present; apps of different vsync
// phases share the display frame nearest their present; a display frame's
// own predictions are derived from its present; only SurfaceFlinger's
// deadline misses (CPU, GPU, display HAL) make a display frame janky, and a
// miss always costs exactly one period.
#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cmath>
#include <cstdio>

#include "devsim/appendf.h"
#include "devsim/model.h"

namespace jank::devsim {
namespace {

constexpr std::size_t kMaxDisplayFrames = 64;
constexpr std::int64_t kPresentThresholdNs = 2'000'000;  // JankClassificationThresholds

double ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

// The printed jank list, in SurfaceFlinger's order; the names of its own
// misses changed in Android 14, "Dropped Frame" came with 15.
std::string jank_names(std::uint32_t jank, int sdk) {
  if (jank == 0) return "None";
  const bool new_names = sdk >= 34;
  const std::pair<std::uint32_t, const char*> names[] = {
      {ft_jank::kDisplayHal, "Display HAL"},
      {ft_jank::kSfCpu, new_names ? "SurfaceFlinger deadline missed (while in HWC)" : "SurfaceFlinger CPU Deadline Missed"},
      {ft_jank::kSfGpu,
       new_names ? "SurfaceFlinger deadline missed (while in GPU comp)" : "SurfaceFlinger GPU Deadline Missed"},
      {ft_jank::kAppDeadline, "App Deadline Missed"},
      {ft_jank::kPredictionError, "Prediction Error"},
      {ft_jank::kSfScheduling, "SurfaceFlinger Scheduling"},
      {ft_jank::kBufferStuffing, "Buffer Stuffing"},
      {ft_jank::kUnknown, "Unknown jank"},
      {ft_jank::kSfStuffing, "SurfaceFlinger Stuffing"},
      {ft_jank::kDropped, "Dropped Frame"},
  };
  std::string out;
  for (const auto& [bit, name] : names) {
    if ((jank & bit) == 0) continue;
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

void table(std::string& s, const char* indent, bool predicted, std::int64_t base, std::int64_t es, std::int64_t ee,
           std::int64_t ep, std::int64_t as, std::int64_t ae, std::int64_t ap) {
  appendf(s, "%s\t\t    Start time\t\t|    End time\t\t|    Present time\n", indent);
  if (predicted) {
    appendf(s, "%sExpected\t|\t%10.2f\t|\t%10.2f\t|\t%10.2f\n", indent, ms(es - base), ms(ee - base), ms(ep - base));
  }
  appendf(s, "%sActual  \t|", indent);
  if (as == 0) {
    s += "\t\tN/A\t|";
  } else {
    appendf(s, "\t%10.2f\t|", ms(std::max<std::int64_t>(0, as - base)));
  }
  if (ae <= 0) {
    s += "\t\tN/A\t|";
  } else {
    appendf(s, "\t%10.2f\t|", ms(ae - base));
  }
  if (ap == 0) {
    s += "\t\tN/A\n";
  } else {
    appendf(s, "\t%10.2f\n", ms(std::max<std::int64_t>(0, ap - base)));
  }
  appendf(s, "%s----------------------------------------------------------------------------------------\n", indent);
}

}  // namespace

SimDisplayFrame& Device::display_frame(std::int64_t present) {
  const std::int64_t iv = interval_ns();
  auto it = display_frames_.lower_bound(present - iv / 2);
  if (it != display_frames_.end() && it->first <= present + iv / 2) return it->second;
  SimDisplayFrame df;
  df.expected_present = present;
  df.actual_present = present;
  std::uniform_real_distribution<double> u(0, 1);
  if (cfg_.sf_miss_prob > 0 && u(ft_rng_) < cfg_.sf_miss_prob) {
    const double which = u(ft_rng_);
    df.jank = which < 0.6 ? ft_jank::kSfCpu : which < 0.85 ? ft_jank::kSfGpu : ft_jank::kDisplayHal;
    df.actual_present = present + iv;
  }
  if (sf_owed_misses_ > 0) {
    // A dump held SurfaceFlinger's main thread past this composition's start.
    --sf_owed_misses_;
    if (df.jank == 0) {
      df.jank = ft_jank::kSfCpu;
      df.actual_present = present + iv;
      ++sf_observer_misses_;
    }
  }
  const auto added = display_frames_.emplace(present, std::move(df)).first;
  prune_display_frames(added);
  return added->second;
}

void Device::prune_display_frames(std::map<std::int64_t, SimDisplayFrame>::const_iterator keep) {
  // SurfaceFlinger keeps the newest 64 compositions that have started;
  // those still ahead of the simulation are not in its window yet. The frame
  // being composed stays even if older than the window: its caller holds it
  // (the truth then counts a frame no reader saw, which the tests report).
  const std::int64_t iv = interval_ns();
  std::size_t ahead = 0;
  for (auto it = display_frames_.rbegin(); it != display_frames_.rend() && it->second.start(iv) > sim_time_; ++it) {
    ++ahead;
  }
  while (display_frames_.size() > kMaxDisplayFrames + ahead) {
    const auto oldest = display_frames_.begin() == keep ? std::next(keep) : display_frames_.begin();
    display_frames_.erase(oldest);
  }
}

std::uint32_t Device::classify(const SimSurfaceFrame& f, std::uint32_t display_jank) const {
  const std::int64_t iv = interval_ns();
  const std::int64_t present_delta = f.actual_present - f.expected_present;
  bool late_finish = f.actual_end > f.expected_end;
  if (std::llabs(present_delta) <= kPresentThresholdNs) return 0;  // on time
  const std::int64_t to_vsync = iv > 0 ? std::llabs(present_delta) % iv : 0;
  const bool vsync_multiple = to_vsync < kPresentThresholdNs || to_vsync >= iv - kPresentThresholdNs;
  if (present_delta < 0) {
    if (late_finish) return ft_jank::kUnknown;
    return vsync_multiple ? ft_jank::kSfScheduling : ft_jank::kPredictionError;
  }
  std::uint32_t jank = 0;
  if (f.last_latch != 0 && f.expected_end <= f.last_latch) {
    // Stuffed behind a queued buffer: the deadline moves to a period after that latch.
    jank |= ft_jank::kBufferStuffing;
    late_finish = f.last_latch + iv <= f.actual_end;
  }
  if (!late_finish) {
    if (display_jank != 0) {
      jank |= display_jank;
    } else if ((jank & ft_jank::kBufferStuffing) == 0) {
      jank |= vsync_multiple ? ft_jank::kSfScheduling : ft_jank::kPredictionError;
    }
  } else {
    jank |= ft_jank::kAppDeadline | display_jank;
  }
  return jank;
}

void Device::count_ft_truth(AppState& a, std::uint32_t jank) {
  FrameTimelineTruth& t = a.ft_truth;
  ++t.frames;
  constexpr std::uint32_t kJanky = ft_jank::kDisplayHal | ft_jank::kSfCpu | ft_jank::kSfGpu | ft_jank::kAppDeadline |
                                   ft_jank::kPredictionError | ft_jank::kSfScheduling;
  if ((jank & kJanky) != 0) ++t.janky;
  if (jank == 0) ++t.by_label[0];
  for (std::size_t bit = 0; bit < 10; ++bit) {
    if ((jank & (1u << bit)) != 0) ++t.by_label[bit + 1];
  }
}

void Device::count_timestats(const AppState& a, const SimSurfaceFrame& f) {
  if (!ts_enabled_ || cfg_.sdk < 31) return;
  // clampToNearestBucket: both rates to the nearest multiple of 30 fps.
  const auto bucket = static_cast<std::int32_t>(std::lround(refresh_hz_ / 30) * 30);
  SimTimeStatsLayer& row = ts_layers_[{bucket, bucket, a.uid, layer_name(a, false, f.layer_id)}];
  row.refresh_rate_fps = row.render_rate_fps = bucket;
  row.uid = a.uid;
  row.layer_name = layer_name(a, false, f.layer_id);
  row.game_mode = 0;
  if (f.dropped) {
    // Present fences only: a dropped buffer never reaches onPresent's classification.
    ++row.dropped_frames;
    return;
  }
  ++row.total_frames;
  ++row.present_to_present_ms[static_cast<std::int32_t>(std::lround(1000 / refresh_hz_))];
  SimTimeStatsGlobal& global = ts_global_[{bucket, bucket}];
  global.refresh_rate_fps = global.render_rate_fps = bucket;
  // TimeStats::updateJankPayload: causes only for janky frames, buffer
  // stuffing always.
  constexpr std::uint32_t kJanky = ft_jank::kDisplayHal | ft_jank::kSfCpu | ft_jank::kSfGpu | ft_jank::kAppDeadline |
                                   ft_jank::kPredictionError | ft_jank::kSfScheduling;
  for (SimJankPayload* p : {&row.jank, &global.jank}) {
    ++p->total_timeline_frames;
    if ((f.jank & kJanky) != 0) {
      ++p->janky_frames;
      if ((f.jank & ft_jank::kSfCpu) != 0) ++p->sf_long_cpu;
      if ((f.jank & ft_jank::kSfGpu) != 0) ++p->sf_long_gpu;
      if ((f.jank & ft_jank::kDisplayHal) != 0) ++p->sf_unattributed;
      if ((f.jank & ft_jank::kAppDeadline) != 0) ++p->app_unattributed;
      if ((f.jank & ft_jank::kSfScheduling) != 0) ++p->sf_scheduling;
      if ((f.jank & ft_jank::kPredictionError) != 0) ++p->sf_prediction_error;
    }
    if ((f.jank & ft_jank::kBufferStuffing) != 0) ++p->app_buffer_stuffing;
  }
}

void Device::timestats_pull(bool global) {
  advance();
  const std::int64_t now_s = wall_now() / 1'000'000'000;
  if (global) {
    for (auto& [key, g] : ts_global_) g.jank = SimJankPayload{};
    ts_stats_start_ = now_s;
  } else {
    ts_layers_.clear();
  }
  if (!ts_enabled_) {
    ts_enabled_ = true;
    if (ts_stats_start_ == 0) ts_stats_start_ = now_s;
  }
}

std::string Device::surfaceflinger_timestats(const std::vector<std::string>& flags) {
  advance();
  if (cfg_.sdk < 31) return {};  // Android 11's TimeStats (no jank payload) is not modelled
  auto has = [&](std::string_view flag) { return std::find(flags.begin(), flags.end(), flag) != flags.end(); };
  const std::int64_t now_s = wall_now() / 1'000'000'000;
  std::string out;
  if (has("-disable")) ts_enabled_ = false;
  if (has("-dump") && ts_stats_start_ != 0) {
    SimTimeStats ts;
    ts.stats_start = ts_stats_start_;
    ts.stats_end = now_s;
    for (const auto& [key, g] : ts_global_) ts.global.push_back(g);
    for (const auto& [key, l] : ts_layers_) ts.layers.push_back(l);
    std::stable_sort(ts.layers.begin(), ts.layers.end(),
                     [](const SimTimeStatsLayer& x, const SimTimeStatsLayer& y) { return x.total_frames > y.total_frames; });
    for (const auto& l : ts.layers) ts.total_frames += l.total_frames;
    out = format_timestats(cfg_.sdk, ts);
  }
  if (has("-clear")) {
    ts_global_.clear();
    ts_layers_.clear();
    ts_stats_start_ = ts_enabled_ ? now_s : 0;
  }
  if (has("-enable") && !ts_enabled_) {
    ts_enabled_ = true;
    ts_stats_start_ = now_s;
  }
  return out;
}

std::string Device::surfaceflinger_frametimeline(bool all, bool jank_only) {
  advance();
  std::string s;
  const int sdk = cfg_.sdk;
  if (sdk < 31 || (!all && !jank_only)) return s;  // no such dump before Android 12; no flag prints nothing
  const std::int64_t iv = interval_ns();
  const std::int64_t now = now_mono();
  std::vector<const SimDisplayFrame*> window;
  for (const auto& [at, df] : display_frames_) {
    if (df.start(iv) <= now) window.push_back(&df);
  }
  if (window.size() > kMaxDisplayFrames) window.erase(window.begin(), window.end() - kMaxDisplayFrames);
  // Times print relative to the oldest display frame's earliest time.
  std::int64_t base = 0;
  if (!window.empty()) {
    const SimDisplayFrame& oldest = *window.front();
    base = oldest.start(iv);
    for (const auto& f : oldest.surface_frames) {
      if (f.token >= 0) base = std::min(base, f.expected_start);
      base = std::min(base, f.actual_start);
    }
  }
  auto janky = [&](const SimDisplayFrame& df) {
    if (df.jank != 0) return true;
    for (const auto& f : df.surface_frames) {
      if (f.actual_present != 0 && f.actual_present <= now && f.jank != 0) return true;
    }
    return false;
  };
  auto print = [&](std::size_t index, const SimDisplayFrame& df) {
    const bool presented = df.actual_present <= now;
    const std::uint32_t df_jank = presented ? df.jank : 0;
    appendf(s, "Display Frame %zu%s\n", index, df_jank != 0 ? " [*] " : "");
    s += "Prediction State : Valid\n";
    appendf(s, "Jank Type : %s\n", jank_names(df_jank, sdk).c_str());
    appendf(s, "Present Metadata : %s\n",
            !presented ? "Unknown Present" : df_jank != 0 ? "Late Present" : "On Time Present");
    appendf(s, "Finish Metadata: %s\n", !presented ? "Unknown Finish" : df_jank != 0 ? "Late Finish" : "On Time Finish");
    s += "Start Metadata: Unknown Start\n";
    appendf(s, "Vsync Period: %10f\n", ms(iv));
    const std::int64_t delta = presented ? df.actual_present - df.expected_present : 0;
    appendf(s, "Present delta: %10f\n", ms(delta));
    appendf(s, "Present delta %% refreshrate: %10f\n", ms(iv > 0 ? delta % iv : 0));
    const std::int64_t start = df.start(iv);
    table(s, "", true, base, df.expected_present - iv, df.expected_present - iv / 4, df.expected_present, start,
          start + iv / 2 + (df.jank != 0 ? iv : 0), presented ? df.actual_present : 0);
    s += "\n";
    for (const auto& f : df.surface_frames) {
      const AppState& a = apps_[f.app];
      const bool fence = f.actual_present != 0 && f.actual_present <= now;
      const std::uint32_t jank = fence ? f.jank : 0;
      const bool predicted = f.token >= 0;
      const std::string name = layer_name(a, f.game, f.layer_id);
      appendf(s, "    Layer - TX - %s%s\n", name.c_str(), jank != 0 ? " [*] " : "");
      appendf(s, "    Token: %" PRId64 "\n", f.token);
      s += "    Is Buffer?: 1\n";
      appendf(s, "    Owner Pid : %d\n", f.pid);
      appendf(s, "    Scheduled rendering rate: %d fps\n", static_cast<int>(std::lround(refresh_hz_)));
      appendf(s, "    Layer ID : %u\n", f.layer_id);
      appendf(s, "    Present State : %s\n", f.dropped ? "Dropped" : "Presented");
      if (f.dropped) appendf(s, "    Drop time : %10f\n", ms(f.actual_end - base));
      appendf(s, "    Prediction State : %s\n", predicted ? "Valid" : "None");
      // Before Android 15 a dropped frame keeps the jank type None.
      const std::uint32_t printed = f.dropped ? (sdk >= 35 ? ft_jank::kDropped : 0) : jank;
      appendf(s, "    Jank Type : %s\n", jank_names(printed, sdk).c_str());
      const std::int64_t present_delta = f.actual_present - f.expected_present;
      const char* present_meta = !fence || !predicted        ? "Unknown Present"
                                 : std::llabs(present_delta) <= kPresentThresholdNs ? "On Time Present"
                                 : present_delta > 0          ? "Late Present"
                                                              : "Early Present";
      appendf(s, "    Present Metadata : %s\n", present_meta);
      appendf(s, "    Finish Metadata: %s\n",
              !fence || !predicted ? "Unknown Finish"
              : (f.jank & ft_jank::kAppDeadline) != 0 ? "Late Finish"
                                                      : "On Time Finish");
      appendf(s, "    Last latch time: %10f\n", ms(std::max<std::int64_t>(0, f.last_latch - base)));
      if (predicted) appendf(s, "    Present delta: %10f\n", ms(fence ? std::llabs(present_delta) : 0));
      table(s, "    ", predicted, base, f.expected_start, f.expected_end, f.expected_present, f.actual_start,
            f.actual_end, fence ? f.actual_present : 0);
      s += "\n";
    }
  };
  // Both flags: the janky frames first, then all of them.
  if (jank_only) {
    for (std::size_t i = 0; i < window.size(); ++i) {
      if (janky(*window[i])) print(i, *window[i]);
    }
  }
  if (all) {
    appendf(s, "Number of display frames : %zu\n", window.size());
    for (std::size_t i = 0; i < window.size(); ++i) print(i, *window[i]);
  }
  return s;
}

}  // namespace jank::devsim

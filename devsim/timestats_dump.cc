#include "devsim/appendf.h"
#include "devsim/timestats_dump.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace jank::devsim {

namespace {

// TimeStatsHelper.cpp's histogram buckets (ms): a delta is filed under the
// first bucket not below it, anything above 1000 under 1000.
constexpr std::array<std::int32_t, 85> kBuckets = {
    0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,  11,  12,  13,  14,  15,  16,  17,  18,  19,  20,  21,
    22,  23,  24,  25,  26,  27,  28,  29,  30,  31,  32,  33,  34,  36,  38,  40,  42,  44,  46,  48,  50,  54,
    58,  62,  66,  70,  74,  78,  82,  86,  90,  94,  98,  102, 106, 110, 114, 118, 122, 126, 130, 134, 138, 142,
    146, 150, 200, 250, 300, 350, 400, 450, 500, 550, 600, 650, 700, 750, 800, 850, 900, 950, 1000};

using Histogram = std::map<std::int32_t, std::int64_t>;

Histogram bucketed(const std::map<std::int32_t, std::int32_t>& deltas) {
  Histogram h;
  for (const auto& [ms, count] : deltas) {
    if (ms < 0 || count <= 0) continue;
    const auto it = std::lower_bound(kBuckets.begin(), kBuckets.end(), ms);
    h[it == kBuckets.end() ? kBuckets.back() : *it] += count;
  }
  return h;
}

void append_histogram(std::string& out, const char* name, const Histogram& h) {
  appendf(out, "%s histogram is as below:\n", name);
  for (const std::int32_t bucket : kBuckets) {
    const auto it = h.find(bucket);
    appendf(out, "%" PRId32 "ms=%" PRId64 " ", bucket, it == h.end() ? std::int64_t{0} : it->second);
  }
  out.back() = '\n';
}

void append_jank(std::string& out, const SimJankPayload& j) {
  appendf(out, "totalTimelineFrames = %" PRId32 "\n", j.total_timeline_frames);
  appendf(out, "jankyFrames = %" PRId32 "\n", j.janky_frames);
  appendf(out, "sfLongCpuJankyFrames = %" PRId32 "\n", j.sf_long_cpu);
  appendf(out, "sfLongGpuJankyFrames = %" PRId32 "\n", j.sf_long_gpu);
  appendf(out, "sfUnattributedJankyFrames = %" PRId32 "\n", j.sf_unattributed);
  appendf(out, "appUnattributedJankyFrames = %" PRId32 "\n", j.app_unattributed);
  appendf(out, "sfSchedulingJankyFrames = %" PRId32 "\n", j.sf_scheduling);
  appendf(out, "sfPredictionErrorJankyFrames = %" PRId32 "\n", j.sf_prediction_error);
  appendf(out, "appBufferStuffingJankyFrames = %" PRId32 "\n", j.app_buffer_stuffing);
}

std::string game_mode_name(int sdk, std::int32_t mode) {
  if (sdk <= 32) {  // Android 12's own switch, with a default
    static constexpr std::array<const char*, 4> kNames = {"GameModeUnsupported", "GameModeStandard",
                                                          "GameModePerformance", "GameModeBattery"};
    return mode >= 0 && mode < 4 ? kNames[static_cast<std::size_t>(mode)] : "GameModeUnspecified";
  }
  // 13+: ftl::enum_string, the number when the value has no name.
  static constexpr std::array<const char*, 5> kNames = {"Unsupported", "Standard", "Performance", "Battery",
                                                        "Custom"};
  const std::int32_t named = sdk >= 34 ? 5 : 4;
  return mode >= 0 && mode < named ? kNames[static_cast<std::size_t>(mode)] : std::to_string(mode);
}

void append_layer(std::string& out, int sdk, const SimTimeStatsLayer& l) {
  out += "\n";
  appendf(out, "displayRefreshRate = %" PRId32 " fps\n", l.refresh_rate_fps);
  appendf(out, "renderRate = %" PRId32 " fps\n", l.render_rate_fps);
  appendf(out, "uid = %" PRId32 "\n", l.uid);
  out += "layerName = " + l.layer_name + "\n";
  out += "packageName = \n";  // never filled in by SurfaceFlinger
  out += "gameMode = " + game_mode_name(sdk, l.game_mode) + "\n";
  appendf(out, "totalFrames = %" PRId32 "\n", l.total_frames);
  appendf(out, "droppedFrames = %" PRId32 "\n", l.dropped_frames);
  appendf(out, "lateAcquireFrames = %" PRId32 "\n", l.late_acquire_frames);
  appendf(out, "badDesiredPresentFrames = %" PRId32 "\n", l.bad_desired_present_frames);
  out += "Jank payload for this layer:\n";
  append_jank(out, l.jank);
  out += sdk >= 35 ? "SetFrameRate vote for this layer:\n" : "SetFrateRate vote for this layer:\n";
  const bool voted = l.frame_rate_vote > 0;
  appendf(out, "frameRate = %.2f\n", static_cast<double>(l.frame_rate_vote));
  out += voted ? "frameRateCompatibility = Default\n" : "frameRateCompatibility = Undefined\n";
  out += voted ? "seamlessness = ShouldBeSeamless\n" : "seamlessness = Undefined\n";
  if (!l.present_to_present_ms.empty()) {
    const Histogram p2p = bucketed(l.present_to_present_ms);
    std::int64_t count = 0, total = 0;
    for (const auto& [ms, n] : p2p) {
      count += n;
      total += ms * n;
    }
    // Float, as SurfaceFlinger computes it.
    const float average = count == 0 ? 0.0f : static_cast<float>(total) / static_cast<float>(count);
    const float fps = average < 1.0f ? 0.0f : 1000.0f / average;
    appendf(out, "averageFPS = %.3f\n", static_cast<double>(fps));
    const Histogram none;
    for (const char* name : {"post2acquire", "post2present", "acquire2present", "latch2present", "desired2present"})
      append_histogram(out, name, none);
    append_histogram(out, "present2present", p2p);
    if (sdk >= 34) append_histogram(out, "present2presentDelta", none);
  }
  if (l.jank.janky_frames > 0) append_histogram(out, "appDeadlineDeltas", Histogram{});
}

}  // namespace

std::string format_timestats(int sdk, const SimTimeStats& s) {
  if (s.stats_start == 0) return "";  // TimeStats::dump returns before printing anything
  std::string out = "SurfaceFlinger TimeStats:\n";
  out += "Legacy stats are as follows:\n";
  appendf(out, "statsStart = %" PRId64 "\n", s.stats_start);
  appendf(out, "statsEnd = %" PRId64 "\n", s.stats_end);
  appendf(out, "totalFrames = %" PRId32 "\n", s.total_frames);
  appendf(out, "missedFrames = %" PRId32 "\n", s.missed_frames);
  appendf(out, "clientCompositionFrames = %" PRId32 "\n", s.client_composition_frames);
  out += "clientCompositionReusedFrames = 0\n";
  out += "refreshRateSwitches = 0\n";
  out += "compositionStrategyChanges = 0\n";
  if (sdk >= 33) {
    out += "compositionStrategyPredicted = 0\n";
    out += "compositionStrategyPredictionSucceeded = 0\n";
    out += "compositionStrategyPredictionFailed = 0\n";
  }
  appendf(out, "displayOnTime = %" PRId64 " ms\n", s.display_on_ms);
  out += "displayConfigStats is as below:\n";
  for (const auto& [fps, ms] : s.display_config_ms) appendf(out, "%" PRId32 "fps = %" PRId64 "ms\n", fps, ms);
  out += "totalP2PTime = 0 ms\n";
  const Histogram none;
  append_histogram(out, "presentToPresent", none);
  out += "averageFrameDuration = 0.000 ms\n";
  append_histogram(out, "frameDuration", none);
  out += "averageRenderEngineTiming = 0.000 ms\n";
  append_histogram(out, "renderEngineTiming", none);

  out += "\nGlobal aggregated jank payload (Timeline stats):";
  for (const auto& g : s.global) {
    out += "\n";
    appendf(out, "displayRefreshRate = %" PRId32 " fps\n", g.refresh_rate_fps);
    appendf(out, "renderRate = %" PRId32 " fps\n", g.render_rate_fps);
    append_jank(out, g.jank);
    append_histogram(out, "sfDeadlineMisses", none);
    append_histogram(out, "sfPredictionErrors", none);
  }

  std::vector<const SimTimeStatsLayer*> layers;
  for (const auto& l : s.layers) layers.push_back(&l);
  std::stable_sort(layers.begin(), layers.end(),
                   [](const SimTimeStatsLayer* a, const SimTimeStatsLayer* b) { return a->total_frames > b->total_frames; });
  for (const SimTimeStatsLayer* l : layers) append_layer(out, sdk, *l);
  out += "\n";
  return out;
}

}  // namespace jank::devsim

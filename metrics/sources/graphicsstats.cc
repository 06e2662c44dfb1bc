#include "metrics/sources/graphicsstats.h"

#include <string>

#include "metrics/checkpoint.h"
#include "metrics/store.h"

namespace jank::metrics {
namespace {

constexpr FamilySpec kFamilies[] = {
    {"android_graphicsstats_frames_total", FamilyType::counter, "frames",
     "Frames the app rendered by dumpsys graphicsstats (the system's per-day statistics, every app, across process "
     "deaths and reboots), per version code.",
     "serial,package,version_code"},
    {"android_graphicsstats_janky_frames_total", FamilyType::counter, "frames",
     "Janky frames by dumpsys graphicsstats (HWUI's rule, as gfxinfo's Janky frames), per version code.",
     "serial,package,version_code"},
    {"android_graphicsstats_slow_frames_total", FamilyType::counter, "frames",
     "Frames over 16 ms in dumpsys graphicsstats' HISTOGRAM (Android vitals' slow rendering).",
     "serial,package,version_code"},
    {"android_graphicsstats_frozen_frames_total", FamilyType::counter, "frames",
     "Frames over 700 ms in dumpsys graphicsstats' HISTOGRAM (Android vitals' frozen frames).",
     "serial,package,version_code"},
    {"android_graphicsstats_jank_causes_total", FamilyType::counter, "",
     "dumpsys graphicsstats' Number lines: missed_vsync, high_input_latency, slow_ui_thread, slow_bitmap_uploads, "
     "slow_issue_draw_commands, frame_deadline_missed (Android 12+); only causes the device prints.",
     "serial,package,version_code,cause", SeriesGroup::jank_types},
    {"android_graphicsstats_frame_duration_seconds", FamilyType::histogram, "seconds",
     "Frame times from dumpsys graphicsstats' HISTOGRAM, in the buckets of android_gfxinfo_frame_duration_seconds.",
     "serial,package,version_code", SeriesGroup::distributions},
    {"android_graphicsstats_gpu_duration_seconds", FamilyType::histogram, "seconds",
     "GPU times from dumpsys graphicsstats' GPU HISTOGRAM (Android 10+).", "serial,package,version_code",
     SeriesGroup::distributions},
    {"jank_exporter_graphicsstats_polls_total", FamilyType::counter, "",
     "dumpsys graphicsstats polls, by result (unsupported: no graphicsstats service, before Android 7; denied: "
     "refused).",
     "serial,result"},
    {"jank_exporter_graphicsstats_lines_total", FamilyType::counter, "lines",
     "dumpsys graphicsstats lines received, by outcome (received = parsed + discarded; discarded: a line of no "
     "block's format or a value that did not parse).",
     "serial,result"},
    {"jank_exporter_graphicsstats_blocks", FamilyType::gauge, "",
     "dumpsys graphicsstats blocks (a day, an app, a version) the exporter keeps for this device.", "serial"},
};
constexpr const FamilySpec& kFrames = kFamilies[0];
constexpr const FamilySpec& kJanky = kFamilies[1];
constexpr const FamilySpec& kSlow = kFamilies[2];
constexpr const FamilySpec& kFrozen = kFamilies[3];
constexpr const FamilySpec& kCauses = kFamilies[4];
constexpr const FamilySpec& kFrameTime = kFamilies[5];
constexpr const FamilySpec& kGpuTime = kFamilies[6];
constexpr const FamilySpec& kPolls = kFamilies[7];
constexpr const FamilySpec& kLines = kFamilies[8];
constexpr const FamilySpec& kBlocks = kFamilies[9];

}  // namespace

const GraphicsStatsSource& graphicsstats_source() {
  static const GraphicsStatsSource source;
  return source;
}

std::span<const FamilySpec> GraphicsStatsSource::families() const { return kFamilies; }

bool GraphicsStatsSource::checkpoint_state(Checkpoint& c, GraphicsStatsState& g) const {
  c.count(g.dumps).count(g.lines).count(g.malformed_lines).count(g.discarded_blocks);
  const bool tracker_valid = c.part(g.tracker);
  return c.valid() && tracker_valid && g.malformed_lines <= g.lines;
}

void GraphicsStatsSource::collect(SeriesSink& f, const DeviceMetrics& d, const LabelSet& dev, std::int64_t,
                                  CollectAt) const {
  const GraphicsStatsState* g = find(d);
  if (g == nullptr) return;
  collect_polled_input(f, d, dev, kPolls, kLines, {g->polls, g->dumps, g->lines, g->malformed_lines});
  if (g->dumps == 0) return;
  f.sample(kBlocks, dev, static_cast<double>(g->tracker.blocks()));
  for (const auto& [app, t] : g->tracker.apps()) {
    const LabelSet labels =
        f.labels({{"serial", d.serial}, {"package", app.package}, {"version_code", std::to_string(app.version_code)}});
    f.sample(kFrames, labels, static_cast<double>(t.frames_rendered()));
    f.sample(kJanky, labels, static_cast<double>(t.janky_frames()));
    if (t.has_histogram()) {
      f.sample(kSlow, labels, static_cast<double>(t.slow_frames()));
      f.sample(kFrozen, labels, static_cast<double>(t.frozen_frames()));
      f.histogram(kFrameTime, labels, t.frame_duration());
    }
    for (std::size_t c = 0; c < kJankCauses; ++c) {
      const auto cause = static_cast<JankCause>(c);
      if (!t.causes_seen()[c] || cause == JankCause::frame_deadline_missed_legacy) continue;
      f.sample(kCauses, labels, Extra{"cause", jank_cause_name(cause)}, static_cast<double>(t.causes()[c]));
    }
    if (t.has_gpu_histogram()) f.histogram(kGpuTime, labels, t.gpu_duration());
  }
}

void record_graphicsstats(const Store& store, DeviceMetrics& device, const parsers::GraphicsStatsDump& dump,
                          bool whole) {
  auto& g = graphicsstats_source().state(device);
  ++g.dumps;
  g.lines += dump.lines;
  g.malformed_lines += dump.malformed_lines;
  g.discarded_blocks += dump.discarded_blocks;
  // A dump with blocks cut away (the output cap) misses none for good.
  g.tracker.apply(dump, whole && dump.discarded_blocks == 0, judge_interval_ns(store, device));
}

void count_graphicsstats_poll(DeviceMetrics& device, std::string_view result) {
  graphicsstats_source().state(device).polls.count(result);
}

const GraphicsStatsState* graphicsstats_of(const DeviceMetrics& device) { return graphicsstats_source().find(device); }

}  // namespace jank::metrics

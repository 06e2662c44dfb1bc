#include "metrics/sources/timestats.h"

#include <map>
#include <string>

#include "parsers/frametimeline.h"
#include "parsers/sf_layers.h"

namespace jank::metrics {
namespace {

constexpr FamilySpec kFamilies[] = {
    {"jank_exporter_timestats_resets_total", FamilyType::counter, "",
     "TimeStats resets taken in without loss (a statsd pull or a clear), by scope: buckets (the global jank payload), "
     "layers (every layer row) or row (one layer row found cleared).",
     "serial,scope"},
    {"jank_exporter_timestats_overflow_rows_total", FamilyType::counter, "",
     "TimeStats rows beyond the exporter's caps (256 layers, 64 rate buckets per device), not counted.", "serial"},
    {"android_timestats_display_timeline_frames_total", FamilyType::counter, "frames",
     "App frames SurfaceFlinger's TimeStats classified (totalTimelineFrames), by refresh and render rate.",
     "serial,refresh_rate,render_rate"},
    {"android_timestats_display_janky_frames_total", FamilyType::counter, "frames",
     "TimeStats' janky frames (jankyFrames), by refresh and render rate.", "serial,refresh_rate,render_rate"},
    {"android_timestats_display_jank_frames_total", FamilyType::counter, "frames",
     "TimeStats' frames per jank cause, by refresh and render rate (buffer stuffing counted even when not janky).",
     "serial,refresh_rate,render_rate,jank_type", SeriesGroup::jank_types},
    {"android_timestats_frames_total", FamilyType::counter, "frames",
     "Frames the app's layers presented per TimeStats (totalFrames, from present fences).", "serial,package"},
    {"android_timestats_dropped_frames_total", FamilyType::counter, "frames",
     "Frames of the app's layers replaced before they were latched, per TimeStats (droppedFrames).",
     "serial,package"},
    {"android_timestats_timeline_frames_total", FamilyType::counter, "frames",
     "Frames of the app's layers TimeStats classified (totalTimelineFrames).", "serial,package"},
    {"android_timestats_janky_frames_total", FamilyType::counter, "frames",
     "Frames of the app's layers TimeStats counts janky (jankyFrames).", "serial,package"},
    {"android_timestats_jank_frames_total", FamilyType::counter, "frames",
     "Frames of the app's layers per TimeStats jank cause (buffer stuffing counted even when not janky).",
     "serial,package,jank_type", SeriesGroup::jank_types},
};
constexpr const FamilySpec& kResets = kFamilies[0];
constexpr const FamilySpec& kOverflowRows = kFamilies[1];
constexpr const FamilySpec& kDisplayTimeline = kFamilies[2];
constexpr const FamilySpec& kDisplayJanky = kFamilies[3];
constexpr const FamilySpec& kDisplayJank = kFamilies[4];
constexpr const FamilySpec& kFrames = kFamilies[5];
constexpr const FamilySpec& kDropped = kFamilies[6];
constexpr const FamilySpec& kTimeline = kFamilies[7];
constexpr const FamilySpec& kJanky = kFamilies[8];
constexpr const FamilySpec& kJank = kFamilies[9];
// Declared by the layers module with SurfaceFlinger's input (sources/layers);
// TimeStats' lines are its source="timestats". A copy is found by its name.
constexpr FamilySpec kSurfaceLines = {"jank_exporter_surfaceflinger_lines_total", FamilyType::counter, "lines", "",
                                      "serial,source,result"};

// The jank payload's cause counters: label and value.
template <typename Emit>
void each_cause(const parsers::TsJankPayload& jank, Emit emit) {
  for (const parsers::TsJankField field : parsers::kTsJankFields) {
    const std::uint32_t cause = parsers::ts_jank_field_cause(field);
    if (cause != 0) emit(parsers::jank_bit_name(cause), jank[field]);
  }
}

// Per app: its layers' rows summed over rate buckets; rows of no app layer
// (like "none") are only in the display totals.
std::map<std::string, TsLayerTotals> app_totals(const TimeStatsTracker& ts) {
  std::map<std::string, TsLayerTotals> apps;
  for (const auto& [key, totals] : ts.layers()) {
    const auto layer = parsers::classify_layer(key.layer + "#0");
    if (!layer) continue;
    auto& app = apps[layer->package];
    app.total_frames += totals.total_frames;
    app.dropped_frames += totals.dropped_frames;
    for (std::size_t i = 0; i < parsers::kTsJankFieldCount; ++i) app.jank.counts[i] += totals.jank.counts[i];
  }
  return apps;
}

void collect_totals(SeriesSink& f, const TimeStatsTracker& ts, const std::string& serial, const LabelSet& dev) {
  for (const char* scope : {"buckets", "layers", "row"}) {
    const std::uint64_t n = scope[0] == 'b' ? ts.bucket_resets() : scope[0] == 'l' ? ts.layer_resets() : ts.key_resets();
    f.sample(kResets, dev, Extra{"scope", scope}, count_value(n));
  }
  f.sample(kOverflowRows, dev, count_value(ts.overflow_rows()));
  for (const auto& [key, jank] : ts.buckets()) {
    const LabelSet rates = f.labels({{"serial", serial},
                                     {"refresh_rate", std::to_string(key.refresh_rate_fps)},
                                     {"render_rate", std::to_string(key.render_rate_fps)}});
    f.sample(kDisplayTimeline, rates, count_value(jank[parsers::TsJankField::total_timeline_frames]));
    f.sample(kDisplayJanky, rates, count_value(jank[parsers::TsJankField::janky_frames]));
    each_cause(jank, [&](std::string_view cause, std::uint64_t n) {
      f.sample(kDisplayJank, rates, Extra{"jank_type", cause}, count_value(n));
    });
  }
  for (const auto& [package, t] : app_totals(ts)) {
    const LabelSet pkg = f.labels({{"serial", serial}, {"package", package}});
    f.sample(kFrames, pkg, count_value(t.total_frames));
    f.sample(kDropped, pkg, count_value(t.dropped_frames));
    f.sample(kTimeline, pkg, count_value(t.jank[parsers::TsJankField::total_timeline_frames]));
    f.sample(kJanky, pkg, count_value(t.jank[parsers::TsJankField::janky_frames]));
    each_cause(t.jank, [&](std::string_view cause, std::uint64_t n) {
      f.sample(kJank, pkg, Extra{"jank_type", cause}, count_value(n));
    });
  }
}

}  // namespace

const TimeStatsSource& timestats_source() {
  static const TimeStatsSource source;
  return source;
}

std::span<const FamilySpec> TimeStatsSource::families() const { return kFamilies; }

bool TimeStatsSource::checkpoint_state(Checkpoint& c, TimeStatsState& s) const {
  c.count(s.lines).count(s.malformed_lines);
  const bool tracker_ok = c.part(s.tracker);
  if (c.loading()) s.counted = true;  // only a counted state is written
  return tracker_ok && c.valid() && s.malformed_lines <= s.lines;
}

void TimeStatsSource::collect(SeriesSink& f, const DeviceMetrics& d, const LabelSet& dev, std::int64_t,
                              CollectAt) const {
  const TimeStatsState* s = find(d);
  if (s == nullptr) return;
  if (s->lines > 0) {
    const LabelSet labels = f.labels({{"serial", d.serial}, {"source", "timestats"}});
    f.sample(kSurfaceLines, labels, Extra{"result", "parsed"}, count_value(s->lines - s->malformed_lines));
    f.sample(kSurfaceLines, labels, Extra{"result", "discarded"}, count_value(s->malformed_lines));
  }
  if (s->counted) collect_totals(f, s->tracker, d.serial, dev);
}

TsObservation record_timestats(DeviceMetrics& device, const parsers::TimeStatsDump& dump) {
  auto& s = timestats_source().state(device);
  s.lines += dump.lines;
  s.malformed_lines += dump.malformed_lines;
  const TsObservation seen = s.tracker.observe(dump);
  if (seen.counted) s.counted = true;
  return seen;
}

}  // namespace jank::metrics

#include "metrics/sources/frametimeline.h"

#include <climits>

#include "metrics/sources/layers.h"
#include "metrics/window_frames.h"
#include "parsers/sf_layers.h"

namespace jank::metrics {
namespace {

constexpr FamilySpec kFamilies[] = {
    {"jank_exporter_frametimeline_overflows_total", FamilyType::counter, "",
     "FrameTimeline polls whose full 64-display-frame window held no frame seen before: frames may have gone by unseen.",
     "serial"},
    {"jank_exporter_frametimeline_restarts_total", FamilyType::counter, "",
     "Times FrameTimeline tokens started again below the newest seen (SurfaceFlinger or the device restarted).",
     "serial"},
    {"android_frametimeline_frames_total", FamilyType::counter, "frames",
     "App frames SurfaceFlinger judged (dumpsys SurfaceFlinger --frametimeline, each frame once).", "serial,package"},
    {"android_frametimeline_janky_frames_total", FamilyType::counter, "frames",
     "Judged frames janky as TimeStats counts them (display HAL, SurfaceFlinger CPU/GPU deadline, app deadline, "
     "prediction error, SurfaceFlinger scheduling).",
     "serial,package"},
    {"android_frametimeline_jank_frames_total", FamilyType::counter, "frames",
     "Judged frames by jank type (none for a frame on time); a frame with several causes counts under each.",
     "serial,package,jank_type"},
    {"android_frametimeline_unjudged_frames_total", FamilyType::counter, "frames",
     "Frames that left SurfaceFlinger's window before it judged them (no present fence seen).", "serial,package"},
    {"android_frametimeline_joined_frames_total", FamilyType::counter, "frames",
     "Judged frames whose gfxinfo framestats row was found (the token is the row's FrameTimelineVsyncId).",
     "serial,package"},
    {"android_frametimeline_stage_seconds_total", FamilyType::counter, "seconds",
     "HWUI stage time of joined frames (their framestats rows) by SurfaceFlinger's jank type, summed; a frame "
     "counts under each of its types. Divide by android_frametimeline_stage_frames_total for the mean.",
     "serial,package,jank_type,stage", SeriesGroup::stages},
    {"android_frametimeline_stage_frames_total", FamilyType::counter, "frames",
     "Joined frames whose row measured the stage, by jank type.", "serial,package,jank_type,stage", SeriesGroup::stages},
    {"android_frametimeline_window_frames_total", FamilyType::counter, "frames",
     "Judged frames of the app's windows per window (activity: the layer's name without its instance, gfxinfo's "
     "window title), at most gfxinfo.max_windows per app, the rest under _other_.",
     "serial,package,window", SeriesGroup::windows},
    {"android_frametimeline_window_janky_frames_total", FamilyType::counter, "frames",
     "Judged frames per window janky as TimeStats counts them.", "serial,package,window", SeriesGroup::windows},
    {"android_frametimeline_window_jank_frames_total", FamilyType::counter, "frames",
     "Judged frames per window and jank type (only the types its frames had).", "serial,package,window,jank_type", SeriesGroup::windows},
};
constexpr const FamilySpec& kOverflows = kFamilies[0];
constexpr const FamilySpec& kRestarts = kFamilies[1];
constexpr const FamilySpec& kFrames = kFamilies[2];
constexpr const FamilySpec& kJanky = kFamilies[3];
constexpr const FamilySpec& kJank = kFamilies[4];
constexpr const FamilySpec& kUnjudged = kFamilies[5];
constexpr const FamilySpec& kJoined = kFamilies[6];
constexpr const FamilySpec& kStageSeconds = kFamilies[7];
constexpr const FamilySpec& kStageFrames = kFamilies[8];
constexpr const FamilySpec& kWindowFrames = kFamilies[9];
constexpr const FamilySpec& kWindowJanky = kFamilies[10];
constexpr const FamilySpec& kWindowJank = kFamilies[11];
// Declared by the layers module with SurfaceFlinger's input (sources/layers);
// FrameTimeline's lines are its source="frametimeline". A copy is found by its name.
constexpr FamilySpec kSurfaceLines = {"jank_exporter_surfaceflinger_lines_total", FamilyType::counter, "lines", "",
                                      "serial,source,result"};

AppFrameTimelineState& app_state(PackageMetrics& p) {
  return p.sources.get<AppFrameTimelineState>(frametimeline_source().slot());
}
AppFrameTimelineState* find_app_state(const PackageMetrics& p) {
  return p.sources.find_as<AppFrameTimelineState>(frametimeline_source().slot());
}

void collect_app(SeriesSink& f, const DeviceMetrics& d, const std::string& package, const AppFrameTimelineState& s) {
  const FrameTimelineCounts& ft = s.counts;
  const LabelSet pkg = f.labels({{"serial", d.serial}, {"package", package}});
  f.sample(kFrames, pkg, count_value(ft.frames));
  f.sample(kJanky, pkg, count_value(ft.janky));
  f.sample(kUnjudged, pkg, count_value(ft.unjudged));
  f.sample(kJoined, pkg, count_value(ft.joined));
  // Every type once a frame of the app was judged, so that rates of each exist from the start.
  for (std::size_t label = 0; label < kJankLabels; ++label) {
    f.sample(kJank, pkg, Extra{"jank_type", jank_label(label)}, count_value(ft.by_label[label]));
  }
  for (const auto& [title, w] : s.windows.windows()) {
    const LabelSet win = f.labels({{"serial", d.serial}, {"package", package}, {"window", title}});
    f.sample(kWindowFrames, win, count_value(w.frames));
    f.sample(kWindowJanky, win, count_value(w.janky));
    for (std::size_t label = 0; label < kJankLabels; ++label) {
      if (w.by_label[label] == 0) continue;  // sparse: up to 9 windows x 11 types
      f.sample(kWindowJank, win, Extra{"jank_type", jank_label(label)}, count_value(w.by_label[label]));
    }
  }
  // Every type and stage once a frame joined: a fixed set of series.
  if (ft.joined == 0) return;
  for (std::size_t label = 0; label < kJankLabels; ++label) {
    const LabelSet typed =
        f.labels({{"serial", d.serial}, {"package", package}, {"jank_type", std::string(jank_label(label))}});
    for (std::size_t st = 0; st < kFrameStages; ++st) {
      const Extra stage{"stage", frame_stage_name(static_cast<FrameStage>(st))};
      f.sample(kStageSeconds, typed, stage, ft.stage_seconds[label][st]);
      f.sample(kStageFrames, typed, stage, count_value(ft.stage_frames[label][st]));
    }
  }
}

}  // namespace

const FrameTimelineSource& frametimeline_source() {
  static const FrameTimelineSource source;
  return source;
}

std::span<const FamilySpec> FrameTimelineSource::families() const { return kFamilies; }

bool FrameTimelineSource::checkpoint_state(Checkpoint& c, FrameTimelineState& s) const {
  c.count(s.lines).count(s.malformed_lines);
  const bool tracker_ok = c.part(s.tracker);
  return tracker_ok && c.valid() && s.malformed_lines <= s.lines;
}

void FrameTimelineSource::collect(SeriesSink& f, const DeviceMetrics& d, const LabelSet& dev, std::int64_t,
                                  CollectAt) const {
  const FrameTimelineState* s = find(d);
  if (s == nullptr || s->lines == 0) return;
  const LabelSet labels = f.labels({{"serial", d.serial}, {"source", "frametimeline"}});
  f.sample(kSurfaceLines, labels, Extra{"result", "parsed"}, count_value(s->lines - s->malformed_lines));
  f.sample(kSurfaceLines, labels, Extra{"result", "discarded"}, count_value(s->malformed_lines));
  f.sample(kOverflows, dev, count_value(s->tracker.overflows()));
  f.sample(kRestarts, dev, count_value(s->tracker.restarts()));
}

std::string_view FrameTimelineSource::package_tag(PackageAt at) const {
  switch (at) {
    case PackageAt::framestats: return "frametimeline";
    case PackageAt::windows: return "ft_windows";
    case PackageAt::head:
    case PackageAt::dumps:
    case PackageAt::profile:
    case PackageAt::last: break;
  }
  return {};
}

bool FrameTimelineSource::package_worth_saving(const SourceState& state, PackageAt at) const {
  const auto& s = static_cast<const AppFrameTimelineState&>(state);
  // Each part absent for an app without it, and from files written before FrameTimeline was read.
  return at == PackageAt::framestats ? s.judged : at == PackageAt::windows && !s.windows.windows().empty();
}

bool FrameTimelineSource::checkpoint_package(Checkpoint& c, SourceState& state, PackageAt at) const {
  auto& s = static_cast<AppFrameTimelineState&>(state);
  if (at == PackageAt::framestats) {
    if (c.loading()) s.judged = true;  // only judged counts are written
    return c.part(s.counts) && c.valid();
  }
  if (at == PackageAt::windows) return c.part(s.windows) && c.valid();
  return c.valid();
}

void FrameTimelineSource::collect_package(SeriesSink& f, const DeviceMetrics& d, const std::string& package,
                                          const PackageMetrics& p, std::int64_t, PackageAt at) const {
  if (at != PackageAt::windows) return;
  const AppFrameTimelineState* s = find_app_state(p);
  if (s != nullptr && s->judged) collect_app(f, d, package, *s);
}

FrameTimelinePoll record_frametimeline(Store& store, DeviceMetrics& device, const parsers::FrameTimelineDump& dump,
                                       std::optional<std::int64_t> since_previous_request_ns) {
  FrameTimelineState& state = frametimeline_source().state(device);
  state.lines += dump.lines;
  state.malformed_lines += dump.malformed_lines;
  FrameTimelinePoll poll;
  for (auto it = dump.display_frames.rbegin(); it != dump.display_frames.rend(); ++it) {
    if (it->vsync_period_ms) {
      poll.vsync_period_ms = it->vsync_period_ms;
      break;
    }
  }
  const std::uint64_t overflows = state.tracker.overflows();
  for (const FtFrame& f : state.tracker.observe(dump, since_previous_request_ns)) {
    ++poll.frames;
    // The join key: the window title HWUI prints for the same activity.
    // SurfaceView layers hold frames HWUI never drew: they join nothing.
    std::string window;
    bool joinable = true;
    std::string name;
    if (const auto layer = parsers::classify_layer(f.layer)) {
      name = layer->package;
      joinable = layer->kind == parsers::LayerKind::app_window;
      window = layer->stable_name;
    } else {
      const auto pid = f.owner_pid >= 0 && f.owner_pid <= INT32_MAX ? static_cast<std::int32_t>(f.owner_pid) : -1;
      name = Store::package_label(device, pid, "");
      window = std::string(parsers::strip_layer_suffix(f.layer));
    }
    AppFrameTimelineState& app = app_state(store.package(device, name));
    app.judged = true;
    app.counts.count(f.jank, f.classified);
    if ((f.jank & parsers::kJankAppDeadlineMissed) != 0) note_stall(store, device, name, f.late_ns);
    // Per activity: app window layers only (a SurfaceView is no window title).
    if (f.classified && joinable && !window.empty()) {
      app.windows.count(WindowFrames::title_of(window), f.jank, store.options().max_windows_per_package);
    }
    if (f.classified && joinable) {
      if (const auto match = app.join.verdict(f.token, window, f.jank)) app.counts.join(*match);
    }
  }
  poll.overflow = state.tracker.overflows() > overflows;
  return poll;
}

void pause_frametimeline(DeviceMetrics& device) { frametimeline_source().state(device).tracker.expect_gap(); }

void expect_frametimeline(DeviceMetrics& device, bool expected) {
  frametimeline_source().state(device).expected = expected;
  if (expected) return;
  for (auto& [name, p] : device.packages) {
    if (AppFrameTimelineState* app = find_app_state(p)) app->join = FrameJoin();
  }
}

void FrameTimelineSource::framestats_rows(DeviceMetrics& device, PackageMetrics& package, std::string_view window,
                                          std::span<const TimedFrame> rows) const {
  const FrameTimelineState* state = find(device);
  if (rows.empty() || (state != nullptr && !state->expected)) return;
  AppFrameTimelineState& app = app_state(package);
  for (const TimedFrame& frame : rows) {
    if (const auto match = app.join.timing(window, frame)) app.counts.join(*match);
  }
}

const FrameTimelineState* frametimeline_of(const DeviceMetrics& device) { return frametimeline_source().find(device); }

const FrameTimelineCounts* frametimeline_of(const PackageMetrics& package) {
  const AppFrameTimelineState* s = find_app_state(package);
  return s != nullptr && s->judged ? &s->counts : nullptr;
}

const FrameTimelineWindows* frametimeline_windows_of(const PackageMetrics& package) {
  const AppFrameTimelineState* s = find_app_state(package);
  return s == nullptr ? nullptr : &s->windows;
}

}  // namespace jank::metrics

#include "metrics/sources/gfxinfo.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "metrics/sources/layers.h"
#include "parsers/time_units.h"

namespace jank::metrics {
namespace {

constexpr FamilySpec kFamilies[] = {
    {"jank_exporter_gfxinfo_lines_total", FamilyType::counter, "lines",
     "dumpsys gfxinfo lines received, by outcome (received = parsed + discarded; discarded: a known key whose value "
     "did not parse).",
     "serial,result"},
    {"jank_exporter_framestats_rows_total", FamilyType::counter, "rows",
     "framestats rows received, by outcome (received = parsed + discarded; discarded: wrong column count or a "
     "non-numeric cell).",
     "serial,result"},
    {"jank_exporter_gfxinfo_profile_rows_total", FamilyType::counter, "rows",
     "Profile data in ms rows received, by outcome (received = parsed + discarded; discarded: malformed, or beyond "
     "4096 rows in one table).",
     "serial,result"},
    {"android_hwui_profile_frames_total", FamilyType::counter, "frames",
     "Frames in HWUI's Profile data in ms tables (debug.hwui.profile=true), each row once.", "serial,package"},
    {"android_hwui_profile_stage_duration_seconds", FamilyType::histogram,
     "seconds", "Stage times of those frames (draw, prepare, process, execute) as the table prints them.",
     "serial,package,stage", SeriesGroup::stages},
    {"android_gfxinfo_frames_rendered_total", FamilyType::counter, "frames",
     "Frames rendered (gfxinfo \"Total frames rendered\").", "serial,package"},
    {"android_gfxinfo_janky_frames_total", FamilyType::counter, "frames",
     "Janky frames (gfxinfo \"Janky frames\").", "serial,package"},
    {"android_gfxinfo_janky_frames_legacy_total", FamilyType::counter, "frames",
     "gfxinfo \"Janky frames (legacy)\" (Android 12+).", "serial,package"},
    {"android_gfxinfo_jank_causes_total", FamilyType::counter, "",
     "gfxinfo \"Number <cause>\" counters.", "serial,package,cause", SeriesGroup::jank_types},
    {"android_gfxinfo_frame_duration_seconds", FamilyType::histogram, "seconds",
     "Frame durations from the gfxinfo HISTOGRAM (sum estimated from bin labels).", "serial,package"},
    {"android_gfxinfo_slow_frames_total", FamilyType::counter, "frames",
     "Android vitals slow frames: rendered in more than 16 ms (HISTOGRAM buckets 17ms and up; HWUI truncates "
     "to whole ms).",
     "serial,package"},
    {"android_gfxinfo_slow_frames_refresh_total", FamilyType::counter, "frames",
     "HISTOGRAM frames longer than one refresh interval of the device: buckets from floor(interval in ms) + 1 "
     "(60 Hz: 17ms, the vitals number; 90 Hz: 12ms; 120 Hz: 9ms).",
     "serial,package"},
    {"android_gfxinfo_frozen_frames_total", FamilyType::counter, "frames",
     "Android vitals frozen frames: rendered in more than 700 ms (HISTOGRAM buckets 700ms and up).",
     "serial,package"},
    {"android_gfxinfo_gpu_frame_duration_seconds", FamilyType::histogram,
     "seconds", "GPU frame durations from the gfxinfo GPU HISTOGRAM (sum estimated from bin labels).",
     "serial,package", SeriesGroup::distributions},
    {"android_gfxinfo_baseline_resets_total", FamilyType::counter, "",
     "Times the gfxinfo counters restarted (process restart or gfxinfo reset).", "serial,package"},
    {"android_gfxinfo_reported_frame_duration_seconds", FamilyType::gauge,
     "seconds", "Frame duration percentiles as the newest gfxinfo dump reported them.", "serial,package,percentile", SeriesGroup::distributions},
    {"android_gfxinfo_reported_gpu_duration_seconds", FamilyType::gauge,
     "seconds", "GPU duration percentiles as the newest gfxinfo dump reported them.", "serial,package,percentile", SeriesGroup::distributions},
    {"android_framestats_frames_total", FamilyType::counter, "frames",
     "Frames timed from framestats rows (Flags=0, de-duplicated).", "serial,package"},
    {"android_framestats_janky_frames_total", FamilyType::counter, "frames",
     "Framestats frames HWUI calls janky (gfxinfo \"Janky frames\"): Android 12+ GpuCompleted >= FrameDeadline "
     "(JankTracker::finishFrame); before 12 IntendedVsync to FrameCompleted over the refresh interval.",
     "serial,package"},
    {"android_framestats_janky_frames_legacy_total", FamilyType::counter,
     "frames",
     "Framestats frames by HWUI's legacy rule (gfxinfo \"Janky frames (legacy)\"): IntendedVsync to "
     "SwapBuffersCompleted (before 12: FrameCompleted) over the row's FrameInterval (JankTracker::"
     "calculateLegacyJank).",
     "serial,package"},
    {"android_framestats_flagged_frames_total", FamilyType::counter, "frames",
     "Framestats rows with Flags != 0 (not timed).", "serial,package"},
    {"android_framestats_invalid_frames_total", FamilyType::counter, "frames",
     "Framestats Flags=0 rows with impossible timestamps (not timed).", "serial,package"},
    {"android_framestats_interval_fallbacks_total", FamilyType::counter, "frames",
     "Frames whose row has FrameInterval/FrameStartTime columns without an interval in either (neither under 1 s): "
     "judged by the device's refresh interval instead.",
     "serial,package"},
    {"android_framestats_window_overflows_total", FamilyType::counter, "",
     "Polls whose ~120-frame window did not overlap the previous poll (frames missed).", "serial,package"},
    {"android_framestats_frame_duration_seconds", FamilyType::histogram, "seconds",
     "FrameCompleted - IntendedVsync of each frame.", "serial,package"},
    {"android_framestats_stage_duration_seconds", FamilyType::histogram, "seconds",
     "Duration of each rendering stage of a frame.", "serial,package,stage", SeriesGroup::stages},
    {"android_gfxinfo_window_frames_total", FamilyType::counter, "frames",
     "Framestats frames of each of the app's windows (its gfxinfo window sections; each frame once).",
     "serial,package,window", SeriesGroup::windows},
    {"android_gfxinfo_window_janky_frames_total", FamilyType::counter, "frames",
     "Of those, frames HWUI calls janky (as android_framestats_janky_frames_total).", "serial,package,window", SeriesGroup::windows},
    {"android_gfxinfo_window_frame_duration_seconds", FamilyType::histogram,
     "seconds", "FrameCompleted - IntendedVsync of each frame of the window.", "serial,package,window", SeriesGroup::windows},
    {"jank_exporter_gfxinfo_windows_overflowed_total", FamilyType::counter,
     "", "Windows counted under window=\"_other_\" because the app reached its window cap (gfxinfo.max_windows).",
     "serial,package", SeriesGroup::windows},
};
constexpr const FamilySpec& kLines = kFamilies[0];
constexpr const FamilySpec& kFramestatsRows = kFamilies[1];
constexpr const FamilySpec& kProfileRows = kFamilies[2];
constexpr const FamilySpec& kProfileFrames = kFamilies[3];
constexpr const FamilySpec& kProfileStage = kFamilies[4];
constexpr const FamilySpec& kRendered = kFamilies[5];
constexpr const FamilySpec& kJanky = kFamilies[6];
constexpr const FamilySpec& kJankyLegacy = kFamilies[7];
constexpr const FamilySpec& kCauses = kFamilies[8];
constexpr const FamilySpec& kDuration = kFamilies[9];
constexpr const FamilySpec& kSlow = kFamilies[10];
constexpr const FamilySpec& kSlowRefresh = kFamilies[11];
constexpr const FamilySpec& kFrozen = kFamilies[12];
constexpr const FamilySpec& kGpuDuration = kFamilies[13];
constexpr const FamilySpec& kBaselineResets = kFamilies[14];
constexpr const FamilySpec& kReported = kFamilies[15];
constexpr const FamilySpec& kReportedGpu = kFamilies[16];
constexpr const FamilySpec& kFsFrames = kFamilies[17];
constexpr const FamilySpec& kFsJanky = kFamilies[18];
constexpr const FamilySpec& kFsJankyLegacy = kFamilies[19];
constexpr const FamilySpec& kFsFlagged = kFamilies[20];
constexpr const FamilySpec& kFsInvalid = kFamilies[21];
constexpr const FamilySpec& kFsFallbacks = kFamilies[22];
constexpr const FamilySpec& kFsOverflows = kFamilies[23];
constexpr const FamilySpec& kFsDuration = kFamilies[24];
constexpr const FamilySpec& kFsStage = kFamilies[25];
constexpr const FamilySpec& kWindowFrames = kFamilies[26];
constexpr const FamilySpec& kWindowJanky = kFamilies[27];
constexpr const FamilySpec& kWindowDuration = kFamilies[28];
constexpr const FamilySpec& kWindowsOverflowed = kFamilies[29];

AppGfxinfoState& app_state(PackageMetrics& p) { return p.sources.get<AppGfxinfoState>(gfxinfo_source().slot()); }
AppGfxinfoState* find_app_state(const PackageMetrics& p) {
  return p.sources.find_as<AppGfxinfoState>(gfxinfo_source().slot());
}

void add_percentiles(SeriesSink& f, const FamilySpec& family, const LabelSet& labels, const ReportedPercentiles& p) {
  // "quantile" is reserved for summaries, hence "percentile" as HWUI prints it.
  if (p.has_p50) f.sample(family, labels, Extra{"percentile", "50"}, parsers::units::seconds_of_ms(p.p50_ms));
  f.sample(family, labels, Extra{"percentile", "90"}, parsers::units::seconds_of_ms(p.p90_ms));
  f.sample(family, labels, Extra{"percentile", "95"}, parsers::units::seconds_of_ms(p.p95_ms));
  f.sample(family, labels, Extra{"percentile", "99"}, parsers::units::seconds_of_ms(p.p99_ms));
}

void collect_app(SeriesSink& f, const DeviceMetrics& d, const std::string& package, const AppGfxinfoState& s) {
  const LabelSet pkg = f.labels({{"serial", d.serial}, {"package", package}});
  if (s.has_hwui_profile) {
    f.sample(kProfileFrames, pkg, count_value(s.hwui_profile.frames()));
    for (std::size_t st = 0; st < kProfileStages; ++st) {
      f.histogram(kProfileStage, pkg, Extra{"stage", profile_stage_name(static_cast<ProfileStage>(st))},
                  s.hwui_profile.stage_duration()[st]);
    }
  }
  if (s.has_gfxinfo) {
    const auto& g = s.gfxinfo;
    f.sample(kRendered, pkg, count_value(g.frames_rendered()));
    f.sample(kJanky, pkg, count_value(g.janky_frames()));
    if (g.has_legacy()) f.sample(kJankyLegacy, pkg, count_value(g.janky_frames_legacy()));
    for (std::size_t c = 0; c < kJankCauses; ++c) {
      if (!g.causes_seen()[c]) continue;
      f.sample(kCauses, pkg, Extra{"cause", jank_cause_name(static_cast<JankCause>(c))}, count_value(g.causes()[c]));
    }
    f.histogram(kDuration, pkg, g.frame_duration());
    if (g.has_histogram()) {
      f.sample(kSlow, pkg, count_value(g.slow_frames()));
      f.sample(kSlowRefresh, pkg, count_value(g.slow_frames_refresh()));
      f.sample(kFrozen, pkg, count_value(g.frozen_frames()));
    }
    if (g.has_gpu_histogram()) f.histogram(kGpuDuration, pkg, g.gpu_duration());
    f.sample(kBaselineResets, pkg, count_value(g.baseline_resets()));
    if (g.percentiles()) add_percentiles(f, kReported, pkg, *g.percentiles());
    if (g.gpu_percentiles()) add_percentiles(f, kReportedGpu, pkg, *g.gpu_percentiles());
  }
  if (s.has_framestats) {
    const auto& fs = s.framestats;
    f.sample(kFsFrames, pkg, count_value(fs.frames()));
    f.sample(kFsJanky, pkg, count_value(fs.janky_frames()));
    f.sample(kFsJankyLegacy, pkg, count_value(fs.janky_frames_legacy()));
    f.sample(kFsFlagged, pkg, count_value(fs.flagged_frames()));
    f.sample(kFsInvalid, pkg, count_value(fs.invalid_frames()));
    f.sample(kFsFallbacks, pkg, count_value(fs.interval_fallbacks()));
    f.sample(kFsOverflows, pkg, count_value(fs.overflows()));
    f.histogram(kFsDuration, pkg, fs.frame_duration());
    for (std::size_t st = 0; st < kFrameStages; ++st) {
      f.histogram(kFsStage, pkg, Extra{"stage", frame_stage_name(static_cast<FrameStage>(st))},
                  fs.stage_duration()[st]);
    }
  }
  if (!s.windows.windows().empty()) {
    for (const auto& [title, w] : s.windows.windows()) {
      const LabelSet labels = f.labels({{"serial", d.serial}, {"package", package}, {"window", title}});
      f.sample(kWindowFrames, labels, count_value(w.frames));
      f.sample(kWindowJanky, labels, count_value(w.janky));
      f.histogram(kWindowDuration, labels, w.duration);
    }
    f.sample(kWindowsOverflowed, pkg, count_value(s.windows.overflowed()));
  }
}

}  // namespace

const GfxinfoSource& gfxinfo_source() {
  static const GfxinfoSource source;
  return source;
}

std::span<const FamilySpec> GfxinfoSource::families() const { return kFamilies; }

void GfxinfoSource::collect(SeriesSink& f, const DeviceMetrics& d, const LabelSet& dev, std::int64_t,
                            CollectAt) const {
  const GfxinfoState* s = find(d);
  if (s == nullptr || s->dumps == 0) return;
  const DumpInput& g = s->input;
  f.sample(kLines, dev, Extra{"result", "parsed"}, count_value(g.gfxinfo_lines - g.gfxinfo_malformed_lines));
  f.sample(kLines, dev, Extra{"result", "discarded"}, count_value(g.gfxinfo_malformed_lines));
  f.sample(kFramestatsRows, dev, Extra{"result", "parsed"},
           count_value(g.framestats_rows - g.framestats_malformed_rows));
  f.sample(kFramestatsRows, dev, Extra{"result", "discarded"}, count_value(g.framestats_malformed_rows));
  if (g.profile_rows > 0) {
    f.sample(kProfileRows, dev, Extra{"result", "parsed"}, count_value(g.profile_rows - g.profile_rows_discarded));
    f.sample(kProfileRows, dev, Extra{"result", "discarded"}, count_value(g.profile_rows_discarded));
  }
}

bool GfxinfoSource::checkpoint_device_part(Checkpoint& c, SourceState& state, DeviceAt at) const {
  auto& s = static_cast<GfxinfoState&>(state);
  // Loading reads into a copy, kept only when it can be true.
  DumpInput in = s.input;
  switch (at) {
    case DeviceAt::lines: return c.valid();
    case DeviceAt::counters:
      c.count(s.dumps);
      return c.valid();
    case DeviceAt::dump_input: {
      // Absent from files written before the gfxinfo input counts existed.
      if (!c.record("dump_input", true)) return true;
      c.count(in.gfxinfo_lines).count(in.gfxinfo_malformed_lines);
      c.count(in.framestats_rows).count(in.framestats_malformed_rows);
      if (!c.valid() || in.gfxinfo_malformed_lines > in.gfxinfo_lines ||
          in.framestats_malformed_rows > in.framestats_rows) {
        return false;
      }
      break;
    }
    case DeviceAt::profile_input:
      // Absent when the device printed no profile rows, and from older files.
      if (!c.record("profile_input", in.profile_rows > 0)) return true;
      c.count(in.profile_rows).count(in.profile_rows_discarded);
      if (!c.valid() || in.profile_rows_discarded > in.profile_rows) return false;
      break;
  }
  s.input = in;
  return true;
}

std::string_view GfxinfoSource::device_rejected_why(DeviceAt at) const {
  return at == DeviceAt::profile_input ? "profile row counts out of range; restart from 0"
                                       : "gfxinfo input counts out of range; restart from 0";
}

std::string_view GfxinfoSource::package_tag(PackageAt at) const {
  switch (at) {
    case PackageAt::dumps: return name();  // untagged: marks the part
    case PackageAt::profile: return "hwui_profile";
    case PackageAt::windows: return "windows";
    case PackageAt::head:
    case PackageAt::framestats:
    case PackageAt::last: break;
  }
  return {};
}

bool GfxinfoSource::package_worth_saving(const SourceState& state, PackageAt at) const {
  const auto& s = static_cast<const AppGfxinfoState&>(state);
  // Each record absent for an app without it, as the store wrote them.
  if (at == PackageAt::profile) return s.has_hwui_profile;
  if (at == PackageAt::windows) return !s.windows.windows().empty();
  return at == PackageAt::dumps;
}

bool GfxinfoSource::checkpoint_package(Checkpoint& c, SourceState& state, PackageAt at) const {
  auto& s = static_cast<AppGfxinfoState&>(state);
  switch (at) {
    case PackageAt::dumps:
      c.flag(s.has_gfxinfo).part(s.gfxinfo);
      c.newline().flag(s.has_framestats).part(s.framestats);
      break;
    case PackageAt::profile:
      if (c.loading()) s.has_hwui_profile = true;  // only an app's profile rows are written
      if (!c.part(s.hwui_profile)) return false;
      break;
    case PackageAt::windows:
      if (!c.part(s.windows)) return false;
      break;
    case PackageAt::head:
    case PackageAt::framestats:
    case PackageAt::last: break;
  }
  return c.valid();
}

void GfxinfoSource::collect_package(SeriesSink& f, const DeviceMetrics& d, const std::string& package,
                                    const PackageMetrics& p, std::int64_t, PackageAt at) const {
  if (at != PackageAt::dumps) return;
  if (const AppGfxinfoState* s = find_app_state(p)) collect_app(f, d, package, *s);
}

void record_gfxinfo(Store& store, DeviceMetrics& device, const parsers::GfxinfoDump& dump, bool reset_after) {
  GfxinfoState& state = gfxinfo_source().state(device);
  ++state.dumps;
  auto& input = state.input;
  input.gfxinfo_lines += dump.lines;
  input.gfxinfo_malformed_lines += dump.malformed_lines;
  auto count_rows = [&](const std::optional<parsers::FramestatsTable>& table) {
    if (!table) return;
    input.framestats_rows += table->rows.size() + table->malformed_rows;
    input.framestats_malformed_rows += table->malformed_rows;
  };
  for (const auto& process : dump.processes) {
    count_rows(process.framestats);
    for (const auto& window : process.windows) count_rows(window.framestats);
  }
  for (const auto& table : dump.orphan_framestats) count_rows(table);
  for (const auto& window : dump.orphan_windows) count_rows(window.framestats);
  const std::uint64_t profile_discarded = dump.profile_rows_malformed + dump.profile_rows_discarded;
  input.profile_rows += profile_discarded;
  input.profile_rows_discarded += profile_discarded;
  // Each printed row is a frame the device will not print again (hwui_profile.h).
  auto apply_profile = [&](AppGfxinfoState& app, const parsers::GfxWindow& window) {
    if (!window.has_profile_table) return;
    app.has_hwui_profile = true;
    input.profile_rows += window.profile_rows.size();
    for (const auto& row : window.profile_rows) app.hwui_profile.add(row);
  };
  auto has_data = [](const parsers::GfxWindow& w) { return w.framestats.has_value() || w.has_profile_table; };
  const StoreOptions& options = store.options();
  const std::int64_t interval_ns = judge_interval_ns(store, device);
  std::vector<TimedFrame> timed;
  std::vector<CountedFrame> counted;
  auto apply_framestats = [&](const std::string& name, PackageMetrics& pkg, std::string_view window,
                              const parsers::FramestatsTable& table) {
    AppGfxinfoState& app = app_state(pkg);
    timed.clear();
    counted.clear();
    app.framestats.apply(window, table, interval_ns, &timed, &counted);
    for (const auto& f : counted) {
      pkg.peaks.frame_ns = std::max(pkg.peaks.frame_ns, f.duration_ns);
      note_stall(store, device, name, f.duration_ns);
    }
    app.windows.add(window, counted, options.max_windows_per_package);
    app.has_framestats = true;
    // The frame join: verdicts of a source (FrameTimeline) wait for these rows' timings.
    for (const DeviceSource* source : device_sources()) source->framestats_rows(device, pkg, window, timed);
  };
  for (const auto& process : dump.processes) {
    std::string name = process.package.empty() ? Store::package_label(device, process.pid, "") : process.package;
    const bool has_frames_data =
        process.stats || process.framestats || std::any_of(process.windows.begin(), process.windows.end(), has_data);
    if (!has_frames_data) continue;  // all-process dumps list many processes with nothing to count
    PackageMetrics& pkg = store.package(device, name);
    AppGfxinfoState& app = app_state(pkg);
    if (process.stats) {
      app.gfxinfo.apply(*process.stats, interval_ns);
      app.has_gfxinfo = true;
    }
    if (process.framestats) {
      apply_framestats(name, pkg, "", *process.framestats);
    }
    for (const auto& window : process.windows) {
      apply_profile(app, window);
      if (!window.framestats) continue;
      apply_framestats(name, pkg, window.name, *window.framestats);
    }
    if (reset_after) {
      // Zeroed on the device right after this dump: the next one starts afresh.
      app.gfxinfo.note_reset();
      app.framestats.note_reset();
    }
  }
  const bool orphan_window_data = std::any_of(dump.orphan_windows.begin(), dump.orphan_windows.end(), has_data);
  if (dump.orphan_stats || !dump.orphan_framestats.empty() || orphan_window_data) {
    const std::string name(kUnknownPackage);
    PackageMetrics& pkg = store.package(device, name);
    AppGfxinfoState& app = app_state(pkg);
    if (dump.orphan_stats) {
      app.gfxinfo.apply(*dump.orphan_stats, interval_ns);
      app.has_gfxinfo = true;
    }
    for (const auto& table : dump.orphan_framestats) {
      apply_framestats(name, pkg, "", table);
    }
    for (const auto& window : dump.orphan_windows) {
      apply_profile(app, window);
      if (!window.framestats) continue;
      apply_framestats(name, pkg, window.name, *window.framestats);
    }
  }
}

const GfxinfoState* gfxinfo_of(const DeviceMetrics& device) { return gfxinfo_source().find(device); }

const AppGfxinfoState* gfxinfo_of(const PackageMetrics& package) { return find_app_state(package); }

void pause_framestats(DeviceMetrics& device, std::string_view package) {
  for (auto& [name, p] : device.packages) {
    if (base_package(name) != package) continue;
    if (AppGfxinfoState* s = find_app_state(p)) s->framestats.expect_gap();
  }
}

}  // namespace jank::metrics

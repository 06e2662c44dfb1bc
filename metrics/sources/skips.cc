#include "metrics/sources/skips.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "metrics/device_view.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/traces.h"
#include "parsers/time_units.h"

namespace jank::metrics {
namespace {

constexpr FamilySpec kFamilies[] = {
    {"android_choreographer_device_sm", FamilyType::gauge, "",
     "Smoothness of the whole device: refresh rate minus skipped frames per second over the window.", "serial"},
    {"android_choreographer_sm_span_seconds", FamilyType::gauge, "seconds",
     "Replay only: the seconds SM divides by, the part of the window the input covers (its oldest to its newest "
     "timestamp).",
     "serial"},
    {"android_choreographer_skipped_frames_total", FamilyType::counter, "frames",
     "Frames Choreographer reported skipped (sum of N in \"Skipped N frames!\").", "serial,package"},
    {"android_choreographer_skip_events_total", FamilyType::counter, "", "\"Skipped N frames!\" lines.",
     "serial,package"},
    {"android_choreographer_skip_size_frames", FamilyType::histogram, "frames",
     "Distribution of N in \"Skipped N frames!\".", "serial,package", SeriesGroup::distributions},
    {"android_choreographer_sm", FamilyType::gauge, "",
     "Smoothness of the process: refresh rate minus its skipped frames per second over the window.",
     "serial,package"},
    {"android_choreographer_max_skipped_frames", FamilyType::gauge, "frames", "Largest single skip within the window.",
     "serial,package"},
    {"android_hwui_davey_frames_total", FamilyType::counter, "frames", "HWUI \"Davey!\" frames (700 ms or longer).",
     "serial,package"},
    {"android_hwui_davey_duration_seconds", FamilyType::histogram, "seconds",
     "Duration of Davey! frames with a valid duration.", "serial,package", SeriesGroup::distributions},
    {"android_hwui_davey_invalid_durations_total", FamilyType::counter, "",
     "Davey! frames whose duration is garbage (unsignalled fence, INT64_MAX timestamps).", "serial,package"},
};
constexpr const FamilySpec& kDeviceSm = kFamilies[0];
constexpr const FamilySpec& kSmSpan = kFamilies[1];
constexpr const FamilySpec& kSkippedFrames = kFamilies[2];
constexpr const FamilySpec& kSkipEvents = kFamilies[3];
constexpr const FamilySpec& kSkipSize = kFamilies[4];
constexpr const FamilySpec& kSm = kFamilies[5];
constexpr const FamilySpec& kMaxSkipped = kFamilies[6];
constexpr const FamilySpec& kDaveyFrames = kFamilies[7];
constexpr const FamilySpec& kDaveyDuration = kFamilies[8];
constexpr const FamilySpec& kDaveyInvalid = kFamilies[9];

AppSkipState* find_app_state(const PackageMetrics& p) {
  return p.sources.find_as<AppSkipState>(skip_source().slot());
}

// Windows are made with the store's length.
AppSkipState& app_state(const Store& store, PackageMetrics& p) {
  if (AppSkipState* s = find_app_state(p)) return *s;
  auto made = std::make_unique<AppSkipState>();
  made->window.set_length(store.options().sm_window);
  AppSkipState& out = *made;
  p.sources.put(skip_source().slot(), std::move(made));
  return out;
}
DeviceSkipState& device_state(const Store& store, DeviceMetrics& d) {
  if (skip_source().find(d) == nullptr) {
    skip_source().state(d).window.set_length(store.options().sm_window);
  }
  return skip_source().state(d);
}

// SM is judged over active time only: a dark screen has no SM (not 60), nor
// does an app whose layers are followed and that neither presented nor
// skipped within the window (a static screen). Replays, which know no host
// time, always have one.
bool app_idle(const DeviceMetrics& d, const std::string& package, const PackageMetrics& p, const AppSkipState& s,
              std::int64_t now, std::chrono::seconds window) {
  bool followed = false;
  for (const auto& [name, l] : layers_of(d)) {
    if (l.package != package || l.paused()) continue;
    if (l.last_seen_ns == 0) return false;
    followed = true;
  }
  if (!followed || s.window.frames(now) > 0) return false;
  const AppLayersState* layers = app_layers_of(p);
  return now - (layers == nullptr ? 0 : layers->last_active_ns) > parsers::units::to_ns(window);
}

bool empty(const Histogram& h) {
  return h.count() == 0 && h.sum() == 0 &&
         std::all_of(h.counts().begin(), h.counts().end(), [](std::uint64_t n) { return n == 0; });
}
bool empty(const AppSkipState& s) {
  return s.skipped_frames == 0 && s.skip_events == 0 && s.davey_frames == 0 && s.davey_invalid_durations == 0 &&
         s.window.buckets() == 0 && empty(s.skip_size) && empty(s.davey_duration);
}

}  // namespace

const SkipSource& skip_source() {
  static const SkipSource source;
  return source;
}

std::span<const FamilySpec> SkipSource::families() const { return kFamilies; }

bool SkipSource::checkpoint_device_part(Checkpoint& c, SourceState& state, DeviceAt) const {
  return c.part(static_cast<DeviceSkipState&>(state).window) && c.valid();
}

bool SkipSource::checkpoint_package(Checkpoint& c, SourceState& state, PackageAt at) const {
  if (at != PackageAt::head) return c.valid();
  auto& s = static_cast<AppSkipState&>(state);
  c.count(s.skipped_frames).count(s.skip_events);
  const bool size_ok = c.part(s.skip_size);
  const bool window_ok = c.part(s.window);
  c.newline().count(s.davey_frames).count(s.davey_invalid_durations);
  const bool duration_ok = c.part(s.davey_duration);
  return size_ok && window_ok && duration_ok && c.valid();
}

void SkipSource::loaded(DeviceMetrics& device, const StoreOptions& options, std::uint64_t version) const {
  // Version 1 kept windows on device time; they are a minute long anyway.
  auto set = [&](SkipWindow& w) {
    if (version < 2) w = SkipWindow(options.sm_window);
    w.set_length(options.sm_window);
  };
  if (find(device) != nullptr) set(state(device).window);
  for (auto& [name, p] : device.packages) {
    AppSkipState* s = find_app_state(p);
    if (s == nullptr) continue;
    set(s->window);
    // Every package record holds the part: an app with nothing in it keeps no state.
    if (empty(*s)) p.sources.clear(slot());
  }
}

void SkipSource::collect(SeriesSink& f, const DeviceMetrics& d, const LabelSet& dev, std::int64_t now,
                         CollectAt) const {
  const auto& w = f.sm_window();
  if (w.span_exported) f.sample(kSmSpan, dev, w.span.count());
  if (const auto sm = device_sm(d, now, w.span)) f.sample(kDeviceSm, dev, *sm);
}

void SkipSource::collect_package(SeriesSink& f, const DeviceMetrics& d, const std::string& package,
                                 const PackageMetrics& p, std::int64_t now, PackageAt at) const {
  const AppSkipState* s = find_app_state(p);
  if (s == nullptr || at != PackageAt::head) return;
  if (s->skip_events == 0 && s->davey_frames == 0) return;
  const LabelSet pkg = f.labels({{"serial", d.serial}, {"package", package}});
  if (s->skip_events > 0) {
    const auto& w = f.sm_window();
    f.sample(kSkippedFrames, pkg, count_value(s->skipped_frames),
             trace_exemplar(d, ExemplarCounter::skipped_frames, package));
    f.sample(kSkipEvents, pkg, count_value(s->skip_events));
    f.histogram(kSkipSize, pkg, s->skip_size);
    if (!screen_dark(d) && !app_idle(d, package, p, *s, now, w.length) && w.span.count() > 0) {
      f.sample(kSm, pkg, smoothness(d.refresh_hz, s->window.frames(now), w.span));
    }
    f.sample(kMaxSkipped, pkg, s->window.max_skip(now));
  }
  if (s->davey_frames > 0) {
    f.sample(kDaveyFrames, pkg, count_value(s->davey_frames), trace_exemplar(d, ExemplarCounter::davey_frames, package));
    f.histogram(kDaveyDuration, pkg, s->davey_duration);
    f.sample(kDaveyInvalid, pkg, count_value(s->davey_invalid_durations));
  }
}

void record_skip(Store& store, DeviceMetrics& device, std::string_view package_name, std::int64_t time_ns,
                 bool has_time, std::uint32_t frames) {
  PackageMetrics& pkg = store.package(device, package_name);
  AppSkipState& s = app_state(store, pkg);
  s.skipped_frames += frames;
  ++s.skip_events;
  s.skip_size.observe(frames);
  pkg.peaks.skip_frames = std::max(pkg.peaks.skip_frames, frames);
  if (device.refresh_hz > 0) {
    note_stall(store, device, package_name, parsers::units::ns_of_periods(frames, device.refresh_hz));
  }
  // Windows run on the host's timeline (metrics/device_clock.h); without a
  // timestamp (brief layout) the event lands at the newest known time.
  const std::int64_t at = has_time ? device.clock.place(time_ns) : device.latest_time_ns;
  s.window.add(at, frames);
  device_state(store, device).window.add(at, frames);
  if (has_time) store.note_time(device, at);
  keep_spike_line(device, false, package_name, frames, at != 0 ? at : store.host_time());
}

void record_davey(Store& store, DeviceMetrics& device, std::string_view package_name,
                  const parsers::DaveyFrame& davey) {
  AppSkipState& s = app_state(store, store.package(device, package_name));
  ++s.davey_frames;
  if (davey.duration_valid) {
    s.davey_duration.observe(parsers::units::seconds_of_ms(static_cast<double>(davey.duration_ms)));
    note_stall(store, device, package_name, parsers::units::to_ns(std::chrono::milliseconds(davey.duration_ms)));
    keep_spike_line(device, true, package_name, static_cast<double>(davey.duration_ms), store.host_time());
  } else {
    ++s.davey_invalid_durations;
  }
}

const DeviceSkipState* skips_of(const DeviceMetrics& device) { return skip_source().find(device); }
const AppSkipState* skips_of(const PackageMetrics& package) { return find_app_state(package); }

}  // namespace jank::metrics

#include "metrics/sources/layers.h"

#include <vector>

#include "metrics/device_view.h"
#include "metrics/sources/traces.h"
#include "parsers/time_units.h"

namespace jank::metrics {
namespace {

constexpr std::string_view kLayerLabels = "serial,package,layer,kind";
constexpr FamilySpec kFamilies[] = {
    {"android_device_active_seconds_total", FamilyType::counter, "seconds",
     "Time any followed layer was presenting (gaps between presents up to 1.2 s, and freezes), each instant once.",
     "serial"},
    {"jank_exporter_surfaceflinger_lines_total", FamilyType::counter, "lines",
     "Lines of dumpsys SurfaceFlinger --list, --latency, --frametimeline and --timestats and of dumpsys power "
     "received, by source and outcome (received = parsed + discarded).",
     "serial,source,result"},
    {"jank_exporter_layers_not_followed_total", FamilyType::counter, "",
     "Polls of app layers not followed because the device reached its layer cap.", "serial"},
    {"android_app_active", FamilyType::gauge, "",
     "1 while one of the app's layers presents frames (its newest poll brought some), else 0.", "serial,package"},
    {"android_app_active_seconds_total", FamilyType::counter, "seconds",
     "Time one of the app's layers was presenting (gaps between presents up to 1.2 s, and freezes), each instant once.",
     "serial,package"},
    {"android_layer_frames_presented_total", FamilyType::counter, "frames",
     "Frames SurfaceFlinger presented for the layer (dumpsys SurfaceFlinger --latency, each present once).",
     kLayerLabels},
    {"android_layer_frame_time_seconds", FamilyType::histogram, "seconds",
     "Present-to-present time of the layer's frames within active stretches.", kLayerLabels},
    {"android_layer_active_seconds_total", FamilyType::counter, "seconds",
     "Time the layer was presenting: the sum of its present-to-present gaps up to 1.2 s (FPS = frames / this).",
     kLayerLabels},
    {"android_layer_perfdog_jank_total", FamilyType::counter, "",
     "PerfDog Jank: a frame time over twice the mean of the previous three and over 83.3 ms.", kLayerLabels},
    {"android_layer_perfdog_big_jank_total", FamilyType::counter, "",
     "PerfDog BigJank: a frame time over twice the mean of the previous three and over 125 ms (also a Jank).",
     kLayerLabels},
    {"android_layer_perfdog_jank_seconds_total", FamilyType::counter, "seconds",
     "Time in PerfDog Jank frames (Stutter = this / active seconds).", kLayerLabels},
    {"android_layer_refresh_jank_total", FamilyType::counter, "",
     "Frames whose present gap is two or more refresh periods beyond the expected one (any refresh rate).",
     kLayerLabels},
    {"android_layer_freezes_total", FamilyType::counter, "",
     "Gaps in the layer's presents over 1.2 s that were freezes, not rests: the app reported a stall that long "
     "(skip, Davey, framestats, FrameTimeline), or a SurfaceView drew nothing for under 10 s with the panel on. "
     "Each is one frame, judged like any other.",
     kLayerLabels},
    {"android_layer_slow_frames_total", FamilyType::counter, "frames",
     "Android vitals slow frames of the layer: rendered in more than 16 ms, i.e. present gap minus one refresh "
     "period over 16 ms.",
     kLayerLabels},
    {"android_layer_slow_frames_refresh_total", FamilyType::counter, "frames",
     "Slow frames at the panel's rate: present gaps a refresh period or more beyond the layer's cadence (the mean "
     "of the previous three, in periods).",
     kLayerLabels},
    {"android_layer_frozen_frames_total", FamilyType::counter, "frames",
     "Android vitals frozen frames of the layer: present gaps over 700 ms within active time (freezes included).",
     kLayerLabels},
    {"android_layer_poll_overflows_total", FamilyType::counter, "",
     "Polls whose ~127-frame table no longer held the newest frame counted (frames presented unseen).",
     kLayerLabels},
    {"android_layer_refresh_period_seconds", FamilyType::gauge, "seconds",
     "Refresh period SurfaceFlinger printed with the layer's newest table.", kLayerLabels},
};
constexpr const FamilySpec& kDeviceActive = kFamilies[0];
constexpr const FamilySpec& kSurfaceLines = kFamilies[1];
constexpr const FamilySpec& kNotFollowed = kFamilies[2];
constexpr const FamilySpec& kAppActive = kFamilies[3];
constexpr const FamilySpec& kAppActiveSeconds = kFamilies[4];
constexpr const FamilySpec& kFramesPresented = kFamilies[5];
constexpr const FamilySpec& kFrameTime = kFamilies[6];
constexpr const FamilySpec& kLayerActive = kFamilies[7];
constexpr const FamilySpec& kJank = kFamilies[8];
constexpr const FamilySpec& kBigJank = kFamilies[9];
constexpr const FamilySpec& kJankSeconds = kFamilies[10];
constexpr const FamilySpec& kRefreshJank = kFamilies[11];
constexpr const FamilySpec& kFreezes = kFamilies[12];
constexpr const FamilySpec& kSlowFrames = kFamilies[13];
constexpr const FamilySpec& kSlowFramesRefresh = kFamilies[14];
constexpr const FamilySpec& kFrozenFrames = kFamilies[15];
constexpr const FamilySpec& kPollOverflows = kFamilies[16];
constexpr const FamilySpec& kRefreshPeriod = kFamilies[17];

constexpr std::size_t kMaxLayerRecords = 4096;

AppLayersState& app_state(PackageMetrics& p) { return p.sources.get<AppLayersState>(layers_source().slot()); }

// Whether a gap in `layer`'s presents was a freeze: the app reported a stall
// that explains it, or a game's SurfaceView drew nothing for a while with
// the panel on.
FreezeCheck freeze_check(const Store& store, DeviceMetrics& device, PackageMetrics& pkg, const LayerMetrics& layer,
                         const std::string& key) {
  const bool game = layer.kind == parsers::LayerKind::surface_view;
  const std::int64_t now = store.host_time();
  AppLayersState& app = app_state(pkg);
  return [&device, &app, game, &key, now](std::int64_t gap_ns, std::int64_t period_ns, std::int64_t seen_ns) {
    if (app.stalls.explain(gap_ns, period_ns, key, seen_ns, now)) return true;
    if (!game || gap_ns >= kUnreportedFreezeLimitNs) return false;
    // A dark panel in the meantime (as far as host time tells) is a rest.
    return !screen_not_on_within(device, now, gap_ns + 5'000'000'000);
  };
}

void add_active(LayersState& s, AppLayersState& app, const std::vector<ActiveSpan>& spans) {
  for (const auto& span : spans) {
    app.active.add(span);
    s.active.add(span);
  }
}

// One layer's line; false when a value in it cannot be true.
bool checkpoint_layer(Checkpoint& c, std::string& stable, LayerMetrics& l) {
  c.newline().tag("layer").str(stable).str(l.package);
  Checkpoint values = c.group();
  std::uint64_t kind = l.kind == parsers::LayerKind::surface_view ? 1 : 0;
  std::int64_t period = l.refresh_period_ns.value_or(0);
  values.count(kind).str(l.name).i64(period);
  const bool tracker_valid = values.part(l.presents);
  if (values.loading()) {
    l.kind = kind == 1 ? parsers::LayerKind::surface_view : parsers::LayerKind::app_window;
    if (period > 0) l.refresh_period_ns = period;
  }
  return tracker_valid && values.valid() && kind <= 1 && period >= 0;
}

}  // namespace

const LayersSource& layers_source() {
  static const LayersSource source;
  return source;
}

std::span<const FamilySpec> LayersSource::families() const { return kFamilies; }

bool LayersSource::state_worth_saving(const LayersState& s) const {
  return !s.layers.empty() || s.active.total_ns() > 0 || s.input.list_lines > 0;
}

void LayersSource::checkpoint_device(Checkpoint& c, DeviceMetrics& d, const RecordDrop& drop) const {
  LayersState& s = state(d);
  // Read into copies: counts that cannot be true leave the state as it was.
  LayersState::Input in = s.input;
  Checkpoint input = c.group();
  input.count(in.list_lines).count(in.list_malformed).count(in.latency_lines).count(in.latency_malformed);
  const bool input_valid = input.valid();
  // dumpsys power's counts in files of releases before its own record; dropped alone.
  checkpoint_legacy(c, d, record(), drop);
  Checkpoint totals = c.group();
  std::uint64_t not_followed = s.not_followed;
  std::int64_t active_ns = s.active.total_ns();
  totals.count(not_followed).i64(active_ns);
  // The apps that were active, by name, as the packages are listed.
  std::map<std::string, std::int64_t> apps;
  if (!c.loading()) {
    for (const auto& [name, p] : d.packages) {
      if (const AppLayersState* a = app_layers_of(p); a != nullptr && a->active.total_ns() > 0) {
        apps.emplace(name, a->active.total_ns());
      }
    }
  }
  bool sane = active_ns >= 0;
  totals.entries(apps, 1'000'000, [&sane](Checkpoint& e, std::string& name, std::int64_t& ns) {
    e.str(name).i64(ns);
    sane = sane && ns >= 0;
  });
  if (c.loading()) {
    if (input_valid && totals.valid() && sane && in.list_malformed <= in.list_lines &&
        in.latency_malformed <= in.latency_lines) {
      s.input = in;
      s.not_followed = not_followed;
      s.active.restore_total(active_ns);
      // Active time belongs to a package series the file also holds.
      for (const auto& [name, ns] : apps) {
        if (auto it = d.packages.find(name); it != d.packages.end()) app_state(it->second).active.restore_total(ns);
      }
    } else if (!c.failed()) {
      drop("surface_counters", "a count out of range; SurfaceFlinger input counts and active time restart from 0");
    }
  }
  std::uint64_t n = s.layers.size();
  c.newline().size(n, kMaxLayerRecords);
  if (!c.loading()) {
    for (auto& [key, l] : s.layers) {
      std::string stable = key;
      checkpoint_layer(c, stable, l);
    }
    return;
  }
  for (std::uint64_t k = 0; k < n && !c.failed(); ++k) {
    std::string stable;
    LayerMetrics l;
    const bool valid = checkpoint_layer(c, stable, l);
    if (c.failed()) break;
    if (!valid) {
      drop("layer " + stable, "a value that cannot be true; its series restart from 0");
      continue;
    }
    s.layers.insert_or_assign(std::move(stable), std::move(l));
  }
}

bool LayersSource::expire(DeviceMetrics& d, std::int64_t now_ns, std::int64_t grace_ns) const {
  if (find(d) == nullptr) return false;
  // A layer not polled for as long as a dead app's series are kept, unless an open run measures its app.
  return std::erase_if(state(d).layers, [&](const auto& entry) {
           const LayerMetrics& l = entry.second;
           return l.last_seen_ns != 0 && now_ns - std::max(l.last_seen_ns, l.paused_ns) > grace_ns &&
                  !d.pinned_packages.contains(base_package(l.package));
         }) > 0;
}

void LayersSource::collect(SeriesSink& f, const DeviceMetrics& d, const LabelSet& dev, std::int64_t,
                           CollectAt at) const {
  const LayersState* s = find(d);
  if (at == CollectAt::surface_input) {
    // Zeros too: the collector asks once SurfaceFlinger was polled.
    const LayersState::Input in = s == nullptr ? LayersState::Input{} : s->input;
    f.sample(kDeviceActive, dev, parsers::units::seconds_of_ns(s == nullptr ? 0 : s->active.total_ns()));
    const std::pair<std::string_view, std::pair<std::uint64_t, std::uint64_t>> sources[] = {
        {"list", {in.list_lines, in.list_malformed}}, {"latency", {in.latency_lines, in.latency_malformed}}};
    for (const auto& [source, lines] : sources) {
      const LabelSet labels = f.labels({{"serial", d.serial}, {"source", std::string(source)}});
      f.sample(kSurfaceLines, labels, Extra{"result", "parsed"}, count_value(lines.first - lines.second));
      f.sample(kSurfaceLines, labels, Extra{"result", "discarded"}, count_value(lines.second));
    }
    return;
  }
  if (at == CollectAt::after_surface) {
    // Last of SurfaceFlinger's input series, after power's lines.
    if (surfaceflinger_read(d)) f.sample(kNotFollowed, dev, count_value(s == nullptr ? 0 : s->not_followed));
    return;
  }
  if (s == nullptr) return;
  for (const auto& [stable, l] : s->layers) {
    const std::string_view kind = l.kind == parsers::LayerKind::surface_view ? "surface_view" : "app_window";
    const LabelSet labels = f.labels(
        {{"serial", d.serial}, {"package", l.package}, {"layer", stable}, {"kind", std::string(kind)}});
    const auto& t = l.presents;
    f.sample(kFramesPresented, labels, count_value(t.frames()),
             trace_exemplar(d, ExemplarCounter::layer_frames_presented, l.package, stable));
    f.histogram(kFrameTime, labels, t.frame_time());
    f.sample(kLayerActive, labels, parsers::units::seconds_of_ns(t.active_ns()));
    f.sample(kJank, labels, count_value(t.jank()));
    f.sample(kBigJank, labels, count_value(t.big_jank()),
             trace_exemplar(d, ExemplarCounter::layer_big_jank, l.package, stable));
    f.sample(kJankSeconds, labels, parsers::units::seconds_of_ns(t.jank_ns()));
    f.sample(kRefreshJank, labels, count_value(t.refresh_jank()));
    f.sample(kFreezes, labels, count_value(t.freezes()));
    f.sample(kSlowFrames, labels, count_value(t.slow_frames()));
    f.sample(kSlowFramesRefresh, labels, count_value(t.slow_frames_refresh()));
    f.sample(kFrozenFrames, labels, count_value(t.frozen_frames()),
             trace_exemplar(d, ExemplarCounter::layer_frozen_frames, l.package, stable));
    f.sample(kPollOverflows, labels, count_value(t.overflows()));
    if (l.refresh_period_ns) {
      f.sample(kRefreshPeriod, labels, parsers::units::seconds_of_ns(*l.refresh_period_ns));
    }
  }
}

void LayersSource::collect_package(SeriesSink& f, const DeviceMetrics& d, const std::string& package,
                                   const PackageMetrics& p, std::int64_t, PackageAt at) const {
  if (at != PackageAt::last) return;
  bool followed = false, presenting = false;
  for (const auto& [stable, l] : layers_of(d)) {
    if (l.package != package) continue;
    followed = true;
    presenting = presenting || l.presenting;
  }
  const AppLayersState* app = app_layers_of(p);
  const std::int64_t active_ns = app == nullptr ? 0 : app->active.total_ns();
  if (!followed && active_ns <= 0) return;
  const LabelSet pkg = f.labels({{"serial", d.serial}, {"package", package}});
  f.sample(kAppActive, pkg, presenting ? 1 : 0);
  f.sample(kAppActiveSeconds, pkg, parsers::units::seconds_of_ns(active_ns));
}

void record_layer_list(DeviceMetrics& device, const parsers::SfLayerList& list) {
  auto& in = layers_state(device).input;
  in.list_lines += list.names.size() + list.malformed_lines;
  in.list_malformed += list.malformed_lines;
}

LayerPoll record_layer_latency(Store& store, DeviceMetrics& device, const parsers::AppLayer& layer,
                               const parsers::SfLatency& table) {
  LayersState& s = layers_state(device);
  s.input.latency_lines += table.rows.size() + table.malformed_lines + (table.refresh_period_ns ? 1 : 0);
  s.input.latency_malformed += table.malformed_lines;
  auto it = s.layers.find(layer.stable_name);
  if (it == s.layers.end()) {
    if (s.layers.size() >= store.options().max_layers_per_device) {
      ++s.not_followed;
      return {};
    }
    it = s.layers.try_emplace(layer.stable_name).first;
  }
  const std::int64_t now = store.host_time();
  LayerMetrics& l = it->second;
  l.package = layer.package;
  l.kind = layer.kind;
  l.name = layer.name;
  if (table.refresh_period_ns) l.refresh_period_ns = table.refresh_period_ns;
  l.last_seen_ns = now;
  LayerPoll poll;
  poll.newest_before = l.presents.last_present();
  const std::uint64_t overflows = l.presents.overflows();
  std::vector<ActiveSpan> spans;
  PackageMetrics& pkg = store.package(device, layer.package);
  poll.frames = l.presents.observe(table, &spans, freeze_check(store, device, pkg, l, it->first), now);
  poll.overflow = l.presents.overflows() > overflows;
  l.presenting = poll.frames > 0;
  if (poll.frames > 0) {
    l.last_presented_ns = now;
    if (now != 0) pkg.last_alive_ns = now;
    AppLayersState& app = app_state(pkg);
    if (!spans.empty()) app.last_active_ns = now;
    add_active(s, app, spans);
  }
  return poll;
}

void pause_layer(DeviceMetrics& device, std::string_view stable_name, std::int64_t now_ns) {
  if (layers_source().find(device) == nullptr) return;
  auto& layers = layers_source().state(device).layers;
  const auto it = layers.find(stable_name);
  if (it == layers.end()) return;
  it->second.presents.expect_gap();
  it->second.paused_ns = now_ns;
}

void note_stall(Store& store, DeviceMetrics& device, std::string_view package, std::int64_t duration_ns) {
  if (duration_ns < StallReports::kShortestNs) return;
  PackageMetrics& pkg = store.package(device, package);
  AppLayersState& app = app_state(pkg);
  app.stalls.add(duration_ns, store.host_time());
  if (layers_source().find(device) == nullptr) return;
  LayersState& s = layers_state(device);
  std::vector<ActiveSpan> spans;
  for (auto& [key, l] : s.layers) {
    if (l.package != package) continue;
    if (l.presents.confirm_freeze(freeze_check(store, device, pkg, l, key), store.host_time(), &spans)) {
      add_active(s, app, spans);
      spans.clear();
    }
  }
}

const Layers& layers_of(const DeviceMetrics& device) {
  static const Layers none;
  const LayersState* s = layers_source().find(device);
  return s == nullptr ? none : s->layers;
}
const LayersState* layers_state_of(const DeviceMetrics& device) { return layers_source().find(device); }
const AppLayersState* app_layers_of(const PackageMetrics& package) {
  return package.sources.find_as<const AppLayersState>(layers_source().slot());
}
LayersState& layers_state(DeviceMetrics& device) { return layers_source().state(device); }

}  // namespace jank::metrics

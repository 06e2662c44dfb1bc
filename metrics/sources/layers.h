// Source module: SurfaceFlinger's layers (dumpsys SurfaceFlinger --list and
// --latency). Per device, the followed app layers and their presents, the
// union of their active spans and the lines the dumps brought; per app, its
// layers' active time and its recent stall reports, which tell its layers'
// freezes from rests (every source's stall verdict reaches them through
// note_stall). Its record is the store's "surface" record, layout unchanged.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "metrics/active_time.h"
#include "metrics/present_tracker.h"
#include "metrics/source.h"
#include "metrics/stall_reports.h"
#include "parsers/sf_latency.h"
#include "parsers/sf_layers.h"

namespace jank::metrics {

// What one --latency poll did to its layer.
struct LayerPoll {
  std::uint64_t frames = 0;  // presents added
  bool overflow = false;     // the newest frame counted before was gone from the table
  std::optional<std::int64_t> newest_before;  // that frame's present time
};

// One app layer's presented frames (dumpsys SurfaceFlinger --latency), kept
// under the name that survives the activity's recreation (AppLayer::stable_name).
struct LayerMetrics {
  std::string package;
  parsers::LayerKind kind = parsers::LayerKind::app_window;
  std::string name;  // the exact name it was polled under last
  PresentTracker presents;
  std::optional<std::int64_t> refresh_period_ns;  // as the newest poll printed it
  bool presenting = false;                        // the newest poll brought frames
  std::int64_t last_presented_ns = 0;             // host time a poll last brought frames (0: never, or replay)
  std::int64_t last_seen_ns = 0;                  // host time of its newest poll (0: replay)
  // Host time per-frame polling last left it unpolled on purpose (0: never):
  // listed, so alive, but not followed for SM's idleness.
  std::int64_t paused_ns = 0;
  bool paused() const { return paused_ns > last_seen_ns; }
};
using Layers = std::map<std::string, LayerMetrics, std::less<>>;

struct LayersState final : SourceState {
  // Followed app layers by stable name, and the union of every layer's active spans.
  Layers layers;
  std::uint64_t not_followed = 0;  // polls of layers beyond max_layers_per_device
  ActiveTime active;
  // What SurfaceFlinger dumps brought: received = parsed + discarded.
  struct Input {
    std::uint64_t list_lines = 0, list_malformed = 0;        // --list
    std::uint64_t latency_lines = 0, latency_malformed = 0;  // --latency
  } input;
};

struct AppLayersState final : SourceState {
  // Union of its layers' active spans (SurfaceFlinger presents).
  ActiveTime active;
  // Its own recent reports of long stalls: tell its layers' freezes from rests.
  StallReports stalls;
  std::int64_t last_active_ns = 0;  // host time a poll last found it presenting (0: never)
};

class LayersSource final : public DeviceSourceOf<LayersState> {
 public:
  std::string_view name() const override { return "layers"; }
  // The store's record before the module, with its tag.
  std::string_view record() const override { return "surface"; }
  std::span<const FamilySpec> families() const override;
  // The device's active time and its lines first of SurfaceFlinger's input
  // series, the layers not followed after them; the layers' own after every app's.
  bool collects_at(CollectAt at) const override {
    return at == CollectAt::surface_input || at == CollectAt::after_surface || at == CollectAt::after_apps;
  }
  void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels, std::int64_t now_ns,
               CollectAt at) const override;

  // The record holds the apps' active time and power's counts of older
  // releases, and drops a layer alone.
  bool checkpoints_device() const override { return true; }
  void checkpoint_device(Checkpoint& c, DeviceMetrics& device, const RecordDrop& drop) const override;

  // Its per-app state is never checkpointed in the package record; the
  // apps' active time is in its own record.
  std::unique_ptr<SourceState> make_package_state() const override { return std::make_unique<AppLayersState>(); }
  void collect_package(SeriesSink& sink, const DeviceMetrics& device, const std::string& package,
                       const PackageMetrics& p, std::int64_t now_ns, PackageAt at) const override;
  bool expire(DeviceMetrics& device, std::int64_t now_ns, std::int64_t grace_ns) const override;

 protected:
  bool state_worth_saving(const LayersState& state) const override;
  // Its record is checkpointed with the device (checkpoint_device).
  bool checkpoint_state(Checkpoint& c, LayersState&) const override { return c.valid(); }
};
const LayersSource& layers_source();

// A --list answer: only its lines are counted (the poller picks layers).
void record_layer_list(DeviceMetrics& device, const parsers::SfLayerList& list);
// One --latency poll of an app layer. Nothing added, and the layer counted
// as not followed, when the device is at its layer cap.
LayerPoll record_layer_latency(Store& store, DeviceMetrics& device, const parsers::AppLayer& layer,
                               const parsers::SfLatency& table);
// The layer is not polled on purpose now (per-frame polling paused; it was
// listed at `now_ns`): kept alive, not taken as followed, and frames gone
// unseen until its next poll are no overflow. Unknown layers are left alone.
void pause_layer(DeviceMetrics& device, std::string_view stable_name, std::int64_t now_ns);
// A stall the app reported (a source's verdict): kept for its layers' gaps,
// and a recent rest it explains becomes the freeze it was.
void note_stall(Store& store, DeviceMetrics& device, std::string_view package, std::int64_t duration_ns);

// Read access: empty, or null, until a poll recorded something (or a file restored it).
const Layers& layers_of(const DeviceMetrics& device);
const LayersState* layers_state_of(const DeviceMetrics& device);
const AppLayersState* app_layers_of(const PackageMetrics& package);
// The device's state, made on first use (tests set its counts).
LayersState& layers_state(DeviceMetrics& device);

}  // namespace jank::metrics

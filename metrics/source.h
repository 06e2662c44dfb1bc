// A data source as one module (docs/architecture.md, "A new data source"):
// it owns its per-device state, the rules that record what its parser read,
// one checkpoint function read and written alike, and its series with their
// declarations. The store, the checkpoint and the exposition reach it only
// through this interface and the registration list (metrics/sources.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "metrics/checkpoint.h"
#include "metrics/framestats_tracker.h"
#include "metrics/series.h"
#include "metrics/source_state.h"
#include "metrics/store.h"

namespace jank::metrics {

// Where a device's series of a source stand among the device's own. The
// exposition lists families in the order they first appear, so a source
// moved into a module is collected where its series were written before
// (docs/architecture.md, "Adding a data source").
enum class CollectAt : std::uint8_t {
  live,           // last of a live device's status series (replays have none)
  refresh,        // after the display's refresh rate, first of the device's SM series
  dump_input,     // after the log's line counts: gfxinfo's input
  before_surface, // last of the device's log input series, before SurfaceFlinger's
  display,        // first of SurfaceFlinger's device series (the panel's power state)
  timelines,      // after the activity state: FrameTimeline's input, then TimeStats
  surface_input,  // SurfaceFlinger's input series (the layers', then power's); only once one of them was read
  after_surface,  // after SurfaceFlinger's device series: a new source's place
  after_apps,     // after every app's series: the layers' own
};

// Where an app's parts of a source stand among its own, in its series and in
// its package record: a source moved into a module keeps the place its
// series and fields had (the golden exposition, files of older releases).
enum class PackageAt : std::uint8_t {
  head,        // first of the app's: skips and Davey (in every package record, untagged)
  dumps,       // after the Davey fields: gfxinfo's and framestats' counts (in every record, untagged;
               // and the series of gfxinfo dumps)
  framestats,  // after the framestats counts (record only): FrameTimeline's counts
  profile,     // after those (record only): the HWUI profile rows
  windows,     // after the profile rows: the framestats windows, then FrameTimeline's (and its series)
  last,        // last of the app's: a new source's place
};

// Whether the parts at `at` are untagged fields every package record holds,
// as the store wrote them before their sources were modules.
constexpr bool in_every_record(PackageAt at) { return at == PackageAt::head || at == PackageAt::dumps; }

// Where a source's parts stand in the device record, before its packages:
// a source moved into a module keeps the place its fields had there.
enum class DeviceAt : std::uint8_t {
  lines,          // in the device's counters line, after its log line counts: skips' device window
  counters,       // in that line, after its package overflow count: gfxinfo's dump count
  dump_input,     // after the clock record: the "dump_input" record (gfxinfo lines, framestats rows)
  profile_input,  // after that one: the "profile_input" record (HWUI profile rows)
};

// How a record's checkpoint reports a part it dropped on loading: the part
// (jank_exporter_state_rejected_records_total{record}) and why (the log).
using RecordDrop = std::function<void(const std::string& record, const std::string& why)>;

class DeviceSource {
 public:
  DeviceSource(const DeviceSource&) = delete;
  DeviceSource& operator=(const DeviceSource&) = delete;
  virtual ~DeviceSource() = default;

  // Its name: the tag of its per-app part of a package record.
  virtual std::string_view name() const = 0;
  // The tag of its device record.
  virtual std::string_view record() const { return name(); }
  // Every family its series belong to, declared once.
  virtual std::span<const FamilySpec> families() const = 0;
  // The device's series at `now_ns` (host time live, the input's newest
  // time in replays), under the device's labels; called at each place it
  // collects at.
  virtual bool collects_at(CollectAt at) const { return at == CollectAt::after_surface; }
  virtual void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels,
                       std::int64_t now_ns, CollectAt at) const = 0;

  // The checkpoint: whether the state has anything worth a record, and the
  // record itself (false when a value read cannot be true: the record is
  // dropped and reported, the rest of the file kept).
  virtual bool worth_saving(const SourceState& state) const = 0;
  virtual bool checkpoint(Checkpoint& c, SourceState& state) const = 0;
  virtual std::unique_ptr<SourceState> make_state() const = 0;
  // How a dropped record is reported (jank_exporter_state_rejected_records_total{record}, the log).
  virtual std::string_view rejected_record() const { return name(); }
  virtual std::string_view rejected_why() const { return "a value that cannot be true; its counts restart from 0"; }
  // The record that held this source's checkpoint fields, untagged, before
  // the source was a module (e.g. "surface", now the layers module's), or
  // "". That record's checkpoint reads them from there in files of older
  // releases, and writes a fresh state's there (zeros) so that it keeps its
  // layout (checkpoint_legacy).
  virtual std::string_view legacy_record() const { return {}; }
  // A record that holds more than the source's state, as the store wrote it
  // before the source was a module (the apps' fields, other sources' legacy
  // fields, entries dropped one by one), is checkpointed with the whole
  // device instead of `checkpoint`; it reports what it drops itself.
  virtual bool checkpoints_device() const { return false; }
  virtual void checkpoint_device(Checkpoint&, DeviceMetrics&, const RecordDrop&) const {}
  // A source with fields in the store's device record keeps them at their
  // places there (DeviceAt), untagged in the counters line and whole records
  // (line break and tag included) after it: in every device's record, a
  // fresh state's when the device has none, read into the device's state.
  // On loading, false when the part's values cannot be true: in the
  // counters line the line is dropped (a part at `counters` with it, as its
  // fields were), a record is dropped alone (the state keeps what it held)
  // and reported as device_counters with device_rejected_why.
  virtual bool device_part(DeviceAt) const { return false; }
  virtual bool checkpoint_device_part(Checkpoint& c, SourceState&, DeviceAt) const { return c.valid(); }
  virtual std::string_view device_rejected_why(DeviceAt) const { return rejected_why(); }
  // A device's records were read from a file of `version`: what an older
  // version kept differently, or what the options size, is set right here.
  virtual void loaded(DeviceMetrics&, const StoreOptions&, std::uint64_t /*version*/) const {}

  // A source with per-app state keeps it in each PackageMetrics' slot: made
  // by make_package_state (null: none), checkpointed as parts of the package
  // record, collected at its places among the package's series (PackageAt).
  virtual std::unique_ptr<SourceState> make_package_state() const { return nullptr; }
  // The tag of its part at `at` ("": none there, the default). At `last`
  // the store writes the tag; at an inner place the part is the layout the
  // store wrote before the module, its tag included; at `head` and `dumps`
  // the part is untagged and in every record (a fresh state's when the app
  // has none), the tag only marking that the source has one there. A tagged
  // part is optional, so its tag must be none of the device records' that
  // may follow a device's last package (tests/unit/test_source_module.cc).
  virtual std::string_view package_tag(PackageAt) const { return {}; }
  virtual bool package_worth_saving(const SourceState&, PackageAt) const { return false; }
  virtual bool checkpoint_package(Checkpoint& c, SourceState&, PackageAt) const { return c.valid(); }
  virtual void collect_package(SeriesSink&, const DeviceMetrics&, const std::string& /*package*/,
                               const PackageMetrics&, std::int64_t /*now_ns*/, PackageAt) const {}
  // Framestats rows of `window` the store counted, with their timings: a
  // source that joins its frames with them (FrameTimeline's frame join).
  virtual void framestats_rows(DeviceMetrics&, PackageMetrics&, std::string_view /*window*/,
                               std::span<const TimedFrame>) const {}
  // What the source keeps by its own age (a layer not polled for `grace_ns`)
  // goes, as a dead app's series do: whether anything went.
  virtual bool expire(DeviceMetrics&, std::int64_t /*now_ns*/, std::int64_t /*grace_ns*/) const { return false; }
  // The device's packages changed (some expired, or the store was loaded):
  // what the source holds per package may need dropping or rebuilding.
  virtual void packages_changed(DeviceMetrics&) const {}

  // Its slot in every device's SourceStates.
  std::size_t slot() const { return slot_; }

 protected:
  DeviceSource();

 private:
  std::size_t slot_;
};

// A source whose per-device state is `State`: typed access and the casts, once.
template <class State>
class DeviceSourceOf : public DeviceSource {
 public:
  // The device's state, made on first use.
  State& state(DeviceMetrics& device) const { return device.sources.get<State>(slot()); }
  // Null until the source recorded something on the device.
  const State* find(const DeviceMetrics& device) const {
    return device.sources.find_as<const State>(slot());
  }

  bool worth_saving(const SourceState& state) const final { return state_worth_saving(static_cast<const State&>(state)); }
  bool checkpoint(Checkpoint& c, SourceState& state) const final { return checkpoint_state(c, static_cast<State&>(state)); }
  std::unique_ptr<SourceState> make_state() const final { return std::make_unique<State>(); }

 protected:
  virtual bool state_worth_saving(const State& state) const = 0;
  virtual bool checkpoint_state(Checkpoint& c, State& state) const = 0;
};

// The newest reading of a polled source (thermal, battery) is exported only
// while it is current: not once the device went away, nor past the time it
// stays fresh (0: always, replays).
bool reading_current(const DeviceMetrics& device, std::int64_t fresh_until_ns, std::int64_t now_ns);
// The host time a reading recorded now stays fresh until: `fresh_for_ns`
// from the store's host time, or 0 (always) without either.
std::int64_t fresh_until(const Store& store, std::int64_t fresh_for_ns);

// A polled source's polls by result (the daemon's; not checkpointed).
class PollCounts {
 public:
  void count(std::string_view result);
  const std::map<std::string, std::uint64_t, std::less<>>& by_result() const { return by_result_; }

 private:
  std::map<std::string, std::uint64_t, std::less<>> by_result_;
};

// A polled source's input series: its polls by result (live devices only),
// then, once an answer was recorded, its lines parsed and discarded.
struct PolledInput {
  const PollCounts& polls;
  std::uint64_t answers = 0;
  std::uint64_t lines = 0, malformed_lines = 0;
};
void collect_polled_input(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels,
                          const FamilySpec& polls_family, const FamilySpec& lines_family, const PolledInput& input);

// The fields of the sources whose legacy_record() is `record`, at their
// place in it: saving, a fresh state's (zeros), as each writes its own
// record; loading, read into the device's state (a file of an older release
// holds their counts there), a source's values that cannot be true dropping
// its state alone.
void checkpoint_legacy(Checkpoint& c, DeviceMetrics& device, std::string_view record, const RecordDrop& drop);

// Calls every source's packages_changed.
void packages_changed(DeviceMetrics& device);

// Every registered device source, in collection and checkpoint order.
std::span<const DeviceSource* const> device_sources();

}  // namespace jank::metrics

// Source module: dumpsys SurfaceFlinger --frametimeline -all (Android 12+).
// Per device, the FrameTimeline window (each app frame counted once across
// polls) and the lines the answers brought; per app, SurfaceFlinger's
// verdicts, their join with framestats rows and the judged frames per
// activity window (metrics/frametimeline_metrics.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "metrics/frametimeline_metrics.h"
#include "metrics/frametimeline_tracker.h"
#include "metrics/source.h"
#include "parsers/frametimeline.h"

namespace jank::metrics {

struct FrameTimelineState final : SourceState {
  FrameTimelineTracker tracker;
  std::uint64_t lines = 0, malformed_lines = 0;
  // Whether verdicts can come (expect_frametimeline): while false, framestats
  // rows do not wait in an app's join for a verdict that never comes (up to
  // FrameJoin::kMaxWaiting rows per app, a few hundred bytes each). Replays
  // leave it true; the daemon sets it per session. Not checkpointed.
  bool expected = true;
};

struct AppFrameTimelineState final : SourceState {
  FrameTimelineCounts counts;
  bool judged = false;  // a verdict was counted (or restored): the series exist
  // In memory only: a restart loses the halves waiting for their match.
  FrameJoin join;
  FrameTimelineWindows windows;  // judged frames of its app windows per activity
};

class FrameTimelineSource final : public DeviceSourceOf<FrameTimelineState> {
 public:
  std::string_view name() const override { return "frametimeline"; }
  // The tag its record had in the store: files of earlier releases load unchanged.
  std::string_view record() const override { return "ft_device"; }
  std::span<const FamilySpec> families() const override;
  // Where the collector wrote its input series: after the activity state.
  bool collects_at(CollectAt at) const override { return at == CollectAt::timelines; }
  void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels, std::int64_t now_ns,
               CollectAt at) const override;
  std::string_view rejected_why() const override { return "a value that cannot be true; the window is read afresh"; }

  // Its app parts keep the store's layout and places: the counts (tag
  // "frametimeline") after framestats', the windows ("ft_windows") after
  // gfxinfo's; its app series follow the gfxinfo windows'.
  std::unique_ptr<SourceState> make_package_state() const override {
    return std::make_unique<AppFrameTimelineState>();
  }
  std::string_view package_tag(PackageAt at) const override;
  bool package_worth_saving(const SourceState& state, PackageAt at) const override;
  bool checkpoint_package(Checkpoint& c, SourceState& state, PackageAt at) const override;
  void collect_package(SeriesSink& sink, const DeviceMetrics& device, const std::string& package,
                       const PackageMetrics& p, std::int64_t now_ns, PackageAt at) const override;
  // The frame join from the framestats side: the rows' timings meet verdicts.
  void framestats_rows(DeviceMetrics& device, PackageMetrics& package, std::string_view window,
                       std::span<const TimedFrame> rows) const override;

 protected:
  // Only a device whose answers brought lines has a record, as before.
  bool state_worth_saving(const FrameTimelineState& state) const override { return state.lines > 0; }
  bool checkpoint_state(Checkpoint& c, FrameTimelineState& state) const override;
};
const FrameTimelineSource& frametimeline_source();

// What one --frametimeline poll brought.
struct FrameTimelinePoll {
  std::uint64_t frames = 0;  // app frames made final (judged, or gone unjudged)
  bool overflow = false;     // a full window held no frame seen before
  std::optional<double> vsync_period_ms;  // the newest display frame's
};

// One --frametimeline -all poll: each app frame counted once, under the
// package of its layer (or of its owner pid), joined with framestats rows.
// `since_previous_request_ns`: host time from the previous poll's request to
// this answer, which bounds the time between the two dumps from above (the
// time between two answers does not: a late answer shortens it). Without it
// (replay, a new session) a full window without a frame seen before is an
// overflow.
FrameTimelinePoll record_frametimeline(Store& store, DeviceMetrics& device, const parsers::FrameTimelineDump& dump,
                                       std::optional<std::int64_t> since_previous_request_ns = std::nullopt);
// Whether `device` will get FrameTimeline dumps (the daemon polls
// --frametimeline on it). Off, the halves waiting for their match are dropped.
void expect_frametimeline(DeviceMetrics& device, bool expected);

// FrameTimeline is not polled on purpose from now on (per-frame polling
// paused): the next window may hold no frame seen before without that being
// an overflow.
void pause_frametimeline(DeviceMetrics& device);

// Read access: the device's window and input (null before any poll), an
// app's verdicts (null until one was counted) and its windows.
const FrameTimelineState* frametimeline_of(const DeviceMetrics& device);
const FrameTimelineCounts* frametimeline_of(const PackageMetrics& package);
const FrameTimelineWindows* frametimeline_windows_of(const PackageMetrics& package);

}  // namespace jank::metrics

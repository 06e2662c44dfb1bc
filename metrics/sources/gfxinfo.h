// Source module: dumpsys gfxinfo <pkg> [framestats]. One module for what
// one dump brings, though issue 31 names gfxinfo and framestats apart: the
// framestats table is a section of the same dump, read by one parse and one
// record rule (one judge interval, one reset after the dump), and the
// device's input counts of both stand in one record under one validity
// rule. Per app, HWUI's own counters (GfxinfoTracker), the frames timed from
// framestats rows (FramestatsTracker) and per window (WindowFrames), and the
// "Profile data in ms" rows (ProfileStages); per device, the dumps recorded
// and the lines and rows they brought.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "metrics/framestats_tracker.h"
#include "metrics/gfxinfo_tracker.h"
#include "metrics/hwui_profile.h"
#include "metrics/source.h"
#include "metrics/window_frames.h"
#include "parsers/gfxinfo.h"

namespace jank::metrics {

// What gfxinfo dumps brought (every one, whatever package): received =
// parsed + discarded for lines and for framestats rows.
struct DumpInput {
  std::uint64_t gfxinfo_lines = 0;              // lines of dumps read
  std::uint64_t gfxinfo_malformed_lines = 0;    // recognised keys whose value did not parse
  std::uint64_t framestats_rows = 0;            // PROFILEDATA rows received (parsed or not)
  std::uint64_t framestats_malformed_rows = 0;  // wrong column count or a non-numeric cell
  std::uint64_t profile_rows = 0;               // "Profile data in ms" rows received (kept or not)
  std::uint64_t profile_rows_discarded = 0;     // malformed, or past the parser's per-window cap
};

struct GfxinfoState final : SourceState {
  std::uint64_t dumps = 0;  // dumps recorded: the input series exist once one was
  DumpInput input;
};

struct AppGfxinfoState final : SourceState {
  GfxinfoTracker gfxinfo;
  bool has_gfxinfo = false;
  FramestatsTracker framestats;
  bool has_framestats = false;
  WindowFrames windows;  // the framestats frames per window
  // HWUI "Profile data in ms" rows (debug.hwui.profile on the device).
  ProfileStages hwui_profile;
  bool has_hwui_profile = false;
};

class GfxinfoSource final : public DeviceSourceOf<GfxinfoState> {
 public:
  std::string_view name() const override { return "gfxinfo"; }
  std::span<const FamilySpec> families() const override;
  // Where the collector wrote its input series: after the log's.
  bool collects_at(CollectAt at) const override { return at == CollectAt::dump_input; }
  void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels, std::int64_t now_ns,
               CollectAt at) const override;

  // Its device fields stay where the store wrote them: the dump count in the
  // counters line, the input counts in "dump_input" and "profile_input".
  bool device_part(DeviceAt at) const override { return at != DeviceAt::lines; }
  bool checkpoint_device_part(Checkpoint& c, SourceState& state, DeviceAt at) const override;
  std::string_view device_rejected_why(DeviceAt at) const override;

  // Its app parts keep the store's layout and places: the gfxinfo and
  // framestats counts as fields after Davey's, "hwui_profile" after
  // FrameTimeline's counts, "windows" before FrameTimeline's windows; its
  // app series after Davey's.
  std::unique_ptr<SourceState> make_package_state() const override { return std::make_unique<AppGfxinfoState>(); }
  std::string_view package_tag(PackageAt at) const override;
  bool package_worth_saving(const SourceState& state, PackageAt at) const override;
  bool checkpoint_package(Checkpoint& c, SourceState& state, PackageAt at) const override;
  void collect_package(SeriesSink& sink, const DeviceMetrics& device, const std::string& package,
                       const PackageMetrics& p, std::int64_t now_ns, PackageAt at) const override;

 protected:
  // No record of its own: its device fields are parts of the store's.
  bool state_worth_saving(const GfxinfoState&) const override { return false; }
  bool checkpoint_state(Checkpoint& c, GfxinfoState&) const override { return c.valid(); }
};
const GfxinfoSource& gfxinfo_source();

// One gfxinfo dump. `reset_after`: the command reset the dumped processes'
// stats right after dumping them (`dumpsys gfxinfo <pkg> framestats
// reset`), so their next dump starts a new baseline whatever it shows.
void record_gfxinfo(Store& store, DeviceMetrics& device, const parsers::GfxinfoDump& dump, bool reset_after = false);

// The app (every process of it) is polled without framestats on purpose
// from now on (per-frame polling paused): its windows' next framestats
// tables may not overlap the previous ones without that being an overflow.
void pause_framestats(DeviceMetrics& device, std::string_view package);

// Read access: the device's dumps and input (null before any), an app's
// counts (null until a dump held any of its frames).
const GfxinfoState* gfxinfo_of(const DeviceMetrics& device);
const AppGfxinfoState* gfxinfo_of(const PackageMetrics& package);

}  // namespace jank::metrics

// One app's HWUI "Profile data in ms" rows (dumpsys gfxinfo with
// debug.hwui.profile=true): frames and their stage times. The device prints
// each frame once and forgets it (docs/parsing.md, "Profile data tables":
// 4.x resets printed slots, 5.x zeroes its buffer, 6+ skips frames not newer
// than the last one printed), so every row is a new frame: no
// de-duplication, unlike framestats. These stages are not the framestats
// ones (Draw on 6+ spans vsync to sync start), hence a family of their own.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "metrics/histogram.h"
#include "parsers/gfxinfo.h"

namespace jank::metrics {

enum class ProfileStage : std::uint8_t { draw, prepare, process, execute, count_ };
inline constexpr std::size_t kProfileStages = static_cast<std::size_t>(ProfileStage::count_);
std::string_view profile_stage_name(ProfileStage stage);

class ProfileStages {
 public:
  ProfileStages();

  // One row, one frame. A 3-column row (Android 4.x) has no prepare stage.
  void add(const parsers::GfxProfileRow& row);

  std::uint64_t frames() const { return frames_; }
  // Buckets: buckets::stage_duration_seconds (those of framestats' stages).
  const std::array<Histogram, kProfileStages>& stage_duration() const { return stages_; }

  void save(class StateWriter& w) const;
  // False when the record holds counts that cannot be true together.
  bool load(class StateReader& r);

 private:
  std::uint64_t frames_ = 0;
  std::array<Histogram, kProfileStages> stages_;
};

}  // namespace jank::metrics

#include "metrics/hwui_profile.h"

#include <cmath>

#include "metrics/state_io.h"
#include "parsers/time_units.h"

namespace jank::metrics {

std::string_view profile_stage_name(ProfileStage stage) {
  switch (stage) {
    case ProfileStage::draw: return "draw";
    case ProfileStage::prepare: return "prepare";
    case ProfileStage::process: return "process";
    case ProfileStage::execute: return "execute";
    case ProfileStage::count_: break;
  }
  return "unknown";
}

ProfileStages::ProfileStages()
    : stages_{Histogram(buckets::stage_duration_seconds()), Histogram(buckets::stage_duration_seconds()),
              Histogram(buckets::stage_duration_seconds()), Histogram(buckets::stage_duration_seconds())} {}

void ProfileStages::add(const parsers::GfxProfileRow& row) {
  ++frames_;
  auto observe = [&](ProfileStage stage, double ms) { stages_[static_cast<std::size_t>(stage)].observe(parsers::units::seconds_of_ms(ms)); };
  observe(ProfileStage::draw, row.draw_ms);
  if (row.prepare_ms) observe(ProfileStage::prepare, *row.prepare_ms);
  observe(ProfileStage::process, row.process_ms);
  observe(ProfileStage::execute, row.execute_ms);
}

void ProfileStages::save(StateWriter& w) const {
  w.tag("hwui_profile").u64(frames_);
  for (const auto& h : stages_) h.save(w);
}

bool ProfileStages::load(StateReader& r) {
  const std::uint64_t rejected = r.rejected();
  r.expect("hwui_profile");
  frames_ = r.u64();
  bool ok = true;
  for (auto& h : stages_) ok = h.load(r) && ok;
  if (!ok || r.rejected() != rejected) return false;
  for (const auto& h : stages_) {
    std::uint64_t in_buckets = 0;
    for (const std::uint64_t n : h.counts()) in_buckets += n;
    // Stage times are never negative, and the buckets hold every observation.
    if (in_buckets != h.count() || !(h.sum() >= 0) || !std::isfinite(h.sum())) return false;
  }
  // Every frame has draw, process and execute; prepare only 4-column ones.
  for (const auto stage : {ProfileStage::draw, ProfileStage::process, ProfileStage::execute}) {
    if (stages_[static_cast<std::size_t>(stage)].count() != frames_) return false;
  }
  return stages_[static_cast<std::size_t>(ProfileStage::prepare)].count() <= frames_;
}

}  // namespace jank::metrics

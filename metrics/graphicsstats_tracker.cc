#include "metrics/graphicsstats_tracker.h"

#include <algorithm>

#include "metrics/state_io.h"

namespace jank::metrics {

void GraphicsStatsTracker::forget(std::map<Key, Block>::iterator it) {
  merge_sum(forgotten_totals_[it->first.app], it->second.largest);
  blocks_.erase(it);
  ++forgotten_;
}

void GraphicsStatsTracker::apply(const parsers::GraphicsStatsDump& dump, bool whole, std::int64_t frame_interval_ns) {
  ++polls_;
  // One key printed twice (two processes of the app) counts by its larger values.
  std::map<Key, parsers::GfxStats> printed;
  for (const auto& b : dump.blocks) {
    Key key{{b.package, *b.version_code}, *b.stats_start};
    merge_largest(printed[key], b.stats);
  }
  for (const auto& [key, stats] : printed) {
    Block& block = blocks_[key];
    merge_largest(block.largest, stats);
    block.last_seen = polls_;
    block.misses = 0;
  }
  if (whole) {
    for (auto it = blocks_.begin(); it != blocks_.end();) {
      const auto next = std::next(it);
      if (it->second.last_seen != polls_ && ++it->second.misses >= kForgetAfterMisses) forget(it);
      it = next;
    }
  }
  while (blocks_.size() > kMaxBlocks) {
    forget(std::min_element(blocks_.begin(), blocks_.end(), [](const auto& a, const auto& b) {
      return a.second.last_seen < b.second.last_seen;
    }));
  }
  // Each app's totals: its forgotten blocks and its blocks now. They never
  // fall, so its tracker counts only their growth (its first dump whole).
  std::map<AppBuild, parsers::GfxStats> totals = forgotten_totals_;
  for (const auto& [key, block] : blocks_) merge_sum(totals[key.app], block.largest);
  for (auto& [app, stats] : totals) {
    stats.stats_since_ns = 0;  // one baseline for ever
    apps_[app].apply(stats, frame_interval_ns);
  }
}

void GraphicsStatsTracker::save(StateWriter& w) const {
  w.u64(polls_).u64(forgotten_).u64(blocks_.size()).newline();
  for (const auto& [key, block] : blocks_) {
    w.str(key.app.package).i64(key.app.version_code).i64(key.start).u64(block.last_seen).u64(block.misses);
    save_gfx_stats(w, block.largest);
    w.newline();
  }
  w.u64(forgotten_totals_.size()).newline();
  for (const auto& [app, stats] : forgotten_totals_) {
    w.str(app.package).i64(app.version_code);
    save_gfx_stats(w, stats);
    w.newline();
  }
  w.u64(apps_.size()).newline();
  for (const auto& [app, tracker] : apps_) {
    w.str(app.package).i64(app.version_code);
    tracker.save(w);
    w.newline();
  }
}

bool GraphicsStatsTracker::load(StateReader& r) {
  const std::uint64_t rejected = r.rejected();
  GraphicsStatsTracker t;
  t.polls_ = r.u64();
  t.forgotten_ = r.u64();
  const std::uint64_t blocks = r.count(kMaxBlocks);
  for (std::uint64_t i = 0; i < blocks && !r.fail(); ++i) {
    Key key;
    key.app.package = r.str();
    key.app.version_code = r.i64();
    key.start = r.i64();
    Block block;
    block.last_seen = r.u64();
    block.misses = static_cast<std::uint32_t>(std::min<std::uint64_t>(r.u64(), kForgetAfterMisses));
    load_gfx_stats(r, block.largest);
    t.blocks_[std::move(key)] = std::move(block);
  }
  const std::uint64_t forgotten = r.count(kMaxBlocks);
  for (std::uint64_t i = 0; i < forgotten && !r.fail(); ++i) {
    AppBuild app{r.str(), r.i64()};
    load_gfx_stats(r, t.forgotten_totals_[std::move(app)]);
  }
  const std::uint64_t apps = r.count(kMaxBlocks);
  for (std::uint64_t i = 0; i < apps && !r.fail(); ++i) {
    AppBuild app{r.str(), r.i64()};
    if (!t.apps_[std::move(app)].load(r)) break;
  }
  if (r.fail() || r.rejected() != rejected) {
    *this = GraphicsStatsTracker();
    return false;
  }
  *this = std::move(t);
  return true;
}

}  // namespace jank::metrics

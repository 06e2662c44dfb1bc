// `dumpsys graphicsstats` blocks of one device (parsers/graphicsstats.h) as
// monotonic counters per app and version code: each frame once across polls,
// day rollovers, process deaths and reboots.
//
// A block is known by (package, version code, stats start): the start is the
// name the device gives the block (the day's first buffer, by the device's
// wall clock), never read as a time. Per block the largest value each count
// has shown is kept, and the app's totals are the sum over its blocks:
//   - a new block (a new day, a new version, the first poll) counts whole;
//   - a block printed twice in one dump (two processes of the app drawing the
//     same day each print the day's file merged with their own buffer) counts
//     by its larger values, and catches up once they end and the file holds
//     both;
//   - a block showing less than before adds nothing until it shows more: a
//     process that just died has left the active list before its save reached
//     the file (GraphicsStatsService.java, processDied → the write-out
//     handler). A day file the device could not read back and started again
//     (GraphicsStatsService.cpp, saveBuffer) is undercounted by what it lost,
//     never counted twice;
//   - a block absent from kForgetAfterMisses whole dumps in a row was deleted
//     (the device keeps three days of files): its values stay in the totals
//     and the block is forgotten. A block is absent from one dump while its
//     process's save is on its way (the day's first buffer has no file yet);
//     one absent from a cut dump is not missing.
// The totals feed one GfxinfoTracker per app and version, which turns them
// into the same counters, histograms and vitals classes as gfxinfo's.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <string>

#include "metrics/gfxinfo_tracker.h"
#include "parsers/graphicsstats.h"

namespace jank::metrics {

class StateReader;
class StateWriter;

struct AppBuild {
  std::string package;
  std::int64_t version_code = 0;
  auto operator<=>(const AppBuild&) const = default;
};

class GraphicsStatsTracker {
 public:
  // Blocks kept per device: three days of 300 apps in two versions; past it
  // the block seen longest ago is forgotten (its values stay in the totals).
  static constexpr std::size_t kMaxBlocks = 2048;
  static constexpr std::uint32_t kForgetAfterMisses = 5;

  // One dump; `whole`: it was read to its end (not cut at the output cap).
  // `frame_interval_ns`: the device's refresh interval, for the vitals classes.
  void apply(const parsers::GraphicsStatsDump& dump, bool whole, std::int64_t frame_interval_ns);

  const std::map<AppBuild, GfxinfoTracker>& apps() const { return apps_; }
  std::size_t blocks() const { return blocks_.size(); }
  std::uint64_t forgotten_blocks() const { return forgotten_; }

  // Checkpoint: the blocks' largest values, the forgotten ones' sums and the
  // counters. False when a value cannot be true (the tracker is then empty).
  void save(StateWriter& w) const;
  bool load(StateReader& r);

 private:
  struct Key {
    AppBuild app;
    std::int64_t start = 0;
    auto operator<=>(const Key&) const = default;
  };
  struct Block {
    parsers::GfxStats largest;  // the largest value each count has shown
    std::uint64_t last_seen = 0;  // the poll that last printed it
    std::uint32_t misses = 0;     // whole dumps in a row without it
  };
  void forget(std::map<Key, Block>::iterator it);

  std::map<Key, Block> blocks_;
  std::map<AppBuild, parsers::GfxStats> forgotten_totals_;  // values of blocks no longer printed
  std::map<AppBuild, GfxinfoTracker> apps_;
  std::uint64_t polls_ = 0, forgotten_ = 0;
};

}  // namespace jank::metrics

// A gfxinfo dump with worked-out numbers for the live view's tests: 11 frames,
// 4 janky (3 slow UI thread, 1 missed vsync), and a frame-time histogram
// spread over the live ring's buckets.
#pragma once

#include <string>

#include "metrics/sources/gfxinfo.h"
#include "metrics/store.h"
#include "parsers/gfxinfo.h"

namespace jank::test {

inline void record_example_gfxinfo(metrics::Store& store, metrics::DeviceMetrics& d, const std::string& package) {
  parsers::GfxinfoDump dump;
  parsers::GfxProcess proc;
  proc.pid = 1;
  proc.package = package;
  parsers::GfxStats stats;
  stats.total_frames = 11;
  stats.janky_frames = 4;
  stats.slow_ui_thread = 3;
  stats.missed_vsync = 1;
  // Each HWUI bin counts at or below the next bin's label.
  stats.histogram = {{5, 2}, {6, 0}, {16, 3}, {17, 0}, {30, 1}, {31, 0}, {150, 4}, {200, 0}, {800, 1}, {850, 0}};
  proc.stats = stats;
  dump.processes.push_back(proc);
  metrics::record_gfxinfo(store, d, dump);
}

}  // namespace jank::test

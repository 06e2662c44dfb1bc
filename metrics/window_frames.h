// Framestats frames per window of one app (the gfxinfo sections of its
// windows: "Window:" blocks on Android 12+, view roots before): frames, janky
// frames and the frame-time histogram under each window's title. The frames
// are those FramestatsTracker counted, so each is counted once and an app's
// windows add up to its framestats counters. At most `cap` titles get their
// own series; later ones count under kOverflowWindow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/framestats_tracker.h"
#include "metrics/histogram.h"

namespace jank::metrics {

inline constexpr std::string_view kOverflowWindow = "_other_";
inline constexpr std::string_view kUnnamedWindow = "_unnamed_";  // a table outside any window (excerpts)
// Titles are device bytes: longer ones are cut (at a character boundary).
inline constexpr std::size_t kMaxWindowTitleBytes = 128;

struct WindowCounts {
  WindowCounts();
  std::uint64_t frames = 0;
  std::uint64_t janky = 0;
  Histogram duration;  // buckets::frame_duration_seconds
};

class WindowFrames {
 public:
  // The title a window of a gfxinfo dump counts under: the "Window:" title,
  // or a view root's name without "/android.view.ViewRootImpl@…" (the same
  // title, and stable when the activity is recreated).
  static std::string title_of(std::string_view window_name);

  // Frames FramestatsTracker counted in one table of the window `window_name`.
  void add(std::string_view window_name, const std::vector<CountedFrame>& frames, std::size_t cap);

  const std::map<std::string, WindowCounts, std::less<>>& windows() const { return windows_; }
  // Titles counted under kOverflowWindow, each once (among the last
  // kMaxRemembered such titles).
  std::uint64_t overflowed() const { return overflowed_; }
  static constexpr std::size_t kMaxRemembered = 1024;

  void save(class StateWriter& w) const;
  // False when the record holds counts that cannot be true together.
  bool load(class StateReader& r);

 private:
  std::map<std::string, WindowCounts, std::less<>> windows_;
  std::uint64_t overflowed_ = 0;
  std::set<std::uint64_t> overflowed_titles_;  // FNV-1a of titles counted in overflowed_
};

}  // namespace jank::metrics

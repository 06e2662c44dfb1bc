// Turns successive cumulative `dumpsys gfxinfo` blocks of one process into
// monotonic counters. A new baseline starts when "Stats since" changes or any
// value falls (process restart, `gfxinfo reset`): the new dump's values are
// then added whole, so counters never go down.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "metrics/histogram.h"
#include "parsers/gfxinfo.h"

namespace jank::metrics {

enum class JankCause : std::uint8_t {
  missed_vsync,
  high_input_latency,
  slow_ui_thread,
  slow_bitmap_uploads,
  slow_issue_draw_commands,
  frame_deadline_missed,
  frame_deadline_missed_legacy,
  count_
};
inline constexpr std::size_t kJankCauses = static_cast<std::size_t>(JankCause::count_);
std::string_view jank_cause_name(JankCause cause);

struct ReportedPercentiles {
  std::uint32_t p50_ms = 0, p90_ms = 0, p95_ms = 0, p99_ms = 0;
  bool has_p50 = false;  // Android 6 prints no 50th percentile
};

// Android vitals' frame classes counted from the HISTOGRAM (docs/metrics.md).
// HWUI files a frame under its duration truncated to whole milliseconds; a
// frame counts when its bucket's label is at least the threshold's whole
// millisecond, which is exact where the label is the smallest whole
// millisecond the bucket holds: labels 6 to 32 and the 50 ms buckets.
inline constexpr std::uint32_t kSlowFrameMinMs = 17;     // vitals: rendered in more than 16 ms
inline constexpr std::uint32_t kFrozenFrameMinMs = 700;  // vitals: more than 700 ms (50 ms buckets from 150)
// The smallest whole millisecond of a frame longer than `frame_interval_ns`
// at the histogram's resolution: floor(interval in ms) + 1, at least 6 (the
// "5ms" bucket holds 0-5 ms, so nothing below 6 can be told apart).
std::uint32_t slow_frame_min_ms(std::int64_t frame_interval_ns);

// Stats blocks combined count by count (histogram bins by label;
// percentiles and "Stats since" left as they are): the largest of each, or
// the sum (saturating).
void merge_largest(parsers::GfxStats& into, const parsers::GfxStats& s);
void merge_sum(parsers::GfxStats& into, const parsers::GfxStats& s);

// A stats block in a checkpoint (metrics/state_io.h).
void save_gfx_stats(class StateWriter& w, const parsers::GfxStats& s);
void load_gfx_stats(class StateReader& r, parsers::GfxStats& s);

class GfxinfoTracker {
 public:
  GfxinfoTracker();

  // `frame_interval_ns`: the device's refresh interval now, for
  // slow_frames_refresh() (frames new in this dump are judged by it).
  void apply(const parsers::GfxStats& stats, std::int64_t frame_interval_ns = 16'666'667);
  // The device's counters were zeroed right after the last dump applied (a
  // `gfxinfo reset` of ours): the next dump is counted whole, as a new
  // baseline that is no baseline reset. Without this, a release that prints
  // no "Stats since" would take a next window with more frames than the last
  // for the same baseline and count only the difference.
  void note_reset() { previous_.reset(); }

  std::uint64_t frames_rendered() const { return frames_rendered_; }
  std::uint64_t janky_frames() const { return janky_; }
  std::uint64_t janky_frames_legacy() const { return janky_legacy_; }
  bool has_legacy() const { return has_legacy_; }
  const std::array<std::uint64_t, kJankCauses>& causes() const { return causes_; }
  const std::array<bool, kJankCauses>& causes_seen() const { return causes_seen_; }
  const Histogram& frame_duration() const { return frame_duration_; }
  // HISTOGRAM frames over 16 ms, over one refresh interval, over 700 ms.
  std::uint64_t slow_frames() const { return slow_; }
  std::uint64_t slow_frames_refresh() const { return slow_refresh_; }
  std::uint64_t frozen_frames() const { return frozen_; }
  bool has_histogram() const { return has_histogram_; }  // a dump printed a HISTOGRAM (Android 7+)
  const Histogram& gpu_duration() const { return gpu_duration_; }
  bool has_gpu_histogram() const { return has_gpu_histogram_; }
  std::uint64_t baseline_resets() const { return resets_; }
  std::uint64_t dumps() const { return dumps_; }
  // Percentiles of the newest dump that had frames (a 0-frame dump prints
  // 4950 ms, which means "no data").
  const std::optional<ReportedPercentiles>& percentiles() const { return percentiles_; }
  const std::optional<ReportedPercentiles>& gpu_percentiles() const { return gpu_percentiles_; }

  void save(class StateWriter& w) const;
  bool load(class StateReader& r);

 private:
  bool continues_baseline(const parsers::GfxStats& s) const;

  std::optional<parsers::GfxStats> previous_;
  std::uint64_t frames_rendered_ = 0, janky_ = 0, janky_legacy_ = 0, resets_ = 0, dumps_ = 0;
  std::uint64_t slow_ = 0, slow_refresh_ = 0, frozen_ = 0;
  bool has_legacy_ = false, has_gpu_histogram_ = false, has_histogram_ = false;
  std::array<std::uint64_t, kJankCauses> causes_{};
  std::array<bool, kJankCauses> causes_seen_{};
  Histogram frame_duration_;
  Histogram gpu_duration_;
  std::optional<ReportedPercentiles> percentiles_, gpu_percentiles_;
};

}  // namespace jank::metrics

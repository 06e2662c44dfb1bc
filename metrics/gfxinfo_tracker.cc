#include "metrics/gfxinfo_tracker.h"

#include <algorithm>
#include <limits>
#include <map>

#include "metrics/state_io.h"
#include "parsers/time_units.h"

namespace jank::metrics {
namespace {

using parsers::GfxStats;
using parsers::HistogramBin;

const std::optional<std::uint64_t>& cause_value(const GfxStats& s, JankCause c) {
  switch (c) {
    case JankCause::missed_vsync: return s.missed_vsync;
    case JankCause::high_input_latency: return s.high_input_latency;
    case JankCause::slow_ui_thread: return s.slow_ui_thread;
    case JankCause::slow_bitmap_uploads: return s.slow_bitmap_uploads;
    case JankCause::slow_issue_draw_commands: return s.slow_issue_draw_commands;
    case JankCause::frame_deadline_missed: return s.frame_deadline_missed;
    case JankCause::frame_deadline_missed_legacy:
    case JankCause::count_: break;
  }
  return s.frame_deadline_missed_legacy;
}

bool fell(const std::optional<std::uint64_t>& now, const std::optional<std::uint64_t>& before) {
  return now && before && *now < *before;
}

std::uint64_t delta(const std::optional<std::uint64_t>& now, const std::optional<std::uint64_t>& before,
                    bool same_baseline) {
  if (!now) return 0;
  if (!same_baseline || !before) return *now;
  return *now - *before;  // callers checked it did not fall
}

// Per-label counts of the previous dump, to subtract bin by bin.
std::map<std::uint32_t, std::uint64_t> by_label(const std::vector<HistogramBin>& bins) {
  std::map<std::uint32_t, std::uint64_t> m;
  for (const auto& b : bins) m[b.label_ms] += b.count;
  return m;
}

bool histogram_fell(const std::vector<HistogramBin>& now, const std::vector<HistogramBin>& before) {
  auto prev = by_label(before);
  for (const auto& b : now) {
    auto it = prev.find(b.label_ms);
    if (it != prev.end() && b.count < it->second) return true;
  }
  return false;
}

// HWUI HISTOGRAM: a bin labelled L holds frames from about L up to the next
// bin's label, so each bin is counted at or below the next label (the last bin
// only under +Inf). The label itself stands in for the value in _sum.
// GPU HISTOGRAM: labels are exclusive upper bounds (1 ms = under 1 ms) except
// the last (4950 ms), which holds everything slower.
void add_bins(Histogram& h, const std::vector<HistogramBin>& now, const std::vector<HistogramBin>& before,
              bool same_baseline, bool labels_are_upper_bounds) {
  auto prev = same_baseline ? by_label(before) : std::map<std::uint32_t, std::uint64_t>{};
  for (std::size_t i = 0; i < now.size(); ++i) {
    std::uint64_t n = now[i].count;
    if (auto it = prev.find(now[i].label_ms); it != prev.end()) n -= it->second;
    if (n == 0) continue;
    const bool last = i + 1 == now.size();
    std::size_t bucket;
    if (last) {
      bucket = h.upper_bounds().size();
    } else if (labels_are_upper_bounds) {
      bucket = h.bucket_for(parsers::units::seconds_of_ms(now[i].label_ms));
    } else {
      bucket = h.bucket_for(parsers::units::seconds_of_ms(now[i + 1].label_ms));
    }
    h.add_to_bucket(bucket, n, parsers::units::seconds_of_ms(static_cast<double>(n) * now[i].label_ms));
  }
}

struct VitalsCounts {
  std::uint64_t slow = 0, slow_refresh = 0, frozen = 0;
};

// The frames of the HISTOGRAM new since `before` (whole on a new baseline),
// by vitals class; same per-label subtraction as add_bins.
VitalsCounts vitals_of(const std::vector<HistogramBin>& now, const std::vector<HistogramBin>& before,
                       bool same_baseline, std::uint32_t refresh_min_ms) {
  auto prev = same_baseline ? by_label(before) : std::map<std::uint32_t, std::uint64_t>{};
  VitalsCounts v;
  for (const auto& bin : now) {
    std::uint64_t n = bin.count;
    if (auto it = prev.find(bin.label_ms); it != prev.end()) n -= it->second;
    if (bin.label_ms >= kSlowFrameMinMs) v.slow += n;
    if (bin.label_ms >= refresh_min_ms) v.slow_refresh += n;
    if (bin.label_ms >= kFrozenFrameMinMs) v.frozen += n;
  }
  return v;
}

std::optional<ReportedPercentiles> percentiles_of(const std::optional<std::uint32_t>& p50,
                                                  const std::optional<std::uint32_t>& p90,
                                                  const std::optional<std::uint32_t>& p95,
                                                  const std::optional<std::uint32_t>& p99) {
  if (!p90 || !p95 || !p99) return std::nullopt;
  ReportedPercentiles r;
  r.has_p50 = p50.has_value();
  r.p50_ms = p50.value_or(0);
  r.p90_ms = *p90;
  r.p95_ms = *p95;
  r.p99_ms = *p99;
  return r;
}

}  // namespace

std::uint32_t slow_frame_min_ms(std::int64_t frame_interval_ns) {
  if (frame_interval_ns <= 0) return kSlowFrameMinMs;
  const std::int64_t whole_ms = parsers::units::whole_ms_of_ns(frame_interval_ns) + 1;
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(whole_ms, 6, kFrozenFrameMinMs));
}

std::string_view jank_cause_name(JankCause cause) {
  switch (cause) {
    case JankCause::missed_vsync: return "missed_vsync";
    case JankCause::high_input_latency: return "high_input_latency";
    case JankCause::slow_ui_thread: return "slow_ui_thread";
    case JankCause::slow_bitmap_uploads: return "slow_bitmap_uploads";
    case JankCause::slow_issue_draw_commands: return "slow_issue_draw_commands";
    case JankCause::frame_deadline_missed: return "frame_deadline_missed";
    case JankCause::frame_deadline_missed_legacy: return "frame_deadline_missed_legacy";
    case JankCause::count_: break;
  }
  return "unknown";
}

namespace {

template <typename T>
void save_opt(StateWriter& w, const std::optional<T>& v) {
  w.boolean(v.has_value()).u64(v.value_or(0));
}
template <typename T>
void load_opt(StateReader& r, std::optional<T>& v) {
  const bool has = r.boolean();
  const std::uint64_t value = r.u64();
  if (has) {
    v = static_cast<T>(value);
  } else {
    v.reset();
  }
}
void save_bins(StateWriter& w, const std::vector<HistogramBin>& bins) {
  w.u64(bins.size());
  for (const auto& b : bins) w.u64(b.label_ms).u64(b.count);
}
void load_bins(StateReader& r, std::vector<HistogramBin>& bins) {
  bins.clear();
  const std::uint64_t n = r.count(4096);
  for (std::uint64_t i = 0; i < n && !r.fail(); ++i) {
    HistogramBin b;
    b.label_ms = static_cast<std::uint32_t>(r.u64());
    b.count = r.u64();
    bins.push_back(b);
  }
}
}  // namespace

void save_gfx_stats(StateWriter& w, const GfxStats& s) {
  for (const auto* v : {&s.stats_since_ns, &s.total_frames, &s.janky_frames, &s.janky_frames_legacy,
                        &s.missed_vsync, &s.high_input_latency, &s.slow_ui_thread, &s.slow_bitmap_uploads,
                        &s.slow_issue_draw_commands, &s.frame_deadline_missed, &s.frame_deadline_missed_legacy}) {
    save_opt(w, *v);
  }
  for (const auto* v : {&s.p50_ms, &s.p90_ms, &s.p95_ms, &s.p99_ms, &s.gpu_p50_ms, &s.gpu_p90_ms, &s.gpu_p95_ms,
                        &s.gpu_p99_ms}) {
    save_opt(w, *v);
  }
  save_bins(w, s.histogram);
  save_bins(w, s.gpu_histogram);
}
void load_gfx_stats(StateReader& r, GfxStats& s) {
  for (auto* v : {&s.stats_since_ns, &s.total_frames, &s.janky_frames, &s.janky_frames_legacy, &s.missed_vsync,
                  &s.high_input_latency, &s.slow_ui_thread, &s.slow_bitmap_uploads, &s.slow_issue_draw_commands,
                  &s.frame_deadline_missed, &s.frame_deadline_missed_legacy}) {
    load_opt(r, *v);
  }
  for (auto* v : {&s.p50_ms, &s.p90_ms, &s.p95_ms, &s.p99_ms, &s.gpu_p50_ms, &s.gpu_p90_ms, &s.gpu_p95_ms,
                  &s.gpu_p99_ms}) {
    load_opt(r, *v);
  }
  load_bins(r, s.histogram);
  load_bins(r, s.gpu_histogram);
}
namespace {

void save_percentiles(StateWriter& w, const std::optional<ReportedPercentiles>& p) {
  w.boolean(p.has_value());
  if (p) w.boolean(p->has_p50).u64(p->p50_ms).u64(p->p90_ms).u64(p->p95_ms).u64(p->p99_ms);
}
void load_percentiles(StateReader& r, std::optional<ReportedPercentiles>& p) {
  p.reset();
  if (!r.boolean()) return;
  ReportedPercentiles v;
  v.has_p50 = r.boolean();
  v.p50_ms = static_cast<std::uint32_t>(r.u64());
  v.p90_ms = static_cast<std::uint32_t>(r.u64());
  v.p95_ms = static_cast<std::uint32_t>(r.u64());
  v.p99_ms = static_cast<std::uint32_t>(r.u64());
  p = v;
}

}  // namespace

void GfxinfoTracker::save(StateWriter& w) const {
  w.boolean(previous_.has_value());
  if (previous_) save_gfx_stats(w, *previous_);
  w.u64(frames_rendered_).u64(janky_).u64(janky_legacy_).u64(resets_).u64(dumps_);
  w.boolean(has_legacy_).boolean(has_gpu_histogram_);
  for (std::size_t c = 0; c < kJankCauses; ++c) w.u64(causes_[c]).boolean(causes_seen_[c]);
  frame_duration_.save(w);
  gpu_duration_.save(w);
  save_percentiles(w, percentiles_);
  save_percentiles(w, gpu_percentiles_);
  // A record of its own: files written before vitals were counted read on without it.
  w.tag("vitals").boolean(has_histogram_).u64(slow_).u64(slow_refresh_).u64(frozen_);
}

bool GfxinfoTracker::load(StateReader& r) {
  previous_.reset();
  if (r.boolean()) {
    GfxStats s;
    load_gfx_stats(r, s);
    previous_ = std::move(s);
  }
  frames_rendered_ = r.u64();
  janky_ = r.u64();
  janky_legacy_ = r.u64();
  resets_ = r.u64();
  dumps_ = r.u64();
  has_legacy_ = r.boolean();
  has_gpu_histogram_ = r.boolean();
  for (std::size_t c = 0; c < kJankCauses; ++c) {
    causes_[c] = r.u64();
    causes_seen_[c] = r.boolean();
  }
  frame_duration_.load(r);
  gpu_duration_.load(r);
  load_percentiles(r, percentiles_);
  load_percentiles(r, gpu_percentiles_);
  slow_ = slow_refresh_ = frozen_ = 0;
  has_histogram_ = false;
  if (r.peek("vitals")) {
    r.expect("vitals");
    has_histogram_ = r.boolean();
    const std::uint64_t before = r.rejected();
    const std::uint64_t slow = r.u64(), slow_refresh = r.u64(), frozen = r.u64();
    // A frozen frame is a slow one; anything else is damage: restart from 0.
    if (r.rejected() == before && frozen <= slow && frozen <= slow_refresh) {
      slow_ = slow;
      slow_refresh_ = slow_refresh;
      frozen_ = frozen;
    } else if (r.rejected() == before) {
      r.reject();
    }
  }
  return !r.fail();
}

GfxinfoTracker::GfxinfoTracker()
    : frame_duration_(buckets::frame_duration_seconds()), gpu_duration_(buckets::gpu_duration_seconds()) {}

bool GfxinfoTracker::continues_baseline(const GfxStats& s) const {
  if (!previous_) return false;
  const GfxStats& p = *previous_;
  if (s.stats_since_ns != p.stats_since_ns) return false;
  if (fell(s.total_frames, p.total_frames) || fell(s.janky_frames, p.janky_frames) ||
      fell(s.janky_frames_legacy, p.janky_frames_legacy)) {
    return false;
  }
  for (std::size_t c = 0; c < kJankCauses; ++c) {
    auto cause = static_cast<JankCause>(c);
    if (fell(cause_value(s, cause), cause_value(p, cause))) return false;
  }
  return !histogram_fell(s.histogram, p.histogram) && !histogram_fell(s.gpu_histogram, p.gpu_histogram);
}

void GfxinfoTracker::apply(const GfxStats& s, std::int64_t frame_interval_ns) {
  const bool same = continues_baseline(s);
  if (previous_ && !same) ++resets_;
  ++dumps_;
  const GfxStats empty;
  const GfxStats& p = (same && previous_) ? *previous_ : empty;
  frames_rendered_ += delta(s.total_frames, p.total_frames, same);
  janky_ += delta(s.janky_frames, p.janky_frames, same);
  if (s.janky_frames_legacy) has_legacy_ = true;
  janky_legacy_ += delta(s.janky_frames_legacy, p.janky_frames_legacy, same);
  for (std::size_t c = 0; c < kJankCauses; ++c) {
    auto cause = static_cast<JankCause>(c);
    if (cause_value(s, cause)) causes_seen_[c] = true;
    causes_[c] += delta(cause_value(s, cause), cause_value(p, cause), same);
  }
  add_bins(frame_duration_, s.histogram, p.histogram, same, false);
  if (!s.histogram.empty()) has_histogram_ = true;
  const VitalsCounts v = vitals_of(s.histogram, p.histogram, same, slow_frame_min_ms(frame_interval_ns));
  slow_ += v.slow;
  slow_refresh_ += v.slow_refresh;
  frozen_ += v.frozen;
  if (!s.gpu_histogram.empty()) has_gpu_histogram_ = true;
  add_bins(gpu_duration_, s.gpu_histogram, p.gpu_histogram, same, true);
  if (s.total_frames.value_or(0) > 0) {
    if (auto r = percentiles_of(s.p50_ms, s.p90_ms, s.p95_ms, s.p99_ms)) percentiles_ = r;
    if (auto r = percentiles_of(s.gpu_p50_ms, s.gpu_p90_ms, s.gpu_p95_ms, s.gpu_p99_ms)) gpu_percentiles_ = r;
  }
  previous_ = s;
}

namespace {

using CountField = std::optional<std::uint64_t> GfxStats::*;
constexpr CountField kCountFields[] = {&GfxStats::total_frames,       &GfxStats::janky_frames,
                                       &GfxStats::janky_frames_legacy, &GfxStats::missed_vsync,
                                       &GfxStats::high_input_latency,  &GfxStats::slow_ui_thread,
                                       &GfxStats::slow_bitmap_uploads, &GfxStats::slow_issue_draw_commands,
                                       &GfxStats::frame_deadline_missed, &GfxStats::frame_deadline_missed_legacy};

template <typename Combine>
void merge_bins(std::vector<HistogramBin>& into, const std::vector<HistogramBin>& bins, Combine combine) {
  auto merged = by_label(into);
  for (const auto& b : bins) {
    auto [it, fresh] = merged.try_emplace(b.label_ms, b.count);
    if (!fresh) it->second = combine(it->second, b.count);
  }
  into.clear();
  for (const auto& [label, count] : merged) into.push_back({label, count});
}

template <typename Combine>
void merge_counts(GfxStats& into, const GfxStats& s, Combine combine) {
  for (const CountField f : kCountFields) {
    if (!(s.*f)) continue;
    into.*f = (into.*f) ? combine(*(into.*f), *(s.*f)) : *(s.*f);
  }
  merge_bins(into.histogram, s.histogram, combine);
  merge_bins(into.gpu_histogram, s.gpu_histogram, combine);
}

}  // namespace

void merge_largest(GfxStats& into, const GfxStats& s) {
  merge_counts(into, s, [](std::uint64_t a, std::uint64_t b) { return std::max(a, b); });
}

void merge_sum(GfxStats& into, const GfxStats& s) {
  // Saturating: a damaged dump's 2^64 - 1 must not wrap a total around.
  merge_counts(into, s, [](std::uint64_t a, std::uint64_t b) { constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    return b > kMax - a ? kMax : a + b; });
}

}  // namespace jank::metrics

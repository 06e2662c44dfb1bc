// A fixed-bucket histogram as Prometheus exposes it: upper bounds in base
// units, per-bucket (non-cumulative) counts, a +Inf bucket, sum and count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace jank::metrics {

class Histogram {
 public:
  explicit Histogram(std::span<const double> upper_bounds);

  void observe(double value);
  // Adds `n` observations known to lie at or below upper_bounds()[bucket]
  // (bucket == size() means +Inf), with their summed value.
  void add_to_bucket(std::size_t bucket, std::uint64_t n, double value_sum);
  // Smallest bucket whose upper bound is ≥ value (size() for +Inf).
  std::size_t bucket_for(double value) const;

  std::span<const double> upper_bounds() const { return bounds_; }
  const std::vector<std::uint64_t>& counts() const { return counts_; }  // size()+1 entries
  std::uint64_t count() const { return count_; }
  double sum() const { return sum_; }

  void save(class StateWriter& w) const;
  bool load(class StateReader& r);

 private:
  std::span<const double> bounds_;
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  double sum_ = 0;
};

// Bucket layouts shared by every series of a family (so histogram_quantile
// can aggregate across a farm).
namespace buckets {
// Choreographer skip size N, in frames (SPEC §5).
std::span<const double> skip_size_frames();
// Frame durations in seconds: gfxinfo HISTOGRAM and framestats. The bounds
// sit on HWUI histogram bin edges so re-bucketing HISTOGRAM stays exact.
std::span<const double> frame_duration_seconds();
// GPU frame durations (gfxinfo GPU HISTOGRAM, 1 ms bins up to 25 ms).
std::span<const double> gpu_duration_seconds();
// Per-stage framestats durations (input, animation, layout, draw, sync, gpu).
std::span<const double> stage_duration_seconds();
// Davey! frames are ≥ 700 ms by definition.
std::span<const double> davey_duration_seconds();
}  // namespace buckets

}  // namespace jank::metrics

#include "metrics/histogram.h"

#include <algorithm>
#include <array>

#include "metrics/state_io.h"

namespace jank::metrics {

Histogram::Histogram(std::span<const double> upper_bounds)
    : bounds_(upper_bounds), counts_(upper_bounds.size() + 1, 0) {}

std::size_t Histogram::bucket_for(double value) const {
  return static_cast<std::size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
}

void Histogram::observe(double value) {
  ++counts_[bucket_for(value)];
  ++count_;
  sum_ += value;
}

void Histogram::add_to_bucket(std::size_t bucket, std::uint64_t n, double value_sum) {
  if (bucket > bounds_.size()) bucket = bounds_.size();
  counts_[bucket] += n;
  count_ += n;
  sum_ += value_sum;
}

void Histogram::save(StateWriter& w) const {
  w.u64(counts_.size());
  for (auto c : counts_) w.u64(c);
  w.u64(count_).f64(sum_);
}

bool Histogram::load(StateReader& r) {
  const std::uint64_t n = r.count(1024);
  if (n != counts_.size()) {
    r.set_error("histogram bucket layout changed");
    return false;
  }
  for (auto& c : counts_) c = r.u64();
  count_ = r.u64();
  sum_ = r.f64();
  return !r.fail();
}

namespace buckets {
namespace {
constexpr std::array<double, 8> kSkipSize = {1, 2, 3, 5, 10, 30, 60, 120};
// Every bound is the label of a HWUI HISTOGRAM bin, so that re-bucketing a
// dump (a bin counts at or below the next bin's label) loses nothing. 8, 11
// and 17 ms are one frame at 120, 90 and 60 Hz.
constexpr std::array<double, 16> kFrameDuration = {0.008, 0.011, 0.017, 0.021, 0.025, 0.034, 0.048, 0.053,
                                                   0.101, 0.150, 0.200, 0.300, 0.500, 0.700, 1.0, 2.0};
constexpr std::array<double, 9> kGpuDuration = {0.002, 0.004, 0.006, 0.008, 0.010, 0.012, 0.016, 0.020, 0.025};
constexpr std::array<double, 10> kStage = {0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.5};
constexpr std::array<double, 8> kDavey = {0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0};
}  // namespace
std::span<const double> skip_size_frames() { return kSkipSize; }
std::span<const double> frame_duration_seconds() { return kFrameDuration; }
std::span<const double> gpu_duration_seconds() { return kGpuDuration; }
std::span<const double> stage_duration_seconds() { return kStage; }
std::span<const double> davey_duration_seconds() { return kDavey; }
}  // namespace buckets

}  // namespace jank::metrics

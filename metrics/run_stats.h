// Distribution-free statistics for comparing two builds' run results
// (`jank_exporter compare`, docs/runs.md "Comparing builds"): medians, the
// Mann–Whitney U test and the Hodges–Lehmann shift with its confidence
// interval. Pure functions over samples; no I/O.
#pragma once

#include <optional>
#include <span>

namespace jank::metrics {

// NaN for an empty sample.
double median(std::span<const double> values);

// The q-quantile (0 ≤ q ≤ 1) interpolated linearly between order statistics
// (the sample's minimum at 0, its maximum at 1); NaN for an empty sample.
double quantile(std::span<const double> values, double q);

// The standard normal quantile: P(Z ≤ normal_quantile(p)) = p, 0 < p < 1.
double normal_quantile(double p);

// Samples of up to this many values in all, without ties, get the exact
// distribution of U (counts up to C(60, 30) fit in 64 bits); larger samples or
// samples with ties the normal approximation.
inline constexpr std::size_t kExactMaxTotal = 60;

struct RankTest {
  // Pairs (a, b) with b > a, plus half the pairs with b == a: 0 when every
  // candidate value is below every baseline value, n_a × n_b when above.
  double u_b = 0;
  double p_value = 1;  // two-sided
  bool exact = false;  // false: normal approximation, tie and continuity corrected
};

// The Mann–Whitney U test of "A and B come from the same distribution".
// Both samples must be non-empty.
RankTest mann_whitney(std::span<const double> a, std::span<const double> b);

struct ShiftEstimate {
  double shift = 0;  // the median of every difference b − a (Hodges–Lehmann)
  // The interval of the shift at the asked confidence, from the sorted
  // differences at the U test's critical rank; absent when the samples are
  // too small to reach that confidence at all (3 against 3 at 95 %).
  std::optional<double> low, high;
};

// Differences are all held in memory: beyond this many pairs the shift is not
// estimated (nullopt).
inline constexpr std::size_t kMaxShiftPairs = std::size_t{16} << 20;

// alpha: 1 − confidence, two-sided (0.05 for a 95 % interval).
std::optional<ShiftEstimate> hodges_lehmann(std::span<const double> a, std::span<const double> b, double alpha);

// (candidate − baseline) / |baseline| × 100; nullopt when the baseline is 0
// and the candidate is not (0 when both are).
std::optional<double> relative_change_percent(double baseline, double candidate);

}  // namespace jank::metrics

#include "metrics/run_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace jank::metrics {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// How many of the C(m+n, m) orderings of m baseline and n candidate values
// give each U from 0 to m·n: the coefficients of the Gaussian binomial
// [m+n choose m] in q, built as the product of (1 − q^(n+i)) / (1 − q^i).
// Every intermediate polynomial is a Gaussian binomial itself, so the
// division is exact and the coefficients stay within C(m+n, m).
std::vector<std::int64_t> u_counts(std::size_t m, std::size_t n) {
  std::vector<std::int64_t> poly{1};
  for (std::size_t i = 1; i <= m; ++i) {
    const std::size_t k = n + i;
    std::vector<std::int64_t> next(poly.size() + k, 0);
    for (std::size_t j = 0; j < poly.size(); ++j) {
      next[j] += poly[j];
      next[j + k] -= poly[j];
    }
    for (std::size_t j = i; j < next.size(); ++j) next[j] += next[j - i];
    next.resize(next.size() - i);
    poly = std::move(next);
  }
  return poly;
}

// P(U ≤ u) for each u, tie-free.
std::vector<double> exact_cdf(std::size_t m, std::size_t n) {
  const auto counts = u_counts(m, n);
  std::int64_t total = 0;
  for (auto c : counts) total += c;
  std::vector<double> cdf(counts.size());
  std::int64_t running = 0;
  for (std::size_t u = 0; u < counts.size(); ++u) {
    running += counts[u];
    cdf[u] = static_cast<double>(running) / static_cast<double>(total);
  }
  return cdf;
}

// The largest k with P(U ≤ k − 1) ≤ alpha / 2 (0 when even P(U ≤ 0) is
// larger): the interval of the shift is then [D(k), D(M + 1 − k)].
std::size_t critical_rank(std::size_t m, std::size_t n, double alpha) {
  const std::size_t pairs = m * n;
  if (m + n <= kExactMaxTotal) {
    const auto cdf = exact_cdf(m, n);
    std::size_t k = 0;
    while (k < cdf.size() && cdf[k] <= alpha / 2) ++k;
    return k;
  }
  // P(U ≤ k − 1) ≈ Φ((k − 1 + ½ − M/2) / σ), continuity corrected.
  const double sigma = std::sqrt(static_cast<double>(pairs) * static_cast<double>(m + n + 1) / 12.0);
  const double k = std::floor(static_cast<double>(pairs) / 2 + 0.5 + normal_quantile(alpha / 2) * sigma);
  return k < 0 ? 0 : static_cast<std::size_t>(k);
}

std::vector<double> sorted(std::span<const double> values) {
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  return v;
}

double quantile_of_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return kNaN;
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

double median(std::span<const double> values) { return quantile(values, 0.5); }

double quantile(std::span<const double> values, double q) {
  return quantile_of_sorted(sorted(values), std::clamp(q, 0.0, 1.0));
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) return kNaN;
  // Bisection: Φ is monotone and erfc accurate far into the tails.
  double lo = -40, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = (lo + hi) / 2;
    (normal_cdf(mid) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

RankTest mann_whitney(std::span<const double> a, std::span<const double> b) {
  RankTest r;
  const std::size_t m = a.size(), n = b.size(), total = m + n;
  if (m == 0 || n == 0) return r;
  std::vector<std::pair<double, bool>> all;  // value, from B
  all.reserve(total);
  for (double x : a) all.emplace_back(x, false);
  for (double x : b) all.emplace_back(x, true);
  std::sort(all.begin(), all.end());
  double rank_sum_b = 0, tie_term = 0;
  for (std::size_t i = 0; i < total;) {
    std::size_t j = i;
    while (j < total && all[j].first == all[i].first) ++j;
    const double mid_rank = static_cast<double>(i + 1 + j) / 2;  // ranks i+1 … j
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second) rank_sum_b += mid_rank;
    const auto t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  const double pairs = static_cast<double>(m) * static_cast<double>(n);
  r.u_b = rank_sum_b - static_cast<double>(n) * static_cast<double>(n + 1) / 2;
  if (tie_term == 0 && total <= kExactMaxTotal) {
    const auto cdf = exact_cdf(m, n);
    const auto u = static_cast<std::size_t>(r.u_b);
    const double below = cdf[u];                                 // P(U ≤ u)
    const double above = cdf[static_cast<std::size_t>(pairs) - u];  // P(U ≥ u), by symmetry
    r.p_value = std::min(1.0, 2 * std::min(below, above));
    r.exact = true;
    return r;
  }
  const auto nn = static_cast<double>(total);
  const double variance = pairs / 12 * ((nn + 1) - tie_term / (nn * (nn - 1)));
  if (variance <= 0) return r;  // every value equal: nothing tells the sets apart
  const double z = std::max(0.0, std::abs(r.u_b - pairs / 2) - 0.5) / std::sqrt(variance);
  r.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

std::optional<ShiftEstimate> hodges_lehmann(std::span<const double> a, std::span<const double> b, double alpha) {
  const std::size_t m = a.size(), n = b.size();
  if (m == 0 || n == 0 || m > kMaxShiftPairs / n) return std::nullopt;
  std::vector<double> diffs;
  diffs.reserve(m * n);
  for (double y : b)
    for (double x : a) diffs.push_back(y - x);
  std::sort(diffs.begin(), diffs.end());
  ShiftEstimate s;
  s.shift = quantile_of_sorted(diffs, 0.5);
  const std::size_t k = critical_rank(m, n, alpha);
  if (k >= 1 && k <= diffs.size() / 2) {
    s.low = diffs[k - 1];                 // D(k)
    s.high = diffs[diffs.size() - k];     // D(M + 1 − k)
  }
  return s;
}

std::optional<double> relative_change_percent(double baseline, double candidate) {
  if (baseline == 0) return candidate == 0 ? std::optional<double>(0.0) : std::nullopt;
  return (candidate - baseline) / std::abs(baseline) * 100;
}

}  // namespace jank::metrics

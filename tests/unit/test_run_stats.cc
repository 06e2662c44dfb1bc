// The statistics behind `jank_exporter compare`, on samples small enough to
// work out by hand (the working is in the comments).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "metrics/run_stats.h"

using namespace jank::metrics;
using V = std::vector<double>;

TEST_CASE("median and quantiles interpolate between order statistics", "[run_stats]") {
  CHECK(median(V{3, 1, 2}) == 2);
  CHECK(median(V{4, 1, 3, 2}) == 2.5);
  // q = 0.9 of 1…10: position 0.9 × 9 = 8.1 → 9 + 0.1 × (10 − 9).
  CHECK(quantile(V{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 0.9) == Approx(9.1));
  CHECK(quantile(V{5, 1}, 0) == 1);
  CHECK(quantile(V{5, 1}, 1) == 5);
  CHECK(std::isnan(median(V{})));
}

TEST_CASE("the normal quantile inverts the normal distribution", "[run_stats]") {
  CHECK(normal_quantile(0.5) == Approx(0).margin(1e-12));
  CHECK(normal_quantile(0.975) == Approx(1.959964).epsilon(1e-6));
  CHECK(normal_quantile(0.025) == Approx(-1.959964).epsilon(1e-6));
  CHECK(std::isnan(normal_quantile(0)));
}

TEST_CASE("Mann-Whitney on two separated samples of five is exact: p = 2 of 252 orderings", "[run_stats]") {
  // Every candidate value above every baseline value: U = 5 × 5 = 25, reached
  // by 1 of the C(10, 5) = 252 orderings; two-sided p = 2 / 252.
  const auto r = mann_whitney(V{1, 2, 3, 4, 5}, V{6, 7, 8, 9, 10});
  CHECK(r.exact);
  CHECK(r.u_b == 25);
  CHECK(r.p_value == Approx(2.0 / 252));
  // The mirror image gives U = 0 and the same p.
  const auto mirror = mann_whitney(V{6, 7, 8, 9, 10}, V{1, 2, 3, 4, 5});
  CHECK(mirror.u_b == 0);
  CHECK(mirror.p_value == Approx(2.0 / 252));
}

TEST_CASE("Mann-Whitney cannot reach 5 % with three runs a side", "[run_stats]") {
  // C(6, 3) = 20 orderings; full separation is 1 of them: p = 2 / 20 = 0.1.
  CHECK(mann_whitney(V{1, 2, 3}, V{4, 5, 6}).p_value == Approx(0.1));
  // Interleaved: U_B = 1 + 2 + 3 = 6. The counts of U = 0…9 are
  // 1 1 2 3 3 3 3 2 1 1, so P(U ≥ 6) = 7 / 20 and p = 14 / 20.
  const auto r = mann_whitney(V{1, 3, 5}, V{2, 4, 6});
  CHECK(r.u_b == 6);
  CHECK(r.p_value == Approx(0.7));
}

TEST_CASE("Mann-Whitney with ties uses the tie-corrected normal approximation", "[run_stats]") {
  // U_B: each 3 beats four values and ties two (4 + 1), each 4 beats six and
  // ties two (6 + 1), each 5 and 6 beats all eight: 2×5 + 2×7 + 2×8 + 2×8 = 56.
  // Ties: 1, 2, 5, 6 twice and 3, 4 four times: Σ(t³ − t) = 4×6 + 2×60 = 144.
  // σ² = 64/12 × (17 − 144/240) = 87.467; z = (|56 − 32| − 0.5) / 9.3524 = 2.5127;
  // p = erfc(z / √2) = 0.01198.
  const auto r = mann_whitney(V{1, 1, 2, 2, 3, 3, 4, 4}, V{3, 3, 4, 4, 5, 5, 6, 6});
  CHECK_FALSE(r.exact);
  CHECK(r.u_b == 56);
  CHECK(r.p_value == Approx(0.01198).epsilon(1e-3));
}

TEST_CASE("Mann-Whitney finds nothing between identical samples", "[run_stats]") {
  const V same{2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7};
  const auto r = mann_whitney(same, same);
  CHECK(r.u_b == 50);  // half of the 100 pairs
  CHECK(r.p_value == 1);
  CHECK(mann_whitney(V{3, 3, 3}, V{3, 3, 3}).p_value == 1);  // all equal: no variance at all
}

TEST_CASE("the exact distribution holds up to 60 values without overflow", "[run_stats]") {
  V a, b;
  for (int i = 0; i < 30; ++i) {
    a.push_back(i);
    b.push_back(100 + i);
  }
  const auto r = mann_whitney(a, b);
  CHECK(r.exact);
  CHECK(r.p_value == Approx(2 / 118264581564861424.0));  // 2 / C(60, 30)
  b.push_back(200);  // 61 values: the normal approximation, still far below any alpha
  const auto big = mann_whitney(a, b);
  CHECK_FALSE(big.exact);
  CHECK(big.p_value < 1e-9);
}

TEST_CASE("Hodges-Lehmann shift and its interval from the sorted differences", "[run_stats]") {
  // Differences b − a of 6…10 against 1…5: d appears 5 − |d − 5| times for d = 1…9.
  // The median (13th of 25) is 5. For 5 against 5, P(U ≤ 2) = 4/252 ≤ 0.025 <
  // P(U ≤ 3) = 7/252, so k = 3 and the 95 % interval is [D(3), D(23)] = [2, 8].
  const auto s = hodges_lehmann(V{1, 2, 3, 4, 5}, V{6, 7, 8, 9, 10}, 0.05);
  REQUIRE(s);
  CHECK(s->shift == 5);
  REQUIRE(s->low);
  CHECK(*s->low == 2);
  CHECK(*s->high == 8);
}

TEST_CASE("Hodges-Lehmann with ties and with samples too small for an interval", "[run_stats]") {
  // 8 against 8: P(U ≤ 13) = 0.0249 ≤ 0.025 < P(U ≤ 14), so k = 14; of the 64
  // sorted differences (-1 ×4, 0 ×8, 1 ×12, 2 ×16, 3 ×12, 4 ×8, 5 ×4) D(14) = 1,
  // D(51) = 3 and the median (32nd and 33rd) is 2.
  const auto s = hodges_lehmann(V{1, 1, 2, 2, 3, 3, 4, 4}, V{3, 3, 4, 4, 5, 5, 6, 6}, 0.05);
  REQUIRE(s);
  CHECK(s->shift == 2);
  CHECK(s->low == 1);
  CHECK(s->high == 3);
  // 3 against 3: even P(U ≤ 0) = 1/20 > 0.025, so no 95 % interval exists.
  const auto small = hodges_lehmann(V{1, 2, 3}, V{4, 5, 6}, 0.05);
  REQUIRE(small);
  CHECK(small->shift == 3);
  CHECK_FALSE(small->low);
  CHECK_FALSE(small->high);
}

TEST_CASE("a large-sample shift interval comes from the normal critical rank", "[run_stats]") {
  V a, b;
  for (int i = 0; i < 40; ++i) {
    a.push_back(i * 0.5);
    b.push_back(i * 0.5 + 10);
  }
  const auto s = hodges_lehmann(a, b, 0.05);
  REQUIRE(s);
  CHECK(s->shift == 10);
  REQUIRE(s->low);
  CHECK(*s->low < 10);
  CHECK(*s->high > 10);
  CHECK(*s->high - 10 == Approx(10 - *s->low));
}

TEST_CASE("relative change of medians in percent of the baseline", "[run_stats]") {
  CHECK(relative_change_percent(10, 12) == Approx(20));
  CHECK(relative_change_percent(-10, -5) == Approx(50));
  CHECK(relative_change_percent(0, 0) == 0);
  CHECK_FALSE(relative_change_percent(0, 1));
}

// What polling costs a device's frames, from phases of low and high polling
// (`jank_exporter observer-test`, docs/observer-test.md): each pair of
// adjacent phases gives the difference of their janky shares, and the pairs'
// mean difference gets a Student t confidence interval. Pairing cancels
// what drifts slowly (the workload, the temperature); alternating the order
// inside pairs (low-high, high-low, …) cancels a linear drift as well. Pure:
// counts in, estimate out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace jank::metrics {

// A phase's frames and janky frames by a counter polling cannot fake
// (graphicsstats, TimeStats); `valid` false when the counter could not be
// read across the phase (reset, cleared, unreadable).
struct PhaseCounts {
  std::uint64_t frames = 0, janky = 0;
  bool valid = true;
};

struct ObserverPair {
  PhaseCounts low, high;
};

enum class ObserverVerdict : std::uint8_t {
  cost,            // the interval lies above 0: polling made frames janky
  none_detected,   // the interval holds 0
  less_when_polled,  // the interval lies below 0: the workload changed with the phases
  too_few_pairs,   // under two pairs with frames in both phases
};
std::string_view verdict_name(ObserverVerdict v);

struct ObserverEffect {
  std::size_t pairs = 0;          // used: valid, with frames in both phases
  std::size_t pairs_dropped = 0;  // invalid or without frames
  // Janky share (%) over every used phase of each kind.
  double low_percent = 0, high_percent = 0;
  // Mean over pairs of high − low (percentage points) and its interval.
  double difference = 0, ci_low = 0, ci_high = 0;
  double confidence = 0;
  ObserverVerdict verdict = ObserverVerdict::too_few_pairs;
};

// `confidence` in (0, 1), e.g. 0.95.
ObserverEffect observer_effect(std::span<const ObserverPair> pairs, double confidence);

}  // namespace jank::metrics

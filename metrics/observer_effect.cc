#include "metrics/observer_effect.h"

#include <cmath>
#include <vector>

#include <boost/math/distributions/students_t.hpp>

namespace jank::metrics {

std::string_view verdict_name(ObserverVerdict v) {
  switch (v) {
    case ObserverVerdict::cost: return "cost";
    case ObserverVerdict::none_detected: return "none_detected";
    case ObserverVerdict::less_when_polled: return "less_when_polled";
    case ObserverVerdict::too_few_pairs: return "too_few_pairs";
  }
  return "too_few_pairs";
}

ObserverEffect observer_effect(std::span<const ObserverPair> pairs, double confidence) {
  ObserverEffect out;
  out.confidence = confidence;
  std::vector<double> differences;
  std::uint64_t low_frames = 0, low_janky = 0, high_frames = 0, high_janky = 0;
  for (const ObserverPair& p : pairs) {
    // A janky count above the frames is no counter's truth: the pair is dropped.
    const auto usable = [](const PhaseCounts& c) { return c.valid && c.frames > 0 && c.janky <= c.frames; };
    if (!usable(p.low) || !usable(p.high)) {
      ++out.pairs_dropped;
      continue;
    }
    const auto percent = [](const PhaseCounts& c) {
      return 100.0 * static_cast<double>(c.janky) / static_cast<double>(c.frames);
    };
    differences.push_back(percent(p.high) - percent(p.low));
    low_frames += p.low.frames;
    low_janky += p.low.janky;
    high_frames += p.high.frames;
    high_janky += p.high.janky;
  }
  out.pairs = differences.size();
  if (out.pairs > 0) {
    out.low_percent = 100.0 * static_cast<double>(low_janky) / static_cast<double>(low_frames);
    out.high_percent = 100.0 * static_cast<double>(high_janky) / static_cast<double>(high_frames);
  }
  if (out.pairs < 2 || !(confidence > 0 && confidence < 1)) return out;

  const auto n = static_cast<double>(out.pairs);
  double sum = 0;
  for (const double d : differences) sum += d;
  const double mean = sum / n;
  double squares = 0;
  for (const double d : differences) squares += (d - mean) * (d - mean);
  const double standard_error = std::sqrt(squares / (n - 1)) / std::sqrt(n);
  const boost::math::students_t_distribution<double> t(n - 1);
  const double half = boost::math::quantile(t, 0.5 + confidence / 2) * standard_error;
  out.difference = mean;
  out.ci_low = mean - half;
  out.ci_high = mean + half;
  out.verdict = out.ci_low > 0    ? ObserverVerdict::cost
                : out.ci_high < 0 ? ObserverVerdict::less_when_polled
                                  : ObserverVerdict::none_detected;
  return out;
}

}  // namespace jank::metrics

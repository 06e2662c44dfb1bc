#include "metrics/active_time.h"

#include <algorithm>

namespace jank::metrics {

std::int64_t ActiveTime::add(ActiveSpan span) {
  if (span.end_ns <= span.begin_ns) return 0;
  if (!spans_.empty() && span.end_ns < newest_end_ - kHorizonNs) {  // a new clock
    spans_.clear();
    newest_end_ = 0;
  }
  std::int64_t begin = span.begin_ns;
  std::int64_t end = span.end_ns;
  std::int64_t covered_before = 0;
  // Merge every stored span that touches [begin, end].
  auto it = spans_.upper_bound(begin);
  if (it != spans_.begin() && std::prev(it)->second >= begin) --it;
  while (it != spans_.end() && it->first <= end) {
    covered_before += std::max<std::int64_t>(
        0, std::min(span.end_ns, it->second) - std::max(span.begin_ns, it->first));
    begin = std::min(begin, it->first);
    end = std::max(end, it->second);
    it = spans_.erase(it);
  }
  const std::int64_t added = (span.end_ns - span.begin_ns) - covered_before;
  spans_.emplace(begin, end);
  total_ns_ += added;
  newest_end_ = std::max(newest_end_, end);
  // Forget what no late span can overlap any more.
  while (!spans_.empty() && spans_.begin()->second < newest_end_ - kHorizonNs) spans_.erase(spans_.begin());
  return added;
}

}  // namespace jank::metrics

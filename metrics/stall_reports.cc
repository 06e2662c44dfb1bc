#include "metrics/stall_reports.h"

#include <algorithm>

namespace jank::metrics {

std::int64_t StallReports::slack_ns(std::int64_t period_ns) {
  constexpr std::int64_t kFloor = 100'000'000;
  const std::int64_t period = period_ns > 0 ? period_ns : 16'666'667;
  return std::clamp<std::int64_t>(5 * period, kFloor, kLongestSlackNs);
}

void StallReports::age(std::int64_t host_now_ns) {
  if (host_now_ns == 0) return;
  std::erase_if(reports_, [&](const Report& r) { return r.host_ns != 0 && host_now_ns - r.host_ns > kKeepNs; });
}

void StallReports::add(std::int64_t duration_ns, std::int64_t host_ns) {
  if (duration_ns < kShortestNs) return;
  age(host_ns);
  const std::int64_t slack = slack_ns(0);
  for (const Report& r : reports_) {
    const bool same_length = r.duration_ns >= duration_ns - slack && r.duration_ns <= duration_ns + slack;
    if (same_length && (host_ns == 0 || r.host_ns == 0 || host_ns - r.host_ns <= kSameStallNs)) return;
  }
  reports_.push_back({duration_ns, host_ns, {}});
  if (reports_.size() > kMax) reports_.erase(reports_.begin());
}

bool StallReports::explain(std::int64_t gap_ns, std::int64_t period_ns, std::string_view layer, std::int64_t seen_ns,
                           std::int64_t host_now_ns) {
  age(host_now_ns);
  const std::int64_t slack = slack_ns(period_ns);
  for (Report& r : reports_) {
    if (r.duration_ns < gap_ns - slack || r.duration_ns > gap_ns + slack) continue;
    // Seen before the stall began: an earlier gap of the same length.
    if (seen_ns != 0 && r.host_ns != 0 && seen_ns < r.host_ns - r.duration_ns - kReportLagNs) continue;
    if (std::find(r.taken_by.begin(), r.taken_by.end(), layer) != r.taken_by.end()) continue;
    r.taken_by.emplace_back(layer);
    return true;
  }
  return false;
}

}  // namespace jank::metrics

// What tests read of a component's state that the exporter itself never asks:
// answered from the component's public accessors.
#pragma once

#include <cstdint>
#include <string_view>

#include "metrics/timestats_tracker.h"
#include "parsers/logcat_cursor.h"

namespace jank::test {

// One layer's total of one jank field (0 for a key never seen).
std::uint64_t layer_total(const metrics::TimeStatsTracker& tracker, const metrics::TsLayerKey& key,
                          parsers::TsJankField field);

// The hash of the entry the follower's cursor of `buffer` was last rebased on
// logd's totals at (the stream's start, or the last check); 0 when unknown.
std::uint64_t rebase_hash(const parsers::LogcatFollower& follower, std::string_view buffer);

}  // namespace jank::test

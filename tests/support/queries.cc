#include "tests/support/queries.h"

namespace jank::test {

std::uint64_t layer_total(const metrics::TimeStatsTracker& tracker, const metrics::TsLayerKey& key,
                          parsers::TsJankField field) {
  const auto it = tracker.layers().find(key);
  return it == tracker.layers().end() ? 0 : it->second.jank[field];
}

std::uint64_t rebase_hash(const parsers::LogcatFollower& follower, std::string_view buffer) {
  const auto& buffers = follower.cursor().buffers;
  const auto it = buffers.find(buffer);
  return it == buffers.end() ? 0 : it->second.rebase_hash;
}

}  // namespace jank::test

#include "app/session/graphicsstats_poller.h"

#include "metrics/sources/graphicsstats.h"
#include "parsers/graphicsstats.h"

namespace jank::app {
namespace {

// A block is about 2 KiB (HWUI's 154 histogram bins, 26 GPU ones); three
// days of a farm phone's hundred apps stay far below this. A cut answer is
// counted as truncated and misses no block for good.
constexpr std::size_t kGraphicsStatsOutput = 8 << 20;

CommandOutcome record(const config::Config&, const ingest::ShellResult& r, metrics::Store& store,
                      metrics::DeviceMetrics& device, std::int64_t) {
  const parsers::GraphicsStatsDump dump =
      r.error ? parsers::GraphicsStatsDump{} : parsers::parse_graphicsstats(r.output);
  const bool recognised = dump.text != parsers::GraphicsStatsText::not_recognised;
  const CommandOutcome outcome = command_outcome(r, recognised, dump.permission_denied);
  metrics::count_graphicsstats_poll(device, outcome.result);
  if (!r.error && recognised) metrics::record_graphicsstats(store, device, dump, !r.truncated);
  return outcome;
}

}  // namespace

const CommandSource& graphicsstats_command_source() {
  static const CommandSource source{
      "graphicsstats",
      "dumpsys graphicsstats",
      kGraphicsStatsOutput,
      std::chrono::milliseconds(4500),
      [](const config::Config& c) { return c.graphicsstats_enabled; },
      [](const config::Config& c) { return c.graphicsstats_poll_interval_seconds; },
      record,
  };
  return source;
}

}  // namespace jank::app

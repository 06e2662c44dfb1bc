#include "app/session/battery_poller.h"

#include "metrics/sources/battery.h"
#include "parsers/battery.h"

namespace jank::app {
namespace {

// An answer is under 1 KiB; vendors add lines, none comes near this.
constexpr std::size_t kBatteryOutput = 64 << 10;

CommandOutcome record(const config::Config&, const ingest::ShellResult& r, metrics::Store& store,
                      metrics::DeviceMetrics& device, std::int64_t fresh_for_ns) {
  const parsers::BatteryDump dump = r.error ? parsers::BatteryDump{} : parsers::parse_battery(r.output);
  const CommandOutcome outcome = command_outcome(r, dump.recognised, dump.refusal == parsers::BatteryRefusal::permission_denied);
  metrics::count_battery_poll(device, outcome.result);
  if (!r.error) metrics::record_battery(store, device, dump, fresh_for_ns);
  return outcome;
}

}  // namespace

const CommandSource& battery_command_source() {
  static const CommandSource source{
      "battery",
      "dumpsys battery",
      kBatteryOutput,
      std::chrono::milliseconds(3500),
      [](const config::Config& c) { return c.battery_enabled; },
      [](const config::Config& c) { return c.battery_poll_interval_seconds; },
      record,
  };
  return source;
}

}  // namespace jank::app

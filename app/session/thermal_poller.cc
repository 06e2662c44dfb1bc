#include "app/session/thermal_poller.h"

#include "metrics/sources/thermal.h"

namespace jank::app {
namespace {

// A dump is a few KiB; vendors add sections, none comes near this.
constexpr std::size_t kThermalOutput = 1 << 20;

CommandOutcome record(const config::Config&, const ingest::ShellResult& r, metrics::Store& store,
                      metrics::DeviceMetrics& device, std::int64_t fresh_for_ns) {
  const parsers::ThermalDump dump = r.error ? parsers::ThermalDump{} : parsers::parse_thermalservice(r.output);
  const CommandOutcome outcome = command_outcome(r, dump.recognised, dump.refusal == parsers::ThermalRefusal::permission_denied);
  metrics::count_thermal_poll(device, outcome.result);
  if (!r.error) metrics::record_thermal(store, device, dump, fresh_for_ns);
  return outcome;
}

}  // namespace

std::string_view thermal_poll_result(const ingest::ShellResult& r, const parsers::ThermalDump& dump) {
  return command_outcome(r, dump.recognised, dump.refusal == parsers::ThermalRefusal::permission_denied).result;
}

const CommandSource& thermal_command_source() {
  static const CommandSource source{
      "thermal",
      "dumpsys thermalservice",
      kThermalOutput,
      std::chrono::milliseconds(3000),
      [](const config::Config& c) { return c.thermal_enabled; },
      [](const config::Config& c) { return c.thermal_poll_interval_seconds; },
      record,
  };
  return source;
}

}  // namespace jank::app

#include "app/session/resources_poller.h"

#include <algorithm>
#include <set>

#include "app/session/gfxinfo_poller.h"
#include "metrics/sources/battery.h"
#include "metrics/sources/clocks.h"
#include "metrics/sources/cpu.h"
#include "metrics/sources/memory.h"
#include "parsers/resource_files.h"

namespace jank::app {
namespace {

// An answer is a few KiB; a game's hundreds of threads about 100 KiB.
constexpr std::size_t kResourceOutput = 2 << 20;

std::string build(const config::Config& config, const metrics::DeviceMetrics& device, std::int64_t host_now_ns) {
  parsers::ResourceCommand c;
  c.pids = measured_pids(config, device);
  c.cpufreq = metrics::cpufreq_layout(device);
  const std::int64_t read_at = metrics::memory_read_at(device);
  const auto memory_every = std::chrono::duration_cast<std::chrono::nanoseconds>(config.resources_memory_interval_seconds);
  c.memory = read_at == 0 || host_now_ns - read_at >= memory_every.count();
  return parsers::resource_command(c);
}

CommandOutcome record(const config::Config& config, const ingest::ShellResult& r, metrics::Store& store,
                      metrics::DeviceMetrics& device, std::int64_t fresh_for_ns) {
  const parsers::ResourceAnswer answer = r.error ? parsers::ResourceAnswer{} : parsers::parse_resource_answer(r.output);
  // What the device let the shell read at all: /proc/stat is world-readable
  // on every release, so an answer without it is not this command's.
  const CommandOutcome outcome =
      command_outcome(r, answer.cpu_access.readable(), answer.cpu_access.refused());
  metrics::count_resource_poll(device, outcome.result);
  // A cut answer would read as files the device lacks.
  if (r.error || r.truncated) return outcome;
  metrics::record_cpu(store, device, answer, {config.resources_threads}, fresh_for_ns);
  metrics::record_clocks(store, device, answer, fresh_for_ns);
  // Memory is read less often: it stays current as long, counted in its own interval.
  const auto memory_fresh = std::chrono::nanoseconds(fresh_for_ns) +
                            2 * std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    config.resources_memory_interval_seconds - config.resources_poll_interval_seconds);
  metrics::record_memory(store, device, answer, std::max<std::int64_t>(fresh_for_ns, memory_fresh.count()));
  if (answer.battery_current_ua) metrics::record_battery_current(store, device, *answer.battery_current_ua, fresh_for_ns);
  return outcome;
}

}  // namespace

std::vector<std::int32_t> measured_pids(const config::Config& config, const metrics::DeviceMetrics& device) {
  std::vector<std::string> packages = packages_to_poll(config, device, device.live.foreground);
  // The foreground app first: it is the one a user looks at.
  if (device.live.foreground) {
    const auto it = std::find(packages.begin(), packages.end(), *device.live.foreground);
    if (it != packages.end()) std::rotate(packages.begin(), it, it + 1);
  }
  if (packages.size() > config.resources_max_apps) packages.resize(config.resources_max_apps);
  const std::set<std::string, std::less<>> wanted(packages.begin(), packages.end());
  std::vector<std::int32_t> pids;
  device.pid_names.for_each_running([&](std::int32_t pid, const std::string& name) {
    if (wanted.contains(name)) pids.push_back(pid);
  });
  std::sort(pids.begin(), pids.end());
  return pids;
}

const CommandSource& resources_command_source() {
  static const CommandSource source{
      "resources",
      "",
      kResourceOutput,
      std::chrono::milliseconds(4000),
      [](const config::Config& c) { return c.resources_enabled; },
      [](const config::Config& c) { return c.resources_poll_interval_seconds; },
      record,
      build,
  };
  return source;
}

}  // namespace jank::app

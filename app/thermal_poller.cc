#include "app/thermal_poller.h"

#include <algorithm>

#include "app/log.h"

namespace jank::app {
namespace {

// A dump is a few KiB; vendors add sections, none comes near this.
constexpr std::size_t kThermalOutput = 1 << 20;

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
}

}  // namespace

std::string_view thermal_poll_result(const ingest::ShellResult& r, const parsers::ThermalDump& dump) {
  if (r.error || dump.recognised) return ingest::shell_result_name(r);
  return dump.refusal == parsers::ThermalRefusal::permission_denied ? "denied" : "unsupported";
}

ThermalPoller::ThermalPoller(std::shared_ptr<const config::Config> config, std::string serial, SharedState& shared,
                             RunCommand run, RunAfter after, std::function<std::int64_t()> host_now)
    : config_(std::move(config)),
      serial_(std::move(serial)),
      shared_(shared),
      run_(std::move(run)),
      after_(std::move(after)),
      host_now_(std::move(host_now)) {}

void ThermalPoller::start(std::chrono::milliseconds first) {
  after_(first, [this] { poll(); });
}

void ThermalPoller::poll() {
  run_("dumpsys thermalservice", kThermalOutput, [this](ingest::ShellResult r) {
    const parsers::ThermalDump dump = r.error ? parsers::ThermalDump{} : parsers::parse_thermalservice(r.output);
    const std::string_view result = thermal_poll_result(r, dump);
    const bool unsupported = result == "unsupported" || result == "denied";
    const auto interval = millis(config_->thermal_poll_interval_seconds);
    bool first_refusal = false;
    {
      std::lock_guard<std::mutex> lock(shared_.mutex);
      auto& d = shared_.store.device(serial_);
      auto& polls = d.live.thermal_polls[std::string(result)];
      first_refusal = unsupported && polls == 0;
      ++polls;
      if (!r.error) {
        // Current until two polls were missed, and a slow device's command
        // deadline on top.
        const auto fresh_for = 2 * interval + millis(d.live.command_deadline_seconds);
        shared_.store.set_host_time(host_now_());
        shared_.store.record_thermal(d, dump, std::chrono::nanoseconds(fresh_for).count());
      }
    }
    if (first_refusal) {
      log_info("device " + serial_ + ": dumpsys thermalservice " +
               (result == "denied" ? std::string("refused") : std::string("has no thermal state")) +
               "; asked again every " + std::to_string(kUnsupportedRetry.count()) + " minutes");
    }
    after_(unsupported ? std::max<std::chrono::milliseconds>(kUnsupportedRetry, interval) : interval,
           [this] { poll(); });
  });
}

}  // namespace jank::app

#include "app/session/thermal_poller.h"

#include <algorithm>

#include "app/core/log.h"

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

ThermalPoller::ThermalPoller(PollerContext context) : ctx_(std::move(context)) {}

void ThermalPoller::start(std::chrono::milliseconds first) {
  ctx_.after(first, [this] { poll(); });
}

void ThermalPoller::poll() {
  ctx_.run("dumpsys thermalservice", kThermalOutput, [this](ingest::ShellResult r) {
    const parsers::ThermalDump dump = r.error ? parsers::ThermalDump{} : parsers::parse_thermalservice(r.output);
    const std::string_view result = thermal_poll_result(r, dump);
    const bool unsupported = result == "unsupported" || result == "denied";
    const auto interval = millis(ctx_.config->thermal_poll_interval_seconds);
    bool first_refusal = false;
    {
      std::lock_guard<std::mutex> lock(ctx_.shared.mutex);
      auto& d = ctx_.shared.store.device(ctx_.serial);
      auto& polls = d.live.thermal_polls[std::string(result)];
      first_refusal = unsupported && polls == 0;
      ++polls;
      if (!r.error) {
        // Current until two polls were missed, and a slow device's command
        // deadline on top.
        const auto fresh_for = 2 * interval + millis(d.live.command_deadline_seconds);
        ctx_.shared.store.set_host_time(ctx_.host_now());
        ctx_.shared.store.record_thermal(d, dump, std::chrono::nanoseconds(fresh_for).count());
      }
    }
    if (first_refusal) {
      log_info("device " + ctx_.serial + ": dumpsys thermalservice " +
               (result == "denied" ? std::string("refused") : std::string("has no thermal state")) +
               "; asked again every " + std::to_string(kUnsupportedRetry.count()) + " minutes");
    }
    ctx_.after(unsupported ? std::max<std::chrono::milliseconds>(kUnsupportedRetry, interval) : interval,
           [this] { poll(); });
  });
}

}  // namespace jank::app

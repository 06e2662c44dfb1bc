#include "app/session/command_poller.h"

#include <algorithm>
#include <array>

#include "app/core/log.h"
#include "app/session/battery_poller.h"
#include "app/session/graphicsstats_poller.h"
#include "app/session/resources_poller.h"
#include "app/session/thermal_poller.h"
#include "parsers/time_units.h"

namespace jank::app {
namespace {

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(parsers::units::Seconds(seconds));
}

}  // namespace

std::span<const CommandSource* const> command_sources() {
  static const std::array<const CommandSource*, 4> sources = {
      &thermal_command_source(),
      &battery_command_source(),
      &graphicsstats_command_source(),
      &resources_command_source(),
  };
  return sources;
}

CommandOutcome command_outcome(const ingest::ShellResult& r, bool recognised, bool permission_denied) {
  if (r.error || recognised) return {ingest::shell_result_name(r), false};
  return {permission_denied ? "denied" : "unsupported", true};
}

CommandPoller::CommandPoller(PollerContext context, const CommandSource& source)
    : ctx_(std::move(context)), source_(source) {}

void CommandPoller::start() {
  ctx_.after(source_.first_delay, [this] { poll(); });
}

void CommandPoller::poll() {
  std::string command = source_.command;
  if (source_.build != nullptr) {
    std::lock_guard<std::mutex> lock(ctx_.shared.mutex);
    command = source_.build(*ctx_.config, ctx_.shared.store.device(ctx_.serial), ctx_.host_now());
  }
  ctx_.run(command, source_.max_output, [this](ingest::ShellResult r) {
    const auto interval = std::chrono::duration_cast<std::chrono::milliseconds>(source_.interval(*ctx_.config));
    CommandOutcome outcome;
    {
      std::lock_guard<std::mutex> lock(ctx_.shared.mutex);
      auto& d = ctx_.shared.store.device(ctx_.serial);
      // Current until two polls were missed, and a slow device's command deadline on top.
      const auto fresh_for = 2 * interval + millis(d.live.command_deadline_seconds);
      ctx_.shared.store.set_host_time(ctx_.host_now());
      outcome = source_.record(*ctx_.config, r, ctx_.shared.store, d, std::chrono::nanoseconds(fresh_for).count());
    }
    if (outcome.unsupported && !told_unsupported_) {
      told_unsupported_ = true;
      log_info("device " + ctx_.serial + ": the " + std::string(source_.name) + " poll answered " + std::string(outcome.result) +
               "; asked again every " + std::to_string(kUnsupportedRetry.count()) + " minutes");
    }
    ctx_.after(outcome.unsupported ? std::max<std::chrono::milliseconds>(kUnsupportedRetry, interval) : interval,
               [this] { poll(); });
  });
}

}  // namespace jank::app

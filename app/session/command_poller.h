// The session part of a source read by one device command at an interval
// (dumpsys thermalservice, dumpsys battery): each such source describes
// itself as a CommandSource, and one CommandPoller per source and session
// runs it, one command at a time. A device that lacks the source (no such
// service, a refusal) is asked again only every kUnsupportedRetry: its
// answer will not change soon.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "app/core/shared_state.h"
#include "app/session/session_io.h"
#include "config/config.h"
#include "ingest/device_stream.h"

namespace jank::app {

// What one answer came to: the poll's result label ("ok", "timeout", …, or
// the source's own such as "unsupported") and whether the device lacks the source.
struct CommandOutcome {
  std::string_view result;
  bool unsupported = false;
};

// The result of a poll whose answer was parsed: the command's own ("ok",
// "timeout", "error", "truncated"), or for an answer that holds none of the
// source's state "denied" (a permission refusal) or "unsupported" (no such
// service, or not its dump).
CommandOutcome command_outcome(const ingest::ShellResult& answer, bool recognised, bool permission_denied);

struct CommandSource {
  std::string_view name;  // in the log
  std::string command;    // the same every poll, unless `build` makes it
  std::size_t max_output = 0;
  std::chrono::milliseconds first_delay{0};  // after the session starts following
  bool (*enabled)(const config::Config& config) = nullptr;
  config::Seconds (*interval)(const config::Config& config) = nullptr;
  // Under the store's lock, with the store's host time set: counts the poll
  // and records the answer. `fresh_for_ns`: how long the reading stays current.
  CommandOutcome (*record)(const config::Config& config, const ingest::ShellResult& answer, metrics::Store& store,
                           metrics::DeviceMetrics& device, std::int64_t fresh_for_ns) = nullptr;
  // For a command that depends on the device's state (the processes it
  // reads): made under the store's lock before each poll. Null: `command`.
  std::string (*build)(const config::Config& config, const metrics::DeviceMetrics& device,
                       std::int64_t host_now_ns) = nullptr;
};

// Every command source, one registration line each (app/command_poller.cc).
std::span<const CommandSource* const> command_sources();

class CommandPoller {
 public:
  static constexpr std::chrono::minutes kUnsupportedRetry{30};

  CommandPoller(PollerContext context, const CommandSource& source);
  void start();

 private:
  void poll();

  PollerContext ctx_;
  const CommandSource& source_;
  bool told_unsupported_ = false;  // logged once per session
};

}  // namespace jank::app

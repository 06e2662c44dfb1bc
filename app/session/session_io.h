// How a device session's parts reach the device and time: the session hands
// each part its command runner and its timer, so a part never holds a socket
// and never outlives the session's callbacks.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "app/session/android_release.h"
#include "config/config.h"
#include "ingest/device_stream.h"

namespace jank::app {

// Runs a shell command with the session's deadline, output cap and
// accounting; `done` never runs once the session ended.
using RunCommand = std::function<void(const std::string& command, std::size_t max_output,
                                      std::function<void(ingest::ShellResult)> done)>;
// Runs `then` after `delay` on the session's timer (one wait at a time per part).
using RunAfter = std::function<void(std::chrono::milliseconds delay, std::function<void()> then)>;

struct SharedState;

// What a session hands each of its pollers: the configuration, the device,
// the state shared with the exporter, the session's runner and timer, and
// the host's wall time (ns) to stamp samples with, and the device's release.
struct PollerContext {
  std::shared_ptr<const config::Config> config;
  std::string serial;
  SharedState& shared;
  RunCommand run;
  RunAfter after;
  std::function<std::int64_t()> host_now;
  AndroidRelease release = {};
};

}  // namespace jank::app

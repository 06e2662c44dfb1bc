// dumpsys thermalservice for one device session: the thermal status and
// temperatures every thermal.poll_interval_seconds, one command at a time.
// A device without the service (Android 9 and older) or that refuses it is
// asked again only every kUnsupportedRetry: its answer will not change soon.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "app/session/session_io.h"
#include "app/core/shared_state.h"
#include "config/config.h"
#include "parsers/thermal.h"

namespace jank::app {

// The poll's result label: the command's ("ok", "timeout", "error",
// "truncated"), or for an answer that holds no thermal state "denied"
// (Permission Denial) or "unsupported" (no such service, or not its dump).
std::string_view thermal_poll_result(const ingest::ShellResult& r, const parsers::ThermalDump& dump);

class ThermalPoller {
 public:
  static constexpr std::chrono::minutes kUnsupportedRetry{30};

  explicit ThermalPoller(PollerContext context);
  void start(std::chrono::milliseconds first);

 private:
  void poll();

  PollerContext ctx_;
};

}  // namespace jank::app

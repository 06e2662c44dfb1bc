// The thermal source's session part: dumpsys thermalservice every
// thermal.poll_interval_seconds (run by app/command_poller.h). A device
// without the service (Android 9 and older) or that refuses it is asked
// again only every CommandPoller::kUnsupportedRetry.
#pragma once

#include <string_view>

#include "app/session/command_poller.h"
#include "parsers/thermal.h"

namespace jank::app {

// The poll's result label: the command's ("ok", "timeout", "error",
// "truncated"), or for an answer that holds no thermal state "denied"
// (Permission Denial) or "unsupported" (no such service, or not its dump).
std::string_view thermal_poll_result(const ingest::ShellResult& r, const parsers::ThermalDump& dump);

const CommandSource& thermal_command_source();

}  // namespace jank::app

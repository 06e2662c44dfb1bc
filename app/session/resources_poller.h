// The resource source's session part: every resources.poll_interval_seconds
// one shell command reads the kernel's CPU, clock, GPU and battery-current
// files and the measured apps' /proc entries, their memory too once
// resources.memory_interval_seconds passed (parsers/resource_files.h; run by
// app/session/command_poller.h). The answer feeds the cpu, clocks, memory
// and battery modules.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/session/command_poller.h"

namespace jank::app {

const CommandSource& resources_command_source();

// The processes a poll reads: the main process of each app gfxinfo would
// poll (app/session/gfxinfo_poller.h), by the device's pid names, at most
// resources.max_apps apps.
std::vector<std::int32_t> measured_pids(const config::Config& config, const metrics::DeviceMetrics& device);

}  // namespace jank::app

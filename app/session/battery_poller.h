// The battery source's session part: dumpsys battery every
// battery.poll_interval_seconds (run by app/command_poller.h).
#pragma once

#include "app/session/command_poller.h"

namespace jank::app {

const CommandSource& battery_command_source();

}  // namespace jank::app

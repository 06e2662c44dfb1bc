// The graphicsstats source's session part: dumpsys graphicsstats every
// graphicsstats.poll_interval_seconds (run by app/session/command_poller.h).
#pragma once

#include "app/session/command_poller.h"

namespace jank::app {

const CommandSource& graphicsstats_command_source();

}  // namespace jank::app

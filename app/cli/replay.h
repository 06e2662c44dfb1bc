// `jank_exporter replay`: recorded logcat captures and dumpsys outputs through
// the same parsers, metric model and exposition as the daemon.
#pragma once

#include <cstdio>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/core/exit_codes.h"

namespace jank::app {

// `args` excludes "replay" itself. `stdin_file` is read for "-". Exits
// kExitOk, kExitUsage, kExitNoInput (an input unreadable) or kExitConfig.
int run_replay(const std::vector<std::string>& args, std::FILE* stdin_file, std::ostream& out, std::ostream& err);

}  // namespace jank::app

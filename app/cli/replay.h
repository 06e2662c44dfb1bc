// `jank_exporter replay`: recorded logcat captures and dumpsys outputs through
// the same parsers, metric model and exposition as the daemon.
#pragma once

#include <cstdio>
#include <iosfwd>
#include <string>
#include <vector>

namespace jank::app {

// Exit codes (sysexits.h values, which operators' tooling already knows).
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 64;
inline constexpr int kExitNoInput = 66;

// `args` excludes "replay" itself. `stdin_file` is read for "-".
int run_replay(const std::vector<std::string>& args, std::FILE* stdin_file, std::ostream& out, std::ostream& err);

void print_replay_help(std::ostream& out);

}  // namespace jank::app

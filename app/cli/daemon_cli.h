// `jank_exporter [OPTIONS]`: the daemon's command line (and --check-config,
// --version), parsed by CLI11 like every command (app/cli/cli_parse.h).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace jank::app {

// `args` excludes the program's name. Runs the daemon until SIGTERM or
// SIGINT unless the arguments ask for help, the version or a configuration
// check, or are wrong (64); returns the exit status.
int run_daemon_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace jank::app

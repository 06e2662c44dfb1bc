// jank_exporter: Android UI smoothness (skipped frames, jank, frame times)
// for Prometheus. main() only dispatches: the first argument names a
// command (replay, run, compare, check, report, observer-test); anything else is the daemon's
// command line. Each parses its own arguments with CLI11 (app/cli/cli_parse.h).
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/check.h"
#include "app/cli/compare.h"
#include "app/cli/daemon_cli.h"
#include "app/cli/observer_test.h"
#include "app/cli/replay.h"
#include "app/cli/report.h"
#include "app/cli/run_cli.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const std::string command = args.empty() ? "" : args.front();
  const std::vector<std::string> rest(args.empty() ? args.end() : args.begin() + 1, args.end());
  if (command == "replay") return jank::app::run_replay(rest, stdin, std::cout, std::cerr);
  if (command == "run") return jank::app::run_runs_cli(rest, std::cout, std::cerr);
  if (command == "compare") return jank::app::run_compare(rest, std::cout, std::cerr);
  if (command == "check") return jank::app::run_check(rest, std::cout, std::cerr);
  if (command == "observer-test") return jank::app::run_observer_test(rest, std::cout, std::cerr);
  if (command == "report") return jank::app::run_report(rest, stdin, std::cout, std::cerr);
  return jank::app::run_daemon_cli(args, std::cout, std::cerr);
}

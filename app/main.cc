// jank_exporter: Android UI smoothness (skipped frames, jank, frame times)
// for Prometheus. main() only dispatches to the subcommands.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "app/replay.h"

namespace {

void print_usage(std::ostream& out) {
  out << "Usage: jank_exporter COMMAND [ARGS]\n"
         "\n"
         "Commands:\n"
         "  replay FILE... | -   run recorded logcat / dumpsys outputs through the\n"
         "                       parsers and print the Prometheus exposition\n"
         "  --version            print the version\n"
         "  --help               this text\n"
         "\n"
         "`jank_exporter replay --help` describes the replay options.\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    print_usage(args.empty() ? std::cerr : std::cout);
    return args.empty() ? jank::app::kExitUsage : jank::app::kExitOk;
  }
  if (args[0] == "--version") {
    std::cout << "jank_exporter " << JANK_VERSION << "\n";
    return 0;
  }
  if (args[0] == "replay") {
    args.erase(args.begin());
    return jank::app::run_replay(args, stdin, std::cout, std::cerr);
  }
  std::cerr << "jank_exporter: unknown command '" << args[0] << "'\n";
  print_usage(std::cerr);
  return jank::app::kExitUsage;
}

// The command line of every jank_exporter command on CLI11, parsed and
// answered the same way (docs/architecture.md, "Exit statuses"): -h/--help
// prints the command's help on standard output (exit 0); a usage error
// prints `jank_exporter CMD: what is wrong` and where the help is on
// standard error (exit 64). An option given twice keeps its last value; a
// repeatable one (a vector) keeps them all.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace jank::app {

// A usage error found once the arguments parsed (a value out of range,
// options that go together): exit 64.
struct UsageError {
  std::string message;
};

// The parser of a command called `name` ("jank_exporter replay"). Its help is
// `usage` (the usage lines and what the command does), the options with their
// descriptions, then `footer`.
std::unique_ptr<CLI::App> make_command(const std::string& name, std::string usage, std::string footer = "");

// A verb of a command (`run start`), with the same conventions; `summary` is
// its line in the command's help.
CLI::App* add_verb(CLI::App& command, const std::string& name, const std::string& summary, std::string usage,
                   std::string footer = "");

// Parses `args` (what follows the command's name). nullopt: go on; else the
// status to exit with, the help or the error already written.
std::optional<int> parse_command(CLI::App& command, const std::vector<std::string>& args, std::ostream& out,
                                 std::ostream& err);

// Writes a usage error as parse_command does: `jank_exporter CMD: message`
// (through parsers::terminal_text), then the help of the verb parsed, if
// any, to see. Returns kExitUsage.
int usage_error(const CLI::App& command, std::ostream& err, const std::string& message);

}  // namespace jank::app

// Every command's command line, parsed by CLI11 (app/cli/cli_parse.h), in
// process: the daemon's flags, replay, run and each of its verbs, compare,
// check, report and observer-test. --help goes to standard output with 0; any usage error to standard
// error with 64 (app/core/exit_codes.h), named by the command, nothing on
// standard output. tests/CMakeLists.txt checks the same on the binary.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/check.h"
#include "app/cli/compare.h"
#include "app/cli/daemon_cli.h"
#include "app/cli/observer_test.h"
#include "app/cli/replay.h"
#include "app/cli/report.h"
#include "tests/unit/test_support.h"
#include "app/cli/run_cli.h"
#include "app/core/exit_codes.h"
#include "loopback_servers.h"

namespace {

struct Result {
  int status;
  std::string out, err;
};

// What main() does with `args` (the program's name left out).
Result jank_exporter(std::vector<std::string> args) {
  std::ostringstream out, err;
  const std::string command = args.empty() ? "" : args.front();
  std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  int status = 0;
  if (command == "replay") {
    status = jank::app::run_replay(rest, stdin, out, err);
  } else if (command == "run") {
    status = jank::app::run_runs_cli(rest, out, err);
  } else if (command == "compare") {
    status = jank::app::run_compare(rest, out, err);
  } else if (command == "check") {
    status = jank::app::run_check(rest, out, err);
  } else if (command == "report") {
    status = jank::app::run_report(rest, stdin, out, err);
  } else if (command == "observer-test") {
    status = jank::app::run_observer_test(rest, out, err);
  } else {
    status = jank::app::run_daemon_cli(args, out, err);
  }
  return {status, out.str(), err.str()};
}

// Each command and verb as it is called, and the name its errors carry.
struct Command {
  std::vector<std::string> words;
  std::string name;
};

const std::vector<Command> kCommands = {
    {{}, "jank_exporter"},
    {{"replay"}, "jank_exporter replay"},
    {{"run"}, "jank_exporter run"},
    {{"run", "start"}, "jank_exporter run"},
    {{"run", "stop"}, "jank_exporter run"},
    {{"run", "list"}, "jank_exporter run"},
    {{"run", "show"}, "jank_exporter run"},
    {{"compare"}, "jank_exporter compare"},
    {{"check"}, "jank_exporter check"},
    {{"report"}, "jank_exporter report"},
    {{"observer-test"}, "jank_exporter observer-test"},
};

std::vector<std::string> with(std::vector<std::string> words, const std::vector<std::string>& more) {
  words.insert(words.end(), more.begin(), more.end());
  return words;
}

std::string spelled(const std::vector<std::string>& words) {
  std::string s = "jank_exporter";
  for (const auto& w : words) s += " " + w;
  return s;
}

void check_usage_error(const Result& r, const std::string& name) {
  CHECK(r.status == jank::app::kExitUsage);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::StartsWith(name + ": "));
  CHECK_THAT(r.err, Catch::Contains("--help"));
}

std::string http_ok(const std::string& body, int status = 200) {
  return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

}  // namespace

TEST_CASE("every command and verb prints its help on standard output and exits 0", "[cli_commands]") {
  for (const auto& c : kCommands) {
    for (const char* flag : {"--help", "-h"}) {
      INFO(spelled(c.words) << " " << flag);
      const Result r = jank_exporter(with(c.words, {flag}));
      CHECK(r.status == jank::app::kExitOk);
      CHECK(r.err.empty());
      CHECK_THAT(r.out, Catch::StartsWith("Usage: " + spelled(c.words)));
      CHECK_THAT(r.out, Catch::Contains("-h,--help"));
    }
  }
}

TEST_CASE("help wins over the rest of the command line", "[cli_commands]") {
  // --help before a missing argument, an unknown option or a bad value: still the help.
  for (const auto& args : std::vector<std::vector<std::string>>{{"replay", "--help"},
                                                                {"replay", "--frobnicate", "--help"},
                                                                {"run", "stop", "--help"},
                                                                {"compare", "--alpha", "7", "--help"},
                                                                {"report", "--help", "--baseline", "a.json"}}) {
    INFO(spelled(args));
    const Result r = jank_exporter(args);
    CHECK(r.status == jank::app::kExitOk);
    CHECK(r.err.empty());
    CHECK_THAT(r.out, Catch::StartsWith("Usage: "));
  }
}

TEST_CASE("an unknown option is a usage error on standard error with 64", "[cli_commands]") {
  for (const auto& c : kCommands) {
    INFO(spelled(c.words));
    const Result r = jank_exporter(with(c.words, {"--frobnicate"}));
    check_usage_error(r, c.name);
    CHECK_THAT(r.err, Catch::Contains("--frobnicate"));
  }
}

TEST_CASE("a missing argument or value is a usage error on standard error with 64", "[cli_commands]") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"replay"}, "no input: give one or more FILEs"},
      {{"replay", "--serial"}, "--serial needs a value"},
      {{"replay", "capture.txt", "--window-seconds"}, "--window-seconds needs a value"},
      {{"run"}, "give a verb: start, stop, list or show"},
      {{"run", "start"}, "--package is required"},
      {{"run", "stop"}, "the run id is required"},
      {{"run", "show"}, "the run id is required"},
      {{"run", "list", "--url"}, "--url needs a value"},
      {{"compare"}, "give BASELINE and CANDIDATE"},
      {{"compare", "a.json"}, "give BASELINE and CANDIDATE"},
      {{"compare", "--by", "id", "a.json"}, "--by id needs both --baseline and --candidate values"},
      {{"compare", "a.json", "b.json", "--alpha"}, "--alpha needs a value"},
      {{"report"}, "no input: give one or more results files"},
      {{"report", "-o"}, "--output needs a value"},
      {{"report", "--baseline"}, "--baseline needs a value"},
      {{"report", "--baseline", "a.json"}, "--baseline and --candidate go together"},
      {{"observer-test"}, "--serial SERIAL is required"},
      {{"observer-test", "--serial"}, "--serial needs a value"},
      {{"--config"}, "--config needs a value"},
      {{"--check-config"}, "--check-config needs a value"},
      {{"--adb", "a:1", "--adb"}, "--adb needs a value"},
  };
  for (const auto& [args, message] : cases) {
    INFO(spelled(args));
    const Result r = jank_exporter(args);
    const std::string name = args.empty() || args.front().starts_with("-") ? "jank_exporter" : "jank_exporter " + args.front();
    check_usage_error(r, name);
    CHECK_THAT(r.err, Catch::Contains(message));
  }
}

TEST_CASE("a bad value is a usage error with 64 in the words of its option", "[cli_commands]") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"replay", "--refresh-rate", "0", "x"}, "--refresh-rate needs a rate in Hz between 0 and 1000"},
      {{"replay", "--threads", "65", "x"}, "--threads needs a number from 1 to 64"},
      {{"run", "list", "--timeout", "soon"}, "--timeout takes a positive number of seconds"},
      {{"run", "start", "--package", "com.a", "--tag", "=v"}, "--tag takes KEY=VALUE"},
      {{"run", "start", "--package", "com.a", "--user", "u"}, "--user and --password-file go together"},
      {{"run", "show", "a/b"}, "'a/b': a run id is"},
      {{"compare", "--per", "week", "a", "b"}, "--per needs run or device"},
      {{"report", "--title", "", "a.json"}, "--title needs a text"},
      {{"observer-test", "--serial", "s", "--pairs", "1"}, "--pairs must be 2 to 100"},
      {{"observer-test", "--serial", "s", "--phase-seconds", "0.5"}, "--phase-seconds must be 1 to 3600"},
      {{"observer-test", "--serial", "s", "--confidence", "1"}, "--confidence must be 0.5 to 0.999"},
      {{"observer-test", "--serial", "s", "--package", "a b"}, "--package is not an Android package name"},
      {{"observer-test", "--serial", "s", "--adb", "nowhere"}, "--adb: not HOST:PORT"},
      {{"--log-level", "loud"}, "log_level: 'loud' is not one of debug, info, warning, error"},
  };
  for (const auto& [args, message] : cases) {
    INFO(spelled(args));
    const Result r = jank_exporter(args);
    const std::string name = args.front().starts_with("-") ? "jank_exporter" : "jank_exporter " + args.front();
    check_usage_error(r, name);
    CHECK_THAT(r.err, Catch::Contains(message));
  }
}

TEST_CASE("each run verb takes its own options and the common ones only", "[cli_commands]") {
  check_usage_error(jank_exporter({"run", "list", "--package", "com.a"}), "jank_exporter run");
  check_usage_error(jank_exporter({"run", "start", "--package", "com.a", "--json"}), "jank_exporter run");
  check_usage_error(jank_exporter({"run", "show", "r1", "--no-wait"}), "jank_exporter run");
  check_usage_error(jank_exporter({"run", "frobnicate"}), "jank_exporter run");
  // The verb comes first: options before it belong to no verb.
  check_usage_error(jank_exporter({"run", "--url", "http://127.0.0.1:1", "list"}), "jank_exporter run");
}

TEST_CASE("run's options keep their meaning", "[cli_commands]") {
  // The last of --json and --csv counts, as before; --url=URL is the same as --url URL.
  {
    jank::test::OneShotServer server(http_ok("[]"));
    const auto r = jank_exporter({"run", "list", "--json", "--csv", "--url=http://127.0.0.1:" + std::to_string(server.port())});
    CHECK(r.status == jank::app::kExitOk);
    CHECK_THAT(server.request(), Catch::StartsWith("GET /api/runs?format=csv HTTP/1.1\r\n"));
  }
  {
    jank::test::OneShotServer server(http_ok("{}"));
    const auto r = jank_exporter({"run", "show", "--csv", "r1", "--json", "--url", "http://127.0.0.1:" + std::to_string(server.port())});
    CHECK(r.status == jank::app::kExitOk);
    CHECK(r.out == "{}");
    CHECK_THAT(server.request(), Catch::StartsWith("GET /api/runs/r1 HTTP/1.1\r\n"));
  }
  // start --no-wait prints the id the exporter gave at once: one request, no wait.
  jank::test::OneShotServer server(http_ok(R"({"id":"r7"})", 201));
  const auto r = jank_exporter({"run", "start", "--no-wait", "--package", "com.a", "--serial", "s1", "--serial", "s2",
                                "--tag", "build=1", "--url", "http://127.0.0.1:" + std::to_string(server.port())});
  CHECK(r.status == jank::app::kExitOk);
  CHECK(r.out == "r7\n");
  CHECK_THAT(server.request(), Catch::StartsWith("POST /api/runs HTTP/1.1\r\n"));
}

TEST_CASE("the daemon's --version and --check-config answer without starting it", "[cli_commands]") {
  const auto v = jank_exporter({"--version"});
  CHECK(v.status == jank::app::kExitOk);
  CHECK_THAT(v.out, Catch::StartsWith("jank_exporter "));
  const auto c = jank_exporter({"--check-config", "/nonexistent/jank_exporter.yaml"});
  CHECK(c.status == jank::app::kExitConfig);
  CHECK(c.out.empty());
  CHECK_FALSE(c.err.empty());
}

TEST_CASE("report --budgets with a file that is not budgets stops with exit 2 and the place", "[cli][budgets]") {
  jank::test::TempDir dir;
  const std::string results = dir.path() + "/r.json";
  std::ofstream(results) << R"({"format":1,"id":"r1","state":"finished","duration_seconds":60,"devices":[]})";
  const std::string budgets = dir.path() + "/b.yaml";
  std::ofstream(budgets) << "tiers:\n  - name: x\n    limits:\n      sm: {max: 3}\n";
  const auto r = jank_exporter({"report", "--budgets", budgets, results});
  CHECK(r.status == jank::app::kExitReportFailed);
  CHECK_THAT(r.err, Catch::StartsWith("jank_exporter report: " + budgets + ":4:"));
  CHECK(r.out.empty());
}

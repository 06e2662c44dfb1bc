// jank_exporter: Android UI smoothness (skipped frames, jank, frame times)
// for Prometheus. main() only parses the command line and dispatches.
#include <sys/resource.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/compare.h"
#include "app/core/exit_codes.h"
#include "app/daemon/daemon.h"
#include "app/core/log.h"
#include "app/cli/replay.h"
#include "app/cli/run_cli.h"
#include "app/cli/report.h"
#include "config/config.h"
#include "config/files.h"
#include "config/schema.h"

namespace {

// Every HTTP client and every device stream holds a descriptor: the soft
// limit (often 1024) would cap them long before memory does.
void raise_descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t before = limit.rlim_cur;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) limit.rlim_cur = before;
  }
  jank::app::log_info("open files limit " + std::to_string(limit.rlim_cur) +
                      (limit.rlim_cur != before ? " (raised from " + std::to_string(before) + ")" : ""));
}

void print_usage(std::ostream& out) {
  out << "Usage: jank_exporter [OPTIONS]            run the exporter\n"
         "       jank_exporter replay [OPTIONS] FILE... | -\n"
         "       jank_exporter run start|stop|list|show [OPTIONS]   mark soak-test runs\n"
         "       jank_exporter compare [OPTIONS] BASELINE CANDIDATE\n"
         "       jank_exporter report [-o FILE] INPUT...   HTML page of run results\n"
         "       jank_exporter --check-config FILE\n"
         "\n"
         "Follows every Android device of the adb server(s) and serves Prometheus\n"
         "metrics of their UI smoothness. Runs with no configuration file at all.\n"
         "\n"
         "Options:\n"
         "  --config FILE         YAML configuration (see config/jank_exporter.yaml)\n"
         "  --adb HOST:PORT       adb server to follow; repeatable (default:\n"
         "                        $ADB_SERVER_SOCKET or 127.0.0.1:5037)\n"
         "  --listen ADDR         HTTP listen address (default :9789)\n"
         "  --state-dir DIR       where counters and log positions are checkpointed\n"
         "                        (default /var/lib/jank_exporter)\n"
         "  --log-level LEVEL     debug, info, warning or error (default info)\n"
         "  --check-config FILE   validate FILE and exit: 0 valid, 78 invalid\n"
         "  --version             print the version\n"
         "  -h, --help            this text\n"
         "\n"
         "Command-line options override the configuration file, also after SIGHUP.\n"
         "SIGHUP reloads the configuration; SIGTERM and SIGINT stop after writing the\n"
         "state. `jank_exporter replay --help` describes offline replays,\n"
         "`jank_exporter compare --help` verdicts between two builds' runs.\n"
         "`jank_exporter report --help` the run report.\n"
         "\n"
         "Configuration keys (YAML, dotted by section; docs/config.md):\n"
      << jank::config::describe_schema();
}

// Everything the daemon would check at start but opening sockets: the file,
// then the files it names (password, certificate and key, state directory).
int check_config(const std::string& path) {
  auto result = jank::config::load_config_file(path);
  for (const auto& e : result.errors) std::cerr << e.to_string() << "\n";
  if (!result.ok()) return jank::app::kExitConfig;
  const auto problems = jank::config::check_named_files(result.config);
  for (const auto& p : problems) std::cerr << path << ": " << p << "\n";
  if (!problems.empty()) return jank::app::kExitConfig;
  std::cout << path << ": valid\n";
  return jank::app::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "replay") {
    args.erase(args.begin());
    return jank::app::run_replay(args, stdin, std::cout, std::cerr);
  }
  if (!args.empty() && args[0] == "run") {
    args.erase(args.begin());
    return jank::app::run_runs_cli(args, std::cout, std::cerr);
  }
  if (!args.empty() && args[0] == "compare") {
    args.erase(args.begin());
    return jank::app::run_compare(args, std::cout, std::cerr);
  }
  if (!args.empty() && args[0] == "report") {
    args.erase(args.begin());
    return jank::app::run_report(args, stdin, std::cout, std::cerr);
  }
  jank::app::DaemonOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= args.size()) {
        std::cerr << "jank_exporter: " << name << " needs a value\n";
        std::exit(jank::app::kExitUsage);
      }
      return args[++i];
    };
    if (a == "-h" || a == "--help") {
      print_usage(std::cout);
      return jank::app::kExitOk;
    } else if (a == "--version") {
      std::cout << "jank_exporter " << JANK_VERSION << "\n";
      return jank::app::kExitOk;
    } else if (a == "--check-config") {
      return check_config(value("--check-config"));
    } else if (a == "--config") {
      options.config_path = value("--config");
    } else if (a == "--adb") {
      options.adb_override.push_back(value("--adb"));
    } else if (a == "--listen") {
      options.listen_override = value("--listen");
    } else if (a == "--state-dir") {
      options.state_dir_override = value("--state-dir");
    } else if (a == "--log-level") {
      options.log_level_override = value("--log-level");
    } else {
      std::cerr << "jank_exporter: unknown option '" << a << "'\n";
      print_usage(std::cerr);
      return jank::app::kExitUsage;
    }
  }
  if (!options.config_path.empty()) {
    auto result = jank::config::load_config_file(options.config_path);
    for (const auto& e : result.errors) std::cerr << e.to_string() << "\n";
    if (!result.ok()) return jank::app::kExitConfig;
    options.config = result.config;
  }
  jank::app::apply_overrides(options, options.config);
  // Flags get the same validation as the file.
  std::string flags_yaml = "listen_address: \"" + options.config.listen_address + "\"\nlog_level: \"" +
                           options.config.log_level + "\"\nadb_servers: [";
  for (std::size_t k = 0; k < options.config.adb_servers.size(); ++k) {
    flags_yaml += (k ? ", \"" : "\"") + options.config.adb_servers[k] + "\"";
  }
  flags_yaml += "]\n";
  auto flags_check = jank::config::parse_config(flags_yaml, "command line");
  for (const auto& e : flags_check.errors) std::cerr << "jank_exporter: " << e.message << "\n";
  if (!flags_check.ok()) return jank::app::kExitUsage;
  raise_descriptor_limit();
  return jank::app::run_daemon(std::move(options));
}

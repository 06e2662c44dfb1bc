#include "app/cli/daemon_cli.h"

#include <sys/resource.h>

#include <ostream>

#include "app/cli/cli_parse.h"
#include "app/core/exit_codes.h"
#include "app/core/log.h"
#include "app/daemon/daemon.h"
#include "config/config.h"
#include "config/files.h"
#include "config/schema.h"

#ifndef JANK_VERSION
#define JANK_VERSION "dev"
#endif

namespace jank::app {
namespace {

constexpr const char* kUsage =
    "Usage: jank_exporter [OPTIONS]            run the exporter\n"
    "       jank_exporter replay [OPTIONS] FILE... | -\n"
    "       jank_exporter run start|stop|list|show [OPTIONS]   mark soak-test runs\n"
    "       jank_exporter compare [OPTIONS] BASELINE CANDIDATE\n"
    "       jank_exporter check --budgets FILE SOURCE...   budgets per device tier\n"
    "       jank_exporter report [-o FILE] INPUT...   HTML page of run results\n"
    "       jank_exporter --check-config FILE\n"
    "\n"
    "Follows every Android device of the adb server(s) and serves Prometheus\n"
    "metrics of their UI smoothness. Runs with no configuration file at all.\n";

constexpr const char* kFooter =
    "Command-line options override the configuration file, also after SIGHUP.\n"
    "SIGHUP reloads the configuration; SIGTERM and SIGINT stop after writing the\n"
    "state. `jank_exporter replay --help` describes offline replays,\n"
    "`jank_exporter run --help` the runs of a soak test,\n"
    "`jank_exporter compare --help` verdicts between two builds' runs,\n"
    "`jank_exporter check --help` absolute budgets per device tier,\n"
    "`jank_exporter report --help` the run report.\n"
    "\n"
    "Exit status: 0 stopped by a signal, 1 could not start (state directory,\n"
    "listen address), 64 bad usage, 78 the configuration is not valid.\n"
    "\n"
    "Configuration keys (YAML, dotted by section; docs/config.md):\n";

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
  log_info("open files limit " + std::to_string(limit.rlim_cur) +
           (limit.rlim_cur != before ? " (raised from " + std::to_string(before) + ")" : ""));
}

// Everything the daemon would check at start but opening sockets: the file,
// then the files it names (password, certificate and key, state directory).
int check_config(const std::string& path, std::ostream& out, std::ostream& err) {
  auto result = config::load_config_file(path);
  for (const auto& e : result.errors) err << e.to_string() << "\n";
  if (!result.ok()) return kExitConfig;
  const auto problems = config::check_named_files(result.config);
  for (const auto& p : problems) err << path << ": " << p << "\n";
  if (!problems.empty()) return kExitConfig;
  out << path << ": valid\n";
  return kExitOk;
}

}  // namespace

int run_daemon_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const auto app = make_command("jank_exporter", kUsage, kFooter + config::describe_schema());
  DaemonOptions options;
  std::string check;
  bool version = false;
  app->add_option("--config", options.config_path, "YAML configuration (see config/jank_exporter.yaml)")
      ->option_text("FILE");
  app->add_option("--adb", options.adb_override,
                  "adb server to follow; repeatable (default:\n$ADB_SERVER_SOCKET or 127.0.0.1:5037)")
      ->option_text("HOST:PORT")
      ->allow_extra_args(false);
  app->add_option("--listen", options.listen_override, "HTTP listen address (default :9789)")->option_text("ADDR");
  app->add_option("--state-dir", options.state_dir_override,
                  "where counters and log positions are checkpointed\n(default /var/lib/jank_exporter)")
      ->option_text("DIR");
  app->add_option("--log-level", options.log_level_override, "debug, info, warning or error (default info)")
      ->option_text("LEVEL");
  app->add_option("--per-frame", options.per_frame_override,
                  "per-frame polling: needed (runs, spikes, per_frame.apps) or always\n(default: per_frame.mode, needed)")
      ->option_text("MODE");
  app->add_option("--check-config", check, "validate FILE and exit: 0 valid, 78 invalid")->option_text("FILE");
  app->add_flag("--version", version, "print the version");
  if (auto status = parse_command(*app, args, out, err)) return *status;
  if (version) {
    out << "jank_exporter " << JANK_VERSION << "\n";
    return kExitOk;
  }
  if (app->get_option("--check-config")->count() > 0) return check_config(check, out, err);
  if (!options.config_path.empty()) {
    auto result = config::load_config_file(options.config_path);
    for (const auto& e : result.errors) err << e.to_string() << "\n";
    if (!result.ok()) return kExitConfig;
    options.config = result.config;
  }
  apply_overrides(options, options.config);
  // Flags get the same validation as the file.
  std::string flags_yaml = "listen_address: \"" + options.config.listen_address + "\"\nlog_level: \"" +
                           options.config.log_level + "\"\nadb_servers: [";
  for (std::size_t k = 0; k < options.config.adb_servers.size(); ++k) {
    flags_yaml += (k ? ", \"" : "\"") + options.config.adb_servers[k] + "\"";
  }
  flags_yaml += "]\nper_frame:\n  mode: \"" + options.config.per_frame_mode + "\"\n";
  auto flags_check = config::parse_config(flags_yaml, "command line");
  if (!flags_check.ok()) {
    const auto& errors = flags_check.errors;
    for (std::size_t k = 0; k + 1 < errors.size(); ++k) err << "jank_exporter: " << errors[k].message << "\n";
    return usage_error(*app, err, errors.back().message);
  }
  raise_descriptor_limit();
  return run_daemon(std::move(options));
}

}  // namespace jank::app

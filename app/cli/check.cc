#include "app/cli/check.h"

#include <cmath>
#include <ostream>
#include <set>

#include "app/cli/check_output.h"
#include "app/cli/cli_parse.h"
#include "app/cli/compare_input.h"
#include "app/core/atomic_file.h"
#include "config/budgets.h"
#include "parsers/text_scan.h"
#include "parsers/utf8.h"

namespace jank::app {
namespace {

struct Options {
  std::string budgets, junit, package, timeout;
  std::vector<std::string> sources;
  double timeout_seconds = kDefaultFetchTimeoutSeconds;
  bool json = false;
};

constexpr const char* kUsage =
    "Usage: jank_exporter check --budgets FILE [OPTIONS] SOURCE...\n"
    "\n"
    "Checks run results (docs/runs.md) against absolute budgets per device tier:\n"
    "each device of each finished run is of the first tier of FILE its model,\n"
    "refresh rate and SDK level match, and each of that tier's limits holds or is\n"
    "breached. A metric absent from a device's results is listed as no value, and a\n"
    "device of no tier as such: neither is a breach.\n"
    "\n"
    "SOURCE is a results file (a run list or one run), a directory of them (every\n"
    "*.json), or an exporter's http://HOST:PORT (its /api/runs). Only finished\n"
    "runs count; devices with settled false are left out.\n";

std::string footer() {
  std::string text = "Metrics a budget may limit (a max, or a min for those higher is better):\n";
  std::string line = " ";
  for (const auto& m : metrics::budget_metrics()) {
    const std::string item = " " + std::string(m.name) + (m.better == metrics::Better::kHigher ? " (min)" : "") + ",";
    if (line.size() + item.size() > 80) {
      text += line + "\n";
      line = " ";
    }
    line += item;
  }
  line.pop_back();
  return text + line +
         "\n\n"
         "Exit status: 0 every limit held, 4 a limit was breached, 64 bad usage, 66 a\n"
         "source cannot be read or is not format-1 results, or holds no finished run,\n"
         "73 the --junit file cannot be written, 78 the budgets file is not valid.";
}

void add_options(CLI::App& app, Options& o) {
  app.add_option("SOURCE", o.sources, "a results file, a directory of them, or http://HOST:PORT")
      ->option_text("...");
  app.add_option("--budgets", o.budgets, "the budgets file (YAML): tiers and their limits")->option_text("FILE");
  app.add_flag("--json", o.json, "print JSON instead of a table");
  app.add_option("--junit", o.junit, "also write JUnit XML to FILE: a testsuite per run,\na testcase per device and limit")
      ->option_text("FILE");
  app.add_option("--package", o.package, "only runs of this app")->option_text("PKG");
  app.add_option("--timeout", o.timeout, "the longest an http:// source may take to answer in\nfull (default 30)")
      ->option_text("SECONDS");
}

void check_options(const CLI::App& app, Options& o) {
  for (const CLI::Option* opt : app.get_options()) {  // an empty argument is none
    for (const auto& v : opt->results())
      if (v.empty()) throw UsageError{opt->get_positional() ? "an empty SOURCE" : opt->get_name() + " needs a value"};
  }
  if (app.get_option("--budgets")->count() == 0) throw UsageError{"--budgets FILE is required"};
  if (o.sources.empty()) throw UsageError{"give one or more SOURCEs: results files, directories or URLs"};
  if (app.get_option("--timeout")->count() > 0 &&
      (!parsers::scan::parse_into(o.timeout, o.timeout_seconds) || !(o.timeout_seconds > 0) ||
       !std::isfinite(o.timeout_seconds)))
    throw UsageError{"--timeout needs a positive number of seconds"};
}

// The finished runs of every source, each once.
std::vector<metrics::BudgetRun> load_runs(const Options& o, std::vector<std::string>& notices) {
  std::vector<metrics::BudgetRun> runs;
  std::set<std::string> seen;
  for (const auto& source : o.sources) {
    for (auto& loaded : load_source(source, notices, o.timeout_seconds)) {
      if (!o.package.empty() && loaded.run.package != o.package) continue;
      if (!seen.insert(loaded.run.id).second) {
        notices.push_back(loaded.origin + ": run " + loaded.run.id + " given twice: checked once");
        continue;
      }
      metrics::BudgetRun run{loaded.run.id, loaded.run.package, {}};
      for (std::size_t i = 0; i < loaded.run.devices.size(); ++i) {
        auto& d = loaded.run.devices[i];
        const DeviceKind& kind = loaded.device_kinds.at(i);
        run.devices.push_back({d.serial, d.model, kind.sdk, kind.refresh_hz, std::move(d.metrics)});
      }
      runs.push_back(std::move(run));
    }
  }
  if (runs.empty())
    throw InputError(o.package.empty() ? "no finished run in the sources"
                                       : "no finished run of " + o.package + " in the sources");
  return runs;
}

int check(const Options& o, std::ostream& out, std::ostream& err) {
  const auto budgets = config::load_budgets_file(o.budgets);
  if (!budgets.ok()) {
    for (const auto& e : budgets.errors) err << "jank_exporter check: " << parsers::terminal_text(e.to_string()) << "\n";
    return kExitConfig;
  }
  CheckReport report;
  report.budgets_file = o.budgets;
  report.budgets = budgets.budgets;
  const auto runs = load_runs(o, report.notices);
  report.check = metrics::check_budgets(report.budgets, runs);
  for (const auto& n : report.notices) err << "jank_exporter check: " << parsers::terminal_text(n) << "\n";
  if (o.json)
    write_check_json(out, report);
  else
    write_check_text(out, report);
  if (!o.junit.empty()) {
    std::string error;
    if (!write_atomically(o.junit, check_junit(report), error)) {
      err << "jank_exporter check: " << parsers::terminal_text(o.junit + ": " + error) << "\n";
      return kExitCantCreate;
    }
  }
  return report.check.breached() ? kExitBudgetBreached : kExitOk;
}

}  // namespace

int run_check(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const auto app = make_command("jank_exporter check", kUsage, footer());
  Options o;
  add_options(*app, o);
  if (auto status = parse_command(*app, args, out, err)) return *status;
  try {
    check_options(*app, o);
    return check(o, out, err);
  } catch (const UsageError& e) {
    return usage_error(*app, err, e.message);
  } catch (const InputError& e) {
    err << "jank_exporter check: " << parsers::terminal_text(e.what()) << "\n";
    return kExitNoInput;
  } catch (const std::bad_alloc&) {
    err << "jank_exporter check: out of memory\n";
    return kExitNoInput;
  }
}

}  // namespace jank::app

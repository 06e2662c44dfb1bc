#include "app/cli/compare.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string_view>

#include "app/cli/compare_calibration.h"
#include "app/cli/compare_history.h"
#include "app/cli/compare_input.h"
#include "app/cli/cli_parse.h"
#include "app/cli/compare_output.h"
#include "app/core/atomic_file.h"
#include "app/core/exit_codes.h"
#include "parsers/text_scan.h"
#include "parsers/utf8.h"

namespace jank::app {
namespace {

struct Options {
  std::vector<std::string> sources;
  std::string by;  // "", "version", "id" or "tag=KEY"
  std::vector<std::string> baseline_values, candidate_values;
  std::string package;
  metrics::CompareOptions compare;
  double timeout_seconds = kDefaultFetchTimeoutSeconds;  // per URL source
  bool json = false;
  bool calibrate = false;           // --calibrate: the sources are one build's runs
  bool history = false;             // --history: the sources are builds in order
  std::string calibration_file;     // --calibration: judge the power of the comparison
  std::string junit;                // --junit: also JUnit XML to this file
  metrics::CalibrationOptions calibration;
};

// The values as given, checked once all are parsed.
struct Given {
  std::string by, package, per, alpha, timeout, work_tolerance, resamples, seed, runs_per_side;
  std::vector<std::string> baseline, candidate, thresholds, metrics;
};

using parsers::scan::parse_into;

// The non-empty items of a comma-separated list.
std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> out;
  for (const std::string_view item : parsers::scan::split_nonempty(s, ',')) out.emplace_back(item);
  return out;
}

std::string metric_names() {
  std::string names;
  for (const auto& m : metrics::compared_metrics()) names += (names.empty() ? "" : ", ") + std::string(m.name);
  return names;
}

const metrics::MetricDef& known_metric(const std::string& name) {
  const auto* def = metrics::find_compared_metric(name);
  if (def == nullptr) throw UsageError{"unknown metric '" + name + "'; metrics: " + metric_names()};
  return *def;
}

void parse_threshold(const std::string& spec, metrics::CompareOptions& o) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos) throw UsageError{"--threshold needs METRIC=VALUE or METRIC=VALUE%"};
  const auto& def = known_metric(spec.substr(0, eq));
  std::string value = spec.substr(eq + 1);
  metrics::Threshold t;
  if (!value.empty() && value.back() == '%') {
    t.relative = true;
    value.pop_back();
  }
  if (!parse_into(value, t.value) || !(t.value >= 0) || !std::isfinite(t.value))
    throw UsageError{"--threshold " + spec + ": the value must be a number ≥ 0, optionally followed by %"};
  o.thresholds[std::string(def.name)] = t;
}

constexpr const char* kUsage =
    "Usage: jank_exporter compare [OPTIONS] BASELINE CANDIDATE\n"
    "       jank_exporter compare [OPTIONS] --by KEY [--baseline V,...] [--candidate V,...] SOURCE...\n"
    "\n"
    "Compares run results (docs/runs.md) of a baseline build and a candidate build,\n"
    "metric by metric (Mann-Whitney U test, Hodges-Lehmann shift), and gives a verdict.\n"
    "\n"
    "BASELINE, CANDIDATE and SOURCE are each a results file (a run list or one run),\n"
    "a directory of them (every *.json), or an exporter's http://HOST:PORT (its\n"
    "/api/runs). Only finished runs count; devices with settled false are left out.\n";

void add_options(CLI::App& app, Given& g, Options& o) {
  app.add_option("SOURCE", o.sources, "a results file, a directory of them, or http://HOST:PORT")
      ->option_text("...");
  app.add_option("--by", g.by,
                 "select both sides from the SOURCEs by KEY: version (the\n"
                 "app's versionName at the start), tag=NAME, or id")
      ->option_text("KEY");
  app.add_option("--baseline", g.baseline,
                 "the baseline's values of KEY; --candidate likewise. With\n"
                 "--by version both may be left out when exactly two\n"
                 "versions are present: the lower versionCode is the baseline")
      ->option_text("V,...")
      ->allow_extra_args(false);
  app.add_option("--candidate", g.candidate, "the candidate's values of KEY")->option_text("V,...")->allow_extra_args(false);
  app.add_option("--package", g.package, "only runs of this app")->option_text("PKG");
  app.add_option("--per", g.per, "one sample per run and device (default), or per run\n(its devices averaged)")
      ->option_text("device|run");
  app.add_option("--alpha", g.alpha, "significance level, 0 < A < 0.5 (default 0.05)")->option_text("A");
  app.add_option("--threshold", g.thresholds,
                 "the change of medians metric M must reach to count,\n"
                 "absolute or percent of the baseline; repeatable")
      ->option_text("M=V[%]")
      ->allow_extra_args(false);
  app.add_option("--work-tolerance", g.work_tolerance,
                 "how far the candidate's median work (frames drawn or\n"
                 "skipped, duration) may be from the baseline's, percent\n"
                 "(default 20); beyond it the verdict is unequal_work. off:\n"
                 "no work check")
      ->option_text("PERCENT|off");
  app.add_option("--metrics", g.metrics, "compare only these metrics")->option_text("M,...")->allow_extra_args(false);
  app.add_option("--timeout", g.timeout, "the longest an http:// source may take to answer in\nfull (default 30)")
      ->option_text("SECONDS");
  app.add_flag("--json", o.json, "print JSON instead of a table");
  app.add_option("--junit", o.junit, "also write JUnit XML to FILE: a testcase per work\nmeasure and per metric")
      ->option_text("FILE");
  app.add_flag("--history", o.history,
               "the SOURCEs are builds, oldest first: the build where each\n"
               "metric stepped (docs/runs.md, A series of builds)");
  app.add_flag("--calibrate", o.calibrate,
               "A/A calibration: the SOURCEs are runs of one build; print the\n"
               "gate's false-regression rate and smallest change seen per\n"
               "metric and model (docs/runs.md, Calibrating the gate)");
  app.add_option("--calibration", o.calibration_file,
                 "a calibration (--calibrate --json): metrics these runs could\n"
                 "not have seen change make the verdict insufficient_power")
      ->option_text("FILE");
  app.add_option("--resamples", g.resamples, "--calibrate: splits and draws per figure (default 400)")->option_text("N");
  app.add_option("--seed", g.seed, "--calibrate: random seed (default 1)")->option_text("S");
  app.add_option("--runs-per-side", g.runs_per_side, "--calibrate: run counts to find the smallest change for\n(default 3,5,10,15,20,30)")
      ->option_text("N,...");
}

// The checks of the values given, in the words of the options.
void check(const CLI::App& app, const Given& g, Options& o) {
  for (const CLI::Option* opt : app.get_options()) {  // an empty argument is none
    for (const auto& v : opt->results())
      if (v.empty()) throw UsageError{opt->get_positional() ? "an empty SOURCE" : opt->get_name() + " needs a value"};
  }
  auto given = [&](const char* name) { return app.get_option(name)->count() > 0; };
  if (given("--by")) {
    o.by = g.by;
    if (o.by != "version" && o.by != "id" && !(o.by.starts_with("tag=") && o.by.size() > 4))
      throw UsageError{"--by needs version, id or tag=KEY"};
  }
  for (const auto& v : g.baseline)
    for (auto& s : split_commas(v)) o.baseline_values.push_back(std::move(s));
  for (const auto& v : g.candidate)
    for (auto& s : split_commas(v)) o.candidate_values.push_back(std::move(s));
  const bool values_given = given("--baseline") || given("--candidate");
  o.package = g.package;
  if (given("--per")) {
    if (g.per != "run" && g.per != "device") throw UsageError{"--per needs run or device"};
    o.compare.per_run = g.per == "run";
  }
  if (given("--alpha") && (!parse_into(g.alpha, o.compare.alpha) || !(o.compare.alpha > 0 && o.compare.alpha < 0.5)))
    throw UsageError{"--alpha needs a significance level between 0 and 0.5 (default 0.05)"};
  for (const auto& spec : g.thresholds) parse_threshold(spec, o.compare);
  if (given("--work-tolerance")) {
    if (g.work_tolerance == "off") {
      o.compare.work_tolerance_percent = -1;
    } else if (!parse_into(g.work_tolerance, o.compare.work_tolerance_percent) ||
               !(o.compare.work_tolerance_percent >= 0) || !std::isfinite(o.compare.work_tolerance_percent)) {
      throw UsageError{"--work-tolerance needs a percentage >= 0, or off"};
    }
  }
  if (given("--timeout") &&
      (!parse_into(g.timeout, o.timeout_seconds) || !(o.timeout_seconds > 0) || !std::isfinite(o.timeout_seconds)))
    throw UsageError{"--timeout needs a positive number of seconds"};
  for (const auto& list : g.metrics)
    for (const auto& name : split_commas(list)) o.compare.metrics.emplace_back(known_metric(name).name);
  if (!o.calibrate && (given("--resamples") || given("--seed") || given("--runs-per-side")))
    throw UsageError{"--resamples, --seed and --runs-per-side go with --calibrate"};
  if (o.history) {
    if (o.calibrate || !o.calibration_file.empty() || !o.by.empty() || !o.junit.empty())
      throw UsageError{"--history takes no --by, calibration or --junit"};
    if (o.sources.size() < 2) throw UsageError{"--history needs two or more builds, oldest first"};
    return;
  }
  if (o.calibrate) {
    if (!o.calibration_file.empty() || !o.by.empty() || !o.junit.empty())
      throw UsageError{"--calibrate takes no --calibration, --by or --junit"};
    if (o.sources.empty()) throw UsageError{"--calibrate needs the runs of one build"};
    parse_calibration_options(given("--resamples") ? &g.resamples : nullptr, given("--seed") ? &g.seed : nullptr,
                              given("--runs-per-side") ? &g.runs_per_side : nullptr, o.calibration);
    o.calibration.compare = o.compare;
    return;
  }
  if (o.by.empty()) {
    if (values_given) throw UsageError{"--baseline and --candidate select runs with --by"};
    if (o.sources.size() != 2) throw UsageError{"give BASELINE and CANDIDATE, or --by with the sources to select from"};
  } else {
    if (o.sources.empty()) throw UsageError{"--by needs one or more sources to select runs from"};
    const bool both = !o.baseline_values.empty() && !o.candidate_values.empty();
    if (!both && (o.by != "version" || values_given))
      throw UsageError{"--by " + o.by + " needs both --baseline and --candidate values"};
  }
}

// The value --by reads from a run, if it has one.
std::optional<std::string> key_of(const LoadedRun& r, const std::string& by) {
  if (by == "id") return r.run.id;
  if (by == "version") {
    if (r.version) return r.version->name;
    return std::nullopt;
  }
  const auto it = r.tags.find(by.substr(4));
  if (it == r.tags.end()) return std::nullopt;
  return it->second;
}

// --by version with no values: the two versions present, the lower
// versionCode being the baseline.
void pick_two_versions(const std::vector<LoadedRun>& pool, Options& o) {
  std::map<std::string, std::optional<std::int64_t>> found;
  for (const auto& r : pool)
    if (r.version) found.emplace(r.version->name, r.version->code);
  std::string list;
  for (const auto& [name, code] : found)
    list += (list.empty() ? "" : ", ") + name + (code ? " (" + std::to_string(*code) + ")" : "");
  auto a = found.begin(), b = std::next(a, found.size() >= 2 ? 1 : 0);
  if (found.size() != 2 || !a->second || !b->second || *a->second == *b->second)
    throw UsageError{"--by version without --baseline and --candidate needs exactly two versions with different "
                     "version codes; found: " +
                     (list.empty() ? std::string("none") : list)};
  if (*a->second > *b->second) std::swap(a, b);
  o.baseline_values = {a->first};
  o.candidate_values = {b->first};
}

CompareSide make_side(const std::vector<LoadedRun>& runs, std::string label) {
  CompareSide side{std::move(label), {}, 0};
  for (const auto& r : runs) {
    side.run_ids.push_back(r.run.id);
    side.devices += r.run.devices.size();
  }
  return side;
}

// Keeps each run once per side; a run on both sides is an input error.
void check_sides(std::vector<LoadedRun>& a, std::vector<LoadedRun>& b, std::vector<std::string>& notices) {
  for (auto* side : {&a, &b}) {
    std::set<std::string> seen;
    std::erase_if(*side, [&](const LoadedRun& r) {
      if (seen.insert(r.run.id).second) return false;
      notices.push_back(r.origin + ": run " + r.run.id + " given twice: counted once");
      return true;
    });
  }
  for (const auto& r : b)
    if (std::any_of(a.begin(), a.end(), [&](const LoadedRun& x) { return x.run.id == r.run.id; }))
      throw InputError("run " + r.run.id + " is both in the baseline and in the candidate");
  for (const auto* side : {&a, &b}) {
    const char* name = side == &a ? "baseline" : "candidate";
    if (side->empty()) throw InputError(std::string("the ") + name + " has no finished run to compare");
    std::set<std::string> packages;
    for (const auto& r : *side) packages.insert(r.run.package);
    if (packages.size() > 1)
      notices.push_back(std::string("the ") + name + " mixes several apps (--package selects one)");
  }
  // Samples pool devices, so a different mix of devices shows up as a change.
  std::set<std::string> serials_a, serials_b;
  for (const auto& r : a)
    for (const auto& d : r.run.devices) serials_a.insert(d.serial);
  for (const auto& r : b)
    for (const auto& d : r.run.devices) serials_b.insert(d.serial);
  if (serials_a != serials_b)
    notices.push_back("the baseline's devices (" + std::to_string(serials_a.size()) + ") and the candidate's (" +
                      std::to_string(serials_b.size()) + ") are not the same: the device mix may show as a change");
  if (a.front().run.package != b.front().run.package)
    notices.push_back("the baseline is " + a.front().run.package + ", the candidate " + b.front().run.package);
}

int compare(Options& o, std::ostream& out, std::ostream& err) {
  CompareReport report;
  report.options = o.compare;
  std::vector<LoadedRun> a, b;
  std::string label_a, label_b;
  if (o.by.empty()) {
    a = load_runs({o.sources[0]}, o.package, report.notices, o.timeout_seconds);
    b = load_runs({o.sources[1]}, o.package, report.notices, o.timeout_seconds);
    label_a = o.sources[0];
    label_b = o.sources[1];
  } else {
    auto pool = load_runs(o.sources, o.package, report.notices, o.timeout_seconds);
    if (o.by == "version") {
      for (const auto& r : pool)
        if (!r.version) report.notices.push_back(r.origin + ": run " + r.run.id + " has no single app version: " + r.version_problem);
      if (o.baseline_values.empty()) pick_two_versions(pool, o);
    }
    for (const auto& r : pool) {
      const auto key = key_of(r, o.by);
      if (!key) continue;
      auto in = [&](const std::vector<std::string>& values) {
        return std::find(values.begin(), values.end(), *key) != values.end();
      };
      if (in(o.baseline_values)) a.push_back(r);
      if (in(o.candidate_values)) b.push_back(r);
    }
    if (o.by == "id") {
      for (const auto* values : {&o.baseline_values, &o.candidate_values})
        for (const auto& id : *values)
          if (std::none_of(pool.begin(), pool.end(), [&](const LoadedRun& r) { return r.run.id == id; }))
            throw InputError("run " + id + " is not among the finished runs of the sources");
    }
    auto label = [&](const std::vector<std::string>& values) {
      std::string joined;
      for (const auto& v : values) joined += (joined.empty() ? "" : ",") + v;
      return (o.by == "id" ? std::string("runs ") : o.by == "version" ? "version " : o.by.substr(4) + "=") + joined;
    };
    label_a = label(o.baseline_values);
    label_b = label(o.candidate_values);
  }
  check_sides(a, b, report.notices);
  report.baseline = make_side(a, label_a);
  report.candidate = make_side(b, label_b);
  std::vector<metrics::CompareRun> runs_a, runs_b;
  for (const auto& r : a) runs_a.push_back(r.run);
  for (const auto& r : b) runs_b.push_back(r.run);
  report.comparison = metrics::compare_runs(runs_a, runs_b, o.compare);
  if (!o.calibration_file.empty()) {
    bool per_run = false;
    const auto calibration = read_calibration(o.calibration_file, per_run);
    if (per_run != o.compare.per_run) throw InputError(o.calibration_file + ": calibrated per " + (per_run ? "run" : "device") + ", compared otherwise (--per)");
    metrics::apply_power(report.comparison, calibration, std::min(a.size(), b.size()));
  }
  for (const auto& n : report.notices) err << "jank_exporter compare: " << parsers::terminal_text(n) << "\n";
  if (o.json)
    write_compare_json(out, report);
  else
    write_compare_text(out, report);
  if (std::string error; !o.junit.empty() && !write_atomically(o.junit, compare_junit(report), error)) {
    err << "jank_exporter compare: " << parsers::terminal_text(o.junit + ": " + error) << "\n";
    return kExitCantCreate;
  }
  switch (report.comparison.overall) {
    case metrics::Verdict::kRegression:
      return kExitRegression;
    case metrics::Verdict::kUnequalWork:
      return kExitUnequalWork;
    case metrics::Verdict::kInsufficientPower:
      return kExitInsufficientPower;
    case metrics::Verdict::kInsufficientData:
      return kExitNoInput;
    default:
      return kExitOk;
  }
}

}  // namespace

int run_compare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const auto app = make_command("jank_exporter compare", kUsage, compare_help_footer());
  Options o;
  Given g;
  add_options(*app, g, o);
  if (auto status = parse_command(*app, args, out, err)) return *status;
  try {
    check(*app, g, o);
    if (o.history) return history(o.sources, o.package, o.compare, o.json, o.timeout_seconds, out, err);
    return o.calibrate ? calibrate(o.sources, o.package, o.calibration, o.json, o.timeout_seconds, out, err)
                       : compare(o, out, err);
  } catch (const UsageError& e) {
    return usage_error(*app, err, e.message);
  } catch (const InputError& e) {
    err << "jank_exporter compare: " << parsers::terminal_text(e.what()) << "\n";
    return kExitNoInput;
  } catch (const std::bad_alloc&) {
    err << "jank_exporter compare: out of memory\n";
    return kExitNoInput;
  }
}

}  // namespace jank::app

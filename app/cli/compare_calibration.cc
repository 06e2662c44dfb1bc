#include "app/cli/compare_calibration.h"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <set>

#include <nlohmann/json.hpp>

#include "app/cli/cli_parse.h"
#include "app/cli/compare_input.h"
#include "app/cli/compare_output.h"
#include "app/cli/results_file.h"
#include "app/core/exit_codes.h"
#include "exporters/json_text.h"
#include "exporters/run_results_input.h"
#include "parsers/text_scan.h"
#include "parsers/utf8.h"

namespace jank::app {
namespace {

using nlohmann::json;

std::string num(double v) { return compare_number(v); }

std::string percent(double rate) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", rate * 100);
  return buf;
}

std::string threshold_of(const metrics::MetricCalibration& m, const metrics::CalibrationOptions& o) {
  const auto t = o.compare.threshold_of(*m.def);
  return num(t.value) + (t.relative ? "%" : "");
}

}  // namespace

void write_calibration_text(std::ostream& out, const CalibrationReport& r) {
  const auto& o = r.options;
  out << "calibration: " << r.label << " (" << r.runs << " runs of one build)\n"
      << "one sample per " << (o.compare.per_run ? "run (its devices averaged)" : "run and device") << "; alpha "
      << num(o.compare.alpha) << "; " << o.resamples << " splits and draws per figure, seed " << o.seed
      << "; detectable: seen as a regression in " << percent(o.power) << " of the draws\n\n";
  char head[256];
  std::string sizes;
  for (const auto n : o.runs_per_side) sizes += " " + std::to_string(n);
  std::snprintf(head, sizeof head, "%-26s %-14s %5s %7s %9s %9s %8s %8s  %s\n", "metric", "model", "runs", "samples",
                "median", "threshold", "false", "flagged", ("smallest regression seen with runs a side:" + sizes).c_str());
  out << head;
  for (const auto& m : r.metrics) {
    std::string effects;
    for (const auto& e : m.effects) {
      effects += " " + std::to_string(e.runs_per_side) + ": " + (e.shift ? num(*e.shift) : std::string("not seen")) + ";";
    }
    if (!effects.empty()) effects.pop_back();
    char line[512];
    std::snprintf(line, sizeof line, "%-26s %-14s %5zu %7zu %9s %9s %8s %8s %s\n", std::string(m.def->name).c_str(),
                  m.model.empty() ? "(all)" : m.model.c_str(), m.runs, m.samples, num(m.median).c_str(),
                  threshold_of(m, o).c_str(), percent(m.false_regression_rate).c_str(), percent(m.flagged_rate).c_str(),
                  effects.c_str());
    out << line;
  }
  if (r.metrics.empty()) out << "(no compared metric has samples in 4 runs)\n";
  out << "\nfalse: splits of these runs into two halves the gate judged a regression; flagged: splits the test "
         "alone\nfound different (p < alpha, either way). Smallest regression seen: the shift the test finds in "
         "the\nshare of draws above. A comparison with fewer runs a side than its threshold needs is\n"
         "insufficient_power with compare --calibration and this calibration's JSON.\n";
}

void write_calibration_json(std::ostream& out, const CalibrationReport& r) {
  json metrics_json = json::array();
  for (const auto& m : r.metrics) {
    json effects = json::array();
    for (const auto& e : m.effects) {
      effects.push_back({{"runs_per_side", e.runs_per_side}, {"shift", e.shift ? json(*e.shift) : json(nullptr)}});
    }
    metrics_json.push_back({
        {"name", m.def->name},
        {"model", m.model.empty() ? json(nullptr) : json(m.model)},
        {"runs", m.runs},
        {"samples", m.samples},
        {"median", std::isfinite(m.median) ? json(m.median) : json(nullptr)},
        {"split_runs_per_side", m.split_runs},
        {"false_regression_rate", m.false_regression_rate},
        {"flagged_rate", m.flagged_rate},
        {"detectable", std::move(effects)},
    });
  }
  const json doc = {
      {"format", 1},
      {"kind", "calibration"},
      {"source", r.label},
      {"runs", r.runs},
      {"per", r.options.compare.per_run ? "run" : "device"},
      {"alpha", r.options.compare.alpha},
      {"resamples", r.options.resamples},
      {"seed", r.options.seed},
      {"power", r.options.power},
      {"metrics", std::move(metrics_json)},
      {"notices", r.notices},
  };
  out << exporters::json_text(doc, 2) << "\n";
}

void parse_calibration_options(const std::string* resamples, const std::string* seed,
                               const std::string* runs_per_side, metrics::CalibrationOptions& c) {
  using parsers::scan::parse_into;
  if (resamples && (!parse_into(*resamples, c.resamples) || c.resamples < 20 || c.resamples > 100000))
    throw UsageError{"--resamples needs a whole number from 20 to 100000"};
  if (seed && !parse_into(*seed, c.seed)) throw UsageError{"--seed needs a whole number"};
  if (runs_per_side) {
    c.runs_per_side.clear();
    for (const std::string_view item : parsers::scan::split_nonempty(*runs_per_side, ',')) {
      std::size_t n = 0;
      if (!parse_into(item, n) || n < 2 || n > 1000) throw UsageError{"--runs-per-side needs run counts from 2 to 1000"};
      c.runs_per_side.push_back(n);
    }
    if (c.runs_per_side.empty()) throw UsageError{"--runs-per-side needs run counts from 2 to 1000"};
  }
}

int calibrate(const std::vector<std::string>& sources, const std::string& package,
              const metrics::CalibrationOptions& options, bool json, double timeout_seconds, std::ostream& out,
              std::ostream& err) {
  CalibrationReport report;
  report.options = options;
  std::vector<metrics::CompareRun> runs;
  std::set<std::string> ids;
  for (const auto& source : sources) report.label += (report.label.empty() ? "" : " ") + source;
  for (auto& r : load_runs(sources, package, report.notices, timeout_seconds)) {
    if (!ids.insert(r.run.id).second) {
      report.notices.push_back(r.origin + ": run " + r.run.id + " given twice: counted once");
      continue;
    }
    runs.push_back(std::move(r.run));
  }
  if (runs.empty()) throw InputError("no finished run to calibrate on");
  report.runs = runs.size();
  report.metrics = metrics::calibrate(runs, options);
  for (const auto& n : report.notices) err << "jank_exporter compare: " << parsers::terminal_text(n) << "\n";
  if (json) {
    write_calibration_json(out, report);
  } else {
    write_calibration_text(out, report);
  }
  if (report.metrics.empty()) {
    err << "jank_exporter compare: no compared metric has samples in 4 runs: nothing to calibrate\n";
    return kExitNoInput;
  }
  return kExitOk;
}

std::vector<metrics::MetricCalibration> read_calibration(const std::string& path, bool& per_run) {
  exporters::results::InputFile file{path, {}};
  if (std::string error = read_results_file(path, path, file.text); !error.empty()) throw InputError(error);
  exporters::results::Calibration calibration;
  if (std::string error = exporters::results::read_calibration(file, calibration); !error.empty()) {
    throw InputError(error);
  }
  per_run = calibration.per_run;
  return std::move(calibration.metrics);
}

}  // namespace jank::app

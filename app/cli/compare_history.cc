#include "app/cli/compare_history.h"

#include <cmath>
#include <cstdio>
#include <ostream>

#include <nlohmann/json.hpp>

#include "app/cli/compare_input.h"
#include "app/cli/compare_output.h"
#include "app/core/exit_codes.h"
#include "exporters/json_text.h"
#include "metrics/run_history.h"
#include "parsers/utf8.h"

namespace jank::app {
namespace {

std::string num(double v) { return compare_number(v); }

std::string verdict_text(metrics::Verdict v) {
  switch (v) {
    case metrics::Verdict::kRegression:
      return "REGRESSION";
    case metrics::Verdict::kImprovement:
      return "improvement";
    case metrics::Verdict::kNoChange:
      return "no step";
    default:
      return "insufficient data";
  }
}

}  // namespace

int history(const std::vector<std::string>& sources, const std::string& package,
            const metrics::CompareOptions& options, bool json, double timeout_seconds, std::ostream& out,
            std::ostream& err) {
  std::vector<std::string> notices;
  std::vector<std::vector<metrics::CompareRun>> builds;
  for (const auto& source : sources) {
    auto& runs = builds.emplace_back();
    for (auto& r : load_runs({source}, package, notices, timeout_seconds)) runs.push_back(std::move(r.run));
    if (runs.empty()) throw InputError(source + ": no finished run of this build");
  }
  for (const auto& n : notices) err << "jank_exporter compare: " << parsers::terminal_text(n) << "\n";
  const auto steps = metrics::find_steps(builds, options);
  bool regressed = false, judged = false;
  for (const auto& s : steps) {
    regressed |= s.verdict == metrics::Verdict::kRegression;
    judged |= s.verdict != metrics::Verdict::kInsufficientData;
  }
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& s : steps) {
      const bool found = s.verdict != metrics::Verdict::kInsufficientData;
      list.push_back({{"name", s.def->name},
                      {"samples_per_build", s.samples_per_build},
                      {"step_at", found ? nlohmann::json(sources[s.step_at]) : nlohmann::json(nullptr)},
                      {"step_index", found ? nlohmann::json(s.step_at) : nlohmann::json(nullptr)},
                      {"median_before", found ? nlohmann::json(s.median_before) : nlohmann::json(nullptr)},
                      {"median_after", found ? nlohmann::json(s.median_after) : nlohmann::json(nullptr)},
                      {"relative_change_percent",
                       found && s.relative_change ? nlohmann::json(*s.relative_change) : nlohmann::json(nullptr)},
                      {"k", s.k},
                      {"p_value", s.p_value},
                      {"verdict", metrics::verdict_name(s.verdict)}});
    }
    const nlohmann::json doc = {{"format", 1},          {"kind", "history"}, {"builds", sources},
                                {"alpha", options.alpha}, {"metrics", list},  {"notices", notices}};
    out << exporters::json_text(doc, 2) << "\n";
  } else {
    out << "builds, oldest first:";
    for (std::size_t b = 0; b < sources.size(); ++b) out << (b ? ", " : " ") << b << " " << sources[b];
    out << "\nPettitt's change-point test at build boundaries; alpha " << num(options.alpha) << "\n\n";
    char line[512];
    std::snprintf(line, sizeof line, "%-26s %-10s %9s %9s %9s %10s  %s\n", "metric", "step at", "before", "after",
                  "change", "p", "verdict");
    out << line;
    for (const auto& s : steps) {
      const bool found = s.verdict != metrics::Verdict::kInsufficientData;
      std::snprintf(line, sizeof line, "%-26s %-10s %9s %9s %9s %10s  %s\n", std::string(s.def->name).c_str(),
                    found ? ("build " + std::to_string(s.step_at)).c_str() : "-",
                    found ? num(s.median_before).c_str() : "-", found ? num(s.median_after).c_str() : "-",
                    found ? num(s.change).c_str() : "-", found ? num(s.p_value).c_str() : "-",
                    verdict_text(s.verdict).c_str());
      out << line;
    }
    std::string names;
    for (const auto& s : steps) {
      if (s.verdict == metrics::Verdict::kRegression) {
        names += (names.empty() ? "" : ", ") + std::string(s.def->name) + " at " + sources[s.step_at];
      }
    }
    out << "\nverdict: " << (regressed ? "REGRESSION: " + names : judged ? "no step the worse way" : "insufficient data")
        << "\n";
  }
  if (regressed) return kExitRegression;
  return judged ? kExitOk : kExitNoInput;
}

}  // namespace jank::app

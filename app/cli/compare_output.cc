#include "app/cli/compare_output.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <nlohmann/json.hpp>

#include "exporters/json_text.h"
#include "exporters/junit.h"
#include <ostream>

namespace jank::app {
namespace {

using metrics::Verdict;

std::string num(double v, bool sign = false, int digits = 4) { return compare_number(v, sign, digits); }

}  // namespace

std::string compare_number(double v, bool sign, int digits) {
  if (std::isnan(v)) return "-";
  char buf[48];
  if (std::abs(v) >= std::pow(10.0, digits))
    std::snprintf(buf, sizeof buf, sign ? "%+.0f" : "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, sign ? "%+.*g" : "%.*g", digits, v);
  return buf;
}

namespace {

std::string p_text(double p) {
  if (p < 1e-4) return "<0.0001";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", p);
  return buf;
}

std::string threshold_text(metrics::Threshold t) { return num(t.value) + (t.relative ? "%" : ""); }

std::string change_text(const metrics::MetricComparison& m) {
  if (m.verdict == Verdict::kInsufficientData) return "-";
  std::string s = num(m.change, true);
  if (m.relative_change) return s + " (" + num(*m.relative_change, true, 3) + "%)";
  return m.change == 0 ? s : s + " (new)";
}

std::string shift_text(const metrics::MetricComparison& m) {
  if (!m.shift) return "-";
  std::string s = num(m.shift->shift, true);
  if (m.shift->low && m.shift->high) return s + " [" + num(*m.shift->low, true) + ", " + num(*m.shift->high, true) + "]";
  return s + " [unbounded]";
}

std::string verdict_text(Verdict v) {
  switch (v) {
    case Verdict::kRegression:
      return "REGRESSION";
    case Verdict::kImprovement:
      return "improvement";
    case Verdict::kNoChange:
      return "no change";
    case Verdict::kInsufficientData:
      return "insufficient data";
    case Verdict::kUnequalWork:
      return "UNEQUAL WORK";
    case Verdict::kInsufficientPower:
      return "INSUFFICIENT POWER";
  }
  return "";
}

// A metric's verdict, and when a calibration says its runs could not have
// seen the configured change, that too.
std::string metric_verdict_text(const metrics::MetricComparison& m) {
  return verdict_text(m.verdict) + (m.powered == false ? " (underpowered)" : "");
}

std::string underpowered_names(const metrics::Comparison& c) {
  std::string names;
  for (const auto& m : c.metrics) {
    if (m.powered == false) names += (names.empty() ? "" : ", ") + std::string(m.def->name);
  }
  return names;
}

std::string work_row(const std::string& measure, const std::string& n, const std::string& a, const std::string& b,
                     const std::string& difference, const std::string& verdict) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-26s %9s %12s %12s %12s  %s", measure.c_str(), n.c_str(), a.c_str(), b.c_str(),
                difference.c_str(), verdict.c_str());
  std::string s = buf;
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s + "\n";
}

std::string difference_text(const metrics::WorkComparison& w) {
  if (w.relative_difference) return num(*w.relative_difference, true, 3) + "%";
  return w.median_candidate == w.median_baseline ? "0%" : "(from 0)";
}

std::string unequal_names(const metrics::Comparison& c) {
  std::string names;
  for (const auto& w : c.work) {
    if (w.unequal) names += (names.empty() ? "" : ", ") + std::string(w.def->name) + " " + difference_text(w);
  }
  return names;
}

std::string row(const std::string& metric, const std::string& unit, const std::string& better, const std::string& n, const std::string& a,
                const std::string& b, const std::string& change, const std::string& shift, const std::string& p,
                const std::string& threshold, const std::string& verdict) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-26s %-6s %-6s %9s %9s %9s %18s %26s %8s %9s  %s", metric.c_str(), unit.c_str(),
                better.c_str(),
                n.c_str(), a.c_str(), b.c_str(), change.c_str(), shift.c_str(), p.c_str(), threshold.c_str(),
                verdict.c_str());
  std::string s = buf;
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s + "\n";
}

std::string names_with(const metrics::Comparison& c, Verdict v) {
  std::string names;
  for (const auto& m : c.metrics)
    if (m.verdict == v) names += (names.empty() ? "" : ", ") + std::string(m.def->name);
  return names;
}

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json side_json(const CompareSide& s) {
  return {{"label", s.label}, {"runs", s.run_ids}, {"run_devices", s.devices}};
}

}  // namespace

std::string compare_help_footer() {
  std::string text = "Metrics (default threshold):\n";
  for (const auto& m : metrics::compared_metrics()) {
    std::ostringstream line;
    line << "  " << m.name << " (" << m.unit << ", " << (m.better == metrics::Better::kLower ? "lower" : "higher")
         << " is better): " << m.threshold.value << (m.threshold.relative ? "%" : "") << "\n";
    text += line.str();
  }
  return text +
         "\n"
         "A metric regresses when p < alpha and its median moved the worse way by at least\n"
         "its threshold. Fewer than 10 samples on a side: a warning; fewer than 3: no verdict.\n"
         "\n"
         "Before any metric, the builds' work is compared: the frames the app was asked for\n"
         "(drawn or skipped) and the duration. A median beyond --work-tolerance of the\n"
         "baseline's makes the verdict unequal_work: the runs did not do the same thing.\n"
         "\n"
         "--history: Pettitt's change-point test per metric over the builds given in order;\n"
         "exit status 1 when a metric stepped the worse way.\n"
         "\n"
         "Exit status: 0 no regression, 1 regression, 3 unequal work, 5 insufficient power\n"
         "(--calibration), 64 bad usage, 66 a source cannot be read or is not format-1\n"
         "results, a side has no run, or no metric has 3 samples on each side.";
}

void write_compare_text(std::ostream& out, const CompareReport& r) {
  const auto& o = r.options;
  for (const auto* side : {&r.baseline, &r.candidate}) {
    out << (side == &r.baseline ? "baseline:  " : "candidate: ") << side->label << " (" << side->run_ids.size()
        << " runs, " << side->devices << " run × device results)\n";
  }
  const int confidence = static_cast<int>(std::lround((1 - o.alpha) * 100));
  out << "one sample per " << (o.per_run ? "run (its devices averaged)" : "run and device")
      << "; Mann-Whitney U, alpha " << num(o.alpha) << "; shift: Hodges-Lehmann, " << confidence
      << "% interval\n\n";
  if (!r.comparison.work.empty()) {
    out << work_row("work (medians)", "n (b/c)", "baseline", "candidate", "difference",
                    o.work_tolerance_percent >= 0 ? "tolerance " + num(o.work_tolerance_percent) + "%" : "not checked");
    for (const auto& w : r.comparison.work) {
      out << work_row(std::string(w.def->name), std::to_string(w.n_baseline) + "/" + std::to_string(w.n_candidate),
                      num(w.median_baseline), num(w.median_candidate), difference_text(w), w.unequal ? "UNEQUAL" : "");
    }
    out << "\n";
  }
  out << row("metric", "unit", "better", "n (b/c)", "baseline", "candidate", "change of medians",
             "shift [" + std::to_string(confidence) + "% interval]", "p", "threshold", "verdict");
  for (const auto& m : r.comparison.metrics) {
    const bool judged = m.verdict != Verdict::kInsufficientData;
    out << row(std::string(m.def->name), std::string(m.def->unit), m.def->better == metrics::Better::kLower ? "lower" : "higher",
               std::to_string(m.n_baseline) + "/" + std::to_string(m.n_candidate), num(m.median_baseline),
               num(m.median_candidate), change_text(m), shift_text(m), judged ? p_text(m.test.p_value) : "-",
               threshold_text(m.threshold), metric_verdict_text(m));
  }
  if (r.comparison.metrics.empty()) out << "(no compared metric appears in these runs)\n";
  out << "\n";
  for (const auto& m : r.comparison.metrics) {
    if (m.few_samples)
      out << "warning: " << m.def->name << ": " << m.n_baseline << " baseline and " << m.n_candidate
          << " candidate samples, fewer than " << metrics::kFewSamples << " on a side: a real change may go unseen\n";
    else if (m.verdict == Verdict::kInsufficientData)
      out << "warning: " << m.def->name << ": fewer than " << metrics::kMinSamples
          << " samples on a side, no verdict\n";
  }
  switch (r.comparison.overall) {
    case Verdict::kRegression:
      out << "verdict: REGRESSION in " << names_with(r.comparison, Verdict::kRegression) << "\n";
      break;
    case Verdict::kImprovement:
      out << "verdict: no regression; improvement in " << names_with(r.comparison, Verdict::kImprovement) << "\n";
      break;
    case Verdict::kNoChange:
      out << "verdict: no regression\n";
      break;
    case Verdict::kInsufficientData:
      out << "verdict: insufficient data (no metric has " << metrics::kMinSamples << " samples on each side)\n";
      break;
    case Verdict::kUnequalWork:
      out << "verdict: UNEQUAL WORK, no verdict on the metrics: " << unequal_names(r.comparison)
          << " beyond the tolerance of " << num(o.work_tolerance_percent) << "%\n";
      break;
    case Verdict::kInsufficientPower:
      out << "verdict: INSUFFICIENT POWER, no regression seen but these runs could not have seen one of its "
             "threshold in "
          << underpowered_names(r.comparison) << " (by the calibration: more runs a side)\n";
      break;
  }
}

std::string compare_junit(const CompareReport& r) {
  using Outcome = exporters::JunitCase::Outcome;
  exporters::JunitSuite suite{"compare " + r.baseline.label + " vs " + r.candidate.label,
                              {{"baseline", r.baseline.label},
                               {"candidate", r.candidate.label},
                               {"verdict", std::string(metrics::verdict_name(r.comparison.overall))}},
                              {}};
  for (const auto& w : r.comparison.work) {
    exporters::JunitCase k{"work", std::string(w.def->name), Outcome::kPassed, "", "", ""};
    if (w.unequal) {
      k.outcome = Outcome::kFailed;
      k.type = "unequal_work";
      k.message = std::string(w.def->name) + " " + difference_text(w) + " (median " + num(w.median_baseline) +
                  " → " + num(w.median_candidate) + ")";
      k.text = "the sides did not do the same work: no verdict on the metrics";
    }
    suite.cases.push_back(std::move(k));
  }
  for (const auto& m : r.comparison.metrics) {
    exporters::JunitCase k{"metric", std::string(m.def->name), Outcome::kPassed, "", "", ""};
    const std::string figures = "median " + num(m.median_baseline) + " → " + num(m.median_candidate) + ", change " +
                                change_text(m) + ", p " + p_text(m.test.p_value) + ", threshold " +
                                threshold_text(m.threshold);
    if (m.verdict == Verdict::kRegression) {
      k.outcome = Outcome::kFailed;
      k.type = "regression";
      k.message = figures;
      k.text = std::string(m.def->name) + " regressed: " + figures;
    } else if (m.powered == false) {
      k.outcome = Outcome::kFailed;
      k.type = "insufficient_power";
      k.message = "these runs could not have seen a change of " + threshold_text(m.threshold);
      k.text = k.message + " (by the calibration): more runs a side";
    } else if (m.verdict == Verdict::kInsufficientData) {
      k.outcome = Outcome::kSkipped;
      k.message = "fewer than " + std::to_string(metrics::kMinSamples) + " samples on a side";
    }
    suite.cases.push_back(std::move(k));
  }
  return exporters::junit_xml("jank_exporter compare", {suite});
}

void write_compare_json(std::ostream& out, const CompareReport& r) {
  nlohmann::json metrics_json = nlohmann::json::array();
  for (const auto& m : r.comparison.metrics) {
    const bool judged = m.verdict != Verdict::kInsufficientData;
    nlohmann::json j = {
        {"name", m.def->name},
        {"unit", m.def->unit},
        {"better", m.def->better == metrics::Better::kLower ? "lower" : "higher"},
        {"n_baseline", m.n_baseline},
        {"n_candidate", m.n_candidate},
        {"median_baseline", number_or_null(m.median_baseline)},
        {"median_candidate", number_or_null(m.median_candidate)},
        {"change", judged ? number_or_null(m.change) : nullptr},
        {"relative_change_percent", judged && m.relative_change ? number_or_null(*m.relative_change) : nullptr},
        {"shift", m.shift ? number_or_null(m.shift->shift) : nullptr},
        {"shift_low", m.shift && m.shift->low ? number_or_null(*m.shift->low) : nullptr},
        {"shift_high", m.shift && m.shift->high ? number_or_null(*m.shift->high) : nullptr},
        {"u", judged ? number_or_null(m.test.u_b) : nullptr},
        {"p_value", judged ? number_or_null(m.test.p_value) : nullptr},
        {"exact", judged && m.test.exact},
        {"threshold", m.threshold.value},
        {"threshold_relative", m.threshold.relative},
        {"few_samples", m.few_samples},
        {"verdict", metrics::verdict_name(m.verdict)},
        {"powered", m.powered ? nlohmann::json(*m.powered) : nlohmann::json(nullptr)},
    };
    metrics_json.push_back(std::move(j));
  }
  nlohmann::json work_json = nlohmann::json::array();
  for (const auto& w : r.comparison.work) {
    work_json.push_back({
        {"name", w.def->name},
        {"n_baseline", w.n_baseline},
        {"n_candidate", w.n_candidate},
        {"median_baseline", number_or_null(w.median_baseline)},
        {"median_candidate", number_or_null(w.median_candidate)},
        {"relative_difference_percent", w.relative_difference ? number_or_null(*w.relative_difference) : nullptr},
        {"unequal", w.unequal},
    });
  }
  const nlohmann::json doc = {
      {"format", 1},
      {"baseline", side_json(r.baseline)},
      {"candidate", side_json(r.candidate)},
      {"per", r.options.per_run ? "run" : "device"},
      {"alpha", r.options.alpha},
      {"work_tolerance_percent", r.options.work_tolerance_percent >= 0 ? nlohmann::json(r.options.work_tolerance_percent)
                                                                        : nlohmann::json(nullptr)},
      {"work", std::move(work_json)},
      {"metrics", std::move(metrics_json)},
      {"notices", r.notices},
      {"verdict", metrics::verdict_name(r.comparison.overall)},
  };
  out << exporters::json_text(doc, 2) << "\n";
}

}  // namespace jank::app

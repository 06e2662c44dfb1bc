#include "app/cli/check_output.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "exporters/json_text.h"
#include "exporters/junit.h"

namespace jank::app {
namespace {

using metrics::LimitCheck;
using metrics::LimitOutcome;

// Whole numbers as they are (0 frozen frames, 301989888 bytes); others to
// four significant digits (3.333 %, 59.97 fps).
std::string num(double v) {
  char buf[48];
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string limit_text(const metrics::BudgetLimit& l) {
  return std::string(metrics::limit_kind_name(l.kind)) + " " + num(l.value);
}

std::string value_text(const LimitCheck& c) { return c.value ? num(*c.value) : "-"; }

// "Pixel 7, sdk 34, 90 Hz": what the tiers select on.
std::string kind_text(const metrics::DeviceCheck& d) {
  std::string s = d.model.empty() ? "no model" : d.model;
  s += d.sdk ? ", sdk " + num(*d.sdk) : ", no sdk";
  s += d.refresh_hz ? ", " + num(*d.refresh_hz) + " Hz" : ", no refresh rate";
  return s;
}

// "janky_percent 3.333 > max 2"
std::string breach_text(const LimitCheck& c) {
  return c.limit.metric + " " + value_text(c) + (c.limit.kind == metrics::LimitKind::kMax ? " > " : " < ") +
         limit_text(c.limit);
}

std::string row(const std::string& metric, const std::string& value, const std::string& limit,
                const std::string& outcome) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "  %-26s %12s %14s  %s", metric.c_str(), value.c_str(), limit.c_str(), outcome.c_str());
  std::string s = buf;
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s + "\n";
}

std::string outcome_text(LimitOutcome o) {
  switch (o) {
    case LimitOutcome::kPass:
      return "pass";
    case LimitOutcome::kBreach:
      return "BREACH";
    case LimitOutcome::kNoValue:
      return "no value";
  }
  return "";
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}


nlohmann::json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

void write_check_text(std::ostream& out, const CheckReport& r) {
  const auto& c = r.check;
  out << "budgets: " << r.budgets_file << " (" << plural(r.budgets.tiers.size(), "tier", "tiers") << ")\n";
  std::vector<std::string> breaches;
  for (const auto& run : c.runs) {
    for (const auto& d : run.devices) {
      out << "\nrun " << run.id << " (" << run.package << "), device " << d.serial << " (" << kind_text(d) << "): ";
      if (!d.tier) {
        out << "no tier matches\n";
        continue;
      }
      out << "tier " << r.budgets.tiers[*d.tier].name << "\n";
      out << row("metric", "value", "limit", "outcome");
      for (const auto& l : d.limits) {
        out << row(l.limit.metric, value_text(l), limit_text(l.limit), outcome_text(l.outcome));
        if (l.outcome == LimitOutcome::kBreach)
          breaches.push_back("run " + run.id + ", device " + d.serial + ": " + breach_text(l));
      }
    }
  }
  out << "\n";
  for (const auto& b : breaches) out << "breach: " << b << "\n";
  std::string counts = plural(c.passes, "limit held", "limits held") + ", " +
                       plural(c.no_values, "without a value", "without a value") + ", " +
                       plural(c.untiered, "device of no tier", "devices of no tier");
  if (c.breached())
    out << "check: BREACHED, " << plural(c.breaches, "limit", "limits") << " broken; " << counts << "\n";
  else if (c.passes + c.no_values == 0)
    out << "check: no limit checked (no device matches a tier); " << counts << "\n";
  else
    out << "check: every limit held; " << counts << "\n";
}

void write_check_json(std::ostream& out, const CheckReport& r) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& run : r.check.runs) {
    nlohmann::json devices = nlohmann::json::array();
    for (const auto& d : run.devices) {
      nlohmann::json limits = nlohmann::json::array();
      for (const auto& l : d.limits) {
        limits.push_back({{"metric", l.limit.metric},
                          {"kind", metrics::limit_kind_name(l.limit.kind)},
                          {"limit", l.limit.value},
                          {"value", optional_number(l.value)},
                          {"outcome", metrics::outcome_name(l.outcome)}});
      }
      devices.push_back({{"serial", d.serial},
                         {"model", d.model},
                         {"sdk", optional_number(d.sdk)},
                         {"refresh_hz", optional_number(d.refresh_hz)},
                         {"tier", d.tier ? nlohmann::json(r.budgets.tiers[*d.tier].name) : nlohmann::json(nullptr)},
                         {"limits", std::move(limits)}});
    }
    runs.push_back({{"id", run.id}, {"package", run.package}, {"devices", std::move(devices)}});
  }
  const auto& c = r.check;
  const nlohmann::json doc = {
      {"format", 1},
      {"budgets", r.budgets_file},
      {"runs", std::move(runs)},
      {"passes", c.passes},
      {"breaches", c.breaches},
      {"no_values", c.no_values},
      {"untiered_devices", c.untiered},
      {"notices", r.notices},
      {"verdict", c.breached() ? "breach" : "pass"},
  };
  out << exporters::json_text(doc, 2) << "\n";
}

std::string check_junit(const CheckReport& r) {
  using Outcome = exporters::JunitCase::Outcome;
  std::vector<exporters::JunitSuite> suites;
  for (const auto& run : r.check.runs) {
    exporters::JunitSuite suite{"run " + run.id, {{"package", run.package}, {"budgets", r.budgets_file}}, {}};
    for (const auto& d : run.devices) {
      if (!d.tier) {
        suite.cases.push_back({d.serial, "tier", Outcome::kSkipped, "", "no tier matches " + kind_text(d), ""});
        continue;
      }
      const std::string& tier = r.budgets.tiers[*d.tier].name;
      for (const auto& l : d.limits) {
        exporters::JunitCase k{d.serial, l.limit.metric + " " + limit_text(l.limit) + " (tier " + tier + ")",
                               Outcome::kPassed, "", "", ""};
        if (l.outcome == LimitOutcome::kBreach) {
          k.outcome = Outcome::kFailed;
          k.type = "budget_breach";
          k.message = breach_text(l);
          k.text = "run " + run.id + ", device " + d.serial + " (" + kind_text(d) + "), tier " + tier + ": " +
                   breach_text(l);
        } else if (l.outcome == LimitOutcome::kNoValue) {
          k.outcome = Outcome::kSkipped;
          k.message = "no value: the results have no " + l.limit.metric;
        }
        suite.cases.push_back(std::move(k));
      }
    }
    suites.push_back(std::move(suite));
  }
  return exporters::junit_xml("jank_exporter check", suites);
}

}  // namespace jank::app

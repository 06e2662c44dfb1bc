// `jank_exporter report`'s page: run results (docs/runs.md, format 1) in, one
// self-contained HTML document out (inline CSS, JS and data; no request ever
// leaves the page). The run table and the comparison's numbers are written
// here, so they read without JS; charts.js draws the charts from the data
// embedded as JSON. No I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporters/run_results_input.h"
#include "metrics/run_budgets.h"

namespace jank::exporters {

struct RunReportRequest {
  std::vector<results::InputFile> runs;  // shown, in no comparison group
  std::vector<results::InputFile> baseline;
  std::vector<results::InputFile> candidate;
  std::optional<results::InputFile> verdict;  // a `jank_exporter compare` result
  // A `jank_exporter compare --calibrate --json` result: the gate's false
  // alarms and the smallest regression it sees, per run count.
  std::optional<results::InputFile> calibration;
  std::string title;                          // "" = "Jank report"
  // Absolute limits per device tier (docs/runs.md "Budgets"), read by the
  // caller: every finished run's settled devices are checked and shown.
  std::optional<metrics::Budgets> budgets;
  std::string budgets_file;
};

struct RunReportResult {
  std::string html;   // "" on error
  std::string error;  // "FILE: FIELD: what is wrong"
  bool ok() const { return error.empty(); }
};

// Deterministic: the same request gives the same bytes.
RunReportResult render_run_report(const RunReportRequest& request);

// &, <, >, " and ' as entities: text and attribute values alike.
std::string html_escape(std::string_view text);

// JSON text made safe inside <script type="application/json">: <, > and & as
// \u escapes (the same string to JSON.parse), so no "</script" or "<!--" can
// end or bend the element.
std::string script_safe_json(std::string_view json_text);

// The numbers as the page shows them: `decimals` fixed digits ("-" never for
// zero), and the shortest text that reads back exactly (data-value).
std::string format_fixed(double value, int decimals);
std::string format_exact(double value);

}  // namespace jank::exporters

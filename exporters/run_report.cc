#include "exporters/run_report.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "exporters/json_text.h"

#include "exporters/report_assets.h"
#include "parsers/utf8.h"

namespace jank::exporters {
namespace {

using nlohmann::json;
using results::Device;
using results::Group;
using results::Run;

constexpr std::string_view kMissing = "\u2013";  // en dash: "not measured", never 0

// How a metric is shown. `trim`: drop trailing zeros (bucket bounds such as
// 17 ms read better than 17.0).
struct MetricInfo {
  std::string_view key;
  std::string_view label;
  std::string_view unit;
  int decimals;
  bool trim;
};

constexpr std::array<MetricInfo, 31> kMetrics = {{
    {"frames", "Frames", "", 0, false},
    {"janky_frames", "Janky frames", "", 0, false},
    {"janky_percent", "Janky", "%", 2, false},
    {"slow_frames", "Slow frames", "", 0, false},
    {"slow_percent", "Slow", "%", 2, false},
    {"frozen_frames", "Frozen frames", "", 0, false},
    {"frozen_percent", "Frozen", "%", 3, false},
    {"sf_slow_frames", "Slow frames (SurfaceFlinger)", "", 0, false},
    {"sf_frozen_frames", "Frozen frames (SurfaceFlinger)", "", 0, false},
    {"frame_time_p50_ms", "Frame time p50", "ms", 1, true},
    {"frame_time_p90_ms", "Frame time p90", "ms", 1, true},
    {"frame_time_p95_ms", "Frame time p95", "ms", 1, true},
    {"frame_time_p99_ms", "Frame time p99", "ms", 1, true},
    {"max_frame_ms", "Longest frame", "ms", 1, true},
    {"skipped_frames", "Skipped frames", "", 0, false},
    {"skip_events", "Skip events", "", 0, false},
    {"max_skipped_frames", "Largest skip", "frames", 0, false},
    {"sm", "SM", "frames/s", 1, false},
    {"davey_frames", "Davey frames", "", 0, false},
    {"fps", "FPS", "frames/s", 1, false},
    {"jank", "Jank", "", 0, false},
    {"big_jank", "Big jank", "", 0, false},
    {"stutter_percent", "Stutter", "%", 2, false},
    {"ft_janky_frames", "FrameTimeline janky", "", 0, false},
    {"duration_seconds", "Duration", "s", 1, false},
    {"cpu_percent", "App CPU", "% of a core", 1, false},
    {"cpu_p95_percent", "App CPU p95", "% of a core", 1, false},
    {"main_thread_cpu_percent", "Main thread CPU", "% of a core", 1, false},
    {"peak_rss_bytes", "Peak memory", "bytes", 0, false},
    {"throttled_seconds", "CPU throttled", "s", 1, false},
    {"throttled_percent", "CPU throttled", "%", 1, false},
}};

constexpr double kBytesPerMiB = 1024.0 * 1024.0;

const MetricInfo& info(std::string_view key) {
  for (const auto& m : kMetrics) {
    if (m.key == key) return m;
  }
  static const MetricInfo unknown{"", "", "", 2, true};
  return unknown;
}

// The comparison's rows, in the order a reader scans them: jank first.
constexpr std::array<std::string_view, 13> kCompared = {
    "janky_percent",  "frame_time_p90_ms",  "frame_time_p95_ms", "frame_time_p99_ms", "max_frame_ms",
    "sm",             "fps",                "skipped_frames",    "max_skipped_frames", "davey_frames",
    "jank",           "big_jank",           "stutter_percent"};

std::string attr(std::string_view name, std::string_view value) {
  return std::string(" ") + std::string(name) + "=\"" + html_escape(value) + "\"";
}

std::string display(double value, const MetricInfo& m) {
  std::string s = format_fixed(value, m.decimals);
  if (m.trim && s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

const char* group_name(Group g) {
  switch (g) {
    case Group::baseline: return "baseline";
    case Group::candidate: return "candidate";
    case Group::none: break;
  }
  return "";
}

std::optional<double> metric_of(const Run& r, const Device& d, std::string_view key) {
  if (key == "duration_seconds") return r.duration_seconds;
  const auto it = d.metrics.find(std::string(key));
  if (it == d.metrics.end()) return std::nullopt;
  return it->second;
}

// One number in the DOM: its element carries what it is and its exact value,
// so a test (or a scraper) never has to parse the formatted text.
void number(std::string& out, std::string_view tag, std::string_view cls, const std::string& scope_attrs,
            std::string_view metric, std::optional<double> value, const std::string& text = "") {
  out += "<" + std::string(tag) + attr("class", value ? std::string(cls) : std::string(cls) + " missing") + scope_attrs +
         attr("data-metric", metric);
  if (value) {
    out += attr("data-value", format_exact(*value)) + ">" + html_escape(text.empty() ? display(*value, info(metric)) : text);
  } else {
    out += ">" + std::string(kMissing);
  }
  out += "</" + std::string(tag) + ">";
}

std::string scope(const Run& r, const Device* d) {
  return attr("data-run", r.id) + (d ? attr("data-serial", d->serial) : std::string());
}

std::string version_text(const Device& d) {
  if (d.versions.empty()) return "";
  auto one = [](const results::Version& v) { return v.name.empty() && v.code ? format_exact(static_cast<double>(*v.code)) : v.name; };
  std::string s = one(d.versions.front());
  if (d.versions.size() > 1) s += " \u2192 " + one(d.versions.back());
  return s;
}

// A package name that may wrap after its dots, never inside a word.
std::string breakable(const std::string& package) {
  std::string out;
  for (char c : html_escape(package)) {
    out += c;
    if (c == '.') out += "<wbr>";
  }
  return out;
}

void run_table(std::string& out, const std::vector<Run>& runs) {
  out += "<section id=\"runs\"><h2>Runs</h2><div class=\"table-wrap\"><table class=\"runs\"><thead><tr>"
         "<th>Run</th><th>Name</th><th>App</th><th>Version</th><th>Device</th>"
         "<th class=\"num\">Duration<br><small>s</small></th><th class=\"num\">Frames</th>"
         "<th class=\"num\">Janky<br><small>%</small></th><th class=\"num\">Slow<br><small>%</small></th>"
         "<th class=\"num\">p90<br><small>ms</small></th>"
         "<th class=\"num\">p95<br><small>ms</small></th><th class=\"num\">p99<br><small>ms</small></th>"
         "<th class=\"num\">SM<br><small>frames/s</small></th><th class=\"num\">FPS<br><small>frames/s</small></th>"
         "<th class=\"num\">Skipped<br><small>frames</small></th><th class=\"num\">Max skip<br><small>frames</small></th>"
         "<th class=\"num\">Davey</th><th class=\"num\">Frozen<br><small>frames</small></th>"
         "<th class=\"num\">Jank / big jank</th><th class=\"num\">CPU<br><small>% of a core, mean / p95</small></th>"
         "<th class=\"num\">Main thread<br><small>% of a core</small></th><th class=\"num\">Peak RSS<br><small>MiB</small></th>"
         "<th class=\"num\">Throttled<br><small>%</small></th></tr></thead>\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Run& r = runs[i];
    const std::size_t rows = std::max<std::size_t>(r.devices.size(), 1);
    const std::string span = rows > 1 ? attr("rowspan", std::to_string(rows)) : std::string();
    out += "<tbody" + attr("class", std::string("run ") + group_name(r.group)) + scope(r, nullptr) + ">";
    for (std::size_t k = 0; k < rows; ++k) {
      const Device* d = k < r.devices.size() ? &r.devices[k] : nullptr;
      out += "<tr>";
      if (k == 0) {
        out += "<td" + span + " class=\"id\"><a" + attr("href", "#run-" + std::to_string(i)) + ">" + html_escape(r.id) + "</a>";
        if (r.group != Group::none) out += " <span" + attr("class", std::string("badge ") + group_name(r.group)) + ">" + group_name(r.group) + "</span>";
        if (!r.state.empty() && r.state != "finished") out += " <span class=\"badge state\">" + html_escape(r.state) + "</span>";
        out += "</td><td" + span + " class=\"name\">" + html_escape(r.name);
        for (const auto& [key, value] : r.tags) {
          out += " <span class=\"tag\">" + html_escape(key) + ": " + html_escape(value) + "</span>";
        }
        out += "</td><td" + span + " class=\"app\">" + breakable(r.package) + "</td>";
      }
      if (!d) {
        out += "<td class=\"missing\" colspan=\"20\">no device in this run</td></tr>";
        continue;
      }
      const std::string sc = scope(r, d);
      out += "<td>" + html_escape(version_text(*d)) + "</td><td class=\"device\">" + html_escape(d->serial);
      if (!d->model.empty()) out += " <small>" + html_escape(d->model) + "</small>";
      out += "</td>";
      for (std::string_view key : {"duration_seconds", "frames", "janky_percent", "slow_percent", "frame_time_p90_ms",
                                   "frame_time_p95_ms", "frame_time_p99_ms", "sm", "fps", "skipped_frames",
                                   "max_skipped_frames", "davey_frames", "frozen_frames"}) {
        number(out, "td", "num", sc, key, metric_of(r, *d, key));
      }
      out += "<td class=\"num\">";
      number(out, "span", "", sc, "jank", metric_of(r, *d, "jank"));
      out += " / ";
      number(out, "span", "", sc, "big_jank", metric_of(r, *d, "big_jank"));
      out += "</td><td class=\"num\">";
      number(out, "span", "", sc, "cpu_percent", metric_of(r, *d, "cpu_percent"));
      out += " / ";
      number(out, "span", "", sc, "cpu_p95_percent", metric_of(r, *d, "cpu_p95_percent"));
      out += "</td>";
      number(out, "td", "num", sc, "main_thread_cpu_percent", metric_of(r, *d, "main_thread_cpu_percent"));
      const auto rss = metric_of(r, *d, "peak_rss_bytes");
      number(out, "td", "num", sc, "peak_rss_bytes", rss, rss ? format_fixed(*rss / kBytesPerMiB, 1) : "");
      number(out, "td", "num", sc, "throttled_percent", metric_of(r, *d, "throttled_percent"));
      out += "</tr>\n";
    }
    out += "</tbody>\n";
  }
  out += "</table></div></section>\n";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Every (run, device) value of `key` in a group: one sample per device's run.
std::vector<double> samples(const std::vector<Run>& runs, Group g, std::string_view key) {
  std::vector<double> out;
  for (const auto& r : runs) {
    if (r.group != g) continue;
    for (const auto& d : r.devices) {
      if (auto v = metric_of(r, d, key)) out.push_back(*v);
    }
  }
  return out;
}

struct Row {
  std::string metric;
  std::optional<double> baseline, candidate, change;
  std::string verdict;
  std::vector<double> baseline_values, candidate_values;
  std::optional<bool> powered = std::nullopt;  // compare --calibration's word on the metric
};

std::vector<Row> comparison_rows(const std::vector<Run>& runs, const results::Verdict* verdict) {
  std::vector<Row> rows;
  auto fill_samples = [&](Row& row) {
    row.baseline_values = samples(runs, Group::baseline, row.metric);
    row.candidate_values = samples(runs, Group::candidate, row.metric);
  };
  if (verdict) {  // compare's numbers are the authority: shown as given
    for (const auto& m : verdict->metrics) {
      Row row{m.metric, m.baseline_median, m.candidate_median, m.change, m.verdict, {}, {}, m.powered};
      fill_samples(row);
      rows.push_back(std::move(row));
    }
    return rows;
  }
  for (std::string_view key : kCompared) {
    Row row;
    row.metric = std::string(key);
    fill_samples(row);
    if (row.baseline_values.empty() && row.candidate_values.empty()) continue;
    if (!row.baseline_values.empty()) row.baseline = median(row.baseline_values);
    if (!row.candidate_values.empty()) row.candidate = median(row.candidate_values);
    if (row.baseline && row.candidate && *row.baseline != 0) {
      row.change = (*row.candidate - *row.baseline) / std::fabs(*row.baseline) * 100;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string change_text(double change) {
  std::string s = format_fixed(change, 1);
  if (s != "0.0" && s[0] != '-') s = "+" + s;
  if (s[0] == '-') s = "\u2212" + s.substr(1);  // a real minus sign
  return s + " %";
}

// A verdict as a class name: "no change" → "v-no-change".
std::string verdict_class(std::string v) {
  std::replace(v.begin(), v.end(), ' ', '-');
  return "v-" + v;
}

// "no change" → "No change".
std::string verdict_label(std::string v) {
  if (!v.empty()) v[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(v[0])));
  return v;
}

// compare's check that both builds did the same work (docs/runs.md, "Same work").
void work_table(std::string& out, const results::Verdict& verdict) {
  out += "<h3>Same work</h3><p class=\"note\">Medians of each side, as <code>jank_exporter compare</code> "
         "checked them " +
         (verdict.work_tolerance_percent ? "against a tolerance of " + format_fixed(*verdict.work_tolerance_percent, 0) + " %"
                                         : std::string("(not checked: --work-tolerance off)")) +
         ".</p><div class=\"table-wrap\"><table class=\"comparison work\"><thead><tr><th>Measure</th>"
         "<th class=\"num baseline\">Baseline</th><th class=\"num candidate\">Candidate</th>"
         "<th class=\"num\">Difference</th><th>Work</th></tr></thead><tbody>\n";
  for (const auto& w : verdict.work) {
    const std::string sc = attr("data-work", w.measure);
    out += "<tr" + sc + "><th scope=\"row\">" + html_escape(w.measure) + "</th>";
    number(out, "td", "num", sc, "baseline_median", w.baseline_median, w.baseline_median ? format_fixed(*w.baseline_median, 1) : "");
    number(out, "td", "num", sc, "candidate_median", w.candidate_median,
           w.candidate_median ? format_fixed(*w.candidate_median, 1) : "");
    number(out, "td", "num", sc, "difference", w.difference, w.difference ? change_text(*w.difference) : "");
    out += "<td><span" + attr("class", std::string("badge ") + (w.unequal ? "v-unequal-work" : "v-no-change")) + sc +
           attr("data-metric", "unequal") + attr("data-value", w.unequal ? "true" : "false") + ">" +
           (w.unequal ? "unequal" : "same") + "</span></td></tr>\n";
  }
  out += "</tbody></table></div>";
}

void comparison(std::string& out, const std::vector<Run>& runs, const std::vector<Row>& rows,
                const results::Verdict* verdict) {
  std::size_t counts[2] = {0, 0};
  for (const auto& r : runs) {
    if (r.group == Group::baseline) ++counts[0];
    if (r.group == Group::candidate) ++counts[1];
  }
  out += "<section id=\"comparison\"><h2>Baseline and candidate</h2>";
  if (verdict) {
    out += "<div" + attr("class", "verdict " + verdict_class(verdict->verdict)) + attr("data-metric", "verdict") +
           attr("data-value", verdict->verdict) + "><span class=\"verdict-word\">" + html_escape(verdict_label(verdict->verdict)) +
           "</span><span class=\"verdict-source\">verdict of <code>jank_exporter compare</code> (" +
           html_escape(verdict->file) + ")</span></div>";
  } else {
    out += "<p class=\"note\">Medians of each build's runs, one value per run and device. No verdict: "
           "<code>jank_exporter compare</code> decides one (give its result with <code>--verdict</code>).</p>";
  }
  out += "<div class=\"table-wrap\"><table class=\"comparison\"><thead><tr><th>Metric</th>"
         "<th class=\"num baseline\">Baseline median<br><small><span data-metric=\"baseline_runs\" data-value=\"" +
         std::to_string(counts[0]) + "\">" + std::to_string(counts[0]) + "</span> runs</small></th>"
         "<th class=\"num candidate\">Candidate median<br><small><span data-metric=\"candidate_runs\" data-value=\"" +
         std::to_string(counts[1]) + "\">" + std::to_string(counts[1]) + "</span> runs</small></th>"
         "<th class=\"num\">Change</th>" + std::string(verdict ? "<th>Verdict</th>" : "") +
         "<th class=\"spread\">Runs <small>(\u25cf a run on one device, \u2502 median)</small></th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    const MetricInfo& m = info(row.metric);
    const std::string label = m.label.empty() ? row.metric : std::string(m.label);
    const std::string sc = attr("data-row", row.metric);
    out += "<tr" + attr("data-metric-row", row.metric) + "><th scope=\"row\">" + html_escape(label) +
           (m.unit.empty() ? std::string() : " <small>" + html_escape(m.unit) + "</small>") + "</th>";
    number(out, "td", "num", sc + attr("data-group", "baseline"), "baseline_median", row.baseline);
    number(out, "td", "num", sc + attr("data-group", "candidate"), "candidate_median", row.candidate);
    number(out, "td", "num", sc, "change", row.change, row.change ? change_text(*row.change) : "");
    if (verdict) {
      out += "<td><span" + attr("class", "badge " + verdict_class(row.verdict)) + ">" + html_escape(verdict_label(row.verdict)) + "</span>";
      if (row.powered == false) {
        out += " <span class=\"badge v-insufficient-power\"" + attr("data-row", row.metric) +
               attr("data-metric", "powered") + attr("data-value", "false") + ">underpowered</span>";
      }
      out += "</td>";
    }
    out += "<td class=\"spread\"><div class=\"strip\"" + attr("id", "strip-" + std::to_string(i)) + "></div></td></tr>\n";
  }
  out += "</tbody></table></div>";
  if (verdict && !verdict->work.empty()) work_table(out, *verdict);
  out += "</section>\n";
}

// Each finished run's settled devices against the budgets: tier, then each
// limit with its value and outcome; breaches first in the summary.
void budgets_section(std::string& out, const std::vector<Run>& runs, const metrics::Budgets& budgets,
                     const std::string& file) {
  std::vector<metrics::BudgetRun> checked;
  for (const auto& r : runs) {
    if (r.state != "finished") continue;
    metrics::BudgetRun br{r.id, r.package, {}};
    for (const auto& d : r.devices) {
      if (d.settled == false) continue;
      br.devices.push_back({d.serial, d.model, d.sdk, d.refresh_hz, {d.metrics.begin(), d.metrics.end()}});
    }
    checked.push_back(std::move(br));
  }
  const auto check = metrics::check_budgets(budgets, checked);
  std::size_t breaches = 0;
  for (const auto& run : check.runs) {
    for (const auto& d : run.devices) {
      for (const auto& l : d.limits) breaches += l.outcome == metrics::LimitOutcome::kBreach;
    }
  }
  out += "<section id=\"budgets\"><h2>Budgets</h2><p class=\"note\"><span data-metric=\"breaches\"" +
         attr("data-value", std::to_string(breaches)) + ">" + std::to_string(breaches) + "</span> breach" +
         (breaches == 1 ? "" : "es") + " of the limits in <code>" + html_escape(file) +
         "</code> (finished runs, settled devices; the first tier a device matches applies).</p>"
         "<div class=\"table-wrap\"><table class=\"budgets\"><thead><tr><th>Run</th><th>Device</th><th>Tier</th>"
         "<th>Limit</th><th class=\"num\">Value</th><th>Outcome</th></tr></thead><tbody>\n";
  for (const auto& run : check.runs) {
    for (const auto& d : run.devices) {
      const std::string who = "<td>" + html_escape(run.id) + "</td><td>" + html_escape(d.serial) +
                              (d.model.empty() ? std::string() : " <small>" + html_escape(d.model) + "</small>") + "</td>";
      if (!d.tier) {
        out += "<tr" + attr("data-run", run.id) + attr("data-serial", d.serial) + ">" + who +
               "<td colspan=\"4\" class=\"missing\">no tier matches</td></tr>\n";
        continue;
      }
      const std::string& tier = budgets.tiers[*d.tier].name;
      for (const auto& l : d.limits) {
        const std::string outcome(metrics::outcome_name(l.outcome));
        const std::string sc = attr("data-run", run.id) + attr("data-serial", d.serial) + attr("data-limit", l.limit.metric);
        out += "<tr" + sc + ">" + who + "<td>" + html_escape(tier) + "</td><td>" + html_escape(l.limit.metric) + " " +
               std::string(metrics::limit_kind_name(l.limit.kind)) + " " + format_fixed(l.limit.value, 2) + "</td>";
        number(out, "td", "num", sc, "value", l.value, l.value ? format_fixed(*l.value, 2) : "");
        out += "<td><span" + attr("class", std::string("badge ") + (l.outcome == metrics::LimitOutcome::kBreach ? "v-regression" : "v-no-change")) +
               sc + attr("data-metric", "outcome") + attr("data-value", outcome) + ">" +
               (l.outcome == metrics::LimitOutcome::kBreach ? "breach" : l.outcome == metrics::LimitOutcome::kPass ? "held" : "no value") +
               "</span></td></tr>\n";
      }
    }
  }
  out += "</tbody></table></div></section>\n";
}

// compare --calibrate's figures for the gate (docs/runs.md, "Calibrating
// the gate"): how often it cries wolf, and the smallest regression each
// number of runs a side sees.
void calibration_section(std::string& out, const results::Calibration& c) {
  std::set<std::size_t> sizes;
  for (const auto& m : c.metrics) {
    for (const auto& e : m.effects) sizes.insert(e.runs_per_side);
  }
  out += "<section id=\"calibration\"><h2>Calibration</h2><p class=\"note\">From <span data-metric=\"calibration_runs\"" +
         attr("data-value", std::to_string(c.runs)) + ">" + std::to_string(c.runs) + "</span> runs of one build (<code>" +
         html_escape(c.file) + "</code>), one sample per " + (c.per_run ? "run" : "run and device") + ", alpha " +
         format_exact(c.alpha) + ". <em>False</em>: splits of these runs the gate judged a regression; <em>flagged</em>: "
         "splits the test alone found different. <em>Smallest regression seen</em>, in the metric's unit: the shift "
         "the test finds in " + format_fixed(c.power * 100, 0) + " % of draws of that many runs a side.</p>"
         "<div class=\"table-wrap\"><table class=\"calibration\"><thead><tr><th>Metric</th><th>Model</th>"
         "<th class=\"num\">Runs</th><th class=\"num\">Median</th><th class=\"num\">False</th>"
         "<th class=\"num\">Flagged</th>";
  for (const std::size_t n : sizes) out += "<th class=\"num\">Seen with " + std::to_string(n) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const auto& m : c.metrics) {
    const std::string name(m.def->name);
    const std::string sc = attr("data-calibration", name) + attr("data-model", m.model);
    const std::optional<double> median = std::isfinite(m.median) ? std::optional<double>(m.median) : std::nullopt;
    out += "<tr" + sc + "><td>" + html_escape(name) + "</td><td>" +
           (m.model.empty() ? std::string("all devices") : html_escape(m.model)) + "</td><td class=\"num\">" +
           std::to_string(m.runs) + "</td>";
    number(out, "td", "num", sc, "median", median, median ? format_fixed(*median, 2) : "");
    number(out, "td", "num", sc, "false_regression_rate", m.false_regression_rate,
           format_fixed(m.false_regression_rate * 100, 1) + " %");
    number(out, "td", "num", sc, "flagged_rate", m.flagged_rate, format_fixed(m.flagged_rate * 100, 1) + " %");
    for (const std::size_t n : sizes) {
      const auto e = std::find_if(m.effects.begin(), m.effects.end(),
                                  [&](const metrics::DetectableEffect& d) { return d.runs_per_side == n; });
      const std::string cell = sc + attr("data-runs-per-side", std::to_string(n));
      if (e == m.effects.end()) {
        number(out, "td", "num", cell, "smallest_shift", std::nullopt);
      } else if (!e->shift) {
        out += "<td class=\"num unseen\"" + cell + attr("data-metric", "smallest_shift") + attr("data-value", "not seen") +
               ">not seen</td>";
      } else {
        number(out, "td", "num", cell, "smallest_shift", e->shift, format_fixed(*e->shift, 2));
      }
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div></section>\n";
}

void details(std::string& out, const std::vector<Run>& runs) {
  out += "<section id=\"devices\"><h2>Devices over time</h2>\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Run& r = runs[i];
    out += "<section" + attr("class", std::string("run-detail ") + group_name(r.group)) + attr("id", "run-" + std::to_string(i)) +
           scope(r, nullptr) + "><h3>" + html_escape(r.name.empty() ? r.id : r.name) + " <small>" + html_escape(r.id);
    if (!r.package.empty()) out += " \u00b7 " + html_escape(r.package);
    if (r.group != Group::none) out += " \u00b7 " + std::string(group_name(r.group));
    out += "</small></h3>";
    if (!r.started_at.empty()) {
      out += "<p class=\"when\">" + html_escape(r.started_at) + (r.stopped_at.empty() ? "" : " \u2192 " + html_escape(r.stopped_at)) +
             " <small>(" + html_escape(r.file) + ")</small></p>";
    }
    for (std::size_t k = 0; k < r.devices.size(); ++k) {
      const Device& d = r.devices[k];
      const std::string sc = scope(r, &d);
      out += "<article class=\"device-card\"" + sc + "><h4>" + html_escape(d.serial);
      if (!d.model.empty()) out += " <span class=\"model\">" + html_escape(d.model) + "</span>";
      out += "</h4><p class=\"facts\">";
      if (d.sdk) out += "SDK " + std::string() + "<span" + sc + attr("data-metric", "sdk") + attr("data-value", format_exact(*d.sdk)) + ">" + format_fixed(*d.sdk, 0) + "</span> \u00b7 ";
      if (d.refresh_hz) {
        out += "<span" + sc + attr("data-metric", "refresh_hz") + attr("data-value", format_exact(*d.refresh_hz)) + ">" +
               display(*d.refresh_hz, MetricInfo{"", "", "", 1, true}) + "</span> Hz \u00b7 ";
      }
      if (!d.versions.empty()) out += "version " + html_escape(version_text(d));
      if (d.version_changed) out += " <span class=\"warn\">version changed during the run</span>";
      if (d.settled && !*d.settled) out += " <span class=\"warn\">not settled: counts stop at the last poll</span>";
      out += "</p><div class=\"charts\"" + attr("id", "charts-" + std::to_string(i) + "-" + std::to_string(k)) + ">";
      if (!d.series && !d.frame_duration && d.jank_causes.empty() && d.ft_jank_types.empty()) {
        out += "<p class=\"note\">No series, causes or histograms in this input (run lists carry none).</p>";
      }
      out += "</div></article>\n";
    }
    out += "</section>\n";
  }
  out += "</section>\n";
}

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// What the charts need, and nothing the page does not show.
json page_data(const std::vector<Run>& runs, const std::vector<Row>& rows, bool compared) {
  json data;
  data["runs"] = json::array();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Run& r = runs[i];
    json jr{{"id", r.id}, {"name", r.name}, {"package", r.package}, {"group", group_name(r.group)}};
    jr["devices"] = json::array();
    for (std::size_t k = 0; k < r.devices.size(); ++k) {
      const Device& d = r.devices[k];
      json jd{{"serial", d.serial}, {"model", d.model}, {"refresh_hz", optional_json(d.refresh_hz)},
              {"container", "charts-" + std::to_string(i) + "-" + std::to_string(k)},
              {"jank_causes", d.jank_causes}, {"ft_jank_types", d.ft_jank_types}};
      jd["frame_duration"] = d.frame_duration ? json{{"bounds", d.frame_duration->bounds}, {"counts", d.frame_duration->counts}}
                                              : json(nullptr);
      if (d.series) {
        json s{{"interval_seconds", d.series->interval_seconds}, {"t", d.series->t}};
        for (const auto& [key, column] : d.series->columns) {
          json values = json::array();
          for (const auto& v : column) values.push_back(optional_json(v));
          s[key] = std::move(values);
        }
        jd["series"] = std::move(s);
      } else {
        jd["series"] = nullptr;
      }
      jr["devices"].push_back(std::move(jd));
    }
    data["runs"].push_back(std::move(jr));
  }
  data["comparison"] = nullptr;
  if (compared) {
    json metrics = json::array();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& row = rows[i];
      const MetricInfo& m = info(row.metric);
      metrics.push_back({{"metric", row.metric}, {"unit", m.unit}, {"container", "strip-" + std::to_string(i)},
                         {"baseline", row.baseline_values}, {"candidate", row.candidate_values},
                         {"baseline_median", optional_json(row.baseline)},
                         {"candidate_median", optional_json(row.candidate)}});
    }
    data["comparison"] = {{"metrics", std::move(metrics)}};
  }
  return data;
}

// Runs before anything else on the page: every error (thrown, or reported by
// the report's own catch) is counted on <html data-js-errors> and shown, so
// that a broken chart is seen by a reader and fails the browser test.
constexpr std::string_view kErrorCatcher = R"js(
(function () {
  var errors = [];
  window.__errors = errors;
  window.__noteError = function (message) {
    errors.push(String(message));
    document.documentElement.setAttribute('data-js-errors', String(errors.length));
    var box = document.getElementById('js-errors');
    if (box) { box.hidden = false; box.textContent = 'Charts failed: ' + errors.join('; '); }
  };
  window.addEventListener('error', function (e) { window.__noteError(e.message || 'error'); });
  window.addEventListener('unhandledrejection', function (e) { window.__noteError(e.reason || 'rejection'); });
})();
)js";

}  // namespace

std::string html_escape(std::string_view raw) {
  const std::string text = parsers::utf8_replaced(raw);  // a page is UTF-8 whatever a device sent
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string script_safe_json(std::string_view json_text) {
  std::string out;
  out.reserve(json_text.size());
  for (char c : json_text) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

std::string format_fixed(double value, int decimals) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, decimals);
  if (ec != std::errc()) return format_exact(value);
  std::string s(buf, end);
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);  // no "-0.0"
  return s;
}

std::string format_exact(double value) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

RunReportResult render_run_report(const RunReportRequest& request) {
  RunReportResult result;
  std::vector<Run> runs;
  const std::pair<const std::vector<results::InputFile>*, Group> groups[] = {
      {&request.runs, Group::none}, {&request.baseline, Group::baseline}, {&request.candidate, Group::candidate}};
  for (const auto& [files, group] : groups) {
    for (const auto& file : *files) {
      result.error = results::read_runs(file, group, runs);
      if (!result.ok()) return result;
    }
  }
  if (request.baseline.empty() != request.candidate.empty()) {
    result.error = "a comparison needs runs of both builds (--baseline and --candidate)";
    return result;
  }
  if (runs.empty()) {
    result.error = "no runs in the input";
    return result;
  }
  std::map<std::string, std::string> seen;  // run id → file: ids key the page
  for (const auto& r : runs) {
    auto [it, fresh] = seen.emplace(r.id, r.file);
    if (!fresh) {
      result.error = r.file + ": id: run \"" + r.id + "\" is also in " + it->second;
      return result;
    }
  }
  results::Verdict verdict;
  if (request.verdict) {
    result.error = results::read_verdict(*request.verdict, verdict);
    if (!result.ok()) return result;
  }
  const results::Verdict* v = request.verdict ? &verdict : nullptr;
  results::Calibration calibration;
  if (request.calibration) {
    result.error = results::read_calibration(*request.calibration, calibration);
    if (!result.ok()) return result;
  }
  const bool compared = v || !request.baseline.empty();
  const std::vector<Row> rows = compared ? comparison_rows(runs, v) : std::vector<Row>{};

  std::set<std::string> packages;
  std::size_t devices = 0;
  for (const auto& r : runs) {
    if (!r.package.empty()) packages.insert(r.package);
    devices += r.devices.size();
  }
  const std::string title = request.title.empty() ? "Jank report" : request.title;
  std::string& out = result.html;
  out.reserve(256 * 1024);
  out += "<!DOCTYPE html>\n<html lang=\"en\" data-js-errors=\"0\" data-render=\"pending\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         // The page may fetch nothing: a report opened years later, offline,
         // shows the same, and hostile names cannot make it call out.
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
         "style-src 'unsafe-inline'; img-src data:\">"
         "<meta name=\"generator\" content=\"jank_exporter report\"><title>" +
         html_escape(title) + "</title>\n<style>\n";
  out += assets::report_css();
  out += "</style>\n<script>";
  out += kErrorCatcher;
  out += "</script></head>\n<body>\n<header class=\"page\"><h1>" + html_escape(title) + "</h1><p class=\"summary\">";
  out += "<span data-metric=\"runs\" data-value=\"" + std::to_string(runs.size()) + "\">" + std::to_string(runs.size()) +
         "</span> run" + (runs.size() == 1 ? "" : "s") + " \u00b7 <span data-metric=\"devices\" data-value=\"" +
         std::to_string(devices) + "\">" + std::to_string(devices) + "</span> device result" + (devices == 1 ? "" : "s");
  for (const auto& p : packages) out += " \u00b7 <span class=\"app\">" + html_escape(p) + "</span>";
  out += "</p><div id=\"js-errors\" class=\"js-errors\" role=\"alert\" hidden></div>"
         "<noscript><p class=\"note\">The charts need JavaScript; the tables below are complete without it.</p></noscript></header>\n<main>\n";
  if (compared) comparison(out, runs, rows, v);
  if (request.calibration) calibration_section(out, calibration);
  if (request.budgets) budgets_section(out, runs, *request.budgets, request.budgets_file);
  run_table(out, runs);
  details(out, runs);
  out += "</main>\n<footer>Written by <code>jank_exporter report</code> from run results format 1 (docs/runs.md). "
         "Every figure counts the run's interval only; \u2013 marks a metric whose source the device never showed.</footer>\n";
  out += "<script type=\"application/json\" id=\"report-data\">";
  out += script_safe_json(json_text(page_data(runs, rows, compared)));
  out += "</script>\n<script>\n";
  out += assets::charts_js();
  out += "</script>\n<script>\n";
  out += assets::report_js();
  out += "</script>\n</body></html>\n";
  return result;
}

}  // namespace jank::exporters

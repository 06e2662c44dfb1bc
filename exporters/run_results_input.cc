#include "exporters/run_results_input.h"

#include <algorithm>

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "metrics/run_compare.h"
#include "metrics/run_results.h"
#include "parsers/utf8.h"

namespace jank::exporters::results {
namespace {

using nlohmann::json;

// Thrown with the field's path; read_runs() adds the file name.
struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw FieldError((path.empty() ? std::string("top level") : path) + ": " + what);
}

const char* type_name(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
std::string at(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

// The member `key` of `obj`, or nullptr when absent or null (absent means
// "never seen" in format 1, and a null says the same).
const json* member(const json& obj, const std::string& key) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

void expect_object(const json& v, const std::string& path) {
  if (!v.is_object()) fail(path, std::string("expected an object, found ") + type_name(v));
}

void expect_array(const json& v, const std::string& path) {
  if (!v.is_array()) fail(path, std::string("expected an array, found ") + type_name(v));
}

// Calls `fn(element, its path)` for each object of the array `obj[key]`; an
// absent (or null) array is missing when `required`, else nothing.
template <typename Fn>
void each_object(const json& obj, const std::string& key, const std::string& path, bool required, Fn fn) {
  const std::string here = join(path, key);
  const json* list = member(obj, key);
  if (list == nullptr) {
    if (required) fail(here, "missing");
    return;
  }
  expect_array(*list, here);
  for (std::size_t i = 0; i < list->size(); ++i) {
    expect_object((*list)[i], at(here, i));
    fn((*list)[i], at(here, i));
  }
}

double number_value(const json& v, const std::string& path) {
  if (!v.is_number()) fail(path, std::string("expected a number, found ") + type_name(v));
  const double d = v.get<double>();
  if (!std::isfinite(d)) fail(path, "number out of range");
  return d;
}

std::optional<double> optional_number(const json& obj, const std::string& key, const std::string& path) {
  const json* v = member(obj, key);
  if (!v) return std::nullopt;
  return number_value(*v, join(path, key));
}

std::string optional_string(const json& obj, const std::string& key, const std::string& path) {
  const json* v = member(obj, key);
  if (!v) return "";
  if (!v->is_string()) fail(join(path, key), std::string("expected a string, found ") + type_name(*v));
  return v->get<std::string>();
}

std::optional<bool> optional_bool(const json& obj, const std::string& key, const std::string& path) {
  const json* v = member(obj, key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) fail(join(path, key), std::string("expected a boolean, found ") + type_name(*v));
  return v->get<bool>();
}

// A verdict as `jank_exporter compare --json` writes it (metrics::verdict_name),
// spelled as the page shows it: "no_change" → "no change".
std::string verdict_value(const std::string& written, const std::string& path) {
  using metrics::Verdict;
  std::string names;
  for (const Verdict v : {Verdict::kRegression, Verdict::kNoChange, Verdict::kImprovement, Verdict::kInsufficientData,
                          Verdict::kUnequalWork, Verdict::kInsufficientPower}) {
    const std::string name(metrics::verdict_name(v));
    if (name == written) {
      std::string spaced = name;
      std::replace(spaced.begin(), spaced.end(), '_', ' ');
      return spaced;
    }
    names += (names.empty() ? "" : ", ") + name;
  }
  fail(path, "\"" + written + "\" is none of " + names);
}

std::string required_string(const json& obj, const std::string& key, const std::string& path) {
  if (!member(obj, key)) fail(join(path, key), "missing");
  std::string s = optional_string(obj, key, path);
  if (s.empty()) fail(join(path, key), "empty");
  return s;
}

std::map<std::string, double> number_map(const json& obj, const std::string& key, const std::string& path) {
  std::map<std::string, double> out;
  const json* v = member(obj, key);
  if (!v) return out;
  const std::string here = join(path, key);
  expect_object(*v, here);
  for (const auto& [k, value] : v->items()) {
    if (value.is_null()) continue;
    out[k] = number_value(value, join(here, k));
  }
  return out;
}

std::vector<double> number_array(const json& v, const std::string& path) {
  expect_array(v, path);
  std::vector<double> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(number_value(v[i], at(path, i)));
  return out;
}

// A name docs/runs.md defines (a number or null); a later format may add
// others of any type.
bool known_metric(const std::string& key) {
  const auto names = metrics::run_metric_names();
  return std::find(names.begin(), names.end(), key) != names.end();
}

Histogram read_histogram(const json& v, const std::string& path) {
  expect_object(v, path);
  Histogram h;
  const json* bounds = member(v, "bounds");
  const json* counts = member(v, "counts");
  if (!bounds) fail(join(path, "bounds"), "missing");
  if (!counts) fail(join(path, "counts"), "missing");
  h.bounds = number_array(*bounds, join(path, "bounds"));
  h.counts = number_array(*counts, join(path, "counts"));
  for (std::size_t i = 1; i < h.bounds.size(); ++i) {
    if (!(h.bounds[i] > h.bounds[i - 1])) fail(at(join(path, "bounds"), i), "bounds must increase");
  }
  if (h.counts.size() != h.bounds.size() + 1) {
    fail(join(path, "counts"), "expected " + std::to_string(h.bounds.size() + 1) + " entries (bounds and +Inf), found " +
                                   std::to_string(h.counts.size()));
  }
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    if (h.counts[i] < 0) fail(at(join(path, "counts"), i), "negative count");
  }
  return h;
}

Series read_series(const json& v, const std::string& path) {
  expect_object(v, path);
  Series s;
  s.interval_seconds = optional_number(v, "interval_seconds", path).value_or(0);
  const json* t = member(v, "t");
  if (!t) fail(join(path, "t"), "missing");
  s.t = number_array(*t, join(path, "t"));
  for (const auto& [key, value] : v.items()) {
    if (key == "t" || !value.is_array()) continue;
    const std::string here = join(path, key);
    if (value.size() != s.t.size()) {
      fail(here, "expected " + std::to_string(s.t.size()) + " entries (one per step of t), found " +
                     std::to_string(value.size()));
    }
    Column column;
    column.reserve(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (value[i].is_null()) {
        column.emplace_back();
      } else {
        column.emplace_back(number_value(value[i], at(here, i)));
      }
    }
    s.columns.emplace(key, std::move(column));
  }
  return s;
}

Device read_device(const json& v, const std::string& path) {
  expect_object(v, path);
  Device d;
  d.serial = required_string(v, "serial", path);
  d.model = optional_string(v, "model", path);
  d.sdk = optional_number(v, "sdk", path);
  d.refresh_hz = optional_number(v, "refresh_hz", path);
  d.settled = optional_bool(v, "settled", path);
  if (const json* versions = member(v, "versions")) {
    const std::string here = join(path, "versions");
    expect_array(*versions, here);
    for (std::size_t i = 0; i < versions->size(); ++i) {
      const json& e = (*versions)[i];
      expect_object(e, at(here, i));
      Version version;
      version.name = optional_string(e, "name", at(here, i));
      if (const json* code = member(e, "code")) {
        if (!code->is_number_integer()) {
          fail(join(at(here, i), "code"), std::string("expected an integer, found ") + type_name(*code));
        }
        if (code->is_number_unsigned() && code->get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max()) {
          fail(join(at(here, i), "code"), "number out of range");
        }
        version.code = code->get<std::int64_t>();
      }
      version.at_seconds = optional_number(e, "at_seconds", at(here, i)).value_or(0);
      d.versions.push_back(std::move(version));
    }
  }
  d.version_changed = optional_bool(v, "version_changed", path).value_or(false);
  if (const json* metrics = member(v, "metrics")) {
    const std::string here = join(path, "metrics");
    expect_object(*metrics, here);
    for (const auto& [key, value] : metrics->items()) {
      if (value.is_null() || (!value.is_number() && !known_metric(key))) continue;
      d.metrics[key] = number_value(value, join(here, key));
    }
  }
  d.jank_causes = number_map(v, "jank_causes", path);
  d.ft_jank_types = number_map(v, "ft_jank_types", path);
  if (const json* histograms = member(v, "histograms")) {
    const std::string here = join(path, "histograms");
    expect_object(*histograms, here);
    if (const json* frame = member(*histograms, "frame_duration_seconds")) {
      d.frame_duration = read_histogram(*frame, join(here, "frame_duration_seconds"));
    }
  }
  if (const json* series = member(v, "series")) d.series = read_series(*series, join(path, "series"));
  return d;
}

void check_format(const json& v, const std::string& path, bool required) {
  const json* format = member(v, "format");
  if (!format) {
    if (required) fail(join(path, "format"), "missing (expected 1)");
    return;
  }
  if (!format->is_number_integer() || format->get<long long>() != 1) {
    // A number is quoted; anything else only named: it may be megabytes, or nested
    // deep enough that dump() (recursive) would not return.
    fail(join(path, "format"), "expected 1 (the only results format this build reads), found " +
                                   (format->is_number() ? format->dump() : std::string(type_name(*format))));
  }
}

Run read_run(const json& v, const std::string& path) {
  expect_object(v, path);
  check_format(v, path, false);
  Run r;
  r.path = path;
  r.id = required_string(v, "id", path);
  r.name = optional_string(v, "name", path);
  r.package = optional_string(v, "package", path);
  r.state = optional_string(v, "state", path);
  r.started_at = optional_string(v, "started_at", path);
  r.stopped_at = optional_string(v, "stopped_at", path);
  r.duration_seconds = optional_number(v, "duration_seconds", path);
  if (const json* tags = member(v, "tags")) {
    const std::string here = join(path, "tags");
    expect_object(*tags, here);
    for (const auto& [key, value] : tags->items()) {
      if (!value.is_string()) fail(join(here, key), std::string("expected a string, found ") + type_name(value));
      r.tags.emplace_back(key, value.get<std::string>());
    }
  }
  const json* devices = member(v, "devices");
  if (!devices) fail(join(path, "devices"), "missing");
  expect_array(*devices, join(path, "devices"));
  std::set<std::string> serials;
  for (std::size_t i = 0; i < devices->size(); ++i) {
    Device d = read_device((*devices)[i], at(join(path, "devices"), i));
    if (!serials.insert(d.serial).second) fail(at(join(path, "devices"), i) + ".serial", "\"" + d.serial + "\" twice");
    r.devices.push_back(std::move(d));
  }
  return r;
}

// The offset of the first byte that is not part of valid UTF-8, or npos.
std::size_t first_invalid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = parsers::utf8_sequence_at(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

json parse(const InputFile& file) {
  // Before the parser: its DOM costs many times the text, and a deep one
  // would take every recursive walk of it (dump()) past the stack's end.
  if (std::string why = check_results_limits(file.text); !why.empty()) throw FieldError(why);
  try {
    return json::parse(file.text);
  } catch (const json::parse_error& e) {
    // The byte is never quoted: it may be anything, and the message reaches terminals.
    const std::size_t bad = first_invalid_utf8(file.text);
    if (bad != std::string_view::npos && bad < e.byte) {
      throw FieldError("not JSON: not UTF-8 (at byte " + std::to_string(bad + 1) + ")");
    }
    throw FieldError("not JSON (at byte " + std::to_string(e.byte) + ")");
  }
}

}  // namespace

std::string check_results_limits(std::string_view text) {
  if (text.size() > kMaxResultsBytes) {
    return "larger than " + std::to_string(kMaxResultsBytes >> 20) + " MiB, not a results file";
  }
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, whatever it is
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxResultsDepth) {
        return "nested deeper than " + std::to_string(kMaxResultsDepth) + " levels (at byte " + std::to_string(i + 1) +
               "), not a results file";
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;  // an unbalanced one is the parser's to report
    }
  }
  return "";
}

std::string read_runs(const InputFile& file, Group group, std::vector<Run>& runs) {
  try {
    const json doc = parse(file);
    expect_object(doc, "");
    check_format(doc, "", true);
    std::vector<Run> read;
    if (doc.contains("runs")) {
      const json& list = doc["runs"];
      expect_array(list, "runs");
      for (std::size_t i = 0; i < list.size(); ++i) read.push_back(read_run(list[i], at("runs", i)));
    } else {
      read.push_back(read_run(doc, ""));
    }
    for (auto& r : read) {
      r.file = file.name;
      r.group = group;
      runs.push_back(std::move(r));
    }
    return "";
  } catch (const std::exception& e) {  // FieldError, and nlohmann's own for anything missed
    return file.name + ": " + e.what();
  }
}

std::string read_verdict(const InputFile& file, Verdict& verdict) {
  try {
    const json doc = parse(file);
    expect_object(doc, "");
    Verdict out;
    out.file = file.name;
    out.verdict = verdict_value(required_string(doc, "verdict", ""), "verdict");
    each_object(doc, "metrics", "", false, [&](const json& m, const std::string& here) {
      VerdictMetric vm;
      // The names `jank_exporter compare --json` writes (app/cli/compare_output.cc).
      vm.metric = required_string(m, "name", here);
      vm.baseline_median = optional_number(m, "median_baseline", here);
      vm.candidate_median = optional_number(m, "median_candidate", here);
      vm.change = optional_number(m, "relative_change_percent", here);
      if (member(m, "verdict")) vm.verdict = verdict_value(required_string(m, "verdict", here), join(here, "verdict"));
      vm.powered = optional_bool(m, "powered", here);
      out.metrics.push_back(std::move(vm));
    });
    out.work_tolerance_percent = optional_number(doc, "work_tolerance_percent", "");
    each_object(doc, "work", "", false, [&](const json& w, const std::string& here) {
      VerdictWork vw;
      vw.measure = required_string(w, "name", here);
      vw.baseline_median = optional_number(w, "median_baseline", here);
      vw.candidate_median = optional_number(w, "median_candidate", here);
      vw.difference = optional_number(w, "relative_difference_percent", here);
      vw.unequal = optional_bool(w, "unequal", here).value_or(false);
      out.work.push_back(std::move(vw));
    });
    verdict = std::move(out);
    return "";
  } catch (const std::exception& e) {
    return file.name + ": " + e.what();
  }
}

std::string read_calibration(const InputFile& file, Calibration& calibration) {
  // A rate or a shift: a finite number, never below 0.
  auto non_negative = [](const json& obj, const std::string& key, const std::string& path) {
    const json* v = member(obj, key);
    if (!v) fail(join(path, key), "missing");
    const double d = number_value(*v, join(path, key));
    if (d < 0) fail(join(path, key), "expected a number >= 0");
    return d;
  };
  try {
    const json doc = parse(file);
    expect_object(doc, "");
    if (doc.value("kind", json()) != "calibration" || doc.value("format", json()) != 1) {
      fail("kind", "not a calibration of compare --calibrate --json (format 1)");
    }
    Calibration out;
    out.file = file.name;
    const std::string per = required_string(doc, "per", "");
    if (per != "run" && per != "device") fail("per", "expected \"run\" or \"device\"");
    out.per_run = per == "run";
    out.runs = static_cast<std::size_t>(non_negative(doc, "runs", ""));
    out.alpha = non_negative(doc, "alpha", "");
    out.power = non_negative(doc, "power", "");
    each_object(doc, "metrics", "", true, [&](const json& m, const std::string& here) {
      metrics::MetricCalibration c;
      c.def = metrics::find_compared_metric(required_string(m, "name", here));
      if (c.def == nullptr) fail(join(here, "name"), "not a compared metric");
      c.model = optional_string(m, "model", here);
      c.runs = static_cast<std::size_t>(non_negative(m, "runs", here));
      c.samples = static_cast<std::size_t>(non_negative(m, "samples", here));
      c.median = optional_number(m, "median", here).value_or(std::nan(""));
      c.split_runs = static_cast<std::size_t>(optional_number(m, "split_runs_per_side", here).value_or(0));
      c.false_regression_rate = non_negative(m, "false_regression_rate", here);
      c.flagged_rate = non_negative(m, "flagged_rate", here);
      each_object(m, "detectable", here, true, [&](const json& e, const std::string& where) {
        metrics::DetectableEffect d;
        const double n = non_negative(e, "runs_per_side", where);
        if (n != std::floor(n) || n < 1 || n > 1e6) fail(join(where, "runs_per_side"), "expected a whole number >= 1");
        d.runs_per_side = static_cast<std::size_t>(n);
        if (member(e, "shift")) d.shift = non_negative(e, "shift", where);
        c.effects.push_back(d);
      });
      out.metrics.push_back(std::move(c));
    });
    calibration = std::move(out);
    return "";
  } catch (const std::exception& e) {
    return file.name + ": " + e.what();
  }
}

}  // namespace jank::exporters::results

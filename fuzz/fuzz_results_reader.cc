// The results reader (exporters/run_results_input.h) on arbitrary bytes, as
// `compare` and `report` hand it any file: no crash, no exception out of it,
// errors that name the file and are valid UTF-8, and what it reads is what
// its callers rely on (finite numbers, valid UTF-8 strings).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "exporters/run_results_input.h"
#include "parsers/utf8.h"

namespace {

namespace results = jank::exporters::results;

void check_error(const std::string& error) {
  if (!jank::parsers::is_valid_utf8(error)) std::abort();
  if (!error.empty() && error.rfind("fuzz.json: ", 0) != 0) std::abort();
}

void check_text(const std::string& s) {
  if (!jank::parsers::is_valid_utf8(s)) std::abort();
}

void check_number(double v) {
  if (!std::isfinite(v)) std::abort();
}

void check_run(const results::Run& r) {
  check_text(r.id);
  if (r.id.empty()) std::abort();
  check_text(r.name);
  check_text(r.package);
  if (r.duration_seconds) check_number(*r.duration_seconds);
  for (const auto& d : r.devices) {
    check_text(d.serial);
    check_text(d.model);
    for (const auto& v : d.versions) check_text(v.name);
    for (const auto& [k, v] : d.metrics) check_number(v);
    if (d.frame_duration && d.frame_duration->counts.size() != d.frame_duration->bounds.size() + 1) std::abort();
    if (d.series) {
      for (const auto& [k, column] : d.series->columns)
        if (column.size() != d.series->t.size()) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const results::InputFile file{"fuzz.json", std::string(reinterpret_cast<const char*>(data), size)};
  const bool within_limits = results::check_results_limits(file.text).empty();
  std::vector<results::Run> runs;
  const std::string error = results::read_runs(file, results::Group::baseline, runs);
  check_error(error);
  if (!within_limits && error.empty()) std::abort();
  if (!error.empty() && !runs.empty()) std::abort();  // all or nothing
  for (const auto& r : runs) check_run(r);
  results::Verdict verdict;
  const std::string verdict_error = results::read_verdict(file, verdict);
  check_error(verdict_error);
  if (!within_limits && verdict_error.empty()) std::abort();
  for (const auto& m : verdict.metrics) check_text(m.metric);
  return 0;
}

// Run results (docs/runs.md, format 1) read back: by the run report and by
// `jank_exporter compare`, the one reader of the format. Every field is
// checked for its type, with an error that names the file and the field.
// Unknown fields are ignored, and so is a `metrics` entry of a name this
// build does not know that is not a number, so that a newer exporter's files
// still read. No I/O: the caller hands in the files' text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/run_calibration.h"

namespace jank::exporters::results {

struct InputFile {
  std::string name;  // shown in error messages (the path as given)
  std::string text;
};

// A step column of `series`: one value per step, nullopt for JSON null.
using Column = std::vector<std::optional<double>>;

struct Series {
  double interval_seconds = 0;
  std::vector<double> t;
  std::map<std::string, Column> columns;  // every array beside `t`
};

struct Histogram {
  std::vector<double> bounds;  // upper bounds, increasing
  std::vector<double> counts;  // per bucket, one more than bounds (+Inf)
};

struct Version {
  std::string name;
  std::optional<std::int64_t> code;
  double at_seconds = 0;
};

struct Device {
  std::string serial;
  std::string model;
  std::optional<double> sdk;
  std::optional<double> refresh_hz;
  std::optional<bool> settled;
  std::vector<Version> versions;
  bool version_changed = false;
  std::map<std::string, double> metrics;  // numeric entries of `metrics` only
  std::map<std::string, double> jank_causes;
  std::map<std::string, double> ft_jank_types;
  std::optional<Histogram> frame_duration;  // histograms.frame_duration_seconds
  std::optional<Series> series;
};

enum class Group { none, baseline, candidate };

struct Run {
  std::string file;  // where it was read
  std::string path;  // where in its file: "" for a file of one run, else "runs[N]"
  Group group = Group::none;
  std::string id;
  std::string name;
  std::string package;
  std::string state;
  std::string started_at;
  std::string stopped_at;
  std::optional<double> duration_seconds;
  std::vector<std::pair<std::string, std::string>> tags;
  std::vector<Device> devices;
};

// A `jank_exporter compare` result.
struct VerdictMetric {
  std::string metric;
  std::optional<double> baseline_median;
  std::optional<double> candidate_median;
  std::optional<double> change;  // percent
  std::string verdict;  // as below, or "" when not given
  std::optional<bool> powered;  // with a calibration: whether the runs could see its change
};
// A work measure of compare's check that both builds did the same work.
struct VerdictWork {
  std::string measure;
  std::optional<double> baseline_median;
  std::optional<double> candidate_median;
  std::optional<double> difference;  // percent
  bool unequal = false;
};
struct Verdict {
  std::string file;
  std::string verdict;  // compare's verdict_name, spaced: "regression", "no change", "unequal work", …
  std::vector<VerdictMetric> metrics;
  std::vector<VerdictWork> work;
  std::optional<double> work_tolerance_percent;  // absent: not checked
};

// A `jank_exporter compare --calibrate --json` result (docs/runs.md,
// "Calibrating the gate"): read by `compare --calibration` and the report.
struct Calibration {
  std::string file;
  bool per_run = false;  // its sample rule: one per run (true) or per run and device
  std::size_t runs = 0;
  double alpha = 0;
  double power = 0;
  std::vector<metrics::MetricCalibration> metrics;
};

// What a results text may be, checked before it is parsed: the largest legit
// file (1 024 devices × 720 steps) is about 28 MB, and nlohmann's DOM costs
// over 10× the text, so 64 MiB keeps a reader under 1 GiB (docs/runs.md has
// the figures); format 1 nests 7 levels deep, and 64 leaves room for a later
// format while keeping every recursive walk of the DOM (dump()) shallow.
inline constexpr std::size_t kMaxResultsBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxResultsDepth = 64;

// "" when `text` is within both limits, else why not ("larger than 64 MiB…",
// "nested deeper than 64 levels at byte N"). Linear, and reads no further than
// the first fault: brackets inside strings do not count.
std::string check_results_limits(std::string_view text);

// Appends the runs of `file` (one run object or a list {"format":1,"runs":[…]})
// to `runs`. Returns "" or an error "FILE: FIELD: what is wrong".
std::string read_runs(const InputFile& file, Group group, std::vector<Run>& runs);

// Returns "" or an error as above.
std::string read_verdict(const InputFile& file, Verdict& verdict);

// Returns "" or an error as above; a metric name this build does not
// compare is an error.
std::string read_calibration(const InputFile& file, Calibration& calibration);

}  // namespace jank::exporters::results

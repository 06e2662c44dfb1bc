// `jank_exporter compare --calibrate`: the A/A calibration of the gate from
// runs of one build (docs/runs.md, "Calibrating the gate"), printed as a
// table or as JSON, and that JSON read back by `compare --calibration FILE`.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "metrics/run_calibration.h"

namespace jank::app {

struct CalibrationReport {
  std::string label;  // the sources
  std::size_t runs = 0;
  metrics::CalibrationOptions options;
  std::vector<metrics::MetricCalibration> metrics;
  std::vector<std::string> notices;
};

void write_calibration_text(std::ostream& out, const CalibrationReport& report);
void write_calibration_json(std::ostream& out, const CalibrationReport& report);

// --resamples, --seed and --runs-per-side as given (null: not given) into
// `options`; UsageError (app/cli/cli_parse.h) naming a wrong one.
void parse_calibration_options(const std::string* resamples, const std::string* seed,
                               const std::string* runs_per_side, metrics::CalibrationOptions& options);

// `compare --calibrate`: the finished runs of `sources` (of `package` when
// given) calibrated and printed; kExitOk, or kExitNoInput without runs.
int calibrate(const std::vector<std::string>& sources, const std::string& package,
              const metrics::CalibrationOptions& options, bool json, double timeout_seconds, std::ostream& out,
              std::ostream& err);

// A calibration as write_calibration_json wrote it; InputError (naming the
// file and the field) when it is not one. `per_run` receives its sample
// rule, which the comparison it is applied to must share.
std::vector<metrics::MetricCalibration> read_calibration(const std::string& path, bool& per_run);

}  // namespace jank::app

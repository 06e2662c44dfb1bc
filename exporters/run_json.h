// Runs as documents (docs/runs.md): the results JSON (format 1) the API, the
// CLI, `compare` and `report` share, and CSV with one row per run and device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "metrics/run_book.h"

namespace jank::exporters {

enum class RunDetail { summary, full };  // full adds histograms and series

// One run; `now_ns` (host wall time) for the counts of a run still open.
std::string run_json(const metrics::Run& run, std::int64_t now_ns, RunDetail detail);
// {"format":1,"runs":[…]} of `runs` (oldest first), without histograms and series.
std::string run_list_json(const std::vector<const metrics::Run*>& runs, std::int64_t now_ns);
// A header and one row per run and device: ids, app, version, then every metric.
std::string run_csv(const std::vector<const metrics::Run*>& runs, std::int64_t now_ns);

// "2026-11-24T10:15:00.123Z" for a host wall time in ns.
std::string rfc3339_ms(std::int64_t wall_ns);

}  // namespace jank::exporters

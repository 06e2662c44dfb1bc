// What the OpenMetrics text format (1.0.0) has that the 0.0.4 text has not:
// its family metadata, exemplars and the `# EOF` that ends an exposition.
// Samples are the 0.0.4 writer's (text_format.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "metrics/trace_status.h"

namespace jank::exporters {

inline constexpr std::string_view kOpenMetricsEof = "# EOF\n";

// OpenMetrics caps an exemplar's label names and values together at 128
// code points (Prometheus drops a longer one).
inline constexpr std::size_t kMaxExemplarLabelCharacters = 128;

// The name a family is declared under: a counter's without `_total` (its
// samples keep it), any other as its samples carry it.
std::string_view openmetrics_family_name(std::string_view name, std::string_view type);

// The metadata lines of one family, in the order the format recommends:
// `# TYPE`, `# UNIT` (only when the declared name ends in `_` and `unit`;
// "" for none), `# HELP` (backslash, newline and double quote escaped; none
// when `help` is empty). `name` is the name the family's samples carry in
// 0.0.4, `type` one of the format's types (counter, gauge, histogram,
// summary, unknown).
void append_openmetrics_metadata(std::string& out, std::string_view name, std::string_view type, std::string_view unit,
                                 std::string_view help);

// Appends ` # {trace_id="ID"} VALUE TIMESTAMP` to a counter's sample line
// (before its newline): the trace behind the series (docs/traces.md), the
// value that fired the rule, the trigger time in Unix seconds (left out when
// unknown, time_ns ≤ 0). Appends nothing and returns false for an exemplar
// the format cannot carry: no id, or a label set over
// kMaxExemplarLabelCharacters.
bool append_exemplar(std::string& out, const metrics::TraceExemplar& exemplar);

// `time` (counted in `units_per_second`, a power of ten: 1000 for ms, 10^9
// for ns) as Unix seconds with its fraction, never an exponent and without
// trailing zeros: 1700000000.25, 1700000000.0.
void append_unix_seconds(std::string& out, std::int64_t time, std::int64_t units_per_second);

}  // namespace jank::exporters

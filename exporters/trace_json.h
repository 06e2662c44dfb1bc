// The flight recorder's documents (docs/traces.md): a trace's metadata file
// (format 1), read back when the directory is scanned again, and the list
// GET /traces/ answers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/trace_status.h"

namespace jank::exporters {

// Where HTTP serves the traces: the list at kTracesPath, a trace at trace_url().
inline constexpr std::string_view kTracesPath = "/traces/";
std::string trace_url(std::string_view id);  // "/traces/ID.pftrace"

// {"format":1,"id",…,"model"} on one line, then a newline.
std::string trace_metadata_json(const metrics::StoredTrace& trace);
// The metadata a file holds, or nullopt with `error` naming what is wrong.
// Fields beyond format 1's are ignored.
std::optional<metrics::StoredTrace> parse_trace_metadata(std::string_view text, std::string& error);

// {"traces":[…]} in the order given (newest first), each with its "url".
std::string trace_list_json(const std::vector<metrics::StoredTrace>& traces);

// Unix ns of "2026-11-24T03:15:02Z" or with a fraction ("…02.123Z"), the
// form rfc3339_ms (exporters/run_json.h) writes; nullopt for anything else.
std::optional<std::int64_t> parse_rfc3339_utc(std::string_view text);

}  // namespace jank::exporters

// The trace directory's rules (docs/traces.md, "Where traces go"): how a
// trace is named, which names are trace ids at all, and what retention
// removes. Pure: app/core/trace_store.h does the files, the HTTP route checks ids
// with the same rule.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/trace_status.h"

namespace jank::metrics {

inline constexpr std::string_view kTraceExtension = ".pftrace";
inline constexpr std::string_view kTraceMetadataExtension = ".json";

// [A-Za-z0-9._-]+ without "..": the only ids the store writes and HTTP
// serves, so an id is always a plain file name in the trace directory.
bool valid_trace_id(std::string_view id);

// A serial, package or rule as it appears in an id: every character outside
// [A-Za-z0-9._-] written '-', and so is a '.' right after a '.' (an id never
// holds ".."); cut to kMaxTraceIdPart bytes so that a file name stays within
// NAME_MAX; "-" for an empty name.
inline constexpr std::size_t kMaxTraceIdPart = 64;
std::string trace_id_part(std::string_view name);

// <serial>_<package>_<YYYYMMDDTHHMMSSZ>_<rule>, the time being the trigger's
// second in UTC.
std::string base_trace_id(const StoredTrace& trace);

// `base`, else base-2, base-3, …: the first one `taken` says is free; ""
// when the first kMaxTraceIdSuffix are all taken.
inline constexpr int kMaxTraceIdSuffix = 999;
std::string unique_trace_id(const std::string& base, const std::function<bool(const std::string&)>& taken);

// Whether `id` is a valid id with the rule's time field (_YYYYMMDDTHHMMSSZ_):
// how a file is known as the store's without its metadata (a temporary one).
bool trace_id_shaped(std::string_view id);

// Whether `id` is what the naming rule gives for `trace`: its base id, or
// the base with a suffix -N (N ≥ 2).
bool trace_id_follows_rule(std::string_view id, const StoredTrace& trace);

// Newest first: by trigger time, then by id (a later suffix first).
bool newer_trace(const StoredTrace& a, const StoredTrace& b);

// traces.max_count, traces.max_bytes, traces.max_age_days; 0 is no limit.
struct TraceLimits {
  std::uint64_t max_count = 0;
  std::uint64_t max_bytes = 0;
  std::int64_t max_age_ns = 0;
  bool operator==(const TraceLimits&) const = default;
};

enum class TraceDrop : std::uint8_t { count, bytes, age };
inline constexpr TraceDrop kTraceDrops[] = {TraceDrop::count, TraceDrop::bytes, TraceDrop::age};
std::string_view trace_drop_name(TraceDrop reason);

struct TraceRemoval {
  std::string id;
  TraceDrop reason = TraceDrop::count;
  bool operator==(const TraceRemoval&) const = default;
};

// What retention removes from `traces` at `now_ns`, oldest first: those
// older than max_age (age), then the oldest of the rest beyond max_count
// (count), then the oldest of the rest until their bytes fit max_bytes
// (bytes). A trace broken by several limits is named by the first of them.
std::vector<TraceRemoval> plan_retention(std::vector<StoredTrace> traces, const TraceLimits& limits,
                                         std::int64_t now_ns);

}  // namespace jank::metrics

#include "metrics/trace_files.h"

#include <algorithm>

#include "parsers/time_units.h"

namespace jank::metrics {
namespace {

bool id_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

// "20261124T031502Z": the UTC second of a Unix time in ns.
std::string id_time(std::int64_t ns) {
  return parsers::units::format_utc(ns, parsers::units::UtcFormat::compact) + "Z";
}

}  // namespace

bool valid_trace_id(std::string_view id) {
  return !id.empty() && std::all_of(id.begin(), id.end(), id_char) && id.find("..") == std::string_view::npos;
}

bool trace_id_shaped(std::string_view id) {
  if (!valid_trace_id(id)) return false;
  constexpr std::string_view shape = "_ddddddddTddddddZ_";  // d: a digit
  for (std::size_t at = 0; at + shape.size() <= id.size(); ++at) {
    bool match = true;
    for (std::size_t i = 0; i < shape.size() && match; ++i) {
      const char c = id[at + i];
      match = shape[i] == 'd' ? (c >= '0' && c <= '9') : c == shape[i];
    }
    if (match) return true;
  }
  return false;
}

std::string trace_id_part(std::string_view name) {
  std::string out;
  for (const char c : name.substr(0, kMaxTraceIdPart)) {
    const bool second_dot = c == '.' && !out.empty() && out.back() == '.';
    out.push_back(id_char(c) && !second_dot ? c : '-');
  }
  return out.empty() ? "-" : out;
}

std::string base_trace_id(const StoredTrace& trace) {
  return trace_id_part(trace.serial) + "_" + trace_id_part(trace.package) + "_" + id_time(trace.triggered_at_ns) +
         "_" + trace_id_part(trace.rule);
}

std::string unique_trace_id(const std::string& base, const std::function<bool(const std::string&)>& taken) {
  if (!taken(base)) return base;
  for (int n = 2; n <= kMaxTraceIdSuffix; ++n) {
    std::string id = base + "-" + std::to_string(n);
    if (!taken(id)) return id;
  }
  return "";
}

bool trace_id_follows_rule(std::string_view id, const StoredTrace& trace) {
  const std::string base = base_trace_id(trace);
  if (id == base) return true;
  if (!id.starts_with(base) || id.size() < base.size() + 2 || id[base.size()] != '-') return false;
  const std::string_view suffix = id.substr(base.size() + 1);
  if (suffix.size() > 3 || suffix[0] == '0') return false;
  int n = 0;
  for (const char c : suffix) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  return n >= 2 && n <= kMaxTraceIdSuffix;
}

bool newer_trace(const StoredTrace& a, const StoredTrace& b) {
  if (a.triggered_at_ns != b.triggered_at_ns) return a.triggered_at_ns > b.triggered_at_ns;
  // Same instant: base-10 after base-9 after base.
  if (a.id.size() != b.id.size()) return a.id.size() > b.id.size();
  return a.id > b.id;
}

std::string_view trace_drop_name(TraceDrop reason) {
  switch (reason) {
    case TraceDrop::count: return "count";
    case TraceDrop::bytes: return "bytes";
    case TraceDrop::age: return "age";
  }
  return "unknown";
}

std::vector<TraceRemoval> plan_retention(std::vector<StoredTrace> traces, const TraceLimits& limits,
                                         std::int64_t now_ns) {
  std::sort(traces.begin(), traces.end(), [](const StoredTrace& a, const StoredTrace& b) { return newer_trace(b, a); });
  std::vector<TraceRemoval> out;
  std::size_t first_kept = 0;  // traces[first_kept..] are kept so far
  // Age is monotone in the order: the ones too old are a prefix.
  while (limits.max_age_ns > 0 && first_kept < traces.size() &&
         now_ns - traces[first_kept].triggered_at_ns > limits.max_age_ns) {
    out.push_back({traces[first_kept++].id, TraceDrop::age});
  }
  while (limits.max_count > 0 && traces.size() - first_kept > limits.max_count) {
    out.push_back({traces[first_kept++].id, TraceDrop::count});
  }
  std::uint64_t bytes = 0;
  for (std::size_t i = first_kept; i < traces.size(); ++i) bytes += traces[i].bytes;
  while (limits.max_bytes > 0 && bytes > limits.max_bytes) {
    bytes -= traces[first_kept].bytes;
    out.push_back({traces[first_kept++].id, TraceDrop::bytes});
  }
  return out;
}

}  // namespace jank::metrics

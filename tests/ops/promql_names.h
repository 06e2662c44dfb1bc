// The metric names a PromQL expression reads, for checking that shipped
// queries only use families the exporter serves (or recording rules).
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace jank::ops_test {

// Identifiers used as series selectors: not functions, aggregations,
// keywords, label names (in {…}, by/without/on/ignoring/group_* lists) or
// anything in strings and [ranges].
std::set<std::string> promql_metric_names(std::string_view expr);

// Grafana's label_values(EXPR, label) → EXPR; other queries unchanged.
std::string grafana_variable_expr(std::string_view query);

}  // namespace jank::ops_test

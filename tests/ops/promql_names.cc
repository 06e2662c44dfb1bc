#include "tests/ops/promql_names.h"

#include <cctype>

namespace jank::ops_test {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }
bool ident_char(char c) { return ident_start(c) || std::isdigit(static_cast<unsigned char>(c)); }

// Index just past the string starting at i (quote at i).
std::size_t skip_string(std::string_view s, std::size_t i) {
  const char quote = s[i++];
  while (i < s.size() && s[i] != quote) i += (s[i] == '\\' && quote != '`') ? 2 : 1;
  return i + 1;
}

// Index just past the bracket closing the one at i, skipping strings.
std::size_t skip_group(std::string_view s, std::size_t i, char open, char close) {
  int depth = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '"' || c == '\'' || c == '`') {
      i = skip_string(s, i);
      continue;
    }
    if (c == open) ++depth;
    if (c == close && --depth == 0) return i + 1;
    ++i;
  }
  return i;
}

const std::set<std::string, std::less<>> kLabelLists = {"by", "without", "on", "ignoring", "group_left", "group_right"};
// group_left/group_right may come without a label list.
const std::set<std::string, std::less<>> kKeywords = {"and", "or",  "unless", "offset",     "bool",
                                                       "inf", "nan", "atan2",  "group_left", "group_right"};
const std::set<std::string, std::less<>> kAggregations = {"sum",   "min",     "max",    "avg",          "group",
                                                           "stddev", "stdvar", "count", "count_values", "bottomk",
                                                           "topk",  "quantile"};

}  // namespace

std::set<std::string> promql_metric_names(std::string_view s) {
  std::set<std::string> names;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '"' || c == '\'' || c == '`') {
      i = skip_string(s, i);
    } else if (c == '{') {
      i = skip_group(s, i, '{', '}');
    } else if (c == '[') {
      i = skip_group(s, i, '[', ']');
    } else if (c == '#') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;  // 0.8, 1e3, 5m
    } else if (ident_start(c)) {
      std::size_t end = i;
      while (end < s.size() && ident_char(s[end])) ++end;
      const std::string word(s.substr(i, end - i));
      std::size_t next = end;
      while (next < s.size() && std::isspace(static_cast<unsigned char>(s[next]))) ++next;
      const bool call = next < s.size() && s[next] == '(';
      if (kLabelLists.count(word) && call) {
        i = skip_group(s, next, '(', ')');
        continue;
      }
      if (!call && !kKeywords.count(word) && !kAggregations.count(word)) names.insert(word);
      i = end;
    } else {
      ++i;
    }
  }
  return names;
}

std::string grafana_variable_expr(std::string_view query) {
  constexpr std::string_view prefix = "label_values(";
  if (query.substr(0, prefix.size()) != prefix) return std::string(query);
  const std::size_t comma = query.rfind(',');
  if (comma == std::string_view::npos || comma < prefix.size()) return std::string(query.substr(prefix.size()));
  return std::string(query.substr(prefix.size(), comma - prefix.size()));
}

}  // namespace jank::ops_test

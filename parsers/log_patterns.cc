#include "parsers/log_patterns.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <system_error>

#include "parsers/text_scan.h"

namespace jank::parsers {
namespace {

// logcat's priorities, lowest first; 'A' (assert) is printed for fatal by
// some layouts.
int priority_rank(char p) {
  switch (p) {
    case 'V': return 2;
    case 'D': return 3;
    case 'I': return 4;
    case 'W': return 5;
    case 'E': return 6;
    case 'F':
    case 'A': return 7;
    default: return 0;
  }
}

RE2::Options regex_options() {
  RE2::Options o;
  o.set_max_mem(kLogPatternMaxMem);
  o.set_log_errors(false);  // a hostile pattern must not write to our stderr
  return o;
}

// The capture index `group` names in `re`, or -1 with `error` set.
int resolve_group(const RE2& re, const std::string& group, std::string& error) {
  const int groups = re.NumberOfCapturingGroups();
  if (scan::all_digits(group)) {
    const auto n = scan::parse_int<int>(group);
    if (n && *n >= 1 && *n <= groups) return *n;
    error = "group " + group + " does not exist (the regex has " + std::to_string(groups) +
            (groups == 1 ? " group)" : " groups)");
    return -1;
  }
  const auto& named = re.NamedCapturingGroups();
  if (auto it = named.find(group); it != named.end()) return it->second;
  std::string names;
  for (const auto& [name, index] : named) names += (names.empty() ? "" : ", ") + name;
  error = "no group named '" + group + "' in the regex" + (names.empty() ? "" : " (named groups: " + names + ")");
  return -1;
}

}  // namespace

std::string check_log_pattern_name(std::string_view name) {
  if (name.empty()) return "a name is needed";
  const bool ok = !name.empty() && name.size() <= kMaxLogPatternNameBytes &&
                  !scan::is_digit(name[0]) && std::all_of(name.begin(), name.end(), scan::is_word_char);
  if (ok) return "";
  return "'" + std::string(name.substr(0, kMaxLogPatternNameBytes)) +
         "' is not a pattern name ([A-Za-z_][A-Za-z0-9_]*, at most 64 characters)";
}

std::string check_log_priority(std::string_view priority) {
  if (priority.size() == 1 && priority_rank(priority[0]) != 0 && priority[0] != 'A') return "";
  return "'" + std::string(priority.substr(0, 16)) + "' is not a priority (V, D, I, W, E or F)";
}

std::string check_log_tag(std::string_view tag) {
  if (tag.empty() || tag.size() > 128) return "a tag must have 1 to 128 bytes";
  for (const char c : tag) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "a tag must not hold control characters";
  }
  return "";
}

std::string_view pattern_discard_name(PatternDiscard reason) {
  switch (reason) {
    case PatternDiscard::value_not_numeric: return "value_not_numeric";
    case PatternDiscard::value_negative: return "value_negative";
    case PatternDiscard::value_non_finite: return "value_non_finite";
    case PatternDiscard::label_invalid: return "label_invalid";
    case PatternDiscard::count_: break;
  }
  return "unknown";
}

bool parse_pattern_value(std::string_view text, double& value, PatternDiscard& why) {
  why = PatternDiscard::value_not_numeric;
  if (text.empty() || text.size() > 64) return false;
  double v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
  if (p != text.data() + text.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    why = PatternDiscard::value_non_finite;
    return false;
  }
  if (ec != std::errc{}) return false;
  if (!std::isfinite(v)) {
    why = PatternDiscard::value_non_finite;
    return false;
  }
  if (v < 0) {
    why = PatternDiscard::value_negative;
    return false;
  }
  value = v + 0.0;  // -0 sums as 0
  return true;
}

struct LogPatternSet::Compiled {
  explicit Compiled(const std::string& regex) : re(regex, regex_options()) {}
  RE2 re;
  int label_index = -1;  // capture indices, -1 when not configured
  int value_index = -1;
  int captures = 0;      // submatches needed: 1 + the highest index used, or 0
  int min_rank = 0;
};

// Several patterns of one tag are tried in one pass of an RE2::Set; the set
// only tells which matched, so captures are taken afterwards from the
// pattern's own RE2, on the (rare) matching lines only.
struct LogPatternSet::Group {
  std::vector<std::size_t> patterns;
  std::unique_ptr<RE2::Set> set;  // null: one pattern, or the set did not compile
};

LogPatternSet::LogPatternSet() = default;
LogPatternSet::~LogPatternSet() = default;

std::shared_ptr<const LogPatternSet> LogPatternSet::compile(std::vector<LogPatternSpec> specs,
                                                            std::vector<Error>& errors) {
  const std::size_t errors_before = errors.size();
  std::shared_ptr<LogPatternSet> set(new LogPatternSet());
  if (specs.size() > kMaxLogPatterns) {
    errors.push_back({kMaxLogPatterns, "", "at most " + std::to_string(kMaxLogPatterns) + " log patterns"});
    return nullptr;
  }
  std::map<std::string, std::size_t, std::less<>> names;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const LogPatternSpec& s = specs[i];
    auto fail = [&](std::string field, std::string message) { errors.push_back({i, std::move(field), std::move(message)}); };
    if (std::string e = check_log_pattern_name(s.name); !e.empty()) {
      fail("name", e);
    } else if (auto [it, added] = names.emplace(s.name, i); !added) {
      fail("name", "'" + s.name + "' is already the name of log_patterns[" + std::to_string(it->second) + "]");
    }
    if (s.tags.size() > kMaxLogPatternTags) fail("tag", "at most " + std::to_string(kMaxLogPatternTags) + " tags");
    for (const auto& tag : s.tags) {
      if (std::string e = check_log_tag(tag); !e.empty()) fail("tag", e);
    }
    if (s.min_priority != 0 && !check_log_priority(std::string_view(&s.min_priority, 1)).empty()) {
      fail("priority", check_log_priority(std::string_view(&s.min_priority, 1)));
    }
    auto compiled = std::make_unique<Compiled>(s.regex.size() <= kMaxLogPatternRegexBytes ? s.regex : std::string());
    compiled->min_rank = priority_rank(s.min_priority);
    if (s.regex.empty()) {
      fail("regex", "a regex is needed");
    } else if (s.regex.size() > kMaxLogPatternRegexBytes) {
      fail("regex", "longer than " + std::to_string(kMaxLogPatternRegexBytes) + " bytes");
    } else if (!compiled->re.ok()) {
      fail("regex", "not a valid RE2 pattern: " + compiled->re.error());
    } else {
      std::string e;
      if (!s.label_group.empty() && (compiled->label_index = resolve_group(compiled->re, s.label_group, e)) < 0) {
        fail("label_group", e);
      }
      e.clear();
      if (!s.value_group.empty() && (compiled->value_index = resolve_group(compiled->re, s.value_group, e)) < 0) {
        fail("value_group", e);
      }
      const int highest = std::max(compiled->label_index, compiled->value_index);
      compiled->captures = highest > 0 ? highest + 1 : 0;
    }
    set->compiled_.push_back(std::move(compiled));
  }
  if (errors.size() != errors_before) return nullptr;

  set->specs_ = std::move(specs);
  auto group_of = [&](const LogPatternSpec& s, std::size_t i) {
    if (s.tags.empty()) {
      if (!set->any_tag_) set->any_tag_ = std::make_unique<Group>();
      set->any_tag_->patterns.push_back(i);
      return;
    }
    for (const auto& tag : s.tags) {
      auto& g = set->by_tag_[tag];
      if (!g) {
        g = std::make_unique<Group>();
        set->prefilter_.words.push_back(tag);
      }
      if (g->patterns.empty() || g->patterns.back() != i) g->patterns.push_back(i);  // a tag listed twice
    }
  };
  for (std::size_t i = 0; i < set->specs_.size(); ++i) group_of(set->specs_[i], i);
  // A pattern without tag, or more tags than substring passes are worth:
  // every line's header is read and its tag looked up instead.
  set->prefilter_.every_line = set->any_tag_ != nullptr || set->prefilter_.words.size() > kMaxPrefilterWords;
  if (set->prefilter_.every_line) set->prefilter_.words.clear();
  auto build_set = [&](Group& g) {
    if (g.patterns.size() < 2) return;
    auto re_set = std::make_unique<RE2::Set>(regex_options(), RE2::UNANCHORED);
    for (const std::size_t i : g.patterns) {
      if (re_set->Add(set->specs_[i].regex, nullptr) < 0) return;
    }
    if (re_set->Compile()) g.set = std::move(re_set);  // else: one pattern at a time
  };
  for (auto& [tag, g] : set->by_tag_) build_set(*g);
  if (set->any_tag_) build_set(*set->any_tag_);
  return set;
}

void LogPatternSet::match_group(const Group& group, const LogLine& line, std::vector<std::size_t>& hits) const {
  const re2::StringPiece text(line.message.data(), line.message.size());
  const int rank = priority_rank(line.priority);
  auto admitted = [&](std::size_t i) {
    const int min_rank = compiled_[i]->min_rank;
    return min_rank == 0 || (rank != 0 && rank >= min_rank);
  };
  if (group.set) {
    // Asking which patterns matched costs an allocation in RE2: first only
    // whether any did, which is rare.
    RE2::Set::ErrorInfo info{};
    if (!group.set->Match(text, nullptr, &info) && info.kind != RE2::Set::kOutOfMemory) return;
    std::vector<int> matched;
    if (info.kind != RE2::Set::kOutOfMemory && group.set->Match(text, &matched, &info)) {
      for (const int k : matched) {
        const std::size_t i = group.patterns[static_cast<std::size_t>(k)];
        if (admitted(i)) hits.push_back(i);
      }
      return;
    }
    if (info.kind != RE2::Set::kOutOfMemory) return;  // kNoError: nothing matched
    // The set's DFA ran out of its memory budget: each pattern on its own
    // (RE2 falls back to its NFA there) so that no match is lost.
  }
  for (const std::size_t i : group.patterns) {
    if (admitted(i) && compiled_[i]->re.Match(text, 0, text.size(), RE2::UNANCHORED, nullptr, 0)) hits.push_back(i);
  }
}

std::size_t LogPatternSet::match(const LogLine& line, std::vector<LogPatternHit>& out) const {
  out.clear();
  std::vector<std::size_t> hits;
  if (!line.tag.empty() && !by_tag_.empty()) {
    if (auto it = by_tag_.find(line.tag); it != by_tag_.end()) match_group(*it->second, line, hits);
  }
  if (any_tag_) match_group(*any_tag_, line, hits);
  if (hits.empty()) return 0;
  std::sort(hits.begin(), hits.end());
  hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
  const re2::StringPiece text(line.message.data(), line.message.size());
  for (const std::size_t i : hits) {
    const Compiled& c = *compiled_[i];
    LogPatternHit hit;
    hit.pattern = i;
    hit.name = specs_[i].name;
    hit.has_label = c.label_index > 0;
    hit.has_value = c.value_index > 0;
    if (c.captures > 0) {
      std::vector<re2::StringPiece> groups(static_cast<std::size_t>(c.captures));
      if (!c.re.Match(text, 0, text.size(), RE2::UNANCHORED, groups.data(), c.captures)) {
        continue;  // cannot happen: the same regex matched just now
      }
      if (hit.has_label) {
        const re2::StringPiece& l = groups[static_cast<std::size_t>(c.label_index)];
        hit.label = std::string_view(l.data(), l.size());
      }
      if (hit.has_value) {
        const re2::StringPiece& v = groups[static_cast<std::size_t>(c.value_index)];
        hit.value_ok = v.data() != nullptr &&
                       parse_pattern_value(std::string_view(v.data(), v.size()), hit.value, hit.value_discard);
      }
    }
    out.push_back(hit);
  }
  return out.size();
}

}  // namespace jank::parsers

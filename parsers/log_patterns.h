// Custom log counters: the operator's RE2 patterns (config `log_patterns:`),
// compiled once per configuration load and then shared read-only by every
// log stream (RE2 matching is thread-safe on a const object). Pure: text in,
// hits out; what is counted is metrics/' business.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "parsers/logcat_line.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace jank::parsers {

// One pattern as configured.
struct LogPatternSpec {
  std::string name;               // the `pattern` label
  std::vector<std::string> tags;  // exact tags; empty: any tag
  char min_priority = 0;          // V D I W E F, or 0 for any
  std::string regex;              // RE2, searched in the message (unanchored)
  std::string label_group;        // capture number or name whose text is a label value; "" none
  std::string value_group;        // capture number or name whose number is summed; "" none
};

// Bounds that keep a hostile configuration from costing much memory or CPU:
// RE2 matches in linear time, and its compiled program and DFA cache are
// bounded by max_mem (a pattern over it fails to compile, reported at load).
inline constexpr std::size_t kMaxLogPatterns = 64;
inline constexpr std::size_t kMaxLogPatternRegexBytes = 4096;
inline constexpr std::size_t kMaxLogPatternTags = 64;  // per pattern
inline constexpr std::size_t kMaxLogPatternNameBytes = 64;
inline constexpr std::int64_t kLogPatternMaxMem = 1 << 20;  // per pattern (and per shared-tag set)
// Beyond this many distinct tags, the pre-filter reads every line's header
// rather than search each tag in the text: each search is a pass over the
// text, and from four on the passes cost more than the header parse
// (docs/performance.md, "Log patterns").
inline constexpr std::size_t kMaxPrefilterWords = 3;
// Longer captured label values are refused (a counted discard).
inline constexpr std::size_t kMaxLogPatternLabelBytes = 128;

// "" or why `name` cannot be a pattern name ([A-Za-z_][A-Za-z0-9_]*, at most 64).
std::string check_log_pattern_name(std::string_view name);
// "" or why `priority` is not one of V D I W E F.
std::string check_log_priority(std::string_view priority);
// "" or why `tag` cannot be a tag filter (empty, over 128 bytes, control bytes).
std::string check_log_tag(std::string_view tag);

// Why a captured value was not summed, or a label not kept.
enum class PatternDiscard : std::uint8_t {
  value_not_numeric,  // empty, not a decimal number, or a group that did not take part
  value_negative,
  value_non_finite,   // inf, nan, or beyond a double
  label_invalid,      // empty or longer than kMaxLogPatternLabelBytes (counted under _other_)
  count_
};
inline constexpr std::size_t kPatternDiscards = static_cast<std::size_t>(PatternDiscard::count_);
std::string_view pattern_discard_name(PatternDiscard reason);

// A pattern that matched a line. The views point into the line and the set.
struct LogPatternHit {
  std::size_t pattern = 0;  // index in the set
  std::string_view name;
  bool has_label = false;   // the pattern has a label_group
  std::string_view label;   // its capture (empty when it did not take part)
  bool has_value = false;   // the pattern has a value_group
  bool value_ok = false;    // the capture is a finite number ≥ 0
  double value = 0;
  PatternDiscard value_discard = PatternDiscard::value_not_numeric;  // when has_value && !value_ok
};

// A capture as a value to sum: a plain decimal ("12", "3.5", ".5", "1e3"),
// finite and not negative; else why not.
bool parse_pattern_value(std::string_view text, double& value, PatternDiscard& why);

// Lines worth a header parse: those holding one of `words` (the tags), or
// every line. Tags are found as substrings (the exact comparison follows the
// header parse), so a false candidate only costs a parse.
struct PatternPrefilter {
  bool every_line = false;  // a pattern matches any tag
  std::vector<std::string> words;
  bool empty() const { return !every_line && words.empty(); }
};

class LogPatternSet {
  // Tags are looked up by the line's string_view, without a copy.
  struct TagHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

 public:
  struct Error {
    std::size_t index = 0;  // the pattern
    std::string field;      // "name", "tag", "priority", "regex", "label_group", "value_group"
    std::string message;
  };

  // Compiles every pattern; any error leaves `errors` non-empty and the
  // result unusable for matching (nullptr).
  static std::shared_ptr<const LogPatternSet> compile(std::vector<LogPatternSpec> specs, std::vector<Error>& errors);

  ~LogPatternSet();
  LogPatternSet(const LogPatternSet&) = delete;
  LogPatternSet& operator=(const LogPatternSet&) = delete;

  std::size_t size() const { return specs_.size(); }
  const LogPatternSpec& spec(std::size_t i) const { return specs_[i]; }
  const PatternPrefilter& prefilter() const { return prefilter_; }

  // Every pattern that matches this parsed line, in configuration order.
  // Returns the number of hits appended to `out` (cleared first).
  std::size_t match(const LogLine& line, std::vector<LogPatternHit>& out) const;

 private:
  LogPatternSet();
  struct Compiled;
  struct Group;  // the patterns of one tag (or of any tag)
  void match_group(const Group& group, const LogLine& line, std::vector<std::size_t>& hits) const;

  std::vector<LogPatternSpec> specs_;
  std::vector<std::unique_ptr<Compiled>> compiled_;
  std::unordered_map<std::string, std::unique_ptr<Group>, TagHash, std::equal_to<>> by_tag_;
  std::unique_ptr<Group> any_tag_;
  PatternPrefilter prefilter_;
};

}  // namespace jank::parsers

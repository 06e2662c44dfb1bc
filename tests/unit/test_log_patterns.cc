// Custom log counters (config log_patterns): configuration errors at their
// YAML position, matching, the tag pre-filter, the label cap, value sums and
// discards, the checkpoint, and counting once across a resumed stream.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "config/config.h"
#include "config/schema.h"
#include "exporters/prometheus_collector.h"
#include "metrics/logcat_recorder.h"
#include "metrics/sources/log_patterns.h"
#include "metrics/sources/skips.h"
#include "metrics/store.h"
#include "tests/unit/exposition_fixture.h"
#include "parsers/log_patterns.h"
#include "parsers/logcat_cursor.h"
#include "parsers/logcat_stream.h"
#include "tests/unit/fake_logd.h"

using namespace jank;
using parsers::LogPatternHit;
using parsers::LogPatternSet;
using parsers::LogPatternSpec;

namespace {

using test::series;

std::shared_ptr<const LogPatternSet> compile(std::vector<LogPatternSpec> specs) {
  std::vector<LogPatternSet::Error> errors;
  auto set = LogPatternSet::compile(std::move(specs), errors);
  for (const auto& e : errors) FAIL(e.index << "." << e.field << ": " << e.message);
  REQUIRE(set);
  return set;
}

// The module's counts, empty when it holds none.
const metrics::DevicePatterns& device_patterns(const metrics::DeviceMetrics& d) {
  static const metrics::DevicePatterns none;
  const auto* p = metrics::log_patterns_of(d);
  return p == nullptr ? none : *p;
}
const metrics::PackagePatterns& app_patterns(const metrics::PackageMetrics& app) {
  static const metrics::PackagePatterns none;
  const auto* p = metrics::log_patterns_of(app);
  return p == nullptr ? none : *p;
}

LogPatternSpec spec(std::string name, std::vector<std::string> tags, std::string regex) {
  LogPatternSpec s;
  s.name = std::move(name);
  s.tags = std::move(tags);
  s.regex = std::move(regex);
  return s;
}

parsers::LogLine line(std::string_view tag, std::string_view message, char priority = 'I') {
  parsers::LogLine l;
  l.tag = tag;
  l.message = message;
  l.priority = priority;
  return l;
}

std::vector<std::string> names_of(const std::vector<LogPatternHit>& hits) {
  std::vector<std::string> out;
  for (const auto& h : hits) out.emplace_back(h.name);
  return out;
}


// Replays `text` through a stream with `set` into the store's device "s".
parsers::LineCounts replay(metrics::Store& store, const LogPatternSet& set, std::string_view text,
                           std::size_t chunk, std::size_t max_values = 50) {
  auto& d = store.device("s");
  metrics::DeviceLogcatRecorder recorder(store, d, max_values);
  parsers::LogcatStreamOptions o;
  o.patterns = &set;
  parsers::LogcatStream stream(recorder, o);
  for (std::size_t i = 0; i < text.size(); i += chunk) stream.feed(text.substr(i, chunk));
  stream.finish();
  return stream.counts();
}

}  // namespace

TEST_CASE("log pattern configuration errors point at the YAML node as file:line:col", "[log_patterns][config]") {
  const std::string yaml =
      "log_patterns:\n"
      "  - name: anr\n"
      "    tag: ActivityManager\n"
      "    regex: 'ANR in (\\S+'\n"
      "  - name: anr\n"
      "    regex: 'x(y)'\n"
      "    label_group: 2\n"
      "    value_group: nope\n"
      "  - name: 9bad\n"
      "    priority: Q\n"
      "    regx: 'a'\n"
      "  - just a string\n"
      "  - name: ok\n"
      "    tag: []\n"
      "    regex: 'a'\n";
  const auto r = config::parse_config(yaml, "p.yaml");
  std::vector<std::string> got;
  for (const auto& e : r.errors) got.push_back(e.to_string());
  const std::vector<std::string> expected = {
      "p.yaml:9:11: log_patterns[2].name: '9bad' is not a pattern name ([A-Za-z_][A-Za-z0-9_]*, at most 64 "
      "characters)",
      "p.yaml:10:15: log_patterns[2].priority: 'Q' is not a priority (V, D, I, W, E or F)",
      "p.yaml:11:5: unknown key 'log_patterns[2].regx' (allowed in log_patterns: name, tag, priority, regex, "
      "label_group, value_group)",
      "p.yaml:12:5: log_patterns[3]: expected a mapping",
      "p.yaml:14:10: log_patterns[4].tag: an empty list matches no tag: leave tag out to match any",
      "p.yaml:4:12: log_patterns[0].regex: not a valid RE2 pattern: missing ): ANR in (\\S+",
      "p.yaml:5:11: log_patterns[1].name: 'anr' is already the name of log_patterns[0]",
      "p.yaml:7:18: log_patterns[1].label_group: group 2 does not exist (the regex has 1 group)",
      "p.yaml:8:18: log_patterns[1].value_group: no group named 'nope' in the regex",
      "p.yaml:9:5: log_patterns[2].regex: a regex is needed",
  };
  CHECK(got == expected);
  CHECK_FALSE(r.config.log_pattern_set);

  auto list = config::parse_config("log_patterns: {name: a}\n", "q.yaml");
  REQUIRE(list.errors.size() == 1);
  CHECK(list.errors[0].to_string() == "q.yaml:1:15: log_patterns: expected a list of mappings");
  auto cap = config::parse_config("log_patterns_max_values: 0\n", "c.yaml");
  REQUIRE(cap.errors.size() == 1);
  CHECK(cap.errors[0].to_string() == "c.yaml:1:26: log_patterns_max_values: 0 is out of range [1, 10000]");
}

TEST_CASE("a valid log_patterns list compiles once into the configuration", "[log_patterns][config]") {
  const auto r = config::parse_config(
      "log_patterns_max_values: 7\n"
      "log_patterns:\n"
      "  - name: anr\n"
      "    tag: ActivityManager\n"
      "    priority: E\n"
      "    regex: 'ANR in (?P<app>\\S+)'\n"
      "    label_group: app\n"
      "  - name: gc_pause\n"
      "    tag: [art, dalvikvm]\n"
      "    regex: 'paused (\\d+\\.?\\d*)ms'\n"
      "    value_group: 1\n",
      "ok.yaml");
  for (const auto& e : r.errors) FAIL(e.to_string());
  REQUIRE(r.config.log_pattern_set);
  const auto& set = *r.config.log_pattern_set;
  REQUIRE(set.size() == 2);
  CHECK(set.spec(0).min_priority == 'E');
  CHECK(set.spec(1).tags == std::vector<std::string>{"art", "dalvikvm"});
  CHECK(r.config.log_patterns_max_values == 7);
  CHECK_FALSE(set.prefilter().every_line);
  CHECK(set.prefilter().words.size() == 3);
  // The schema describes the list and each field once, for --help.
  const std::string help = config::describe_schema();
  CHECK(help.find("  log_patterns (list of mappings, default [])") != std::string::npos);
  CHECK(help.find("  log_patterns[].regex (string, default —)") != std::string::npos);
  CHECK(help.find("  log_patterns_max_values (integer, default 50, [1, 10000])") != std::string::npos);
}

TEST_CASE("hostile pattern lists are refused at load: too many, too large a program", "[log_patterns][config]") {
  std::vector<LogPatternSpec> many;
  for (int i = 0; i < 65; ++i) many.push_back(spec("p" + std::to_string(i), {}, "x"));
  std::vector<LogPatternSet::Error> errors;
  CHECK_FALSE(LogPatternSet::compile(many, errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message == "at most 64 log patterns");

  std::string yaml = "log_patterns:\n";
  for (int i = 0; i < 65; ++i) yaml += "  - {name: p" + std::to_string(i) + ", regex: x}\n";
  const auto r = config::parse_config(yaml, "m.yaml");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].to_string() == "m.yaml:66:5: log_patterns: at most 64 log patterns");

  errors.clear();
  // A bounded repetition of a large class compiles to a program far beyond max_mem.
  CHECK_FALSE(LogPatternSet::compile({spec("big", {}, "((\\w{1,100}){1,100}){1,100}")}, errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].field == "regex");
  CHECK_THAT(errors[0].message, Catch::StartsWith("not a valid RE2 pattern: "));
  errors.clear();
  CHECK_FALSE(LogPatternSet::compile({spec("long", {}, std::string(5000, 'a'))}, errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message == "longer than 4096 bytes");
}

TEST_CASE("patterns match by exact tag, tag list or any tag, and by lowest priority", "[log_patterns]") {
  LogPatternSpec anr = spec("anr", {"ActivityManager"}, "ANR in (\\S+)");
  anr.min_priority = 'W';
  anr.label_group = "1";
  const auto set = compile({anr, spec("fatal", {"AndroidRuntime", "DEBUG"}, "FATAL EXCEPTION"),
                            spec("oom", {}, "OutOfMemoryError"), spec("am_any", {"ActivityManager"}, "in")});
  std::vector<LogPatternHit> hits;
  CHECK(set->match(line("ActivityManager", "ANR in com.a (pid 3)", 'E'), hits) == 2);
  CHECK(names_of(hits) == std::vector<std::string>{"anr", "am_any"});
  CHECK(hits[0].has_label);
  CHECK(hits[0].label == "com.a");
  CHECK_FALSE(hits[1].has_label);
  // Below W: only the pattern without a priority.
  CHECK(set->match(line("ActivityManager", "ANR in com.a", 'I'), hits) == 1);
  CHECK(hits[0].name == "am_any");
  // A layout without priority never passes a priority filter.
  CHECK(set->match(line("ActivityManager", "ANR in com.a", 0), hits) == 1);
  // Tags are exact and case-sensitive; the second tag of a list counts.
  CHECK(set->match(line("activitymanager", "ANR in com.a", 'E'), hits) == 0);
  CHECK(set->match(line("ActivityManagerX", "ANR in com.a", 'E'), hits) == 0);
  CHECK(set->match(line("DEBUG", "FATAL EXCEPTION: main", 'E'), hits) == 1);
  CHECK(set->match(line("AndroidRuntime", "FATAL EXCEPTION: main", 'E'), hits) == 1);
  // Any tag, including none (`-v thread`).
  CHECK(set->match(line("", "java.lang.OutOfMemoryError: x"), hits) == 1);
  CHECK(set->match(line("zygote", "java.lang.OutOfMemoryError: x"), hits) == 1);
  CHECK(set->match(line("zygote", "nothing"), hits) == 0);
}

TEST_CASE("several patterns of one tag go through one RE2 set and keep their captures", "[log_patterns]") {
  std::vector<LogPatternSpec> specs;
  for (int i = 0; i < 6; ++i) {
    LogPatternSpec s = spec("p" + std::to_string(i), {"T"}, "k" + std::to_string(i) + "=(?P<v>\\d+)");
    s.value_group = "v";
    specs.push_back(s);
  }
  const auto set = compile(specs);
  std::vector<LogPatternHit> hits;
  CHECK(set->match(line("T", "k1=5 k4=7 k9=1"), hits) == 2);
  REQUIRE(names_of(hits) == std::vector<std::string>{"p1", "p4"});
  CHECK(hits[0].value == 5);
  CHECK(hits[1].value == 7);
  CHECK(set->match(line("T", "none"), hits) == 0);
}

TEST_CASE("captured values: numbers summed, anything else a counted discard", "[log_patterns]") {
  double v = 0;
  parsers::PatternDiscard why{};
  CHECK(parsers::parse_pattern_value("12.5", v, why));
  CHECK(v == 12.5);
  CHECK(parsers::parse_pattern_value(".5", v, why));
  CHECK(parsers::parse_pattern_value("1e3", v, why));
  CHECK(v == 1000);
  CHECK(parsers::parse_pattern_value("-0", v, why));
  CHECK_FALSE(std::signbit(v));
  for (const char* text : {"", "abc", "1,5", "12ms", "+3", " 1", "0x10"}) {
    INFO(text);
    CHECK_FALSE(parsers::parse_pattern_value(text, v, why));
    CHECK(why == parsers::PatternDiscard::value_not_numeric);
  }
  for (const char* text : {"inf", "nan", "1e999", "-inf"}) {
    INFO(text);
    CHECK_FALSE(parsers::parse_pattern_value(text, v, why));
    CHECK(why == parsers::PatternDiscard::value_non_finite);
  }
  CHECK_FALSE(parsers::parse_pattern_value("-3", v, why));
  CHECK(why == parsers::PatternDiscard::value_negative);

  LogPatternSpec gc = spec("gc", {"art"}, "paused (-?\\d*\\.?\\d*|\\w+)?ms");
  gc.value_group = "1";
  const auto set = compile({gc});
  metrics::Store store;
  const std::string text =
      "01-02 03:04:05.000  10  11 I art     : paused 12.5ms total 3ms\n"
      "01-02 03:04:05.001  10  11 I art     : paused 7ms\n"
      "01-02 03:04:05.002  10  11 I art     : paused -3ms\n"
      "01-02 03:04:05.003  10  11 I art     : paused infms\n"
      "01-02 03:04:05.004  10  11 I art     : paused xyzms\n"
      "01-02 03:04:05.005  10  11 I art     : paused ms\n";
  const auto counts = replay(store, *set, text, 5);
  CHECK(counts.parsed == 6);
  CHECK(series(store, "android_log_pattern_matches_total") ==
        "android_log_pattern_matches_total{serial=\"s\",package=\"pid:10\",pattern=\"gc\",value=\"\"} 6\n");
  CHECK(series(store, "android_log_pattern_value_sum_total") ==
        "android_log_pattern_value_sum_total{serial=\"s\",package=\"pid:10\",pattern=\"gc\",value=\"\"} 19.5\n");
  CHECK(series(store, "android_log_pattern_value_count_total") ==
        "android_log_pattern_value_count_total{serial=\"s\",package=\"pid:10\",pattern=\"gc\",value=\"\"} 2\n");
  CHECK(series(store, "jank_exporter_log_pattern_discards_total") ==
        "jank_exporter_log_pattern_discards_total{serial=\"s\",pattern=\"gc\",reason=\"value_not_numeric\"} 2\n"
        "jank_exporter_log_pattern_discards_total{serial=\"s\",pattern=\"gc\",reason=\"value_negative\"} 1\n"
        "jank_exporter_log_pattern_discards_total{serial=\"s\",pattern=\"gc\",reason=\"value_non_finite\"} 1\n");
  CHECK(series(store, "jank_exporter_log_pattern_overflow_total").empty());  // no label_group
}

TEST_CASE("label values are capped per device and pattern: the rest under _other_ and counted", "[log_patterns]") {
  LogPatternSpec anr = spec("anr", {"ActivityManager"}, "ANR in\\s*(\\S*)");
  anr.label_group = "1";
  const auto set = compile({anr});
  std::string text;
  for (const char* app : {"a", "b", "c", "a", "d", "", "b"}) {
    text += "01-02 03:04:05.000  10  11 E ActivityManager: ANR in " + std::string(app) + "\n";
  }
  text += "01-02 03:04:05.000  12  13 E ActivityManager: ANR in " + std::string(200, 'x') + "\n";
  metrics::Store store;
  replay(store, *set, text, 1 << 20, 2);
  CHECK(series(store, "android_log_pattern_matches_total") ==
        "android_log_pattern_matches_total{serial=\"s\",package=\"pid:10\",pattern=\"anr\",value=\"_other_\"} 3\n"
        "android_log_pattern_matches_total{serial=\"s\",package=\"pid:10\",pattern=\"anr\",value=\"a\"} 2\n"
        "android_log_pattern_matches_total{serial=\"s\",package=\"pid:10\",pattern=\"anr\",value=\"b\"} 2\n"
        "android_log_pattern_matches_total{serial=\"s\",package=\"pid:12\",pattern=\"anr\",value=\"_other_\"} 1\n");
  CHECK(series(store, "jank_exporter_log_pattern_overflow_total") ==
        "jank_exporter_log_pattern_overflow_total{serial=\"s\",pattern=\"anr\"} 2\n");
  CHECK(series(store, "jank_exporter_log_pattern_discards_total") ==
        "jank_exporter_log_pattern_discards_total{serial=\"s\",pattern=\"anr\",reason=\"label_invalid\"} 2\n");

  // A package series that expires frees its label values for others.
  metrics::Store live;
  auto& d = live.device("s");
  LogPatternHit hit;
  hit.name = "anr";
  hit.has_label = true;
  live.set_host_time(1'000'000'000);
  hit.label = "old";
  metrics::record_log_pattern(live, d, "gone.app", hit, 2);
  live.set_host_time(20'000'000'000);
  hit.label = "b";
  metrics::record_log_pattern(live, d, "app", hit, 2);
  CHECK(live.expire_packages(d, 5'000'000'000) == 1);
  hit.label = "c";
  metrics::record_log_pattern(live, d, "app", hit, 2);
  CHECK(device_patterns(d).at("anr").overflow == 0);
  CHECK(device_patterns(d).at("anr").values == std::set<std::string, std::less<>>{"b", "c"});
}

TEST_CASE("the tag pre-filter finds the tagged lines in any chunking, and only those", "[log_patterns]") {
  LogPatternSpec anr = spec("anr", {"ActivityManager"}, "ANR in (\\S+)");
  anr.label_group = "1";
  const auto set = compile({anr});
  REQUIRE_FALSE(set->prefilter().every_line);
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    text += "01-02 03:04:05.000  10  11 I Noise   : line " + std::to_string(i) + " of nothing much\n";
    if (i % 300 == 7) text += "01-02 03:04:05.000  10  11 E ActivityManager: ANR in app" + std::to_string((i / 300) % 2) + "\n";
    // The tag in another tag's message: a false candidate, not a match.
    if (i % 500 == 9) text += "01-02 03:04:05.000  10  11 I Other   : ActivityManager said ANR in x\n";
  }
  // `-v long`: the message is on the line below the header.
  text += "[ 01-02 03:04:06.000    10:   11 E/ActivityManager ]\nANR in app0\n\n";
  const std::string expected =
      "android_log_pattern_matches_total{serial=\"s\",package=\"pid:10\",pattern=\"anr\",value=\"app0\"} 6\n"
      "android_log_pattern_matches_total{serial=\"s\",package=\"pid:10\",pattern=\"anr\",value=\"app1\"} 5\n";
  for (const std::size_t chunk : {std::size_t{1} << 20, std::size_t{4096}, std::size_t{333}, std::size_t{7}}) {
    INFO(chunk);
    metrics::Store store;
    const auto counts = replay(store, *set, text, chunk);
    CHECK(series(store, "android_log_pattern_matches_total") == expected);
    CHECK(counts.parsed == 11);
    CHECK(counts.received == counts.parsed + counts.unmatched + counts.discarded_total());
  }
  // The replay's parallel path: regions scanned apart, fed in order.
  metrics::Store store;
  auto& d = store.device("s");
  metrics::DeviceLogcatRecorder recorder(store, d);
  parsers::LogcatStreamOptions o;
  o.patterns = set.get();
  parsers::LogcatStream stream(recorder, o);
  stream.assume_utf8();
  const std::size_t half = text.find('\n', text.size() / 2) + 1;
  stream.feed_scanned(parsers::scan_region(std::string_view(text).substr(0, half), 16384, set.get()));
  stream.feed_scanned(parsers::scan_region(std::string_view(text).substr(half), 16384, set.get()));
  CHECK(series(store, "android_log_pattern_matches_total") == expected);
}

TEST_CASE("built-in lines count as before with patterns configured, each line once", "[log_patterns]") {
  const auto set = compile({spec("choreo", {"Choreographer"}, "Skipped"), spec("any", {}, "frames")});
  const std::string text =
      "01-02 03:04:05.000  10  11 I Choreographer: Skipped 5 frames!  The application may be doing too much work "
      "on its main thread.\n"
      "01-02 03:04:05.001  10  11 I Choreographer: Skipped 99999999999 frames!  The application may be doing too "
      "much work on its main thread.\n"
      "01-02 03:04:05.002  10  11 I Foo: no frames here\n"
      "01-02 03:04:05.003  10  11 I Foo: nothing\n";
  metrics::Store store;
  const auto counts = replay(store, *set, text, 64);
  CHECK(counts.received == 4);
  CHECK(counts.parsed == 2);      // the skip, and the Foo line a pattern matched
  CHECK(counts.discarded_total() == 1);  // N beyond 32 bits, matched by patterns all the same
  CHECK(counts.unmatched == 1);
  CHECK(jank::metrics::skips_of(store.device("s").packages.at("pid:10"))->skipped_frames == 5);
  CHECK(series(store, "android_log_pattern_matches_total") ==
        "android_log_pattern_matches_total{serial=\"s\",package=\"pid:10\",pattern=\"any\",value=\"\"} 3\n"
        "android_log_pattern_matches_total{serial=\"s\",package=\"pid:10\",pattern=\"choreo\",value=\"\"} 2\n");
}

TEST_CASE("log pattern counts survive a checkpoint, and damaged records drop alone", "[log_patterns][checkpoint]") {
  LogPatternSpec gc = spec("gc", {}, "(\\w+) paused (\\d+)ms");
  gc.label_group = "1";
  gc.value_group = "2";
  const auto set = compile({gc});
  metrics::Store original;
  replay(original, *set,
         "01-02 03:04:05.000  10  11 I a: main paused 12ms\n"
         "01-02 03:04:05.000  10  11 I a: bg paused 3ms\n"
         "01-02 03:04:05.000  10  11 I a: bg paused 99999999999999999999999ms\n"
         "01-02 03:04:05.000  10  11 I a: other paused 1ms\n",
         64, 2);
  const std::string saved = original.save();
  CHECK(saved.find("log_patterns 3 ") != std::string::npos);
  CHECK(saved.find("log_pattern_device 1 ") != std::string::npos);
  metrics::Store restored;
  std::string error;
  REQUIRE(restored.load(saved, error));
  CHECK(restored.save() == saved);
  // The cap holds after the restart: the admitted values were rebuilt.
  CHECK(device_patterns(restored.device("s")).at("gc").values == std::set<std::string, std::less<>>{"bg", "main"});

  // A pattern name no configuration could hold drops the device record alone.
  std::string bad = saved;
  REQUIRE(bad.find("log_pattern_device 1 \"gc") != std::string::npos);
  bad.replace(bad.find("log_pattern_device 1 \"gc"), 24, "log_pattern_device 1 \"9x");
  metrics::Store::LoadReport report;
  REQUIRE(restored.load(bad, error, &report));
  CHECK(report.rejected_by_record["log_patterns"] == 1);
  CHECK(device_patterns(restored.device("s")).at("gc").overflow == 0);
  CHECK(app_patterns(restored.device("s").packages.at("pid:10")).size() == 3);
  // A negative sum drops the package record (its series restart from 0).
  bad = saved;
  REQUIRE(bad.find("\"main 1 1 1 12") != std::string::npos);
  bad.replace(bad.find("\"main 1 1 1 12"), 14, "\"main 1 1 1 -12");
  REQUIRE(restored.load(bad, error, &report));
  CHECK(report.rejected_by_record["package"] == 1);
}

TEST_CASE("removed patterns take their series along when a stream starts", "[log_patterns]") {
  const auto both = compile({spec("a", {}, "x"), spec("b", {}, "x")});
  metrics::Store store;
  replay(store, *both, "01-02 03:04:05.000  10  11 I t: x\n", 64);
  auto& d = store.device("s");
  CHECK(app_patterns(d.packages.at("pid:10")).size() == 2);
  const auto only_b = compile({spec("b", {}, "y")});
  metrics::retain_log_patterns(d, only_b.get());
  CHECK(device_patterns(d).size() == 1);
  CHECK(app_patterns(d.packages.at("pid:10")).begin()->first.first == "b");
  metrics::retain_log_patterns(d, nullptr);
  CHECK(device_patterns(d).empty());
  CHECK(app_patterns(d.packages.at("pid:10")).empty());
}

// The daemon's path: the follower drops lines counted before, the stream
// counts the rest; a checkpoint between two streams (an exporter restart)
// holds the counts and the cursor together.
TEST_CASE("a resumed stream counts each pattern match once across a restart", "[log_patterns][cursor]") {
  LogPatternSpec anr = spec("anr", {"ActivityManager"}, "ANR in (\\S+)");
  anr.label_group = "1";
  const auto set = compile({anr});
  test::FakeLogd logd;
  auto stream_once = [&](metrics::Store& store) {
    auto& d = store.device("s");
    metrics::DeviceLogcatRecorder recorder(store, d);
    parsers::LogcatStreamOptions o;
    o.patterns = set.get();
    o.track_last_time = false;
    parsers::LogcatStream stream(recorder, o);
    stream.assume_utf8();
    parsers::LogcatFollower follower(d.log_cursor, test::kLogdBuffers, test::kLogdPreambleEnd, 4096,
                                     [&](const parsers::LogcatFollower::Line& l) { stream.feed(l.text); });
    const std::string s = logd.stream();
    for (std::size_t i = 0; i < s.size(); i += 11) follower.feed(std::string_view(s).substr(i, 11));
    REQUIRE(follower.state() == parsers::LogcatFollower::State::following);
    d.log_cursor = follower.cursor();
    d.lines += stream.counts();
    d.lines.duplicates += follower.dropped_lines();
  };
  auto anr_count = [](const metrics::Store& store, const std::string& app) -> std::uint64_t {
    const auto& pkgs = store.devices().at("s")->packages;
    const auto it = pkgs.find("pid:101");
    if (it == pkgs.end()) return 0;
    const auto s = app_patterns(it->second).find(metrics::PatternKey("anr", app));
    return s == app_patterns(it->second).end() ? 0 : s->second.matches;
  };
  // What the ring holds at first sight is history: not counted.
  logd.log(1, "ANR in history");
  metrics::Store store;
  stream_once(store);
  CHECK(anr_count(store, "history") == 0);
  for (int i = 0; i < 3; ++i) logd.log(1, "ANR in first");
  logd.log(0, "Skipped 2 frames!  The application may be doing too much work on its main thread.");
  stream_once(store);  // a reconnect: the ring is read again from the start
  CHECK(anr_count(store, "first") == 3);
  CHECK(anr_count(store, "history") == 0);

  // The exporter restarts from its checkpoint; the ring still holds every line.
  metrics::Store restarted;
  std::string error;
  REQUIRE(restarted.load(store.save(), error));
  logd.log(1, "ANR in second");
  stream_once(restarted);
  CHECK(anr_count(restarted, "first") == 3);
  CHECK(anr_count(restarted, "second") == 1);
  CHECK(anr_count(restarted, "history") == 0);
  // A reconnect with nothing new counts nothing.
  const std::uint64_t duplicates = restarted.device("s").lines.duplicates;
  stream_once(restarted);
  CHECK(anr_count(restarted, "first") == 3);
  CHECK(anr_count(restarted, "second") == 1);
  CHECK(restarted.device("s").lines.duplicates > duplicates);
}

// Written by the release before log patterns were a source module (the
// store's own records then): the module reads the same layout.
TEST_CASE("a state file of the release before the log pattern module loads its counts", "[log_patterns][checkpoint]") {
  const std::string old =
      "jank_exporter_state 2 1\n"
      "device \"s 60 1\n"
      "0 0 0 0 4 0 0 0 0\n"
      "0 0 0 0 0\n"
      "0\n"
      "cursor 0 \" 0 0 rebase 0\n"
      "continuity 0 0 0 0 0 0\n"
      "clock 0 0 0\n"
      "dump_input 0 0 0 0\n"
      "1\n"
      "package \"com.a\n"
      "0 0 9 0 0 0 0 0 0 0 0 0 0 0 0\n"
      "0 0 9 0 0 0 0 0 0 0 0 0 0 0\n"
      "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 10 0 0 0 0 0 0 0 0 0 0 "
      "0 0 0 0 vitals 0 0 0 0\n"
      "0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 "
      "0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0 0 0 0 0 0 0 "
      "0 0 0 0 fs_legacy 0 fs_interval_fallbacks 0\n"
      "log_patterns 2 \"gc \"_other_ 1 1 0 0 \"gc \"main 1 1 1 12\n"
      "log_pattern_device 1 \"gc 1 1 0 4 1 0 0 1\n"
      "end\n";
  metrics::Store store;
  std::string error;
  metrics::Store::LoadReport report;
  const bool ok = store.load(old, error, &report);
  INFO(error);
  REQUIRE(ok);
  CHECK(report.rejected.empty());
  const auto& d = store.device("s");
  const auto& app = app_patterns(d.packages.at("com.a"));
  REQUIRE(app.size() == 2);
  CHECK(app.at(metrics::PatternKey("gc", "main")).matches == 1);
  CHECK(app.at(metrics::PatternKey("gc", "main")).value_sum == 12);
  CHECK(device_patterns(d).at("gc").discarded[static_cast<std::size_t>(parsers::PatternDiscard::value_not_numeric)] == 1);
  CHECK(device_patterns(d).at("gc").values == std::set<std::string, std::less<>>{"main"});
  CHECK(series(store, "jank_exporter_log_pattern_discards_total") ==
        "jank_exporter_log_pattern_discards_total{serial=\"s\",pattern=\"gc\",reason=\"value_not_numeric\"} 1\n"
        "jank_exporter_log_pattern_discards_total{serial=\"s\",pattern=\"gc\",reason=\"value_negative\"} 0\n"
        "jank_exporter_log_pattern_discards_total{serial=\"s\",pattern=\"gc\",reason=\"value_non_finite\"} 0\n"
        "jank_exporter_log_pattern_discards_total{serial=\"s\",pattern=\"gc\",reason=\"label_invalid\"} 1\n");
  // Written again, the same text.
  CHECK(store.save() == old);
}

// The trace directory's pure rules: ids, retention, the metadata format.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "exporters/run_json.h"
#include "exporters/trace_json.h"
#include "metrics/trace_files.h"

using namespace jank;
using metrics::StoredTrace;
using metrics::TraceDrop;
using metrics::TraceRemoval;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;
// 2026-11-24T03:15:02Z
constexpr std::int64_t kT0 = 1'795'490'102 * kSec;

StoredTrace trace(std::string serial, std::string package, std::string rule, std::int64_t at_ns) {
  StoredTrace t;
  t.serial = std::move(serial);
  t.package = std::move(package);
  t.rule = std::move(rule);
  t.triggered_at_ns = at_ns;
  return t;
}

// A hand-made directory entry: id, age in seconds before `now`, bytes.
StoredTrace entry(std::string id, std::int64_t at_s, std::uint64_t bytes) {
  StoredTrace t;
  t.id = std::move(id);
  t.triggered_at_ns = at_s * kSec;
  t.bytes = bytes;
  return t;
}

}  // namespace

TEST_CASE("trace ids name the device app time and rule as docs/traces.md shows", "[traces]") {
  CHECK(metrics::base_trace_id(trace("emulator-5554", "com.example.feed", "skip", kT0)) ==
        "emulator-5554_com.example.feed_20261124T031502Z_skip");
  // The second, not the millisecond; UTC.
  CHECK(metrics::base_trace_id(trace("s", "p", "big_jank", kT0 + 999'999'999)) == "s_p_20261124T031502Z_big_jank");
  CHECK(metrics::base_trace_id(trace("s", "p", "sm", 0)) == "s_p_19700101T000000Z_sm");
}

TEST_CASE("serials and packages are sanitized to plain file name characters", "[traces]") {
  using metrics::trace_id_part;
  CHECK(trace_id_part("192.168.1.20:5555") == "192.168.1.20-5555");
  CHECK(trace_id_part("com.example:remote") == "com.example-remote");
  CHECK(trace_id_part("a/b\\c d\n\"e'") == "a-b-c-d--e-");
  CHECK(trace_id_part("caf\xc3\xa9") == "caf--");
  // Never two dots in a row.
  CHECK(trace_id_part("..") == ".-");
  CHECK(trace_id_part("a...b") == "a.-.b");
  CHECK(trace_id_part("") == "-");
  CHECK(trace_id_part(std::string(300, 'x')).size() == metrics::kMaxTraceIdPart);
  const std::string hostile = metrics::base_trace_id(trace("../../etc", "..", "/..", kT0));
  CHECK(metrics::valid_trace_id(hostile));
  CHECK(hostile.find('/') == std::string::npos);
  // The longest id, with a suffix, as a temporary file name still fits NAME_MAX.
  const std::string longest =
      metrics::base_trace_id(trace(std::string(255, 's'), std::string(255, 'p'), std::string(255, 'r'), kT0));
  CHECK(longest.size() + std::string("-999.pftrace.tmp").size() <= 255);
}

TEST_CASE("trace ids accept only A-Z a-z 0-9 dot underscore and dash without two dots", "[traces]") {
  using metrics::valid_trace_id;
  CHECK(valid_trace_id("emulator-5554_com.example.feed_20261124T031502Z_skip-2"));
  CHECK(valid_trace_id("a"));
  CHECK_FALSE(valid_trace_id(""));
  CHECK_FALSE(valid_trace_id(".."));
  CHECK_FALSE(valid_trace_id("a..b"));
  CHECK_FALSE(valid_trace_id("../x"));
  CHECK_FALSE(valid_trace_id("a/b"));
  CHECK_FALSE(valid_trace_id("%2e%2e"));
  CHECK_FALSE(valid_trace_id("a b"));
  CHECK_FALSE(valid_trace_id(std::string("a\0b", 3)));
}

TEST_CASE("a name is shaped like a trace id when it holds the time field", "[traces]") {
  CHECK(metrics::trace_id_shaped("s_p_20261124T031502Z_skip"));
  CHECK(metrics::trace_id_shaped("a_b_c_20261124T031502Z_big_jank-3"));
  CHECK_FALSE(metrics::trace_id_shaped("config"));
  CHECK_FALSE(metrics::trace_id_shaped("s_p_20261124T031502Z"));
  CHECK_FALSE(metrics::trace_id_shaped("s_p_2026112xT031502Z_skip"));
  CHECK_FALSE(metrics::trace_id_shaped("s_p_20261124T031502_skip"));
  CHECK_FALSE(metrics::trace_id_shaped("s/p_20261124T031502Z_skip"));
}

TEST_CASE("a trace of a second already taken gets -2 then -3", "[traces]") {
  std::set<std::string> taken;
  auto is_taken = [&](const std::string& id) { return taken.contains(id); };
  const std::string base = "s_p_20261124T031502Z_skip";
  CHECK(metrics::unique_trace_id(base, is_taken) == base);
  taken.insert(base);
  CHECK(metrics::unique_trace_id(base, is_taken) == base + "-2");
  taken.insert(base + "-2");
  CHECK(metrics::unique_trace_id(base, is_taken) == base + "-3");
  // A gap is filled: -2 removed by retention is free again.
  taken.erase(base + "-2");
  taken.insert(base + "-3");
  CHECK(metrics::unique_trace_id(base, is_taken) == base + "-2");
  CHECK(metrics::unique_trace_id(base, [](const std::string&) { return true; }).empty());
}

TEST_CASE("an id follows the naming rule of its metadata with or without a suffix", "[traces]") {
  const StoredTrace t = trace("emulator-5554", "com.a:b", "davey", kT0);
  const std::string base = "emulator-5554_com.a-b_20261124T031502Z_davey";
  CHECK(metrics::trace_id_follows_rule(base, t));
  CHECK(metrics::trace_id_follows_rule(base + "-2", t));
  CHECK(metrics::trace_id_follows_rule(base + "-999", t));
  CHECK_FALSE(metrics::trace_id_follows_rule(base + "-1", t));
  CHECK_FALSE(metrics::trace_id_follows_rule(base + "-02", t));
  CHECK_FALSE(metrics::trace_id_follows_rule(base + "-1000", t));
  CHECK_FALSE(metrics::trace_id_follows_rule(base + "-", t));
  CHECK_FALSE(metrics::trace_id_follows_rule(base + "x", t));
  CHECK_FALSE(metrics::trace_id_follows_rule("emulator-5554_com.a-b_20261124T031503Z_davey", t));
  CHECK_FALSE(metrics::trace_id_follows_rule("other_com.a-b_20261124T031502Z_davey", t));
}

TEST_CASE("newest first orders by trigger time then by suffix", "[traces]") {
  std::vector<StoredTrace> v = {entry("b_x", 10, 1), entry("a_x", 30, 1), entry("a_x-10", 20, 1),
                                entry("a_y", 20, 1), entry("a_y-2", 20, 1), entry("a_y-10", 20, 1)};
  std::sort(v.begin(), v.end(), metrics::newer_trace);
  std::vector<std::string> ids;
  for (const auto& t : v) ids.push_back(t.id);
  CHECK(ids == std::vector<std::string>{"a_x", "a_y-10", "a_x-10", "a_y-2", "a_y", "b_x"});
}

TEST_CASE("retention removes by age then count then bytes and oldest first", "[traces][retention]") {
  const std::int64_t now = 1000 * kSec;
  // Out of order on purpose: the planner sorts.
  const std::vector<StoredTrace> traces = {entry("t5", 950, 100), entry("t1", 100, 100), entry("t3", 900, 300),
                                           entry("t2", 500, 100), entry("t4", 920, 200)};
  metrics::TraceLimits limits;
  CHECK(metrics::plan_retention(traces, limits, now).empty());  // no limits

  limits.max_age_ns = 600 * kSec;  // t1 (900 s old) goes; t2 (500 s) stays
  CHECK(metrics::plan_retention(traces, limits, now) == std::vector<TraceRemoval>{{"t1", TraceDrop::age}});
  limits.max_age_ns = 500 * kSec;  // exactly the limit is not older than it
  CHECK(metrics::plan_retention(traces, limits, now) == std::vector<TraceRemoval>{{"t1", TraceDrop::age}});

  limits.max_count = 2;  // of t2..t5 the two oldest go
  CHECK(metrics::plan_retention(traces, limits, now) ==
        std::vector<TraceRemoval>{{"t1", TraceDrop::age}, {"t2", TraceDrop::count}, {"t3", TraceDrop::count}});

  limits = {};
  limits.max_bytes = 450;  // 800 in all: t1, t2 and t3 must go to reach 300
  CHECK(metrics::plan_retention(traces, limits, now) ==
        std::vector<TraceRemoval>{{"t1", TraceDrop::bytes}, {"t2", TraceDrop::bytes}, {"t3", TraceDrop::bytes}});
  limits.max_bytes = 800;  // exactly the limit fits
  CHECK(metrics::plan_retention(traces, limits, now).empty());

  // All three: a trace is named by the first limit it breaks.
  limits = {3, 300, 600 * kSec};
  CHECK(metrics::plan_retention(traces, limits, now) ==
        std::vector<TraceRemoval>{{"t1", TraceDrop::age}, {"t2", TraceDrop::count}, {"t3", TraceDrop::bytes}});
  CHECK(metrics::plan_retention({}, limits, now).empty());
  CHECK(metrics::trace_drop_name(TraceDrop::bytes) == "bytes");
}

TEST_CASE("trace metadata round-trips through its format 1 file", "[traces]") {
  StoredTrace t = trace("emulator-5554", "com.example.feed", "skip", kT0 + 250'000'000);
  t.id = "emulator-5554_com.example.feed_20261124T031502Z_skip";
  t.value = 42;
  t.bytes = 123456;
  t.sdk = 34;
  t.model = "Pixel \"8\"";
  const std::string json = exporters::trace_metadata_json(t);
  CHECK(json ==
        "{\"format\":1,\"id\":\"emulator-5554_com.example.feed_20261124T031502Z_skip\",\"serial\":\"emulator-5554\","
        "\"package\":\"com.example.feed\",\"rule\":\"skip\",\"value\":42.0,\"triggered_at\":\"2026-11-24T03:15:02.250Z\","
        "\"bytes\":123456,\"sdk\":34,\"model\":\"Pixel \\\"8\\\"\"}\n");
  std::string error;
  const auto back = exporters::parse_trace_metadata(json, error);
  REQUIRE(back);
  CHECK(back->id == t.id);
  CHECK(back->serial == t.serial);
  CHECK(back->package == t.package);
  CHECK(back->rule == t.rule);
  CHECK(back->value == 42);
  CHECK(back->triggered_at_ns == t.triggered_at_ns);
  CHECK(back->bytes == t.bytes);
  CHECK(back->sdk == 34);
  CHECK(back->model == t.model);
}

TEST_CASE("bad trace metadata is refused with the field named", "[traces]") {
  const std::string good =
      R"({"format":1,"id":"s_p_20261124T031502Z_skip","serial":"s","package":"p","rule":"skip","value":1,)"
      R"("triggered_at":"2026-11-24T03:15:02Z","bytes":5,"sdk":34,"model":"m"})";
  std::string error;
  CHECK(exporters::parse_trace_metadata(good, error));
  auto refused = [](const std::string& text) {
    std::string why;
    const bool parsed = exporters::parse_trace_metadata(text, why).has_value();
    return parsed ? std::string("parsed") : why;
  };
  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  CHECK(refused("") == "not a JSON object");
  CHECK(refused("[1]") == "not a JSON object");
  CHECK(refused(good.substr(0, 40)) == "not a JSON object");
  CHECK(refused(with(R"("format":1)", R"("format":2)")) == "\"format\" must be 1");
  CHECK(refused(with(R"("serial":"s",)", "")) == "\"serial\" must be a string");
  CHECK(refused(with(R"("id":"s_p_20261124T031502Z_skip")", R"("id":"../x")")) == "\"id\" must be a trace id");
  CHECK(refused(with(R"("value":1)", R"("value":"1")")) == "\"value\" must be a number");
  CHECK(refused(with(R"("bytes":5)", R"("bytes":-5)")) == "\"bytes\" must be a non-negative integer");
  CHECK(refused(with(R"("bytes":5)", R"("bytes":5.5)")) == "\"bytes\" must be a non-negative integer");
  CHECK(refused(with(R"("sdk":34)", R"("sdk":1e9)")) == "\"sdk\" must be a small integer");
  CHECK(refused(with("2026-11-24T03:15:02Z", "2026-11-24 03:15:02")) == "\"triggered_at\" must be an RFC 3339 UTC time");
  // Fields of a later format are no reason to refuse.
  CHECK(refused(with(R"("model":"m")", R"("model":"m","new":[1])")) == "parsed");
}

TEST_CASE("RFC 3339 UTC times parse as the run and trace files write them", "[traces]") {
  using exporters::parse_rfc3339_utc;
  CHECK(parse_rfc3339_utc("2026-11-24T03:15:02Z") == kT0);
  CHECK(parse_rfc3339_utc("2026-11-24T03:15:02.5Z") == kT0 + 500'000'000);
  CHECK(parse_rfc3339_utc("2026-11-24T03:15:02.000000001Z") == kT0 + 1);
  CHECK(parse_rfc3339_utc(exporters::rfc3339_ms(kT0 + 123'000'000)) == kT0 + 123'000'000);
  CHECK(parse_rfc3339_utc("1970-01-01T00:00:00Z") == 0);
  CHECK(parse_rfc3339_utc("2024-02-29T00:00:00Z").has_value());
  for (const char* bad : {"", "2026-11-24T03:15:02", "2026-11-24T03:15:02+00:00", "2026-11-24t03:15:02Z",
                          "2026-13-24T03:15:02Z", "2025-02-29T00:00:00Z", "2026-11-24T24:00:00Z",
                          "2026-11-24T03:15:02.Z", "2026-11-24T03:15:02.0000000001Z", "2026-11-24T03:15:02Zx",
                          "20261124T031502Z"}) {
    INFO(bad);
    CHECK_FALSE(parse_rfc3339_utc(bad).has_value());
  }
}

TEST_CASE("the trace list carries each trace's metadata and url in the order given", "[traces]") {
  StoredTrace a = trace("s", "p", "skip", kT0);
  a.id = "s_p_20261124T031502Z_skip";
  StoredTrace b = a;
  b.id = "s_p_20261124T031502Z_skip-2";
  CHECK(exporters::trace_url(a.id) == "/traces/s_p_20261124T031502Z_skip.pftrace");
  const std::string list = exporters::trace_list_json({b, a});
  CHECK(list.starts_with("{\"traces\":[{\"format\":1,\"id\":\"s_p_20261124T031502Z_skip-2\""));
  CHECK(list.find("\"url\":\"/traces/s_p_20261124T031502Z_skip-2.pftrace\"},{\"format\":1,\"id\":\"s_p_20261124T031502Z_skip\"") !=
        std::string::npos);
  CHECK(exporters::trace_list_json({}) == "{\"traces\":[]}\n");
}

// The trace directory on disk: saves whole or not at all, names, retention,
// the rescan at start-up, and readers beside a saver.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "app/core/trace_store.h"
#include "exporters/trace_json.h"
#include "parsers/utf8.h"
#include "tests/unit/test_support.h"

using namespace jank;
namespace fs = std::filesystem;
using app::TraceStore;
using metrics::StoredTrace;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kT0 = 1'795'490'102 * kSec;  // 2026-11-24T03:15:02Z

StoredTrace meta(std::string serial, std::string package, std::string rule, std::int64_t at_ns) {
  StoredTrace t;
  t.serial = std::move(serial);
  t.package = std::move(package);
  t.rule = std::move(rule);
  t.triggered_at_ns = at_ns;
  t.value = 40;
  t.sdk = 34;
  t.model = "Pixel 8";
  return t;
}

std::set<std::string> files_in(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::vector<std::string> ids(const std::vector<StoredTrace>& traces) {
  std::vector<std::string> out;
  for (const auto& t : traces) out.push_back(t.id);
  return out;
}

// A store on `dir` with a clock the test moves.
struct Fixture {
  explicit Fixture(std::string d, metrics::TraceLimits limits = {})
      : dir(std::move(d)), store(dir, limits, [this] { return now; }) {}
  std::int64_t now = kT0 + 60 * kSec;
  std::string dir;
  TraceStore store;
};

}  // namespace

TEST_CASE("a saved trace is its bytes beside its metadata and nothing else", "[traces][store]") {
  test::TempDir tmp;
  Fixture f(tmp.path() + "/traces");
  std::string error;
  REQUIRE(f.store.open(error));
  const std::string bytes("\x0a\x00\xff trace", 9);
  const auto r = f.store.save(bytes, meta("emulator-5554", "com.example.feed", "skip", kT0 + 123'456'789));
  REQUIRE(r.ok());
  CHECK(r.id == "emulator-5554_com.example.feed_20261124T031502Z_skip");
  CHECK(files_in(f.dir) == std::set<std::string>{r.id + ".pftrace", r.id + ".json"});
  CHECK(test::read_file(f.store.trace_path(r.id)) == bytes);
  CHECK(f.store.trace_path(r.id) == f.dir + "/" + r.id + ".pftrace");
  std::string why;
  const auto written = exporters::parse_trace_metadata(test::read_file(f.dir + "/" + r.id + ".json"), why);
  REQUIRE(written);
  CHECK(written->id == r.id);
  CHECK(written->serial == "emulator-5554");
  CHECK(written->bytes == 9);
  CHECK(written->model == "Pixel 8");
  CHECK(written->triggered_at_ns == kT0 + 123'000'000);  // kept to the millisecond, as written
  const auto found = f.store.find(r.id);
  REQUIRE(found);
  CHECK(found->triggered_at_ns == written->triggered_at_ns);
  CHECK(found->bytes == 9);
  CHECK_FALSE(f.store.find("nope"));
  const auto s = f.store.status();
  CHECK(s.stored == 1);
  CHECK(s.stored_bytes == 9);
  REQUIRE(s.recent.size() == 1);
  CHECK(s.recent[0].id == r.id);
}

TEST_CASE("a trace of a phone whose model and process name are not UTF-8 is kept and listed in valid UTF-8",
          "[traces][store][hostile]") {
  test::TempDir tmp;
  Fixture f(tmp.path() + "/traces");
  std::string error;
  REQUIRE(f.store.open(error));
  StoredTrace m = meta("emulator-5554", "proc\xff:svc", "skip", kT0);
  m.model = "Caf\xe9 \xc3";
  const auto r = f.store.save("trace", m);  // the metadata writer threw here before
  REQUIRE(r.ok());
  const std::string written = test::read_file(f.dir + "/" + r.id + ".json");
  CHECK(parsers::is_valid_utf8(written));
  std::string why;
  const auto back = exporters::parse_trace_metadata(written, why);
  REQUIRE(back);
  CHECK(back->model == "Caf\xef\xbf\xbd \xef\xbf\xbd");
  CHECK(back->package == "proc\xef\xbf\xbd:svc");
  const std::string listed = exporters::trace_list_json(f.store.list());
  CHECK(parsers::is_valid_utf8(listed));
  CHECK(listed.find("Caf\xef\xbf\xbd") != std::string::npos);
}

TEST_CASE("names are sanitized and a second trace of a second gets -2 and -3", "[traces][store]") {
  test::TempDir tmp;
  Fixture f(tmp.path());
  std::string error;
  REQUIRE(f.store.open(error));
  const auto a = f.store.save("a", meta("10.0.0.7:5555", "com.app:remote", "davey", kT0));
  const auto b = f.store.save("b", meta("10.0.0.7:5555", "com.app:remote", "davey", kT0 + 200'000'000));
  const auto c = f.store.save("c", meta("10.0.0.7:5555", "com.app:remote", "davey", kT0 + 900'000'000));
  const auto later = f.store.save("d", meta("s", "p", "sm", kT0 + 5 * kSec));
  const auto earlier = f.store.save("e", meta("s", "p", "fps", kT0 - 5 * kSec));
  REQUIRE((a.ok() && b.ok() && c.ok() && later.ok() && earlier.ok()));
  CHECK(a.id == "10.0.0.7-5555_com.app-remote_20261124T031502Z_davey");
  CHECK(b.id == a.id + "-2");
  CHECK(c.id == a.id + "-3");
  CHECK(ids(f.store.list()) == std::vector<std::string>{later.id, c.id, b.id, a.id, earlier.id});
  CHECK(ids(f.store.status().recent) == ids(f.store.list()));
  // An orphan file of a free name is never overwritten: its name counts as taken.
  write_file(f.dir + "/s_p_20261124T031502Z_skip.json", "{}");
  CHECK(f.store.save("f", meta("s", "p", "skip", kT0)).id == "s_p_20261124T031502Z_skip-2");
  CHECK(test::read_file(f.dir + "/s_p_20261124T031502Z_skip.json") == "{}");
}

TEST_CASE("retention after each save drops the oldest and counts the reason", "[traces][store][retention]") {
  test::TempDir tmp;
  metrics::TraceLimits limits;
  limits.max_count = 2;
  Fixture f(tmp.path(), limits);
  std::string error;
  REQUIRE(f.store.open(error));
  const auto first = f.store.save("1111", meta("s", "p", "skip", kT0));
  const auto second = f.store.save("2222", meta("s", "p", "skip", kT0 + kSec));
  const auto third = f.store.save("3333", meta("s", "p", "skip", kT0 + 2 * kSec));
  CHECK(ids(f.store.list()) == std::vector<std::string>{third.id, second.id});
  CHECK_FALSE(fs::exists(f.dir + "/" + first.id + ".pftrace"));
  CHECK_FALSE(fs::exists(f.dir + "/" + first.id + ".json"));
  CHECK(f.store.status().dropped == std::map<std::string, std::uint64_t>{{"count", 1}});

  limits.max_count = 0;
  limits.max_bytes = 6;
  f.store.set_limits(limits);  // 8 bytes held: the older goes
  CHECK(ids(f.store.list()) == std::vector<std::string>{third.id});
  const auto fourth = f.store.save("44", meta("s", "p", "skip", kT0 + 3 * kSec));
  CHECK(ids(f.store.list()) == std::vector<std::string>{fourth.id, third.id});
  CHECK(f.store.status().dropped == std::map<std::string, std::uint64_t>{{"bytes", 1}, {"count", 1}});

  limits.max_age_ns = 100 * kSec;
  f.store.set_limits(limits);
  CHECK(f.store.list().size() == 2);
  f.now = kT0 + 2 * kSec + 101 * kSec;  // third is now too old, fourth not yet
  f.store.enforce();
  CHECK(ids(f.store.list()) == std::vector<std::string>{fourth.id});
  const auto s = f.store.status();
  CHECK(s.dropped == std::map<std::string, std::uint64_t>{{"age", 1}, {"bytes", 1}, {"count", 1}});
  CHECK(s.stored == 1);
  CHECK(s.stored_bytes == 2);
  CHECK(files_in(f.dir) == std::set<std::string>{fourth.id + ".pftrace", fourth.id + ".json"});
}

TEST_CASE("an empty trace or one larger than the whole directory may hold is refused", "[traces][store]") {
  test::TempDir tmp;
  metrics::TraceLimits limits;
  limits.max_bytes = 4;
  Fixture f(tmp.path(), limits);
  std::string error;
  REQUIRE(f.store.open(error));
  const auto empty = f.store.save("", meta("s", "p", "skip", kT0));
  CHECK(empty.reason == "empty");
  const auto large = f.store.save("12345", meta("s", "p", "skip", kT0));
  CHECK_FALSE(large.ok());
  CHECK(large.reason == "too_large");
  CHECK(large.id.empty());
  CHECK(files_in(f.dir).empty());
  CHECK(f.store.save("1234", meta("s", "p", "skip", kT0)).ok());
}

TEST_CASE("a trace directory under a file cannot open and every save fails as write_failed", "[traces][store]") {
  test::TempDir tmp;
  write_file(tmp.path() + "/file", "x");
  Fixture f(tmp.path() + "/file/traces");
  std::string error;
  CHECK_FALSE(f.store.open(error));
  CHECK_THAT(error, Catch::Contains("cannot use trace directory " + tmp.path() + "/file/traces"));
  const auto r = f.store.save("bytes", meta("s", "p", "skip", kT0));
  CHECK_FALSE(r.ok());
  CHECK(r.reason == "write_failed");
  CHECK_THAT(r.error, Catch::Contains("Not a directory"));
  CHECK(files_in(tmp.path()) == std::set<std::string>{"file"});
  CHECK(f.store.status().stored == 0);
}

TEST_CASE("a trace that fails after its metadata was written leaves neither file", "[traces][store]") {
  test::TempDir tmp;
  Fixture f(tmp.path());
  std::string error;
  REQUIRE(f.store.open(error));
  // The trace's temporary name is taken by a directory: the write fails even for root.
  const std::string id = "s_p_20261124T031502Z_skip";
  fs::create_directory(f.dir + "/" + id + ".pftrace.tmp");
  const auto r = f.store.save("bytes", meta("s", "p", "skip", kT0));
  CHECK(r.reason == "write_failed");
  CHECK_THAT(r.error, Catch::Contains(id + ".pftrace.tmp"));
  CHECK(files_in(f.dir) == std::set<std::string>{id + ".pftrace.tmp"});
  CHECK(f.store.list().empty());
}

TEST_CASE("a disk that fills up mid-trace leaves no partial file", "[traces][store]") {
  test::TempDir tmp;
  Fixture f(tmp.path());
  std::string error;
  REQUIRE(f.store.open(error));
  // A file size limit fails write() part way, as a full disk does (EFBIG
  // instead of ENOSPC), for root too. SIGXFSZ would kill the process.
  rlimit old{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 64 * 1024;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  const auto r = f.store.save(std::string(1024 * 1024, 't'), meta("s", "p", "skip", kT0));
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, old_handler);
  CHECK(r.reason == "write_failed");
  CHECK_THAT(r.error, Catch::Contains("cannot write"));
  CHECK(files_in(f.dir).empty());
  CHECK(f.store.status().stored == 0);
  CHECK(f.store.save("small", meta("s", "p", "skip", kT0)).ok());  // and it recovers
}

TEST_CASE("a read-only trace directory fails the save cleanly", "[traces][store]") {
  if (::geteuid() == 0) {
    WARN("skipped: root writes to a read-only directory (the tests above fail saves for root too)");
    return;
  }
  test::TempDir tmp;
  Fixture f(tmp.path());
  std::string error;
  REQUIRE(f.store.open(error));
  ::chmod(f.dir.c_str(), 0500);
  const auto r = f.store.save("bytes", meta("s", "p", "skip", kT0));
  ::chmod(f.dir.c_str(), 0700);
  CHECK(r.reason == "write_failed");
  CHECK_THAT(r.error, Catch::Contains("Permission denied"));
  CHECK(files_in(f.dir).empty());
}

TEST_CASE("the directory read again at start-up keeps the traces and ignores junk", "[traces][store]") {
  test::TempDir tmp;
  std::vector<std::string> saved;
  {
    Fixture first(tmp.path());
    std::string error;
    REQUIRE(first.store.open(error));
    for (int i = 0; i < 3; ++i) {
      saved.push_back(first.store.save("trace" + std::to_string(i), meta("s", "p", "skip", kT0 + i * kSec)).id);
    }
  }
  const std::string d = tmp.path();
  auto metadata_of = [&](std::string id, std::uint64_t bytes) {
    StoredTrace t = meta("s", "p", "skip", kT0);
    t.id = std::move(id);
    t.bytes = bytes;
    return exporters::trace_metadata_json(t);
  };
  // A trace without metadata, and metadata without a trace.
  write_file(d + "/s_p_20261124T031502Z_skip-7.pftrace", "orphan");
  write_file(d + "/s_p_20261124T031502Z_skip-8.json", metadata_of("s_p_20261124T031502Z_skip-8", 3));
  // Bad metadata: not JSON, another trace's, a size that differs, a name off the rule.
  write_file(d + "/s_p_20261124T031502Z_skip-9.pftrace", "abc");
  write_file(d + "/s_p_20261124T031502Z_skip-9.json", "{not json");
  write_file(d + "/s_p_20261124T031502Z_skip-10.pftrace", "abc");
  write_file(d + "/s_p_20261124T031502Z_skip-10.json", metadata_of("s_p_20261124T031502Z_skip-11", 3));
  write_file(d + "/s_p_20261124T031502Z_skip-12.pftrace", "abcd");
  write_file(d + "/s_p_20261124T031502Z_skip-12.json", metadata_of("s_p_20261124T031502Z_skip-12", 3));
  write_file(d + "/renamed.pftrace", "abc");
  write_file(d + "/renamed.json", metadata_of("renamed", 3));
  // Files that are no traces at all, a directory and a link named like one.
  write_file(d + "/notes.txt", "keep me");
  write_file(d + "/notes.json.tmp", "an editor's, not ours");
  write_file(d + "/config.json", std::string(100'000, '{'));
  write_file(d + "/..pftrace", "x");
  fs::create_directory(d + "/dir_p_20261124T031502Z_skip.pftrace");
  fs::create_symlink(d + "/" + saved[0] + ".pftrace", d + "/link_p_20261124T031502Z_skip.pftrace");
  // A save that never finished.
  write_file(d + "/s_p_20261124T031502Z_skip-5.pftrace.tmp", "partial");
  write_file(d + "/s_p_20261124T031502Z_skip-5.json.tmp", "{");
  const auto before = files_in(d);

  Fixture second(d);
  std::string error;
  REQUIRE(second.store.open(error));
  CHECK(ids(second.store.list()) == std::vector<std::string>{saved[2], saved[1], saved[0]});
  CHECK(second.store.list()[0].triggered_at_ns == kT0 + 2 * kSec);
  CHECK(second.store.status().stored_bytes == 18);
  CHECK_FALSE(second.store.find("s_p_20261124T031502Z_skip-12"));
  CHECK_FALSE(second.store.find("renamed"));
  // Only the temporaries went.
  auto expected = before;
  expected.erase("s_p_20261124T031502Z_skip-5.pftrace.tmp");
  expected.erase("s_p_20261124T031502Z_skip-5.json.tmp");
  CHECK(files_in(d) == expected);
  // A new save takes the first free name, none of the junk's.
  CHECK(second.store.save("x", meta("s", "p", "skip", kT0)).id == "s_p_20261124T031502Z_skip-2");
  write_file(d + "/s_p_20261124T031502Z_skip-3.json", "{}");
  CHECK(second.store.save("x", meta("s", "p", "skip", kT0)).id == "s_p_20261124T031502Z_skip-4");
}

TEST_CASE("retention applies at start-up to the traces read again", "[traces][store][retention]") {
  test::TempDir tmp;
  {
    Fixture first(tmp.path());
    std::string error;
    REQUIRE(first.store.open(error));
    for (int i = 0; i < 4; ++i) REQUIRE(first.store.save("t", meta("s", "p", "skip", kT0 + i * kSec)).ok());
  }
  metrics::TraceLimits limits;
  limits.max_count = 1;
  int published = 0;
  metrics::TraceStoreStatus last;
  TraceStore store(tmp.path(), limits, [] { return kT0 + 10 * kSec; }, [&](const metrics::TraceStoreStatus& s) {
    ++published;
    last = s;
  });
  std::string error;
  REQUIRE(store.open(error));
  CHECK(published == 1);
  CHECK(last.stored == 1);
  CHECK(last.dropped == std::map<std::string, std::uint64_t>{{"count", 3}});
  REQUIRE(last.recent.size() == 1);
  CHECK(last.recent[0].id == "s_p_20261124T031505Z_skip");
  CHECK(files_in(tmp.path()).size() == 2);
}

TEST_CASE("status holds the newest traces only up to kRecentTraces", "[traces][store]") {
  test::TempDir tmp;
  Fixture f(tmp.path());
  std::string error;
  REQUIRE(f.store.open(error));
  for (std::size_t i = 0; i < metrics::kRecentTraces + 5; ++i) {
    REQUIRE(f.store.save("t", meta("s", "p", "skip", kT0 + static_cast<std::int64_t>(i) * kSec)).ok());
  }
  const auto s = f.store.status();
  CHECK(s.stored == metrics::kRecentTraces + 5);
  REQUIRE(s.recent.size() == metrics::kRecentTraces);
  CHECK(s.recent.front().triggered_at_ns == kT0 + static_cast<std::int64_t>(metrics::kRecentTraces + 4) * kSec);
  CHECK(s.recent.back().triggered_at_ns == kT0 + 5 * kSec);
}

TEST_CASE("readers list and look traces up while another thread saves", "[traces][store]") {
  test::TempDir tmp;
  metrics::TraceLimits limits;
  limits.max_count = 10;
  Fixture f(tmp.path(), limits);
  std::string error;
  REQUIRE(f.store.open(error));
  std::atomic<bool> done{false};
  std::atomic<int> inconsistent{0};
  std::thread reader([&] {
    while (!done) {
      for (const auto& t : f.store.list()) {
        // A listed trace is found, or was just removed by retention; never half there.
        const auto found = f.store.find(t.id);
        if (found && found->bytes != t.bytes) ++inconsistent;
      }
      if (f.store.status().stored > 10) ++inconsistent;
    }
  });
  for (int i = 0; i < 60; ++i) {
    const std::string bytes(static_cast<std::size_t>(i + 1), 'x');
    REQUIRE(f.store.save(bytes, meta("s", "p", "skip", kT0 + i * kSec)).ok());
  }
  done = true;
  reader.join();
  CHECK(inconsistent == 0);
  CHECK(f.store.status().stored == 10);
  CHECK(f.store.status().dropped.at("count") == 50);
}

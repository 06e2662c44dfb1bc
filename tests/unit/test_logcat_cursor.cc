// The resume and loss arithmetic of parsers/logcat_cursor, table-tested
// against a small logd of the tests' own (tests/unit/fake_logd.h).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "parsers/logcat_cursor.h"
#include "tests/unit/fake_logd.h"

using namespace jank::parsers;

namespace {

const std::vector<std::string>& kBuffers = jank::test::kLogdBuffers;
constexpr std::string_view kEnd = jank::test::kLogdPreambleEnd;
using jank::test::Entry;
using jank::test::FakeLogd;

struct Read {
  std::vector<std::string> messages;  // of the entries passed on
  ResumePlan plan;
  LogCursor cursor;
  std::map<std::string, std::uint64_t, std::less<>> lost;
  std::uint64_t unconfirmed = 0;
  std::uint64_t dropped = 0;
  std::uint64_t lost_total() const {
    std::uint64_t n = 0;
    for (const auto& [b, l] : lost) n += l;
    return n;
  }
  std::uint64_t counted() const {  // held entries counted before, by the indices
    return plan.buffers.at("main").counted + plan.buffers.at("system").counted;
  }
};

// One stream: feeds it in chunks of `chunk` bytes and collects what is passed on.
Read follow(const FakeLogd& logd, const LogCursor& saved, std::size_t chunk = 7) {
  Read r;
  LogcatFollower f(saved, kBuffers, kEnd, 4096, [&](const LogcatFollower::Line& l) {
    if (!l.new_entry) return;
    const auto colon = l.text.find(": ");
    r.messages.emplace_back(l.text.substr(colon + 2, l.text.size() - colon - 3));
  });
  const std::string s = logd.stream();
  for (std::size_t i = 0; i < s.size(); i += chunk) f.feed(std::string_view(s).substr(i, chunk));
  REQUIRE(f.state() == LogcatFollower::State::following);
  REQUIRE(f.plan());
  r.plan = *f.plan();
  r.cursor = f.cursor();
  r.lost = f.lost();
  r.unconfirmed = f.unconfirmed();
  r.dropped = f.dropped_lines();
  return r;
}

std::vector<std::string> names(const std::string& prefix, int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i <= to; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

// `s` without the lines that end with each of `gone` (logd pruned them).
std::string without(std::string s, std::initializer_list<std::string> gone) {
  for (const std::string& g : gone) {
    const auto at = s.find(g);
    REQUIRE(at != std::string::npos);
    const auto start = s.rfind('\n', at) + 1;
    s.erase(start, at + g.size() - start);
  }
  return s;
}

// A follower from `saved` that collects the message of each entry it passes on.
LogcatFollower collecting(const LogCursor& saved, std::vector<std::string>& got) {
  return LogcatFollower(saved, kBuffers, kEnd, 4096, [&got](const LogcatFollower::Line& l) {
    if (l.new_entry) got.emplace_back(l.text.substr(l.text.find(": ") + 2));
  });
}

// A live stream after a1..a3 were logged: its preamble and ring, then a4;
// then logd wrote up to a12 and pruned a5..a10 under it before it read them.
std::string live_stream_skipped_ahead(FakeLogd& logd) {
  for (int i = 1; i <= 3; ++i) logd.log(0, "a" + std::to_string(i));
  std::string live = logd.stream();
  for (int i = 4; i <= 12; ++i) logd.log(0, "a" + std::to_string(i));
  for (int i : {4, 11, 12}) {
    live += FakeLogd::line(*std::find_if(logd.ring[0].begin(), logd.ring[0].end(),
                                         [&](const Entry& e) { return e.msg == "a" + std::to_string(i); }));
  }
  return live;
}

}  // namespace

TEST_CASE("preamble: boot id, logd pid and statistics, garbled statistics are refused", "[cursor]") {
  const std::string ok =
      "0F0E0D0C-0B0A-4908-8706-050403020100\n"
      "321\n"
      "size/num main               system             Total\n"
      "Total    10/5            20/7            30/12\n"
      "Now      4/2            20/7            24/9\n";
  auto p = parse_stream_preamble(ok, kBuffers);
  REQUIRE(p);
  CHECK(p->boot_id == "0f0e0d0c-0b0a-4908-8706-050403020100");
  CHECK(p->logd_pid == 321);
  CHECK(p->lines.at("main").total == 5);
  CHECK(p->lines.at("main").now == 2);
  CHECK(p->lines.at("system").total == 7);
  // Without pidof or boot_id the statistics still do.
  auto bare = parse_stream_preamble(ok.substr(ok.find("size/num")), kBuffers);
  REQUIRE(bare);
  CHECK(bare->boot_id.empty());
  CHECK(bare->logd_pid == 0);
  CHECK_FALSE(parse_stream_preamble("/system/bin/sh: logcat: not found\n", kBuffers));
  CHECK_FALSE(parse_stream_preamble(ok.substr(0, ok.find("Now")), kBuffers));
  // A buffer that holds more than was ever written is not logd talking.
  CHECK_FALSE(parse_stream_preamble("size/num main system\nTotal 0/1 0/1\nNow 0/5 0/1\n", kBuffers));
}

TEST_CASE("first sight counts from now: what the ring holds is history", "[cursor]") {
  FakeLogd logd;
  for (int i = 0; i < 5; ++i) logd.log(i % 2, "old" + std::to_string(i));
  const Read r = follow(logd, LogCursor{});
  CHECK(r.plan.kind == ResumeKind::first_sight);
  CHECK(r.counted() == 5);
  CHECK(r.lost_total() == 0);
  CHECK(r.messages.empty());
  CHECK(r.cursor.buffers.at("main").index == 3);
  CHECK(r.cursor.buffers.at("system").index == 2);
  CHECK(r.cursor.boot_id == logd.boot_id);
  CHECK(r.cursor.logd_pid == 321);
}

TEST_CASE("resume continues after the last counted entry, exactly, in any chunking", "[cursor]") {
  FakeLogd logd;
  for (int i = 0; i < 4; ++i) logd.log(i % 2, "old" + std::to_string(i));
  const Read first = follow(logd, LogCursor{});
  for (int i = 1; i <= 6; ++i) logd.log(i % 2, "a" + std::to_string(i));
  const Read second = follow(logd, first.cursor);
  CHECK(second.messages == names("a", 1, 6));
  for (int i = 7; i <= 9; ++i) logd.log(i % 2, "a" + std::to_string(i));
  for (std::size_t chunk : {1u, 13u, 4096u}) {
    const Read third = follow(logd, second.cursor, chunk);
    CHECK(third.plan.kind == ResumeKind::resume);
    CHECK(third.counted() == 10);
    CHECK(third.unconfirmed == 0);
    CHECK(third.lost_total() == 0);
    CHECK(third.messages == names("a", 7, 9));
  }
}

TEST_CASE("device clock steps do not move the position", "[cursor]") {
  FakeLogd logd;
  logd.log(0, "old");
  const Read first = follow(logd, LogCursor{});
  logd.log(0, "a1");
  const Read second = follow(logd, first.cursor);
  REQUIRE(second.messages == std::vector<std::string>{"a1"});

  SECTION("clock back an hour") { logd.clock_us -= 3'600'000'000; }
  SECTION("clock forward a year") { logd.clock_us += 365LL * 86'400'000'000; }
  logd.log(0, "a2");
  logd.log(1, "a3");
  const Read third = follow(logd, second.cursor);
  CHECK(third.unconfirmed == 0);
  CHECK(third.messages == std::vector<std::string>{"a2", "a3"});
  // And once more after that, whatever the stamps.
  logd.log(0, "a4");
  CHECK(follow(logd, third.cursor).messages == std::vector<std::string>{"a4"});
}

TEST_CASE("one line stamped a year ahead blinds nothing", "[cursor]") {
  FakeLogd logd;
  logd.log(0, "old");
  const Read first = follow(logd, LogCursor{});
  logd.log(0, "a1");
  logd.log(0, "glitch", 365LL * 86'400'000'000);
  logd.log(0, "a2");
  const Read second = follow(logd, first.cursor);
  CHECK(second.messages == std::vector<std::string>{"a1", "glitch", "a2"});
  logd.log(1, "a3");
  CHECK(follow(logd, second.cursor).messages == std::vector<std::string>{"a3"});
}

TEST_CASE("a ring that wrapped while away: the rest is counted, the loss is exact", "[cursor]") {
  FakeLogd logd;
  logd.capacity = 10;
  logd.log(0, "old");
  logd.log(1, "old-system");
  const Read first = follow(logd, LogCursor{});
  logd.log(0, "p1");
  logd.log(1, "p2");
  const Read second = follow(logd, first.cursor);
  for (int i = 1; i <= 25; ++i) logd.log(0, "m" + std::to_string(i));
  logd.log(1, "s1");
  const Read r = follow(logd, second.cursor);
  CHECK(r.plan.kind == ResumeKind::resume);
  // main: 25 unread, 10 held → 15 lost; system: its last counted entry is still held.
  CHECK(r.lost.at("main") == 15);
  CHECK_FALSE(r.lost.contains("system"));
  CHECK(r.plan.buffers.at("system").anchor_hash != 0);
  CHECK(r.unconfirmed == 0);
  auto expected = names("m", 16, 25);
  expected.push_back("s1");
  CHECK(r.messages == expected);
  CHECK(r.cursor.buffers.at("main").index == 27);
  CHECK(r.cursor.buffers.at("system").index == 3);
}

TEST_CASE("both rings wrapped: everything held is new", "[cursor]") {
  FakeLogd logd;
  logd.capacity = 3;
  logd.log(0, "old");
  logd.log(1, "old-system");
  const Read first = follow(logd, LogCursor{});
  for (int i = 1; i <= 5; ++i) logd.log(i % 2, "x" + std::to_string(i));
  for (int i = 6; i <= 11; ++i) logd.log(i % 2, "x" + std::to_string(i));
  const Read r = follow(logd, first.cursor);
  CHECK(r.counted() == 0);
  CHECK(r.lost_total() == 5);
  CHECK(r.messages == names("x", 6, 11));
}

TEST_CASE("logcat -c of lines already read is no loss, of unread lines, exactly those", "[cursor]") {
  FakeLogd logd;
  logd.log(0, "old");
  const Read first = follow(logd, LogCursor{});
  logd.log(0, "a1");
  logd.log(1, "a2");
  const Read second = follow(logd, first.cursor);
  REQUIRE(second.messages.size() == 2);

  SECTION("cleared after reading") {
    logd.clear();
    logd.log(0, "b1");
    const Read r = follow(logd, second.cursor);
    CHECK(r.lost_total() == 0);
    CHECK(r.messages == std::vector<std::string>{"b1"});
  }
  SECTION("three unread lines cleared") {
    logd.log(0, "u1");
    logd.log(1, "u2");
    logd.log(0, "u3");
    logd.clear();
    logd.log(0, "b1");
    const Read r = follow(logd, second.cursor);
    CHECK(r.lost.at("main") == 2);
    CHECK(r.lost.at("system") == 1);
    CHECK(r.messages == std::vector<std::string>{"b1"});
  }
}

TEST_CASE("a logd restart starts a new log: all of it counts, nothing is called lost", "[cursor]") {
  FakeLogd logd;
  logd.log(0, "old");
  const Read first = follow(logd, LogCursor{});
  for (int i = 1; i <= 5; ++i) logd.log(0, "a" + std::to_string(i));
  const Read second = follow(logd, first.cursor);
  logd.restart();
  logd.log(1, "n1");
  logd.log(0, "n2");
  const Read r = follow(logd, second.cursor);
  CHECK(r.plan.kind == ResumeKind::logd_restart);
  CHECK(r.lost_total() == 0);
  CHECK(r.messages == std::vector<std::string>{"n1", "n2"});

  SECTION("without pidof: totals that went down tell") {
    LogCursor no_pid = second.cursor;
    no_pid.logd_pid = 0;
    FakeLogd again = logd;
    again.pid = 0;
    const Read t = follow(again, no_pid);
    CHECK(t.plan.kind == ResumeKind::logd_restart);
    CHECK(t.messages == std::vector<std::string>{"n1", "n2"});
  }
}

TEST_CASE("a reboot while away: every line of the new boot counts, its early wrap is lost", "[cursor]") {
  FakeLogd logd;
  logd.capacity = 4;
  logd.log(0, "old");
  const Read first = follow(logd, LogCursor{});
  logd.reboot();
  logd.clock_us -= 86'400'000'000;  // no RTC: a day behind
  for (int i = 1; i <= 6; ++i) logd.log(0, "boot" + std::to_string(i));
  const Read r = follow(logd, first.cursor);
  CHECK(r.plan.kind == ResumeKind::reboot);
  CHECK(r.lost.at("main") == 2);
  CHECK(r.messages == names("boot", 3, 6));
  CHECK(r.cursor.boot_id == logd.boot_id);
  CHECK(r.cursor.buffers.at("main").index == 6);
}

TEST_CASE("an old state file: indices without hashes resume by count", "[cursor]") {
  FakeLogd logd;
  for (int i = 1; i <= 3; ++i) logd.log(0, "c" + std::to_string(i));
  LogCursor old;  // what a state file without identities gives
  old.valid = true;
  old.buffers["main"].index = 3;
  old.buffers["system"].index = 0;
  logd.log(0, "n1");
  logd.log(1, "n2");
  const Read r = follow(logd, old);
  CHECK(r.plan.kind == ResumeKind::resume);
  CHECK(r.plan.buffers.at("main").anchor_hash == 0);
  CHECK(r.unconfirmed == 0);
  CHECK(r.messages == std::vector<std::string>{"n1", "n2"});
}

TEST_CASE("the anchor ends the counted run early when logd pruned meanwhile", "[cursor]") {
  // Statistics say two counted entries are held, but the ring printed only
  // the last one (pruned between the statistics and the dump): the hash,
  // not the count, decides.
  FakeLogd logd;
  logd.log(0, "old");
  const Read first = follow(logd, LogCursor{});
  logd.log(0, "a1");
  logd.log(0, "a2");
  const Read second = follow(logd, first.cursor);
  logd.log(0, "n1");
  const std::string s = without(logd.stream(), {"Choreographer: old\n", "Choreographer: a1\n"});
  std::vector<std::string> got;
  LogcatFollower f = collecting(second.cursor, got);
  f.feed(s);
  CHECK(f.unconfirmed() == 0);
  CHECK(f.lost_total() == 0);
  CHECK(got == std::vector<std::string>{"n1\n"});
}

TEST_CASE("a stream without statistics fails instead of guessing", "[cursor]") {
  LogcatFollower f(LogCursor{}, kBuffers, kEnd, 4096, [](const LogcatFollower::Line&) { FAIL("nothing passes"); });
  f.feed("/system/bin/sh: logcat: inaccessible or not found\n");
  f.feed(std::string(kEnd) + "\n");
  f.feed("11-21 10:00:01.000  4321  4321 I Choreographer: Skipped 31 frames!\n");
  CHECK(f.state() == LogcatFollower::State::failed);
  CHECK_FALSE(f.error().empty());
}

TEST_CASE("an overlong line keeps only its head and still reaches the parser as too long", "[cursor]") {
  FakeLogd logd;
  const Read first = follow(logd, LogCursor{});
  std::vector<std::size_t> sizes;
  LogcatFollower f(first.cursor, kBuffers, kEnd, 100, [&](const LogcatFollower::Line& l) {
    sizes.push_back(l.text.size());
  });
  std::string s = logd.stream();
  f.feed(s);
  f.feed("         1700000001.000000   100   100 I Choreographer: " + std::string(1 << 20, 'x'));
  f.feed(std::string(1 << 20, 'y') + "\n");
  REQUIRE(sizes.size() == 1);
  CHECK(sizes[0] > 101);
  CHECK(sizes[0] < 200);
}

TEST_CASE("a live stream that logd skipped ahead: the next resume finds its place by content and counts the skip as lost", "[cursor]") {
  FakeLogd logd;
  logd.capacity = 10;
  logd.log(0, "old");
  const Read first = follow(logd, LogCursor{});
  std::vector<std::string> got;
  LogcatFollower f = collecting(first.cursor, got);
  f.feed(live_stream_skipped_ahead(logd));
  REQUIRE(got.size() == 6);  // a1..a4, a11, a12
  CHECK(f.cursor().buffers.at("main").index == 7);  // what counting entries gives: 6 behind the truth
  for (int i = 13; i <= 15; ++i) logd.log(0, "a" + std::to_string(i));
  const Read r = follow(logd, f.cursor());
  CHECK(r.messages == names("a", 13, 15));
  CHECK(r.lost.at("main") == 6);  // a5..a10
  CHECK(r.unconfirmed == 0);
  CHECK(r.cursor.buffers.at("main").index == 16);
}

TEST_CASE("a ring that printed less than its statistics said settles when told to", "[cursor]") {
  FakeLogd logd;
  logd.log(0, "old");
  const Read first = follow(logd, LogCursor{});
  logd.log(0, "a1");
  const Read second = follow(logd, first.cursor);
  logd.log(0, "n1");
  logd.log(0, "n2");
  // logd pruned "old", "a1" and "n1" between its statistics and the dump.
  const std::string s =
      without(logd.stream(), {"Choreographer: old\n", "Choreographer: a1\n", "Choreographer: n1\n"});
  std::vector<std::string> got;
  LogcatFollower f = collecting(second.cursor, got);
  f.feed(s);
  CHECK(f.state() == LogcatFollower::State::catching_up);
  CHECK(got.empty());
  CHECK(f.cursor() == second.cursor);  // nothing moves while undecided
  f.settle();
  CHECK(f.state() == LogcatFollower::State::following);
  CHECK(f.unconfirmed() == 1);
  CHECK(got == std::vector<std::string>{"n2\n"});
}

TEST_CASE("a check of the ring measures a live skip at once, and the next resume does not count it again", "[cursor]") {
  FakeLogd logd;
  logd.capacity = 10;
  logd.log(0, "old");
  const Read first = follow(logd, LogCursor{});
  LogcatFollower f(first.cursor, kBuffers, kEnd, 4096, [](const LogcatFollower::Line&) {});
  f.feed(live_stream_skipped_ahead(logd));
  // The check: the ring as it is now, against the cursor as it is now.
  const Read check = follow(logd, f.cursor());
  REQUIRE(check.lost.at("main") == 6);
  LogcatFollower check_follower(f.cursor(), kBuffers, kEnd, 4096, [](const LogcatFollower::Line&) {});
  check_follower.feed(logd.stream());
  CHECK(check_follower.anchor_found("main"));
  CHECK_FALSE(check_follower.anchor_found("system"));  // nothing counted there yet
  f.skip_ahead("main", 6);
  CHECK(f.cursor().buffers.at("main").index == 13);
  logd.log(0, "a13");
  const Read r = follow(logd, f.cursor());
  CHECK(r.lost_total() == 0);
  CHECK(r.messages == std::vector<std::string>{"a13"});
}

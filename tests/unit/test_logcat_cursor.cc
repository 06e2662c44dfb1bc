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
#include "tests/support/queries.h"
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
  std::map<std::string, std::uint64_t, std::less<>> unheld;
  std::vector<std::string> new_logs;
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
  r.unheld = f.unheld();
  r.new_logs = f.new_log_buffers();
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

TEST_CASE("a live stream that logd skipped ahead and no check measured: the next resume finds its place by content and counts the skip as lost", "[cursor]") {
  // logd's counts cannot tell lines it skipped under the live stream from
  // lines it never held; the ring can: it no longer holds the entry the count
  // was last rebased at ("old"), so logd pruned past it and may have skipped.
  FakeLogd logd;
  logd.capacity = 10;
  logd.log(0, "old");
  const Read first = follow(logd, LogCursor{});
  std::vector<std::string> got;
  LogcatFollower f = collecting(first.cursor, got);
  f.feed(live_stream_skipped_ahead(logd));
  REQUIRE(got.size() == 6);  // a1..a4, a11, a12
  CHECK(f.cursor().buffers.at("main").index == 7);  // what counting entries gives: 6 behind logd's count
  for (int i = 13; i <= 15; ++i) logd.log(0, "a" + std::to_string(i));
  const Read r = follow(logd, f.cursor());
  CHECK(r.messages == names("a", 13, 15));
  CHECK(r.lost_total() == 6);  // a5..a10
  CHECK(r.unheld.empty());
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
  const std::string old_line = FakeLogd::line(logd.ring[0].back());
  f.feed(live_stream_skipped_ahead(logd));
  CHECK(jank::test::rebase_hash(f, "main") == log_line_hash(std::string_view(old_line).substr(0, old_line.size() - 1)));
  // The check: the ring as it is now, against the cursor as it is now.
  LogcatFollower check(f.cursor(), kBuffers, kEnd, 4096, [](const LogcatFollower::Line&) {});
  check.watch("main", jank::test::rebase_hash(f, "main"));
  check.feed(logd.stream());
  check.settle();
  CHECK(check.anchor_found("main"));
  CHECK_FALSE(check.anchor_found("system"));  // nothing counted there yet
  CHECK(check.lost().at("main") == 6);  // its own verdict by the same rule
  CHECK(check.unheld().empty());
  CHECK(check.ring_summary_excess("main") == 0);
  // The ring no longer holds the entry the live cursor was rebased at ("old"):
  // logd pruned past it, so it can have skipped the stream: a skip.
  CHECK_FALSE(check.watched_held("main"));
  f.skip_ahead("main", 6, LogcatFollower::Gap::skipped, f.cursor().buffers.at("main").last_hash);
  CHECK(f.cursor().buffers.at("main").index == 13);
  CHECK(f.unheld_total() == 0);
  logd.log(0, "a13");
  const Read r = follow(logd, f.cursor());
  CHECK(r.lost_total() == 0);
  CHECK(r.unheld.empty());
  CHECK(r.messages == std::vector<std::string>{"a13"});
}

TEST_CASE("a check of a ring that still holds the rebase entry takes logd's extra count for unheld lines", "[cursor]") {
  FakeLogd logd;
  logd.log(0, "old");
  const Read first = follow(logd, LogCursor{});
  LogcatFollower f(first.cursor, kBuffers, kEnd, 4096, [](const LogcatFollower::Line&) {});
  f.feed(logd.stream());
  logd.log(0, "a1");
  logd.filtered(0, 4);  // refused by a log.tag property in logd: counted, never held
  logd.log(0, "a2");
  f.feed(FakeLogd::line(logd.ring[0][1]) + FakeLogd::line(logd.ring[0][2]));
  REQUIRE(f.cursor().buffers.at("main").index == 3);  // logd says 7
  logd.identical_run(0, "same", 5);  // written after the check's snapshot: the live stream counts it itself
  LogcatFollower check(f.cursor(), kBuffers, kEnd, 4096, [](const LogcatFollower::Line&) {});
  check.watch("main", jank::test::rebase_hash(f, "main"));
  check.feed(logd.stream());
  check.settle();
  CHECK(check.anchor_found("main"));
  CHECK(check.lost_total() == 0);
  CHECK(check.watched_held("main"));  // "old" is still held: nothing was skipped
  CHECK(check.unheld().at("main") == 4 + 2);  // the filtered lines, and the run's 3 squashed minus its summary
  CHECK(check.ring_summary_excess("main") == 2);
  f.skip_ahead("main", 4, LogcatFollower::Gap::unheld, f.cursor().buffers.at("main").last_hash);
  CHECK(f.unheld_total() == 4);
  CHECK(f.cursor().buffers.at("main").index == 7);
  // The live stream reads the run: the summary stands for its three lines.
  for (std::size_t i = 3; i < logd.ring[0].size(); ++i) f.feed(FakeLogd::line(logd.ring[0][i]));
  CHECK(f.cursor().buffers.at("main").index == logd.total[0]);
  CHECK(f.unheld_total() == 4 + 2);
}

TEST_CASE("lines a log.tag property refused in logd between two streams: none lost, all unheld", "[cursor]") {
  FakeLogd logd;
  logd.log(0, "old");
  logd.log(1, "old-system");
  const Read first = follow(logd, LogCursor{});
  logd.log(0, "a1");
  logd.filtered(0, 5);
  logd.log(0, "a2");
  logd.filtered(1, 2);
  logd.log(1, "s1");
  logd.filtered(0, 3);  // after the newest held entry
  const Read r = follow(logd, first.cursor);
  CHECK(r.plan.kind == ResumeKind::resume);
  CHECK(r.messages == std::vector<std::string>{"a1", "a2", "s1"});
  CHECK(r.lost_total() == 0);
  CHECK(r.unconfirmed == 0);
  CHECK(r.unheld.at("main") == 8);
  CHECK(r.unheld.at("system") == 2);
  // Rebased on logd's totals: the next resume finds nothing unheld again.
  CHECK(r.cursor.buffers.at("main").index == logd.total[0]);
  CHECK(r.cursor.buffers.at("system").index == logd.total[1]);
  logd.log(0, "a3");
  const Read next = follow(logd, r.cursor);
  CHECK(next.messages == std::vector<std::string>{"a3"});
  CHECK(next.lost_total() == 0);
  CHECK(next.unheld.empty());
}

TEST_CASE("lines refused in logd under a live stream show at the next resume as unheld, never lost", "[cursor]") {
  FakeLogd logd;
  logd.capacity = 6;
  logd.log(0, "old");
  const Read first = follow(logd, LogCursor{});
  std::vector<std::string> got;
  LogcatFollower f = collecting(first.cursor, got);
  f.feed(logd.stream());
  for (int i = 1; i <= 3; ++i) {
    logd.log(0, "a" + std::to_string(i));
    logd.filtered(0, 10);
    f.feed(FakeLogd::line(logd.ring[0].back()));
  }
  REQUIRE(got.size() == 3);
  const Read r = follow(logd, f.cursor());
  CHECK(r.messages.empty());
  CHECK(r.lost_total() == 0);
  CHECK(r.unheld.at("main") == 30);
}

TEST_CASE("identical lines squashed into a chatty summary (8.0-11): none lost, the cursor keeps logd's count", "[cursor]") {
  FakeLogd logd;
  logd.log(0, "old");
  const Read first = follow(logd, LogCursor{});

  SECTION("written while away: the ring shows first, summary, last") {
    logd.identical_run(0, "same", 6);
    logd.log(0, "after");
    const Read r = follow(logd, first.cursor);
    CHECK(r.messages == std::vector<std::string>{"same", "uid=10123(com.example.feed) identical 4 lines", "same", "after"});
    CHECK(r.lost_total() == 0);
    CHECK(r.unheld.at("main") == 3);  // 4 lines counted, one summary entry held
    CHECK(r.cursor.buffers.at("main").index == logd.total[0]);
  }
  SECTION("read live: the summary stands for its lines") {
    std::vector<std::string> got;
    LogcatFollower f = collecting(first.cursor, got);
    f.feed(logd.stream());
    logd.identical_run(0, "same", 6);
    logd.identical_run(0, "pair", 2);  // two identical lines: both held, nothing squashed
    logd.log(0, "after");
    for (std::size_t i = 1; i < logd.ring[0].size(); ++i) f.feed(FakeLogd::line(logd.ring[0][i]));
    CHECK(got.size() == 6);
    CHECK(f.cursor().buffers.at("main").index == logd.total[0]);
    CHECK(f.unheld_total() == 3);
    const Read r = follow(logd, f.cursor());
    CHECK(r.messages.empty());
    CHECK(r.lost_total() == 0);
    CHECK(r.unheld.empty());
  }
  SECTION("a summary as the last counted entry is no anchor: the indices place the next stream") {
    std::vector<std::string> got;
    LogcatFollower f = collecting(first.cursor, got);
    f.feed(logd.stream());
    logd.identical_run(0, "same", 4);
    for (std::size_t i = 1; i <= 2; ++i) f.feed(FakeLogd::line(logd.ring[0][i]));  // "same", the summary
    CHECK(f.cursor().buffers.at("main").index == 1 + 1 + 2);
    CHECK(f.cursor().buffers.at("main").last_hash == 0);
    const Read r = follow(logd, f.cursor());
    CHECK(r.plan.buffers.at("main").anchor_hash == 0);
    CHECK(r.messages == std::vector<std::string>{"same"});
    CHECK(r.lost_total() == 0);
  }
}

TEST_CASE("a chatty summary is told by its form, and \"identical\" only right after its own thread", "[cursor]") {
  CHECK(chatty_summary_lines('I', "chatty", "uid=10123(com.example.feed) RenderThread identical 3 lines", true) == 3);
  CHECK(chatty_summary_lines('I', "chatty", "uid=1000(system) Binder:1234_5 identical 1 line", true) == 1);
  CHECK(chatty_summary_lines('I', "chatty", "uid=1000(system) ActivityManager expire 4 lines", false) == 4);
  CHECK(chatty_summary_lines('I', "chatty", "uid=10123(com.example.feed) identical 3 lines", false) == 0);
  CHECK(chatty_summary_lines('W', "chatty", "uid=1000 expire 4 lines", false) == 0);
  CHECK(chatty_summary_lines('I', "chattyX", "uid=1000 expire 4 lines", false) == 0);
  CHECK(chatty_summary_lines('I', "chatty", "uid=abc expire 4 lines", false) == 0);
  CHECK(chatty_summary_lines('I', "chatty", "uid=1000 expire 0 lines", false) == 0);
  CHECK(chatty_summary_lines('I', "chatty", "uid=1000 expire 4 linez", false) == 0);
  CHECK(chatty_summary_lines('I', "chatty", "uid=1000 expired 4 lines", false) == 0);
}

TEST_CASE("a reboot the preamble could not show: the last counted line is not where logd's totals put it, every line counts", "[cursor]") {
  // The device's boot id and logd's pid cannot be read: only the statistics
  // tell the logs apart, and after a reboot while away the new log's totals
  // can be past the old cursor. The content decides: nothing is dropped.
  FakeLogd logd;
  logd.boot_id.clear();
  logd.pid = 0;
  for (int i = 1; i <= 3; ++i) logd.log(0, "old" + std::to_string(i));
  const Read first = follow(logd, LogCursor{});
  REQUIRE(first.cursor.buffers.at("main").index == 3);
  logd.reboot();
  logd.boot_id.clear();
  logd.pid = 0;
  for (int i = 1; i <= 5; ++i) logd.log(0, "boot" + std::to_string(i));
  const Read r = follow(logd, first.cursor);
  CHECK(r.plan.kind == ResumeKind::resume);  // nothing in the preamble says otherwise
  CHECK(r.messages == names("boot", 1, 5));
  CHECK(r.dropped == 1);  // the divider alone: before, 3 of the new lines went as "counted before"
  CHECK(r.lost_total() == 0);
  CHECK(r.unconfirmed == 1);
  CHECK(r.new_logs == std::vector<std::string>{"main"});
  CHECK(r.cursor.buffers.at("main").index == 5);
  // And the next stream resumes on the new log by content.
  logd.log(0, "boot6");
  const Read next = follow(logd, r.cursor);
  CHECK(next.messages == std::vector<std::string>{"boot6"});
  CHECK(next.unconfirmed == 0);
}

TEST_CASE("the last counted line pruned in place on the same boot and logd: the indices decide", "[cursor]") {
  // logd 7.x–11 prunes a spammy uid's entries into one "expire" summary: the
  // anchor's content is gone from where the totals put it, but boot id and
  // logd's pid say it is the same log, so counting the ring again would
  // count lines twice.
  FakeLogd logd;
  for (int i = 1; i <= 3; ++i) logd.log(0, "old" + std::to_string(i));
  const Read first = follow(logd, LogCursor{});
  logd.log(0, "a1");
  logd.log(0, "a2");
  const Read second = follow(logd, first.cursor);
  REQUIRE(second.messages == names("a", 1, 2));
  logd.log(0, "a3");
  logd.log(0, "a4");
  for (auto& e : logd.ring[0]) {
    if (e.msg == "a2") e.msg = "uid=10100(com.example.feed) expire 1 line";
  }
  const Read r = follow(logd, second.cursor);
  CHECK(r.plan.kind == ResumeKind::resume);
  CHECK(r.messages == names("a", 3, 4));
  CHECK(r.new_logs.empty());
  CHECK(r.unconfirmed == 1);
  CHECK(r.lost_total() == 0);
}

TEST_CASE("the last counted line left the ring: every held line is new, the loss as the indices give it", "[cursor]") {
  // With lines logd never held in between, the loss is an upper bound:
  // logd's counts cannot tell them from lines that left the ring unread.
  FakeLogd logd;
  logd.capacity = 4;
  logd.log(0, "old");
  const Read first = follow(logd, LogCursor{});
  for (int i = 1; i <= 9; ++i) logd.log(0, "w" + std::to_string(i));
  logd.filtered(0, 2);
  const Read r = follow(logd, first.cursor);
  CHECK(r.messages == names("w", 6, 9));
  CHECK(r.lost.at("main") == 5 + 2);
  CHECK(r.unheld.empty());
  CHECK(r.unconfirmed == 0);
  CHECK(r.cursor.buffers.at("main").index == logd.total[0]);
}

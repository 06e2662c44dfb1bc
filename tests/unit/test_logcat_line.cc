// Unit tests for the per-line logcat header parsers. Every fixture line here is
// written by hand from liblog's format strings (logprint.cpp) and from the
// shapes Android Studio / Eclipse / LogcatApp / flutter print; none is copied
// from the corpus. Expected wall times were computed with Python's
// calendar.timegm.
#include <catch2/catch.hpp>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "parsers/logcat_line.h"
#include "tests/support/names.h"

using jank::parsers::buffer_separator;
using jank::parsers::detect_log_line;
using jank::parsers::LogLayout;
using jank::parsers::LogLine;
using jank::parsers::parse_log_line;
using jank::parsers::ParseOptions;
using jank::parsers::strip_tool_prefix;
using jank::parsers::TimeBase;
using jank::test::layout_name;

namespace {

constexpr std::string_view kSkipMsg =
    "Skipped 42 frames!  The application may be doing too much work on its main thread.";

// Keeps a built line alive for the whole run: results are views into it.
std::string_view keep(std::string s) {
  static std::deque<std::string> store;
  return store.emplace_back(std::move(s));
}

ParseOptions year(int y) {
  ParseOptions o;
  o.default_year = y;
  return o;
}

// Parses with an explicit layout and also checks that auto-detection picks
// the same layout and fields.
LogLine must_parse(std::string_view line, LogLayout layout, const ParseOptions& opt = {}) {
  auto r = parse_log_line(line, layout, opt);
  INFO("line: " << line << "  layout: " << layout_name(layout));
  REQUIRE(r.has_value());
  CHECK(r->layout == layout);
  auto d = detect_log_line(line, opt);
  REQUIRE(d.has_value());
  CHECK(layout_name(d->layout) == layout_name(layout));
  CHECK(d->pid == r->pid);
  CHECK(d->tag == r->tag);
  CHECK(d->message == r->message);
  CHECK(d->time.ns == r->time.ns);
  return *r;
}

}  // namespace

TEST_CASE("layout names", "[logcat]") {
  CHECK(layout_name(LogLayout::threadtime) == "threadtime");
  CHECK(layout_name(LogLayout::long_header) == "long");
  CHECK(layout_name(LogLayout::studio_legacy) == "studio_legacy");
  CHECK(layout_name(LogLayout::unknown) == "unknown");
  CHECK(layout_name(static_cast<LogLayout>(200)) == "unknown");
}

TEST_CASE("threadtime default layout", "[logcat]") {
  const std::string line =
      "01-02 03:04:05.678  1234  5678 I Choreographer: " + std::string(kSkipMsg);
  LogLine l = must_parse(line, LogLayout::threadtime, year(2024));
  CHECK(l.time.base == TimeBase::wall);
  CHECK(l.time.ns == 1704164645678000000);
  CHECK(l.pid == 1234);
  CHECK(l.tid == 5678);
  CHECK(l.uid == -1);
  CHECK(l.uid_name.empty());
  CHECK(l.priority == 'I');
  CHECK(l.tag == "Choreographer");
  CHECK(l.message == kSkipMsg);
  CHECK(l.package.empty());

  SECTION("default year is 1970") {
    auto r = parse_log_line(line, LogLayout::threadtime);
    REQUIRE(r);
    CHECK(r->time.ns == 97445678000000);
  }
}

TEST_CASE("threadtime: padded tag, wide pids, empty tag, empty message", "[logcat]") {
  LogLine a = must_parse("12-31 23:59:59.123  9999999 12345678 W Tag     : hello: world",
                         LogLayout::threadtime, year(2024));
  CHECK(a.pid == 9999999);
  CHECK(a.tid == 12345678);
  CHECK(a.priority == 'W');
  CHECK(a.tag == "Tag");
  CHECK(a.message == "hello: world");
  CHECK(a.time.ns == 1735689599123000000);

  // Kernel buffer lines have an empty tag padded to 8.
  LogLine k = must_parse("06-17 02:19:14.616     0     0 I         : c0      0 Booting",
                         LogLayout::threadtime);
  CHECK(k.pid == 0);
  CHECK(k.tid == 0);
  CHECK(k.tag.empty());
  CHECK(k.message == "c0      0 Booting");

  // Tags are free text: spaces and inner colons without a following blank.
  LogLine s = must_parse("01-02 03:04:05.678   1   2 D Some Tag:x : msg", LogLayout::threadtime);
  CHECK(s.tag == "Some Tag:x");
  CHECK(s.message == "msg");

  LogLine e = must_parse("01-02 03:04:05.678   1   2 E Tag     : ", LogLayout::threadtime);
  CHECK(e.message.empty());
  LogLine e2 = must_parse("01-02 03:04:05.678   1   2 E Tag     :", LogLayout::threadtime);
  CHECK(e2.tag == "Tag");
  CHECK(e2.message.empty());

  LogLine a2 = must_parse("01-02 03:04:05.678   1   2 A Tag: assert", LogLayout::threadtime);
  CHECK(a2.priority == 'A');
}

TEST_CASE("threadtime with -v uid", "[logcat]") {
  // "%5d " numeric uid before the pid.
  LogLine n = must_parse("01-02 03:04:05.678  1000   832   862 I am_proc_start: [0,1,2,x,y,z]",
                         LogLayout::threadtime, year(2024));
  CHECK(n.uid == 1000);
  CHECK(n.uid_name.empty());
  CHECK(n.pid == 832);
  CHECK(n.tid == 862);
  CHECK(n.tag == "am_proc_start");
  CHECK(n.message == "[0,1,2,x,y,z]");

  // "%5s " passwd name of at most 5 characters.
  LogLine r =
      must_parse("01-02 03:04:05.678  root   123   456 W init    : boot", LogLayout::threadtime);
  CHECK(r.uid == -1);
  CHECK(r.uid_name == "root");
  CHECK(r.pid == 123);
  CHECK(r.tid == 456);
  CHECK(r.tag == "init");

  LogLine a = must_parse("01-02 03:04:05.678 10123 31000 31001 D App: m", LogLayout::threadtime);
  CHECK(a.uid == 10123);
  CHECK(a.pid == 31000);

  // Unknown uid prints six spaces: indistinguishable from padding.
  LogLine u = must_parse("01-02 03:04:05.678         123   456 V Tag: m", LogLayout::threadtime);
  CHECK(u.uid == -1);
  CHECK(u.uid_name.empty());
  CHECK(u.pid == 123);
  CHECK(u.tid == 456);
}

TEST_CASE("threadtime with -v epoch, monotonic, usec, nsec", "[logcat]") {
  // epoch + uid + usec: "%19lld" seconds, right-aligned.
  LogLine e = must_parse(keep("         1700000000.123456 10123  1234  5678 I Choreographer: " +
                              std::string(kSkipMsg)),
                         LogLayout::threadtime);
  CHECK(e.time.base == TimeBase::wall);
  CHECK(e.time.ns == 1700000000123456000);
  CHECK(e.uid == 10123);
  CHECK(e.pid == 1234);
  CHECK(e.tid == 5678);
  CHECK(e.tag == "Choreographer");
  CHECK(e.message == kSkipMsg);

  LogLine en =
      must_parse("         1700000000.000000001  1234  5678 D T: m", LogLayout::threadtime);
  CHECK(en.time.ns == 1700000000000000001);

  // Leading blanks stripped by some tool: still an epoch (≥ 1e9 s).
  LogLine es = must_parse("1700000000.123  1 2 D T: m", LogLayout::threadtime);
  CHECK(es.time.base == TimeBase::wall);
  CHECK(es.time.ns == 1700000000123000000);

  // monotonic: "%6lld" seconds since boot.
  LogLine m = must_parse("   123.456  1234  1234 I Tag     : m", LogLayout::threadtime);
  CHECK(m.time.base == TimeBase::monotonic);
  CHECK(m.time.ns == 123456000000);
  LogLine mn = must_parse("1234567.000000007  shell  1 2 I Tag: m", LogLayout::threadtime);
  CHECK(mn.time.base == TimeBase::monotonic);
  CHECK(mn.time.ns == 1234567000000007);
  CHECK(mn.uid_name == "shell");

  LogLine us = must_parse("01-02 03:04:05.678901  1 2 I T: m", LogLayout::threadtime, year(2024));
  CHECK(us.time.ns == 1704164645678901000);
}

TEST_CASE("year and zone modifiers (-v year, -v zone)", "[logcat]") {
  LogLine y = must_parse("2024-01-02 03:04:05.678  1234  5678 D MyTag   : hello",
                         LogLayout::threadtime, year(1999));
  CHECK(y.time.ns == 1704164645678000000);
  CHECK(y.tag == "MyTag");

  // local = UTC + 5:30, so UTC = local - 5:30.
  LogLine z = must_parse("01-02 03:04:05.678 +0530  1234  5678 I Tag: m", LogLayout::threadtime,
                         year(2024));
  CHECK(z.time.ns == 1704144845678000000);
  CHECK(z.pid == 1234);

  // year + zone + nsec across a leap day and a month boundary.
  LogLine n =
      must_parse("2024-02-29 23:59:59.999999999 -0800     1     2 E T: m", LogLayout::threadtime);
  CHECK(n.time.ns == 1709279999999999999);  // 2024-03-01 07:59:59.999999999Z

  LogLine t = must_parse("2024-01-02 03:04:05.678 +0100 I/Tag(  123): msg", LogLayout::time);
  CHECK(t.time.ns == 1704164645678000000 - 3600LL * 1000000000);
  CHECK(t.pid == 123);
  CHECK(t.tag == "Tag");
  CHECK(t.message == "msg");

  // -v UTC -v zone prints +0000.
  auto utc =
      parse_log_line("01-02 03:04:05.678 +0000   1   2 I T: m", LogLayout::threadtime, year(2024));
  REQUIRE(utc);
  CHECK(utc->time.ns == 1704164645678000000);
}

TEST_CASE("time layout, with uid, epoch and the Eclipse colon", "[logcat]") {
  LogLine t =
      must_parse(keep("01-02 03:04:05.678 I/Choreographer( 2414): " + std::string(kSkipMsg)),
                 LogLayout::time, year(2024));
  CHECK(t.time.ns == 1704164645678000000);
  CHECK(t.pid == 2414);
  CHECK(t.tid == -1);
  CHECK(t.tag == "Choreographer");
  CHECK(t.message == kSkipMsg);

  LogLine u = must_parse("01-02 03:04:05.678 W/Tag     ( 1000:  123): msg", LogLayout::time);
  CHECK(u.uid == 1000);
  CHECK(u.pid == 123);
  CHECK(u.priority == 'W');
  LogLine un = must_parse("01-02 03:04:05.678 W/Tag     ( root:  123): msg", LogLayout::time);
  CHECK(un.uid_name == "root");
  CHECK(un.pid == 123);

  LogLine ep = must_parse("         1700000000.123 D/Tag     (   77): x", LogLayout::time);
  CHECK(ep.time.ns == 1700000000123000000);
  CHECK(ep.pid == 77);

  // Eclipse / DDMS "Copy" format: a colon right after the time.
  LogLine ec = must_parse("09-25 23:08:36.101: I/Choreographer(10853): Skipped 7 frames!  x",
                          LogLayout::time);
  CHECK(ec.pid == 10853);
  CHECK(ec.tag == "Choreographer");
  CHECK(ec.message == "Skipped 7 frames!  x");

  // Tags with spaces and parentheses: the first well-formed "(pid):" wins.
  LogLine sp = must_parse("01-02 03:04:05.678 I/Some Tag(  12): msg (3): x", LogLayout::time);
  CHECK(sp.tag == "Some Tag");
  CHECK(sp.pid == 12);
  CHECK(sp.message == "msg (3): x");
  LogLine par = must_parse("01-02 03:04:05.678 I/Foo(bar)(  12): msg", LogLayout::time);
  CHECK(par.tag == "Foo(bar)");
  CHECK(par.pid == 12);
}

TEST_CASE("brief layout", "[logcat]") {
  LogLine b =
      must_parse(keep("I/Choreographer( 2414): " + std::string(kSkipMsg)), LogLayout::brief);
  CHECK(b.time.base == TimeBase::none);
  CHECK(b.pid == 2414);
  CHECK(b.tid == -1);
  CHECK(b.priority == 'I');
  CHECK(b.tag == "Choreographer");
  CHECK(b.message == kSkipMsg);

  LogLine p = must_parse("D/flutter (   12): hi", LogLayout::brief);
  CHECK(p.tag == "flutter");
  CHECK(p.pid == 12);

  LogLine u = must_parse("W/Tag     ( 1000:  123): m", LogLayout::brief);
  CHECK(u.uid == 1000);
  CHECK(u.pid == 123);
  LogLine un = must_parse("W/Tag     (shell:  123): m", LogLayout::brief);
  CHECK(un.uid_name == "shell");
  LogLine unk = must_parse("W/Tag     (        123): m", LogLayout::brief);
  CHECK(unk.uid == -1);
  CHECK(unk.pid == 123);

  LogLine e = must_parse("E/Tag( 1):", LogLayout::brief);
  CHECK(e.message.empty());
  LogLine sp = must_parse("I/Some Tag(  12): msg", LogLayout::brief);
  CHECK(sp.tag == "Some Tag");
}

TEST_CASE("process, thread and tag layouts", "[logcat]") {
  LogLine p = must_parse("I(  123) Skipped 5 frames!  x  (Choreographer)", LogLayout::process);
  CHECK(p.pid == 123);
  CHECK(p.tag == "Choreographer");
  CHECK(p.message == "Skipped 5 frames!  x");
  LogLine pe = must_parse("I(  123)   (Tag)", LogLayout::process);
  CHECK(pe.message.empty());
  CHECK(pe.tag == "Tag");
  LogLine pm = must_parse("W(  123) a  (b) c  (Tag)", LogLayout::process);
  CHECK(pm.message == "a  (b) c");
  CHECK(pm.tag == "Tag");
  // process + uid is "P( uid:  pid)"; detection would read it as thread.
  auto pu = parse_log_line("I( 1000:  123) msg  (Tag)", LogLayout::process);
  REQUIRE(pu);
  CHECK(pu->uid == 1000);
  CHECK(pu->pid == 123);
  CHECK(pu->tag == "Tag");

  LogLine t = must_parse("I(  123:  456) hello", LogLayout::thread);
  CHECK(t.pid == 123);
  CHECK(t.tid == 456);
  CHECK(t.message == "hello");
  CHECK(t.tag.empty());
  LogLine tu = must_parse("D( 1000:  123:  456) hello", LogLayout::thread);
  CHECK(tu.uid == 1000);
  CHECK(tu.pid == 123);
  CHECK(tu.tid == 456);
  LogLine tn = must_parse("D( root:    1:    1) x", LogLayout::thread);
  CHECK(tn.uid_name == "root");

  LogLine g = must_parse(keep("I/Choreographer: " + std::string(kSkipMsg)), LogLayout::tag);
  CHECK(g.tag == "Choreographer");
  CHECK(g.pid == -1);
  CHECK(g.message == kSkipMsg);
  LogLine gp = must_parse("W/Tag     : a: b", LogLayout::tag);
  CHECK(gp.tag == "Tag");
  CHECK(gp.message == "a: b");
}

TEST_CASE("long header and LogcatApp header", "[logcat]") {
  LogLine l = must_parse("[ 01-02 03:04:05.678  1234: 5678 I/Choreographer ]",
                         LogLayout::long_header, year(2024));
  CHECK(l.time.ns == 1704164645678000000);
  CHECK(l.pid == 1234);
  CHECK(l.tid == 5678);
  CHECK(l.tag == "Choreographer");
  CHECK(l.message.empty());

  LogLine p = must_parse("[ 01-02 03:04:05.678   123:  456 W/Tag      ]", LogLayout::long_header);
  CHECK(p.tag == "Tag");
  CHECK(p.priority == 'W');

  LogLine u =
      must_parse("[ 01-02 03:04:05.678  1000:  123:  456 I/Some Tag ]", LogLayout::long_header);
  CHECK(u.uid == 1000);
  CHECK(u.pid == 123);
  CHECK(u.tid == 456);
  CHECK(u.tag == "Some Tag");
  LogLine un = must_parse("[ 01-02 03:04:05.678  logd:  123:  456 I/T ]", LogLayout::long_header);
  CHECK(un.uid_name == "logd");

  LogLine e =
      must_parse("[          1700000000.123456   123:  456 D/Tag      ]", LogLayout::long_header);
  CHECK(e.time.ns == 1700000000123456000);
  LogLine yz = must_parse("[ 2024-01-02 03:04:05.678901234 +0100   1:   2 E/T        ]",
                          LogLayout::long_header);
  CHECK(yz.time.ns == 1704164645678901234 - 3600LL * 1000000000);
  LogLine mo = must_parse("[    12.345   1:   2 I/T ]", LogLayout::long_header);
  CHECK(mo.time.base == TimeBase::monotonic);
  CHECK(mo.time.ns == 12345000000);

  LogLine a = must_parse("[05-18 00:42:29.500 10387:10388 I/Choreographer]", LogLayout::logcatapp,
                         year(2018));
  CHECK(a.pid == 10387);
  CHECK(a.tid == 10388);
  CHECK(a.tag == "Choreographer");
  CHECK(a.priority == 'I');
  CHECK(a.message.empty());
  CHECK(a.time.base == TimeBase::wall);

  CHECK_FALSE(parse_log_line("[ 01-02 03:04:05.678  1: 2 I/Tag", LogLayout::long_header));
  CHECK_FALSE(
      parse_log_line("[05-18 00:42:29.500 10387:10388 I/Choreographer]", LogLayout::long_header));
}

TEST_CASE("Android Studio (Dolphin+) layout", "[logcat]") {
  const std::string line =
      "2025-05-27 00:15:39.080 25680-25690 Choreographer           com.example.app                 "
      "    "
      "I  " +
      std::string(kSkipMsg);
  LogLine s = must_parse(line, LogLayout::studio);
  CHECK(s.time.ns == 1748304939080000000);
  CHECK(s.pid == 25680);
  CHECK(s.tid == 25690);
  CHECK(s.tag == "Choreographer");
  CHECK(s.package == "com.example.app");
  CHECK(s.priority == 'I');
  CHECK(s.message == kSkipMsg);

  LogLine el = must_parse(
      "2024-01-02 03:04:05.678  3211-3211  ViewRootIm...nActivity] com.example.app    D  report x",
      LogLayout::studio);
  CHECK(el.tag == "ViewRootIm...nActivity]");
  CHECK(el.pid == 3211);
  CHECK(el.message == "report x");

  LogLine sp = must_parse(
      "2024-01-02 03:04:05.678 28642-1812  Sync MediaStore         com.example.app     D  doWork: "
      "I  ok",
      LogLayout::studio);
  CHECK(sp.tag == "Sync MediaStore");
  CHECK(sp.tid == 1812);
  CHECK(sp.message == "doWork: I  ok");

  LogLine pk = must_parse(
      "2024-01-02 03:04:05.678  8122-8122  AndroidRuntime          pid-8122                 E  "
      "FATAL",
      LogLayout::studio);
  CHECK(pk.package == "pid-8122");
  CHECK(pk.priority == 'E');
  LogLine sys = must_parse(
      "2024-01-02 03:04:05.678  1000-1200  ActivityManager         system_process           W  x",
      LogLayout::studio);
  CHECK(sys.package == "system_process");

  LogLine em = must_parse("2024-01-02 03:04:05.678  1-2  Tag  com.x  V", LogLayout::studio);
  CHECK(em.message.empty());
  CHECK(em.priority == 'V');

  LogLine indent = must_parse("2024-01-02 03:04:05.678  1-2  Tag  com.x  E    at a.b(C.java:1)",
                              LogLayout::studio);
  CHECK(indent.message == "  at a.b(C.java:1)");
}

TEST_CASE("Android Studio 1.x-3.x layout, with ':' and U+FE55", "[logcat]") {
  LogLine q =
      must_parse(keep("01-29 11:32:58.193 1868-1868/? I/Choreographer: " + std::string(kSkipMsg)),
                 LogLayout::studio_legacy, year(2019));
  CHECK(q.pid == 1868);
  CHECK(q.tid == 1868);
  CHECK(q.package == "?");
  CHECK(q.tag == "Choreographer");
  CHECK(q.message == kSkipMsg);

  LogLine fe = must_parse(
      "07-31 09:42:39.250      857-860/com.example.app I/Choreographer\xEF\xB9\x95 Skipped 47 "
      "frames!  x",
      LogLayout::studio_legacy);
  CHECK(fe.pid == 857);
  CHECK(fe.tid == 860);
  CHECK(fe.package == "com.example.app");
  CHECK(fe.tag == "Choreographer");
  CHECK(fe.message == "Skipped 47 frames!  x");

  LogLine y = must_parse("2019-01-29 11:32:58.193 1-2/com.x:remote W/Some Tag: m",
                         LogLayout::studio_legacy);
  CHECK(y.package == "com.x:remote");
  CHECK(y.tag == "Some Tag");
}

TEST_CASE("raw layout is explicit only", "[logcat]") {
  auto r = parse_log_line("anything at all", LogLayout::raw);
  REQUIRE(r);
  CHECK(r->message == "anything at all");
  CHECK(r->pid == -1);
  CHECK_FALSE(detect_log_line("anything at all"));
  CHECK_FALSE(parse_log_line("01-02 03:04:05.678  1 2 I T: m", LogLayout::unknown));
}

TEST_CASE("impossible values are rejected", "[logcat]") {
  const char* bad[] = {
      "13-02 03:04:05.678  1234  5678 I T: m",        // month 13
      "00-02 03:04:05.678  1234  5678 I T: m",        // month 0
      "01-32 03:04:05.678  1234  5678 I T: m",        // day 32
      "04-31 03:04:05.678  1234  5678 I T: m",        // April 31
      "02-30 03:04:05.678  1234  5678 I T: m",        // Feb 30
      "2023-02-29 03:04:05.678  1234  5678 I T: m",   // not a leap year
      "01-02 24:04:05.678  1234  5678 I T: m",        // hour 24
      "01-02 03:60:05.678  1234  5678 I T: m",        // minute 60
      "01-02 03:04:60.678  1234  5678 I T: m",        // second 60
      "01-02 03:04:05  1234  5678 I T: m",            // no fraction
      "01-02 03:04:05.  1234  5678 I T: m",           // empty fraction
      "01-02 03:04:05.1234567890  1 2 I T: m",        // fraction > 9 digits
      "01-02 03:04:05.678 2147483648  5678 I T: m",   // pid > INT32_MAX
      "01-02 03:04:05.678  1234 99999999999 I T: m",  // tid too long
      "01-02 03:04:05.678  -1  5678 I T: m",          // negative pid
      "01-02 03:04:05.678  1234  5678 X T: m",        // unknown priority
      "01-02 03:04:05.678  1234  5678 I T m",         // no tag colon
      "01-02 03:04:05.678 +2500  1234  5678 I T: m",  // zone hour 25
      "01-02 03:04:05.678  1 2 3 4 I T: m",           // too many id columns
      "1-02 03:04:05.678  1 2 I T: m",                // one-digit month
      "99999999999999999999.123  1 2 I T: m",         // epoch overflow
      "9999999999999999.123  1 2 I T: m",             // ns overflow
      "3000-01-02 03:04:05.678  1 2 I T: m",          // year out of int64 ns range
  };
  for (const char* b : bad) {
    INFO(b);
    CHECK_FALSE(parse_log_line(b, LogLayout::threadtime, year(2024)));
    CHECK_FALSE(detect_log_line(b, year(2024)));
  }
  // Feb 29 without a printed year is accepted whatever the default year.
  CHECK(parse_log_line("02-29 03:04:05.678  1 2 I T: m", LogLayout::threadtime, year(2023)));
  // A default year out of range makes year-less times unusable.
  CHECK_FALSE(parse_log_line("01-02 03:04:05.678  1 2 I T: m", LogLayout::threadtime, year(-5)));
  CHECK(parse_log_line("01-02 03:04:05.678  2147483647 2 I T: m", LogLayout::threadtime));

  CHECK_FALSE(parse_log_line("I/Tag(2147483648): m", LogLayout::brief));
  CHECK_FALSE(parse_log_line("I/Tag(-5): m", LogLayout::brief));
  CHECK_FALSE(parse_log_line("I/Tag( 12)x m", LogLayout::brief));
  CHECK_FALSE(parse_log_line("I/Tag( 12):x", LogLayout::brief));
  CHECK_FALSE(parse_log_line("I(  1:  2:  3:  4) m", LogLayout::thread));
  CHECK_FALSE(parse_log_line("I(  1) m", LogLayout::thread));
  CHECK_FALSE(parse_log_line("I(  1) m (Tag)", LogLayout::process));
  CHECK_FALSE(parse_log_line("I(  1:  2:  3) m  (Tag)", LogLayout::process));
  CHECK_FALSE(parse_log_line("Q/Tag: m", LogLayout::tag));
}

TEST_CASE("non-header lines are not detected", "[logcat]") {
  const char* lines[] = {
      "",
      "\tat android.view.Choreographer.doFrame(Choreographer.java:1)",
      "                                                                  at a.b.C.d(E.java:1)",
      "* daemon not running. starting it now on port 5037 *",
      "Process: com.example.app, PID: 123",
      "java.lang.RuntimeException: boom",
      "--------- beginning of main",
      ("---------------------------- PROCESS STARTED (1) for package com.x "
       "----------------------------"),
      "[ +652 ms] I/Choreographer( 5046): Skipped 49 frames!",
      "12345",
      "   ",
      "[",
      "[ ",
      "I",
      "I/",
      "I(",
      "2024-01-02",
      "2024-01-02 03:04:05.678",
      "01-02 03:04:05.678",
  };
  for (const char* l : lines) {
    INFO(l);
    CHECK_FALSE(detect_log_line(l));
  }
}

TEST_CASE("detection picks the most specific layout", "[logcat]") {
  struct Case {
    const char* line;
    LogLayout layout;
  };
  const Case cases[] = {
      {"01-02 03:04:05.678  1  2 I T: m", LogLayout::threadtime},
      {"01-02 03:04:05.678 I/T(  1): m", LogLayout::time},
      {"01-02 03:04:05.678: I/T(  1): m", LogLayout::time},
      {"01-02 03:04:05.678 1-2/? I/T: m", LogLayout::studio_legacy},
      {"2024-01-02 03:04:05.678  1-2  T  com.x  I  m", LogLayout::studio},
      {"I/T(  1): m", LogLayout::brief},
      {"I/T: m", LogLayout::tag},
      {"I(  1:  2) m", LogLayout::thread},
      {"I(  1) m  (T)", LogLayout::process},
      {"[ 01-02 03:04:05.678  1:  2 I/T ]", LogLayout::long_header},
      {"[01-02 03:04:05.678 1:2 I/T]", LogLayout::logcatapp},
  };
  for (const Case& c : cases) {
    INFO(c.line);
    auto d = detect_log_line(c.line);
    REQUIRE(d);
    CHECK(layout_name(d->layout) == layout_name(c.layout));
  }
}

TEST_CASE("flutter tool prefix", "[logcat]") {
  CHECK(strip_tool_prefix("[ +652 ms] I/Choreographer( 5046): m") == "I/Choreographer( 5046): m");
  CHECK(strip_tool_prefix("[        ] D/flutter (  1): hi") == "D/flutter (  1): hi");
  CHECK(strip_tool_prefix("[+1687 ms] x") == "x");
  CHECK(strip_tool_prefix("[+123456 ms] x") == "x");
  CHECK(strip_tool_prefix("[   +1 ms] --------- beginning of main") ==
        "--------- beginning of main");
  CHECK(strip_tool_prefix("[        ]") == "");
  // Left alone: no prefix, or a logcat header that happens to start with '['.
  CHECK(strip_tool_prefix("I/T(1): m") == "I/T(1): m");
  CHECK(strip_tool_prefix("[ 01-02 03:04:05.678  1:  2 I/T ]") ==
        "[ 01-02 03:04:05.678  1:  2 I/T ]");
  CHECK(strip_tool_prefix("[01-02 03:04:05.678 1:2 I/T]") == "[01-02 03:04:05.678 1:2 I/T]");
  CHECK(strip_tool_prefix("[abc] x") == "[abc] x");
  CHECK(strip_tool_prefix("[ +5 s] x") == "[ +5 s] x");
  CHECK(strip_tool_prefix("[ +652 ms]x") == "[ +652 ms]x");
  CHECK(strip_tool_prefix("") == "");
  CHECK(strip_tool_prefix("[") == "[");

  auto l = detect_log_line(
      strip_tool_prefix(keep("[ +652 ms] I/Choreographer( 5046): " + std::string(kSkipMsg))));
  REQUIRE(l);
  CHECK(l->layout == LogLayout::brief);
  CHECK(l->pid == 5046);
  CHECK(l->message == kSkipMsg);
}

TEST_CASE("buffer separators", "[logcat]") {
  CHECK(buffer_separator("--------- beginning of main") == std::optional<std::string_view>("main"));
  CHECK(buffer_separator("--------- beginning of system") ==
        std::optional<std::string_view>("system"));
  CHECK(buffer_separator("--------- switch to crash") == std::optional<std::string_view>("crash"));
  CHECK(buffer_separator("--------- beginning of kernel  ") ==
        std::optional<std::string_view>("kernel"));
  CHECK_FALSE(buffer_separator("--------- beginning of"));
  CHECK_FALSE(buffer_separator("--------- beginning of "));
  CHECK_FALSE(buffer_separator("--------- beginning of two words"));
  CHECK_FALSE(
      buffer_separator("---------------------------- PROCESS STARTED (1) for package x ---"));
  CHECK_FALSE(buffer_separator("beginning of main"));
  CHECK_FALSE(buffer_separator("- beginning of main"));
  CHECK_FALSE(buffer_separator(""));
}

TEST_CASE("truncated and mangled lines never misbehave", "[logcat]") {
  const std::string lines[] = {
      "01-02 03:04:05.678  1234  5678 I Choreographer: " + std::string(kSkipMsg),
      "         1700000000.123456 10123  1234  5678 I Tag: m",
      "2024-01-02 03:04:05.678 +0100 I/Tag( 1000:  123): msg",
      "[ 01-02 03:04:05.678  1000:  123:  456 I/Some Tag ]",
      "2024-01-02 03:04:05.678  3211-3211  Tag  com.example.app  D  report",
      "07-31 09:42:39.250      857-860/com.x I/Choreographer\xEF\xB9\x95 Skipped",
      "I(  123) msg  (Tag)",
  };
  // Every prefix (what a cut line looks like) and every single-byte
  // corruption must return normally; views must stay inside the input.
  for (const std::string& full : lines) {
    for (size_t n = 0; n <= full.size(); ++n) {
      std::string_view v(full.data(), n);
      for (LogLayout l : {LogLayout::brief, LogLayout::process, LogLayout::tag, LogLayout::thread,
                          LogLayout::time, LogLayout::threadtime, LogLayout::long_header,
                          LogLayout::studio, LogLayout::studio_legacy, LogLayout::logcatapp}) {
        auto r = parse_log_line(v, l);
        if (r) {
          CHECK(r->tag.data() >= v.data());
          CHECK(r->tag.data() + r->tag.size() <= v.data() + v.size());
          CHECK(r->message.data() + r->message.size() <= v.data() + v.size());
        }
      }
      (void)detect_log_line(v);
    }
    for (size_t i = 0; i < full.size(); ++i) {
      for (char c : {'\0', ' ', ':', '(', ')', '-', '/', '9', '\xFF'}) {
        std::string m = full;
        m[i] = c;
        (void)detect_log_line(m);
      }
    }
  }
  SUCCEED();
}

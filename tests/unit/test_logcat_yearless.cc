// Android 6.0 has no `-v epoch`: its stream's stamps are local "MM-DD
// hh:mm:ss.uuuuuu" without a year. The position never depends on them; they
// only place events in time, so a year is taken from the host's clock.
#include <catch2/catch.hpp>

#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "parsers/logcat_cursor.h"
#include "parsers/logcat_line.h"
#include "tests/unit/fake_logd.h"

using namespace jank::parsers;

namespace {

constexpr std::int64_t kNs = 1'000'000'000;

// ns since the epoch of a UTC civil time, by the C library (independent of the parser's arithmetic).
std::int64_t utc_ns(int y, int mo, int d, int h, int mi, int s) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return static_cast<std::int64_t>(timegm(&tm)) * kNs;
}

std::int64_t stamp(std::string_view line, std::int64_t near_ns) {
  ParseOptions o;
  o.yearless_near_ns = near_ns;
  const auto parsed = parse_log_line(line, LogLayout::threadtime, o);
  REQUIRE(parsed);
  REQUIRE(parsed->time.base == TimeBase::wall);
  return parsed->time.ns;
}

// The FakeLogd's epoch line as Android 6.0 prints it: threadtime, usec, in
// the device's zone (`offset_s` east of UTC), no year.
std::string marshmallow_line(const jank::test::Entry& e, int offset_s) {
  const std::time_t local = static_cast<std::time_t>(e.wall_us / 1'000'000 + offset_s);
  std::tm tm{};
  gmtime_r(&local, &tm);
  char head[80];
  std::snprintf(head, sizeof head, "%02d-%02d %02d:%02d:%02d.%06" PRId64 "  %4d  %4d I ", tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, e.wall_us % 1'000'000, 100 + e.buffer, 100 + e.buffer);
  return std::string(head) + (e.buffer == 0 ? "Choreographer: " : "ActivityManager: ") + e.msg + "\n";
}

std::string marshmallow_stream(const jank::test::FakeLogd& logd, int offset_s) {
  std::string s = logd.preamble();
  std::string epoch = logd.dump();
  std::size_t at = 0;
  while (at < epoch.size()) {
    const std::size_t end = epoch.find('\n', at) + 1;
    const std::string line = epoch.substr(at, end - at);
    if (line.rfind("---------", 0) == 0) {
      s += line;
    } else {
      for (const auto& ring : logd.ring) {
        for (const auto& e : ring) {
          if (jank::test::FakeLogd::line(e) == line) s += marshmallow_line(e, offset_s);
        }
      }
    }
    at = end;
  }
  return s;
}

}  // namespace

TEST_CASE("a stamp without a year takes the year nearest the host's time", "[logcat_line][releases]") {
  // Read in the same year.
  CHECK(stamp("06-15 12:00:00.000000  100  100 I Tag: x", utc_ns(2026, 6, 15, 12, 0, 5)) ==
        utc_ns(2026, 6, 15, 12, 0, 0));
  // A backlog from New Year's Eve read on New Year's Day is last year's.
  CHECK(stamp("12-31 23:59:58.500000  100  100 I Tag: x", utc_ns(2027, 1, 1, 0, 0, 10)) ==
        utc_ns(2026, 12, 31, 23, 59, 58) + kNs / 2);
  // A device some hours ahead of UTC already logs in the new year.
  CHECK(stamp("01-01 03:00:00.000000  100  100 I Tag: x", utc_ns(2026, 12, 31, 22, 0, 0)) ==
        utc_ns(2027, 1, 1, 3, 0, 0));
  // Feb 29 goes to the leap year around.
  CHECK(stamp("02-29 10:00:00.000000  100  100 I Tag: x", utc_ns(2028, 3, 1, 0, 0, 0)) ==
        utc_ns(2028, 2, 29, 10, 0, 0));
  // Without a reference the caller's default year stands, and a printed year is kept.
  CHECK(parse_log_line("06-15 12:00:00.000  100  100 I Tag: x", LogLayout::threadtime)->time.ns ==
        utc_ns(1970, 6, 15, 12, 0, 0));
  ParseOptions o;
  o.yearless_near_ns = utc_ns(2026, 6, 15, 0, 0, 0);
  CHECK(parse_log_line("2019-06-15 12:00:00.000  100  100 I Tag: x", LogLayout::threadtime, o)->time.ns ==
        utc_ns(2019, 6, 15, 12, 0, 0));
}

TEST_CASE("an Android 6.0 stream resumes exactly and stamps its entries near the host's time",
          "[cursor][releases]") {
  jank::test::FakeLogd logd;
  const int offset_s = 9 * 3600;  // the phone is in UTC+9
  const std::int64_t host_ns = logd.clock_us * 1000 + 3 * kNs;
  auto follow = [&](const jank::parsers::LogCursor& saved, std::vector<std::string>& got,
                    std::vector<std::int64_t>& stamps) {
    LogcatFollower f(saved, jank::test::kLogdBuffers, jank::test::kLogdPreambleEnd, 4096,
                     [&](const LogcatFollower::Line& l) {
                       if (!l.new_entry) return;
                       const auto from = l.text.find(": ") + 2;
                       got.emplace_back(l.text.substr(from, l.text.size() - from - 1));
                       stamps.push_back(l.device_ns.value_or(0));
                     });
    f.set_yearless_reference(host_ns);
    const std::string s = marshmallow_stream(logd, offset_s);
    for (std::size_t i = 0; i < s.size(); i += 11) f.feed(std::string_view(s).substr(i, 11));
    REQUIRE(f.state() == LogcatFollower::State::following);
    CHECK(f.lost_total() == 0);
    CHECK(f.unconfirmed() == 0);
    return f.cursor();
  };
  logd.log(0, "old1");
  logd.log(1, "old2");
  std::vector<std::string> got;
  std::vector<std::int64_t> stamps;
  const auto first = follow({}, got, stamps);
  CHECK(got.empty());  // first sight: history
  logd.log(0, "a1");
  logd.log(1, "a2");
  logd.log(0, "a3");
  const auto second = follow(first, got, stamps);
  CHECK(got == std::vector<std::string>{"a1", "a2", "a3"});
  // Local time read as UTC: the zone offset off the true instant, this year.
  REQUIRE(stamps.size() == 3);
  for (const std::int64_t ns : stamps) {
    CHECK(ns - (logd.clock_us * 1000) > offset_s * kNs - 10 * kNs);
    CHECK(ns - (logd.clock_us * 1000) < offset_s * kNs + kNs);
  }
  got.clear();
  logd.log(1, "a4");
  follow(second, got, stamps);
  CHECK(got == std::vector<std::string>{"a4"});
}

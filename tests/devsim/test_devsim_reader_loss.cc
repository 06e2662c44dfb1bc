// What a resuming logcat reader loses (LogBuffers::open_reader), logd's
// `logcat -S` head and `-D` dividers, on a ManualClock (no sleeping).
#include <catch2/catch.hpp>

#include <cstdio>

#include "devsim/model.h"
#include "devsim/shell.h"
#include "parsers/logd_statistics.h"

using namespace jank::devsim;

namespace {

DeviceConfig small_quiet() {
  DeviceConfig c;
  c.noise_lines_per_sec = 0;
  c.log_buffer_bytes = 64 * 1024;
  AppConfig a;
  a.package = "com.example.feed";
  a.stall_prob = 0;
  c.apps.push_back(a);
  return c;
}

std::string epoch_arg(std::int64_t ns) {
  char b[40];
  std::snprintf(b, sizeof b, "%lld.%03lld", static_cast<long long>(ns / 1'000'000'000),
                static_cast<long long>(ns / 1'000'000 % 1000));
  return b;
}

std::string follow_from(Device& dev, std::int64_t after_ns, LogcatFollow& f) {
  ShellResult r = run_shell(dev, "logcat -v threadtime -D -b main,system -T " + epoch_arg(after_ns));
  REQUIRE(r.follow);
  f = *r.follow;
  bool done = false;
  return pump_logcat(dev, f, SIZE_MAX, &done);
}

std::int64_t newest_wall(const Device& dev) {
  auto all = dev.logs().read(kDefaultLogMask, 0, SIZE_MAX);
  return all.empty() ? 0 : all.back()->wall_ns;
}

}  // namespace

TEST_CASE("lines dropped before the reader that asked for them got them are lost to it, once") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  clock.advance_ms(10);
  const std::int64_t start = newest_wall(dev);
  LogcatFollow f;
  follow_from(dev, start, f);
  for (int i = 0; i < 100; ++i) dev.log(LogId::main, 'I', 7, 7, 1000, "Read", "delivered line");
  bool done = false;
  pump_logcat(dev, f, SIZE_MAX, &done);
  CHECK(dev.reader_lost_lines() == 0);
  const std::int64_t read_up_to = newest_wall(dev);

  // The reader goes away; the ring wraps over lines it never got.
  dev.force_skip("com.example.feed", 40);
  clock.advance_ms(2000);
  dev.advance();
  const auto& truth = dev.app("com.example.feed")->truth;
  REQUIRE(truth.skip_lines == 1);
  dev.flood(3000);
  CHECK(truth.skip_lines_lost == 1);
  CHECK(truth.reader_lost_skip_lines == 1);
  CHECK(truth.reader_lost_skipped_frames == 40);
  const std::uint64_t lost = dev.reader_lost_lines();
  CHECK(lost > 100);  // the skip line and flood lines, not the 100 delivered ones

  // logd's statistics tell a reader how many lines left each buffer.
  const auto stats = jank::parsers::parse_logd_statistics(run_shell(dev, "logcat -S -b main,system").out);
  REQUIRE(stats.count("main"));
  REQUIRE(stats.count("system"));
  const auto& main = stats.at("main");
  CHECK(main.total - main.now == dev.logs().stats(LogId::main).pruned);

  // Resuming where the reader stopped adds nothing: those are counted.
  const std::string again = follow_from(dev, read_up_to / 1'000'000 * 1'000'000, f);
  CHECK(dev.reader_lost_lines() == lost);
  CHECK(again.find("--------- beginning of main") != std::string::npos);

  // A restart from an older position loses the delivered lines that are gone too.
  LogcatFollow older;
  follow_from(dev, start - 1'000'000'000, older);
  CHECK(dev.reader_lost_lines() == lost + 100 + 1);  // and the app's start line before `start`
}

TEST_CASE("the millisecond a reader resumes in is its de-duplication window, not asked again") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  clock.advance_ms(10);
  LogcatFollow f;
  follow_from(dev, newest_wall(dev), f);
  clock.advance_ms(5);
  dev.log(LogId::main, 'I', 7, 7, 1000, "A", "first");
  dev.log(LogId::main, 'I', 7, 8, 1000, "B", "second, same microsecond");
  bool done = false;
  pump_logcat(dev, f, SIZE_MAX, &done);
  const std::int64_t t = newest_wall(dev);
  dev.flood(3000);  // both delivered lines leave the ring
  LogcatFollow again;
  follow_from(dev, t / 1'000'000 * 1'000'000, again);  // -T with milliseconds, as the exporter resumes
  const auto flood_lost = dev.reader_lost_lines();
  // The flood's dropped lines only: the two delivered lines are in the window.
  CHECK(flood_lost == 3000 - dev.logs().entry_count(kDefaultLogMask));
}

TEST_CASE("logcat -D prints a divider at every buffer switch") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  run_shell(dev, "logcat -c -b all");
  dev.log(LogId::main, 'I', 7, 7, 1000, "M", "one");
  dev.log(LogId::system, 'I', 7, 7, 1000, "S", "two");
  dev.log(LogId::main, 'I', 7, 7, 1000, "M", "three");
  const std::string with = run_shell(dev, "logcat -d -D -v brief -b main,system").out;
  CHECK(with ==
        "--------- beginning of main\nI/M       (    7): one\n--------- beginning of system\n"
        "I/S       (    7): two\n--------- switch to main\nI/M       (    7): three\n");
  const std::string without = run_shell(dev, "logcat -d -v brief -b main,system").out;
  CHECK(without.find("switch to") == std::string::npos);
}

TEST_CASE("simultaneous entries of one thread and tag get distinct microseconds") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  run_shell(dev, "logcat -c -b all");
  dev.log(LogId::main, 'I', 7, 7, 1000, "T", "one");
  dev.log(LogId::main, 'I', 7, 7, 1000, "T", "two");
  auto all = dev.logs().read(kDefaultLogMask, 0, 10);
  REQUIRE(all.size() == 2);
  CHECK(all[1]->wall_ns / 1000 == all[0]->wall_ns / 1000 + 1);
}

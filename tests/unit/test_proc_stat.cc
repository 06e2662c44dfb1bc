// The kernel's /proc and sysfs files: the project's own fixtures in the
// layouts proc(5) documents (an 8-core phone with cores offline, an older
// kernel's shorter cpu lines, thread names with spaces and parentheses,
// smaps_rollup before and after Pss_Anon), values no kernel prints, CRLF
// line ends, and arbitrary bytes.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>

#include "parsers/proc_stat.h"
#include "tests/support/crlf.h"

using namespace jank::parsers;

namespace {

// Cores 4 and 5 offline (hotplugged by a thermal governor): absent.
constexpr std::string_view kEightCores =
    "cpu  2255 34 2290 22625563 6290 127 456 0 0 0\n"
    "cpu0 1132 34 1441 11311718 3675 127 438 0 0 0\n"
    "cpu1 1123 0 849 11313845 2614 0 18 0 0 0\n"
    "cpu2 0 0 0 0 1 0 0 0 0 0\n"
    "cpu3 0 0 0 0 0 0 0 0 0 0\n"
    "cpu6 0 0 0 0 0 0 0 0 0 0\n"
    "cpu7 0 0 0 0 0 0 0 0 0 0\n"
    "intr 114930548 113199788 3 0 5 263 0 4 [... 192 more]\n"
    "ctxt 1990473\n"
    "btime 1764061000\n"
    "processes 2915\n"
    "procs_running 1\n"
    "procs_blocked 0\n"
    "softirq 9338421 0 1993231 1 1043578 0 0 1207416 0 0 5094195\n";

}  // namespace

TEST_CASE("proc stat: every cpu line's ticks and the online cores only") {
  const ProcStat s = parse_proc_stat(kEightCores);
  REQUIRE(s.all.has_value());
  CHECK_FALSE(s.all->core.has_value());
  CHECK(s.all->user == 2255);
  CHECK(s.all->nice == 34);
  CHECK(s.all->system == 2290);
  CHECK(s.all->idle == 22625563);
  CHECK(s.all->iowait == 6290);
  CHECK(s.all->irq == 127);
  CHECK(s.all->softirq == 456);
  CHECK(s.all->busy() == 2255 + 34 + 2290 + 127 + 456);
  CHECK(s.all->total() == s.all->busy() + 22625563 + 6290);
  REQUIRE(s.cores.size() == 6);
  CHECK(*s.cores[0].core == 0);
  CHECK(s.cores[0].system == 1441);
  CHECK(*s.cores[4].core == 6);  // 4 and 5 are offline
  CHECK(*s.cores[5].core == 7);
  CHECK(s.context_switches == 1990473u);
  CHECK(s.boot_time_s == 1764061000u);
  CHECK(s.lines == 14);
  CHECK(s.malformed_lines == 0);

  const ProcStat crlf = parse_proc_stat(jank::test::crlf(kEightCores));
  CHECK(crlf.cores.size() == 6);
  CHECK(crlf.all->idle == 22625563);
  CHECK(crlf.malformed_lines == 0);
}

TEST_CASE("proc stat: an older kernel's four to seven values and a newer kernel's extra ones") {
  const ProcStat s = parse_proc_stat(
      "cpu  10 20 30 40\n"
      "cpu0 10 20 30 40 50 60 70\n"
      "cpu1 1 2 3 4 5 6 7 8 9 10 11 12\n");
  REQUIRE(s.all.has_value());
  CHECK(s.all->idle == 40);
  CHECK(s.all->iowait == 0);
  REQUIRE(s.cores.size() == 2);
  CHECK(s.cores[0].softirq == 70);
  CHECK(s.cores[0].steal == 0);
  CHECK(s.cores[1].steal == 8);  // guest, guest_nice and the rest are not kept
  CHECK(s.malformed_lines == 0);
}

TEST_CASE("proc stat: values no kernel prints make the line malformed and set nothing") {
  const ProcStat s = parse_proc_stat(
      "cpu  1 2 3\n"                                 // too few values
      "cpu0 1 2 3 -4 5 6 7 0 0 0\n"                  // negative
      "cpu1 1 2 3 4 x 6 7 0 0 0\n"                   // not a number
      "cpu2 1 2 3 18446744073709551616 5 6 7 0\n"    // 2^64
      "cpu3 1 2 3 18446744073709551615 5 6 7 0\n"    // would overflow the sums
      "cpux 1 2 3 4 5 6 7 0 0 0\n"                   // no core number
      "cpu99999 1 2 3 4 5 6 7 0 0 0\n"               // no such core
      "ctxt -1\n"
      "btime 12 13\n"
      "cpu5 1 2 3 4 5 6 7 0 0 0\n");
  CHECK_FALSE(s.all.has_value());
  REQUIRE(s.cores.size() == 1);
  CHECK(*s.cores[0].core == 5);
  CHECK_FALSE(s.context_switches.has_value());
  CHECK_FALSE(s.boot_time_s.has_value());
  CHECK(s.lines == 10);
  CHECK(s.malformed_lines == 9);
}

TEST_CASE("task stat: the fields of a process and of its threads whatever their names hold") {
  // An app's main process: comm is the package's last 15 bytes.
  const auto app = parse_task_stat(
      "12345 (example.feed) S 612 612 0 0 -1 1077952832 48923 0 312 0 1520 480 0 0 10 -10 43 0 "
      "2071520 15822811136 51234 18446744073709551615 1 1 0 0 0 0 4612 1 1073775864 0 0 0 17 5 0 0 0 0 0\n");
  REQUIRE(app.has_value());
  CHECK(app->id == 12345);
  CHECK(app->name == "example.feed");
  CHECK(app->state == 'S');
  CHECK(app->user_ticks == 1520);
  CHECK(app->system_ticks == 480);
  CHECK(app->threads == 43);
  CHECK(app->start_ticks == 2071520);
  CHECK(app->rss_pages == 51234);

  // Thread names with spaces and parentheses: the name runs to the last ") ".
  const auto binder = parse_task_stat("12400 (Binder:12345_2) S 612 612 0 0 -1 1077952576 12 0 0 0 7 9 0 0 20 0 "
                                      "43 0 2071600 15822811136 51234 18446744073709551615");
  REQUIRE(binder.has_value());
  CHECK(binder->name == "Binder:12345_2");
  CHECK(binder->user_ticks == 7);
  const auto odd = parse_task_stat("777 (a) b (c) R 1 1 0 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 99 0 12 0\r\n");
  REQUIRE(odd.has_value());
  CHECK(odd->name == "a) b (c");
  CHECK(odd->state == 'R');
  CHECK(odd->user_ticks == 3);
  CHECK(odd->start_ticks == 99);
  CHECK(odd->rss_pages == 12);
}

TEST_CASE("task stat: a line that is not one the kernel prints gives nothing") {
  const std::string tail = " S 1 1 0 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 99 0 12";
  CHECK(parse_task_stat("42 (ok)" + tail).has_value());
  CHECK_FALSE(parse_task_stat("").has_value());
  CHECK_FALSE(parse_task_stat("42 ok" + tail).has_value());                // no parentheses
  CHECK_FALSE(parse_task_stat("0 (zero)" + tail).has_value());             // no pid 0
  CHECK_FALSE(parse_task_stat("-3 (neg)" + tail).has_value());
  CHECK_FALSE(parse_task_stat("99999999 (big)" + tail).has_value());       // beyond PID_MAX_LIMIT
  CHECK_FALSE(parse_task_stat("42 (short) S 1 1 0 0 -1 0 0 0 0 0 3 4").has_value());  // no starttime, no rss
  CHECK_FALSE(parse_task_stat("42 (neg) S 1 1 0 0 -1 0 0 0 0 0 -3 4 0 0 20 0 1 0 99 0 12").has_value());
  CHECK_FALSE(parse_task_stat("42 (nan) S 1 1 0 0 -1 0 0 0 0 0 x 4 0 0 20 0 1 0 99 0 12").has_value());
  CHECK_FALSE(parse_task_stat("42 (state) SS 1 1 0 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 99 0 12").has_value());
  CHECK_FALSE(
      parse_task_stat("42 (wrap) S 1 1 0 0 -1 0 0 0 0 0 18446744073709551616 4 0 0 20 0 1 0 99 0 12").has_value());
  CHECK_FALSE(parse_task_stat("42 (" + std::string(100, 'n') + ")" + tail).has_value());  // no comm is that long
}

TEST_CASE("smaps rollup: sizes in bytes before and after the Pss breakdown") {
  constexpr std::string_view k510 =
      "12c00000-7fffd4b4f000 ---p 00000000 00:00 0                          [rollup]\n"
      "Rss:              183852 kB\n"
      "Pss:               71244 kB\n"
      "Pss_Anon:          40120 kB\n"
      "Pss_File:          29100 kB\n"
      "Pss_Shmem:          2024 kB\n"
      "Shared_Clean:     110204 kB\n"
      "Private_Dirty:     40008 kB\n"
      "Swap:               9216 kB\n"
      "SwapPss:            8800 kB\n"
      "Locked:                0 kB\n";
  const MemoryRollup m = parse_smaps_rollup(k510);
  CHECK(m.recognised);
  CHECK(m.rss_bytes == 183852u * 1024);
  CHECK(m.pss_bytes == 71244u * 1024);
  CHECK(m.pss_anon_bytes == 40120u * 1024);
  CHECK(m.pss_file_bytes == 29100u * 1024);
  CHECK(m.pss_shmem_bytes == 2024u * 1024);
  CHECK(m.swap_bytes == 9216u * 1024);
  CHECK(m.swap_pss_bytes == 8800u * 1024);
  CHECK(m.lines == 11);
  CHECK(m.malformed_lines == 0);
  CHECK(parse_smaps_rollup(jank::test::crlf(k510)).pss_bytes == 71244u * 1024);

  // Linux 4.14: no breakdown.
  const MemoryRollup old = parse_smaps_rollup(
      "00400000-ffffffffff601000 ---p 00000000 00:00 0                  [rollup]\nRss: 2048 kB\nPss: 1024 kB\n");
  CHECK(old.pss_bytes == 1024u * 1024);
  CHECK_FALSE(old.pss_anon_bytes.has_value());
}

TEST_CASE("smaps rollup: no header reads nothing and bad sizes are counted") {
  const MemoryRollup none = parse_smaps_rollup("Rss: 2048 kB\nPss: 1024 kB\n");
  CHECK_FALSE(none.recognised);
  CHECK_FALSE(none.rss_bytes.has_value());
  CHECK(none.malformed_lines == 0);
  const MemoryRollup bad = parse_smaps_rollup(
      "0-1 ---p 00000000 00:00 0 [rollup]\n"
      "Rss: -5 kB\n"
      "Pss: 1024 MB\n"
      "Pss_Anon: 18014398509481984 kB\n"  // 2^54 kB: past 2^64 bytes
      "Swap: 12\n"
      "SwapPss: 7 kB\n");
  CHECK(bad.recognised);
  CHECK_FALSE(bad.rss_bytes.has_value());
  CHECK_FALSE(bad.pss_bytes.has_value());
  CHECK_FALSE(bad.pss_anon_bytes.has_value());
  CHECK_FALSE(bad.swap_bytes.has_value());
  CHECK(bad.swap_pss_bytes == 7u * 1024);
  CHECK(bad.malformed_lines == 4);
}

TEST_CASE("sysfs number: one unsigned value and its line end") {
  CHECK(parse_sysfs_number("1804800\n") == 1804800u);
  CHECK(parse_sysfs_number("1804800\r\n") == 1804800u);
  CHECK(parse_sysfs_number("0") == 0u);
  CHECK_FALSE(parse_sysfs_number("").has_value());
  CHECK_FALSE(parse_sysfs_number("\n").has_value());
  CHECK_FALSE(parse_sysfs_number("-1\n").has_value());
  CHECK_FALSE(parse_sysfs_number("1804800 2016000\n").has_value());
  CHECK_FALSE(parse_sysfs_number("cat: scaling_cur_freq: Permission denied\n").has_value());
  CHECK_FALSE(parse_sysfs_number("18446744073709551616\n").has_value());
}

TEST_CASE("proc files: arbitrary bytes never count more malformed lines than lines") {
  std::mt19937 rng(31);
  std::uniform_int_distribution<int> byte(0, 255), len(0, 400);
  const std::string alphabet = "cpu0123456789 ()\n\r-kB:[rollup]RssPs_xSctx";
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    const int n = len(rng);
    for (int k = 0; k < n; ++k) text += i % 2 ? static_cast<char>(byte(rng)) : alphabet[pick(rng)];
    const ProcStat s = parse_proc_stat(text);
    CHECK(s.malformed_lines <= s.lines);
    for (const auto& c : s.cores) CHECK(c.core.has_value());
    const MemoryRollup m = parse_smaps_rollup(text);
    CHECK(m.malformed_lines <= m.lines);
    if (const auto t = parse_task_stat(text)) {
      CHECK(t->id > 0);
      CHECK(t->name.size() <= 64);
    }
    parse_sysfs_number(text);
  }
}

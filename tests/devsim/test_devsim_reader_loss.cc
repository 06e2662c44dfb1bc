// What an exact logcat reader can count (docs/devsim.md, "The reader"), and
// the device behaviours it must survive: wrap, `logcat -c`, logd restarts,
// reboots, rollbacks, clock steps and glitches, logd's `-T TIME`, `logcat -S`.
// On a ManualClock: no sleeping, no sockets.
#include <catch2/catch.hpp>

#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "devsim/model.h"
#include "devsim/shell.h"
#include "parsers/logd_statistics.h"

using namespace jank::devsim;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;

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

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

// The exporter's stream: the whole ring, then what follows. read() writes out
// what is new and, unless told otherwise, the host takes all of it.
struct Reader {
  Device& dev;
  LogcatFollow f;
  explicit Reader(Device& d, const std::string& args = "-b main,system -D") : dev(d) {
    ShellResult r = run_shell(d, "logcat -v threadtime -v epoch -v usec " + args);
    REQUIRE(r.follow);
    f = *r.follow;
  }
  std::string read(bool taken = true) {
    bool done = false;
    std::vector<WrittenEntry> written;
    const std::uint64_t gen = dev.logd_generation();
    std::string out = pump_logcat(dev, f, SIZE_MAX, &done, &written);
    if (taken) {
      for (const auto& w : written) dev.note_read(gen, w.id, w.index);
    }
    return out;
  }
};

jank::parsers::LogdBufferLines stats_of(Device& dev, const std::string& buffer) {
  const auto st = jank::parsers::parse_logd_statistics(run_shell(dev, "logcat -S -b main,system").out);
  REQUIRE(st.count(buffer));
  return st.at(buffer);
}

// What an exact reader computes from `logcat -S` and where it stopped.
std::uint64_t unread_gone(Device& dev, LogId id) {
  const auto s = stats_of(dev, std::string(log_id_name(id)));
  const std::uint64_t gone = s.total - s.now;
  return gone > dev.read_upto(id) ? gone - dev.read_upto(id) : 0;
}

void log_line(Device& dev, LogId id, const std::string& msg) { dev.log(id, 'I', 7, 7, 1000, "Test", msg); }

std::string epoch_arg(std::int64_t ns) {
  char b[40];
  std::snprintf(b, sizeof b, "%lld.%09lld", static_cast<long long>(ns / kSec), static_cast<long long>(ns % kSec));
  return b;
}

}  // namespace

TEST_CASE("the ring wrapping while the reader is away loses exactly the unread lines") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  Reader r(dev);
  for (int i = 0; i < 100; ++i) log_line(dev, LogId::main, "read line");
  r.read();
  const std::uint64_t upto = dev.read_upto(LogId::main);
  CHECK(upto == dev.logs().stats(LogId::main).written);
  CHECK(dev.reader_lost_lines() == 0);

  // The reader goes away; a skip line and a flood follow, and the ring wraps.
  dev.force_skip("com.example.feed", 40);
  clock.advance_ms(2000);
  dev.advance();
  const auto& t = dev.app("com.example.feed")->truth;
  REQUIRE(t.skip_lines == 1);
  dev.flood(3000);
  CHECK(t.skip_lines_lost == 1);
  // Not known to the reader until it asks logd for its statistics.
  CHECK(t.reader_lost_skip_lines == 0);
  CHECK(dev.reader_pending_lines() > 1000);
  run_shell(dev, "logcat -S -b main,system");
  CHECK(dev.reader_pending_lines() == 0);
  CHECK(t.reader_lost_skip_lines == 1);
  CHECK(t.reader_lost_skipped_frames == 40);
  // Exactly what `logcat -S` and the reader's position say left unread.
  const std::uint64_t lost = unread_gone(dev, LogId::main) + unread_gone(dev, LogId::system);
  CHECK(lost > 1000);
  CHECK(dev.reader_lost_lines() == lost);
  const auto& st = dev.logs().stats(LogId::main);
  CHECK(stats_of(dev, "main").total - stats_of(dev, "main").now == st.pruned);
  CHECK(dev.reader_unknown_lines() == 0);

  // A new stream reads the ring again: nothing more is lost.
  Reader again(dev);
  again.read();
  dev.flood(50);
  again.read();
  CHECK(dev.reader_lost_lines() == lost);
}

TEST_CASE("a line written out but never taken by the host is not read") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  Reader r(dev);
  log_line(dev, LogId::main, "taken");
  r.read();
  const std::uint64_t upto = dev.read_upto(LogId::main);
  log_line(dev, LogId::main, "printed, never acknowledged");
  CHECK(r.read(false).find("never acknowledged") != std::string::npos);
  CHECK(dev.read_upto(LogId::main) == upto);
  dev.flood(3000);
  CHECK(dev.reader_lost_lines() == unread_gone(dev, LogId::main) + unread_gone(dev, LogId::system));
  CHECK(dev.reader_lost_lines() >= 1);
}

TEST_CASE("logcat -c loses only the lines not read yet, and keeps Total") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  Reader r(dev);
  for (int i = 0; i < 10; ++i) log_line(dev, LogId::main, "read");
  r.read();
  const auto before = stats_of(dev, "main");
  REQUIRE(run_shell(dev, "logcat -c -b main,system").exit == 0);
  CHECK(dev.reader_lost_lines() == 0);
  const auto after = stats_of(dev, "main");
  CHECK(after.total == before.total);
  CHECK(after.now == 0);

  for (int i = 0; i < 7; ++i) log_line(dev, LogId::main, "unread");
  log_line(dev, LogId::system, "unread too");
  REQUIRE(run_shell(dev, "logcat -c -b main,system").exit == 0);
  CHECK(dev.reader_pending_lines() == 8);
  run_shell(dev, "logcat -S -b main,system");
  CHECK(dev.reader_lost_lines() == 8);
  CHECK(stats_of(dev, "main").total == before.total + 7);
  CHECK(unread_gone(dev, LogId::main) == 7);
}

TEST_CASE("a logd restart ends following logcats, empties logd and makes unread lines unknown, not lost") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  const std::string pid0 = run_shell(dev, "pidof logd").out;
  Reader r(dev);
  log_line(dev, LogId::main, "read");
  r.read();
  dev.force_skip("com.example.feed", 50);
  clock.advance_ms(2000);
  dev.advance();
  log_line(dev, LogId::system, "unread");
  const auto gen = dev.logd_generation();

  dev.logd_restart();
  CHECK(dev.logd_generation() != gen);
  CHECK(dev.reader_lost_lines() == 0);
  CHECK(dev.reader_unknown_lines() == 3);  // the skip line, its Davey line (833 ms) and "unread"
  const auto& t = dev.app("com.example.feed")->truth;
  CHECK(t.reader_unknown_skip_lines == 1);
  CHECK(t.reader_unknown_skipped_frames == 50);
  CHECK(t.reader_unknown_davey == 1);
  CHECK(dev.read_upto(LogId::main) == 0);
  CHECK(dev.logd_restarts() == 1);
  const std::string pid1 = run_shell(dev, "pidof logd").out;
  CHECK(pid1 != pid0);
  CHECK(run_shell(dev, "ps -A").out.find(" " + pid1.substr(0, pid1.size() - 1) + " ") != std::string::npos);

  // The old stream reads EOF: logcat's error and exit status.
  bool done = false;
  CHECK(pump_logcat(dev, r.f, SIZE_MAX, &done).empty());
  CHECK(done);
  CHECK(r.f.exit == 1);
  CHECK(r.f.err == "logcat: Unexpected EOF!\n");

  // Statistics from zero; every line of the new logd is for the reader.
  auto s = stats_of(dev, "main");
  CHECK(s.total == 0);
  CHECK(s.now == 0);
  log_line(dev, LogId::main, "new logd");
  Reader next(dev);
  CHECK(next.read().find("new logd") != std::string::npos);
  CHECK(dev.read_upto(LogId::main) == 1);
  CHECK(stats_of(dev, "main").total == 1);
}

TEST_CASE("a reboot: new boot id, logd from zero, apps and properties as at boot, the clock as told") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  const std::string boot0 = run_shell(dev, "cat /proc/sys/kernel/random/boot_id").out;
  // 8-4-4-4-12 lower-case hex digits and a newline (no std::regex: GCC 12
  // warns inside it under ASan).
  auto is_boot_id = [](const std::string& s) {
    if (s.size() != 37 || s.back() != '\n') return false;
    for (std::size_t i = 0; i < 36; ++i) {
      const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
      const char c = s[i];
      if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
  };
  CHECK(is_boot_id(boot0));
  REQUIRE(run_shell(dev, "setprop debug.choreographer.skipwarning 1; setprop persist.jank.keep yes").exit == 0);
  REQUIRE(dev.restart_app("com.example.feed"));
  CHECK(dev.app("com.example.feed")->threshold == 1);
  const auto pid0 = dev.app("com.example.feed")->pid;
  const auto logd0 = dev.logd_pid();
  Reader r(dev);
  r.read();
  log_line(dev, LogId::main, "unread before the reboot");

  dev.reboot(-86400 * kSec);
  CHECK(dev.reboots() == 1);
  CHECK(dev.reader_unknown_lines() == 1);
  CHECK(dev.reader_lost_lines() == 0);
  const std::string boot1 = run_shell(dev, "cat /proc/sys/kernel/random/boot_id").out;
  CHECK(boot1 != boot0);
  CHECK(boot1.size() == boot0.size());
  CHECK(dev.logd_pid() != logd0);
  CHECK(dev.now_mono() == 3 * kSec);
  CHECK(dev.clock_offset_ns() == -86400 * kSec);
  CHECK(run_shell(dev, "date +%s").out == std::to_string((clock.wall_ns() - 86400 * kSec) / kSec) + "\n");
  CHECK(run_shell(dev, "getprop debug.choreographer.skipwarning").out == "\n");
  CHECK(run_shell(dev, "getprop persist.jank.keep").out == "yes\n");
  const AppState& a = *dev.app("com.example.feed");
  CHECK(a.pid != pid0);
  CHECK(a.threshold == 30);
  CHECK(a.truth.starts == 3);

  // The ring holds only the new boot's lines, stamped on the new clock.
  const std::string ring = run_shell(dev, "logcat -d -v epoch -b main,system").out;
  CHECK(ring.find("unread before the reboot") == std::string::npos);
  CHECK(ring.find("Start proc " + std::to_string(a.pid) + ":com.example.feed") != std::string::npos);
  const auto s = stats_of(dev, "system");
  CHECK(s.total == 1);
  CHECK(s.now == 1);
  auto all = dev.logs().read(kDefaultLogMask, 0, 10);
  REQUIRE(all.size() == 1);
  CHECK(all[0]->wall_ns == clock.wall_ns() - 86400 * kSec);
  CHECK(all[0]->mono_ns == 3 * kSec);

  // Time goes on for the new boot.
  clock.advance_ms(1500);
  dev.advance();
  CHECK(dev.now_mono() == 3 * kSec + 1500 * 1'000'000);
}

TEST_CASE("a rollback to a checkpoint loses what was read after it and left the ring, never moves forward") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  Reader r(dev);
  for (int i = 0; i < 10; ++i) log_line(dev, LogId::main, "before the checkpoint");
  r.read();
  const std::uint64_t checkpoint = dev.read_upto(LogId::main);
  for (int i = 0; i < 20; ++i) log_line(dev, LogId::main, "read after the checkpoint");
  r.read();
  const std::uint64_t upto = dev.read_upto(LogId::main);
  CHECK(upto == checkpoint + 20);
  dev.flood(3000);  // the reader is gone; everything above leaves the ring
  run_shell(dev, "logcat -S -b main,system");
  const std::uint64_t lost = dev.reader_lost_lines();
  CHECK(lost == unread_gone(dev, LogId::main) + unread_gone(dev, LogId::system));

  CHECK(dev.reader_rollback(LogId::main, upto + 100));  // forward: ignored
  CHECK(dev.read_upto(LogId::main) == upto);
  CHECK(dev.reader_lost_lines() == lost);
  CHECK(dev.reader_rollback(LogId::main, checkpoint));
  CHECK(dev.read_upto(LogId::main) == checkpoint);
  run_shell(dev, "logcat -S -b main,system");
  CHECK(dev.reader_lost_lines() == lost + 20);
  CHECK(dev.reader_lost_lines() == unread_gone(dev, LogId::main) + unread_gone(dev, LogId::system));
  CHECK(dev.reader_rollback(LogId::main, checkpoint));  // counted once
  run_shell(dev, "logcat -S -b main,system");
  CHECK(dev.reader_lost_lines() == lost + 20);
  CHECK_FALSE(dev.reader_rollback(LogId::radio, 1));  // never read
}

TEST_CASE("a rollback over lines still held loses nothing: the next stream reads them again") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  Reader r(dev);
  for (int i = 0; i < 10; ++i) log_line(dev, LogId::main, "held");
  r.read();
  const std::uint64_t upto = dev.read_upto(LogId::main);
  CHECK(dev.reader_rollback(LogId::main, upto - 5));
  CHECK(dev.reader_lost_lines() == 0);
  Reader again(dev);
  again.read();
  CHECK(dev.read_upto(LogId::main) == upto);
}

TEST_CASE("lines written before the reader first looked are history, not lost") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  dev.force_skip("com.example.feed", 35);
  clock.advance_ms(1000);
  dev.advance();
  dev.flood(3000);  // the skip line is pruned before anyone reads
  Reader r(dev);
  const auto& t = dev.app("com.example.feed")->truth;
  CHECK(t.reader_history_skip_lines == 1);
  CHECK(t.reader_history_skipped_frames == 35);
  CHECK(t.reader_lost_skip_lines == 0);
  CHECK(dev.reader_history_lines() == dev.lines_written());
  CHECK(dev.read_upto(LogId::main) == dev.logs().stats(LogId::main).written);
  CHECK(dev.reader_lost_lines() == 0);
  // A second stream is no first sight.
  log_line(dev, LogId::main, "new");
  Reader again(dev);
  CHECK(dev.reader_history_lines() == dev.lines_written() - 1);
}

TEST_CASE("clock steps and glitches stamp lines as told, logcat keeps the sequence order") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  run_shell(dev, "logcat -c -b all");
  const std::int64_t t0 = dev.wall_now();
  log_line(dev, LogId::main, "A");
  dev.clock_step(-60 * kSec);
  log_line(dev, LogId::main, "B");
  dev.clock_glitch(3600 * kSec);
  log_line(dev, LogId::system, "C");
  log_line(dev, LogId::main, "D");
  dev.clock_step(90 * kSec);
  log_line(dev, LogId::main, "E");
  CHECK(dev.clock_offset_ns() == 30 * kSec);

  auto all = dev.logs().read(kDefaultLogMask, 0, 10);
  REQUIRE(all.size() == 5);
  auto near = [](std::int64_t got, std::int64_t want) { return got >= want && got < want + 1'000'000; };
  CHECK(near(all[0]->wall_ns, t0));
  CHECK(near(all[1]->wall_ns, t0 - 60 * kSec));
  CHECK(near(all[2]->wall_ns, t0 - 60 * kSec + 3600 * kSec));
  CHECK(near(all[3]->wall_ns, t0 - 60 * kSec));
  CHECK(near(all[4]->wall_ns, t0 + 30 * kSec));
  // Monotonic time never jumps.
  for (std::size_t i = 1; i < all.size(); ++i) CHECK(all[i]->mono_ns >= all[i - 1]->mono_ns);
  std::string order;
  for (const auto& l : lines_of(run_shell(dev, "logcat -d -v brief -b main,system").out)) {
    if (l.rfind("I/Test", 0) == 0) order += l.back();
  }
  CHECK(order == "ABCDE");
  CHECK(run_shell(dev, "date +%s").out == std::to_string((clock.wall_ns() + 30 * kSec) / kSec) + "\n");
}

TEST_CASE("logcat -T TIME starts like logd 12: first entry at or after TIME, first flush skips older stamps") {
  ManualClock clock(1'700'000'000'000'000'000, 0);
  Device dev(small_quiet(), clock);
  run_shell(dev, "logcat -c -b all");
  const std::int64_t t = dev.wall_now();
  log_line(dev, LogId::main, "A");  // t
  clock.advance_ms(1000);
  log_line(dev, LogId::main, "B");  // t+1
  dev.clock_step(-3 * kSec);
  log_line(dev, LogId::main, "C");  // t-2
  log_line(dev, LogId::system, "D");  // t-2
  dev.clock_step(10 * kSec);
  log_line(dev, LogId::main, "E");  // t+8
  auto names = [](const std::string& out) {
    std::string s;
    for (const auto& l : lines_of(out)) {
      if (l.rfind("I/Test", 0) == 0) s += l.back();
    }
    return s;
  };
  const std::string flags = " -v brief -b main,system -T ";
  // Starts at A (the first stamped at or after t-1); C and D, stamped earlier
  // but later in sequence, are skipped in the first flush.
  CHECK(names(run_shell(dev, "logcat -d" + flags + epoch_arg(t - kSec)).out) == "ABE");
  // An equal stamp is not repeated.
  CHECK(names(run_shell(dev, "logcat -d" + flags + epoch_arg(t)).out) == "BE");
  // After the last stamp of all: nothing held; a follow gets only new lines.
  CHECK(names(run_shell(dev, "logcat -d" + flags + epoch_arg(t + 20 * kSec)).out).empty());

  // Following from t+0.5: B, then E; later lines come whatever their stamps.
  ShellResult r = run_shell(dev, "logcat" + flags + epoch_arg(t + kSec / 2));
  REQUIRE(r.follow);
  bool done = false;
  CHECK(names(pump_logcat(dev, *r.follow, SIZE_MAX, &done)) == "BE");
  dev.clock_step(-100 * kSec);
  log_line(dev, LogId::main, "F");
  CHECK(names(pump_logcat(dev, *r.follow, SIZE_MAX, &done)) == "F");
  CHECK_FALSE(done);
}

TEST_CASE("logcat -T COUNT starts at the last COUNT entries of the buffers merged by sequence") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  run_shell(dev, "logcat -c -b all");
  const char* seq[] = {"1", "2", "3", "4", "5"};
  for (int i = 0; i < 5; ++i) {
    dev.log(i % 2 ? LogId::system : LogId::main, 'I', 7, 7, 1000, "Test", seq[i]);
    if (i == 1) dev.clock_step(-10 * kSec);  // stamps do not matter
  }
  ShellResult r = run_shell(dev, "logcat -v brief -b main,system -T 3");
  REQUIRE(r.follow);
  bool done = false;
  std::string got;
  for (const auto& l : lines_of(pump_logcat(dev, *r.follow, SIZE_MAX, &done))) {
    if (l.rfind("I/Test", 0) == 0) got += l.back();
  }
  CHECK(got == "345");
}

TEST_CASE("logcat -S: Total counts every line since logd started, Now the held ones") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  run_shell(dev, "logcat -c -b all");
  const auto base = stats_of(dev, "main");
  for (int i = 0; i < 5; ++i) log_line(dev, LogId::main, "x");
  auto s = stats_of(dev, "main");
  CHECK(s.total == base.total + 5);
  CHECK(s.now == 5);
  dev.flood(3000);
  s = stats_of(dev, "main");
  CHECK(s.total - s.now == dev.logs().stats(LogId::main).pruned + dev.logs().stats(LogId::main).cleared);
  CHECK(s.now == dev.logs().entries(LogId::main).size());
}

TEST_CASE("the exporter's stream script answers boot id, logd pid, statistics, then the ring") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  ShellResult r = run_shell(dev,
                            "cat /proc/sys/kernel/random/boot_id; pidof logd; logcat -S -b main,system; echo "
                            "jank_exporter:logcat-snapshot-end; export ANDROID_LOG_TAGS=\"''\"; logcat -v threadtime "
                            "-v epoch -v usec -b main,system -D");
  REQUIRE(r.follow);
  const auto ls = lines_of(r.out);
  REQUIRE(ls.size() == 6);
  CHECK(ls[0] == dev.boot_id());
  CHECK(ls[1] == std::to_string(dev.logd_pid()));
  CHECK(ls[2].rfind("size/num main", 0) == 0);
  CHECK(ls[5] == "jank_exporter:logcat-snapshot-end");
  // The statistics and the ring agree: one instant.
  const auto st = jank::parsers::parse_logd_statistics(r.out);
  bool done = false;
  const std::string ring = pump_logcat(dev, *r.follow, SIZE_MAX, &done);
  std::size_t entries = 0;
  for (const auto& l : lines_of(ring)) entries += l.rfind("---------", 0) != 0;
  CHECK(entries == st.at("main").now + st.at("system").now);
}

TEST_CASE("the shell answers pidof, cat and date like toybox") {
  ManualClock clock(1'700'000'000'123'000'000, 0);
  Device dev(small_quiet(), clock);
  ShellResult p = run_shell(dev, "pidof nosuchprocess");
  CHECK(p.exit == 1);
  CHECK(p.out.empty());
  CHECK(run_shell(dev, "pidof com.example.feed").out == std::to_string(dev.app("com.example.feed")->pid) + "\n");
  CHECK(run_shell(dev, "pidof init logd").out == "1 " + std::to_string(dev.logd_pid()) + "\n");
  ShellResult c = run_shell(dev, "cat /nope");
  CHECK(c.exit == 1);
  CHECK(c.err == "cat: /nope: No such file or directory\n");
  CHECK(run_shell(dev, "echo alive; date +%s").out == "alive\n1700000000\n");
  CHECK(run_shell(dev, "date").out == "Tue Nov 14 22:13:20 UTC 2023\n");
  CHECK(run_shell(dev, "date -u '+%Y-%m-%d %H:%M:%S.%N'").out == "2023-11-14 22:13:20.123000000\n");
}

TEST_CASE("the truth tells the reader's state per buffer and the device's boot, logd and clock") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  Reader r(dev);
  log_line(dev, LogId::main, "x");
  r.read();
  dev.clock_step(-2500 * std::int64_t{1'000'000});
  const auto t = dev.truth();
  CHECK(t.at("boot_id").get<std::string>() == dev.boot_id());
  CHECK(t.at("logd_pid").get<std::int32_t>() == dev.logd_pid());
  CHECK(t.at("clock_offset_s").get<double>() == -2.5);
  CHECK(t.at("reboots").get<std::uint64_t>() == 0);
  CHECK(t.at("logd_restarts").get<std::uint64_t>() == 0);
  const auto& st = dev.logs().stats(LogId::main);
  const auto& main = t.at("buffers").at("main");
  CHECK(main.at("total").get<std::uint64_t>() == st.written);
  CHECK(main.at("now").get<std::size_t>() == dev.logs().entries(LogId::main).size());
  CHECK(main.at("read_upto").get<std::uint64_t>() == st.written);
  CHECK(main.at("unheld").get<std::uint64_t>() == 0);
  CHECK(main.at("summaries").get<std::uint64_t>() == 0);
  CHECK(main.at("held_back").get<int>() == 0);
  CHECK(t.at("reader_unknown_lines").get<std::uint64_t>() == 0);
  CHECK(t.at("apps").at(0).at("reader_unknown_skipped_frames").get<std::uint64_t>() == 0);
  CHECK(t.at("apps").at(0).at("reader_history_skip_lines").get<std::uint64_t>() == 0);
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

TEST_CASE("a stream script that declares the reader's cursor rolls the reader back, for this boot and logd only") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  Reader r(dev);
  for (int i = 0; i < 10; ++i) log_line(dev, LogId::main, "held");
  r.read();
  const std::uint64_t upto = dev.read_upto(LogId::main);
  std::string boot = run_shell(dev, "cat /proc/sys/kernel/random/boot_id").out;
  boot.pop_back();
  std::string logd = run_shell(dev, "pidof logd").out;
  logd.pop_back();
  // Another boot's or another logd's cursor says nothing about this log.
  run_shell(dev, "echo jank_exporter:cursor boot=00000000-0000-4000-8000-000000000000 logd=" + logd + " main=1");
  run_shell(dev, "echo jank_exporter:cursor boot=" + boot + " logd=1 main=1");
  CHECK(dev.read_upto(LogId::main) == upto);
  const ShellResult said =
      run_shell(dev, "echo jank_exporter:cursor boot=" + boot + " logd=" + logd + " main=" + std::to_string(upto - 4));
  CHECK(said.out.rfind("jank_exporter:cursor boot=", 0) == 0);  // printed as any echo
  CHECK(dev.read_upto(LogId::main) == upto - 4);
  // Forward is never taken.
  run_shell(dev, "echo jank_exporter:cursor boot=" + boot + " logd=" + logd + " main=" + std::to_string(upto + 50));
  CHECK(dev.read_upto(LogId::main) == upto - 4);
}

TEST_CASE("a loss the reader never asked logd about dies with logd: unknown, not lost") {
  ManualClock clock;
  Device dev(small_quiet(), clock);
  Reader r(dev);
  for (int i = 0; i < 10; ++i) log_line(dev, LogId::main, "read");
  r.read();
  dev.flood(3000);  // away: the ring wraps over unread lines
  const std::uint64_t pending = dev.reader_pending_lines();
  REQUIRE(pending > 1000);
  const std::uint64_t unknown_before = dev.reader_unknown_lines();
  dev.logd_restart();  // before any reader looked at logd's statistics
  CHECK(dev.reader_pending_lines() == 0);
  CHECK(dev.reader_lost_lines() == 0);
  CHECK(dev.reader_unknown_lines() >= unknown_before + pending);
}

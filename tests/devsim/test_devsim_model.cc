// The simulator's model driven by a ManualClock: no sleeping, no sockets.
#include <catch2/catch.hpp>

#include <sstream>

#include "devsim/model.h"
#include "devsim/shell.h"
#include "parsers/gfxinfo.h"
#include "parsers/logcat_events.h"
#include "parsers/logcat_line.h"

using namespace jank::devsim;
namespace parsers = jank::parsers;

namespace {

DeviceConfig quiet_config(double stall_prob = 0) {
  DeviceConfig c;
  c.noise_lines_per_sec = 0;
  AppConfig a;
  a.package = "com.example.feed";
  a.stall_prob = stall_prob;
  c.apps.push_back(a);
  a.package = "com.example.shop";
  c.apps.push_back(a);
  return c;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

int count_skip_lines(const std::string& logcat, std::uint64_t* frames = nullptr) {
  int n = 0;
  for (const auto& l : lines_of(logcat)) {
    auto p = parsers::parse_log_line(l, parsers::LogLayout::threadtime);
    if (!p) continue;
    if (auto k = parsers::parse_skipped_frames(p->tag, p->message)) {
      ++n;
      if (frames) *frames += *k;
    }
  }
  return n;
}

}  // namespace

TEST_CASE("a skip is logged only when N reaches the threshold the process started with") {
  ManualClock clock;
  Device dev(quiet_config(), clock);
  const auto pid0 = dev.app("com.example.feed")->pid;

  REQUIRE(dev.force_skip("com.example.feed", 12));
  clock.advance_ms(1000);
  dev.advance();
  CHECK(dev.app("com.example.feed")->truth.skip_events == 1);
  CHECK(dev.app("com.example.feed")->truth.skipped_frames == 12);
  CHECK(dev.app("com.example.feed")->truth.skip_lines == 0);  // default limit 30

  REQUIRE(run_shell(dev, "setprop debug.choreographer.skipwarning 1").exit == 0);
  CHECK(run_shell(dev, "getprop debug.choreographer.skipwarning").out == "1\n");
  dev.force_skip("com.example.feed", 12);
  clock.advance_ms(1000);
  dev.advance();
  CHECK(dev.app("com.example.feed")->truth.skip_lines == 0);  // running process keeps 30

  REQUIRE(dev.restart_app("com.example.feed"));
  const auto pid1 = dev.app("com.example.feed")->pid;
  CHECK(pid1 != pid0);
  CHECK(dev.app("com.example.feed")->threshold == 1);
  dev.force_skip("com.example.feed", 12);
  clock.advance_ms(1000);
  dev.advance();
  const auto& t = dev.app("com.example.feed")->truth;
  CHECK(t.skip_lines == 1);
  CHECK(t.skipped_frames_logged == 12);
  CHECK(t.skipped_frames == 36);

  const std::string out = run_shell(dev, "logcat -d -v threadtime").out;
  std::uint64_t frames = 0;
  CHECK(count_skip_lines(out, &frames) == 1);
  CHECK(frames == 12);
  CHECK(out.find(" " + std::to_string(pid1) + " I Choreographer: Skipped 12 frames!  The application may be doing too much work on its main thread.") != std::string::npos);
}

TEST_CASE("ctl.restart zygote needs a root build and restarts every app with new pids") {
  ManualClock clock;
  {
    Device dev(quiet_config(), clock);
    ShellResult r = run_shell(dev, "setprop ctl.restart zygote");
    CHECK(r.exit == 1);
    CHECK(r.err.find("Failed to set property 'ctl.restart' to 'zygote'") != std::string::npos);
  }
  DeviceConfig c = quiet_config();
  c.root_build = true;
  Device dev(c, clock);
  const auto feed = dev.app("com.example.feed")->pid, shop = dev.app("com.example.shop")->pid;
  REQUIRE(run_shell(dev, "setprop debug.choreographer.skipwarning 1 && setprop ctl.restart zygote").exit == 0);
  CHECK(dev.app("com.example.feed")->pid != feed);
  CHECK(dev.app("com.example.shop")->pid != shop);
  CHECK(dev.app("com.example.feed")->threshold == 1);
  CHECK(dev.app("com.example.shop")->threshold == 1);
  CHECK(run_shell(dev, "id").out.rfind("uid=0(root)", 0) == 0);
}

TEST_CASE("the ring buffer wraps like logd and the lost skip lines are counted") {
  ManualClock clock;
  DeviceConfig c = quiet_config(0.05);
  c.apps[0].bands = {{30, 40, 1}};
  c.log_buffer_bytes = 64 * 1024;
  c.noise_lines_per_sec = 200;
  Device dev(c, clock);
  for (int i = 0; i < 120; ++i) {
    clock.advance_ms(500);
    dev.advance();
  }
  const auto& st = dev.logs().stats(LogId::main);
  CHECK(st.pruned > 0);
  CHECK(st.used <= st.capacity);
  CHECK(dev.lines_lost() > 0);
  const auto& t = dev.app("com.example.feed")->truth;
  REQUIRE(t.skip_lines > 0);
  CHECK(t.skip_lines_lost > 0);
  // What is still in the buffer is exactly the logged minus the lost.
  const std::string out = run_shell(dev, "logcat -d -b main").out;
  int in_buffer = 0;
  for (const auto& l : lines_of(out)) {
    auto p = parsers::parse_log_line(l, parsers::LogLayout::threadtime);
    if (p && p->pid == dev.app("com.example.feed")->pid && parsers::parse_skipped_frames(p->tag, p->message)) {
      ++in_buffer;
    }
  }
  CHECK(static_cast<std::uint64_t>(in_buffer) == t.skip_lines - t.skip_lines_lost);
  const std::string g = run_shell(dev, "logcat -g -b main").out;
  CHECK(g.rfind("main: ring buffer is 64 KiB (", 0) == 0);
  CHECK(run_shell(dev, "logcat -G 32K").exit == 1);
  CHECK(run_shell(dev, "logcat -G 1M").exit == 0);
  CHECK(run_shell(dev, "logcat -g -b main").out.rfind("main: ring buffer is 1024 KiB", 0) == 0);
  CHECK(run_shell(dev, "logcat -c").exit == 0);
  CHECK(run_shell(dev, "logcat -d").out.empty());
}

TEST_CASE("logcat -t/-T count and epoch time resume") {
  ManualClock clock;
  Device dev(quiet_config(), clock);
  for (int i = 0; i < 10; ++i) {
    clock.advance_ms(10);
    dev.log(LogId::main, 'I', 42, 43, 10001, "Test", "line " + std::to_string(i));
  }
  auto tail = lines_of(run_shell(dev, "logcat -b main -t 3").out);
  REQUIRE(tail.size() == 4);
  CHECK(tail[0] == "--------- beginning of main");
  CHECK(tail[3].find("line 9") != std::string::npos);

  // Resume after the 5th line's epoch timestamp: strictly newer entries only.
  auto all = lines_of(run_shell(dev, "logcat -d -b main -v epoch").out);
  REQUIRE(all.size() == 11);
  const std::string ts = all[5].substr(0, all[5].find(' ', all[5].find_first_not_of(' ')));
  auto resumed = lines_of(run_shell(dev, "logcat -b main -v epoch -t '" + ts.substr(ts.find_first_not_of(' ')) + "'").out);
  REQUIRE(resumed.size() == 6);
  CHECK(resumed[1].find("line 5") != std::string::npos);

  ShellResult follow = run_shell(dev, "export ANDROID_LOG_TAGS=\"''\"; exec logcat '-T' '2' '-v' 'threadtime'");
  REQUIRE(follow.follow.has_value());
  bool done = false;
  CHECK(lines_of(pump_logcat(dev, *follow.follow, 1 << 20, &done)).size() == 3);
  CHECK_FALSE(done);
  dev.log(LogId::main, 'W', 42, 43, 10001, "Test", "later");
  CHECK(pump_logcat(dev, *follow.follow, 1 << 20, &done).find("W Test    : later") != std::string::npos);
  CHECK(run_shell(dev, "logcat -b nosuch").err == "Unknown buffer 'nosuch' listed for -b.\n");
}

TEST_CASE("logcat -v layouts follow liblog and parse back with the project's parsers") {
  ManualClock clock(1'700'000'000'123'000'000, 0);
  DeviceConfig c = quiet_config();
  c.initial_uptime_ns = 5'000'000'000;
  Device dev(c, clock);
  run_shell(dev, "logcat -c");
  dev.log(LogId::main, 'I', 1234, 1240, 10123, "Choreographer",
          "Skipped 31 frames!  The application may be doing too much work on its main thread.");
  const std::string tt = run_shell(dev, "logcat -d -v threadtime").out;
  CHECK(tt == "--------- beginning of main\n11-14 22:13:20.123  1234  1240 I Choreographer: Skipped 31 frames!  "
              "The application may be doing too much work on its main thread.\n");
  const std::string ep = lines_of(run_shell(dev, "logcat -d -v epoch,uid").out).at(1);
  CHECK(ep.rfind("         1700000000.123 10123  1234  1240 I Choreographer: ", 0) == 0);
  auto p = parsers::detect_log_line(ep);
  REQUIRE(p);
  CHECK(p->uid == 10123);
  CHECK(p->pid == 1234);
  CHECK(p->time.ns == 1'700'000'000'123'000'000);
  CHECK(parsers::parse_skipped_frames(p->tag, p->message) == 31u);
  CHECK(lines_of(run_shell(dev, "logcat -d -v brief").out).at(1).rfind("I/Choreographer( 1234): Skipped", 0) == 0);
  CHECK(lines_of(run_shell(dev, "logcat -d -v time,usec,year").out).at(1).rfind("2023-11-14 22:13:20.123000 I/Choreographer( 1234): ", 0) == 0);
  CHECK(lines_of(run_shell(dev, "logcat -d -v monotonic").out).at(1).rfind("     5.000  1234  1240 I ", 0) == 0);
  CHECK(run_shell(dev, "logcat -d -v bogus").exit == 1);
  CHECK(run_shell(dev, "logcat -d -s OpenGLRenderer").out.empty());
  CHECK(!run_shell(dev, "logcat -d Choreographer:I *:S").out.empty());
}

TEST_CASE("dumpsys gfxinfo framestats agrees with the simulated frames") {
  ManualClock clock;
  Device dev(quiet_config(0.02), clock);
  for (int i = 0; i < 40; ++i) {
    clock.advance_ms(100);
    dev.advance();
  }
  int code = -1;
  const std::string out = dev.dumpsys_gfxinfo({"com.example.feed", "framestats"}, &code);
  CHECK(code == 0);
  const AppState& a = *dev.app("com.example.feed");
  auto d = parsers::parse_gfxinfo(out);
  REQUIRE(d.processes.size() == 1);
  const auto& p = d.processes[0];
  CHECK(p.pid == a.pid);
  CHECK(p.package == "com.example.feed");
  REQUIRE(p.stats);
  CHECK(*p.stats->total_frames == a.gfx.total);
  CHECK(*p.stats->janky_frames == a.gfx.janky);
  CHECK(*p.stats->missed_vsync == a.gfx.missed_vsync);
  REQUIRE(p.stats->histogram.size() == 154);
  CHECK(p.stats->histogram[27].label_ms == 32);
  CHECK(p.stats->histogram[28].label_ms == 34);
  CHECK(p.stats->histogram[36].label_ms == 53);
  CHECK(p.stats->histogram[57].label_ms == 150);
  CHECK(p.stats->histogram[153].label_ms == 4950);
  std::uint64_t sum = 0;
  for (const auto& b : p.stats->histogram) sum += b.count;
  CHECK(sum == a.gfx.total);
  CHECK(a.truth.frames_rendered == a.gfx.total);
  REQUIRE(p.windows.size() == 1);
  REQUIRE(p.windows[0].framestats);
  const auto& fs = *p.windows[0].framestats;
  CHECK(fs.columns.size() == 23);
  CHECK(fs.malformed_rows == 0);
  CHECK(fs.rows.size() == std::min<std::size_t>(120, a.gfx.total));
  const auto iv = *fs.column("IntendedVsync"), done = *fs.column("FrameCompleted");
  CHECK(fs.rows.back()[done] - fs.rows.back()[iv] == a.recent.back().duration);

  dev.dumpsys_gfxinfo({"com.example.feed", "reset"}, &code);
  auto after = parsers::parse_gfxinfo(dev.dumpsys_gfxinfo({"com.example.feed"}, &code));
  CHECK(*after.processes.at(0).stats->total_frames == 0);
  CHECK(dev.dumpsys_gfxinfo({"com.nope"}, &code) == "No process found for: com.nope\n");
  CHECK(parsers::parse_gfxinfo(dev.dumpsys_gfxinfo({}, &code)).processes.size() == 2);
}

TEST_CASE("the shell handles quoting and operators and exit codes and unknown commands") {
  ManualClock clock;
  Device dev(quiet_config(), clock);
  CHECK(run_shell(dev, "echo hi").out == "hi\n");
  CHECK(run_shell(dev, "echo 'a  b' \"c\\\"d\" e\\ f").out == "a  b c\"d e f\n");
  CHECK(run_shell(dev, "exit 3").exit == 3);
  CHECK(run_shell(dev, "true && echo yes; false && echo no; false || echo alt; echo end").out == "yes\nalt\nend\n");
  ShellResult nf = run_shell(dev, "frobnicate --x");
  CHECK(nf.exit == 127);
  CHECK(nf.err == "sh: frobnicate: not found\n");
  CHECK(run_shell(dev, "frobnicate 2>/dev/null").err.empty());
  CHECK(run_shell(dev, "exit 4; echo never").out.empty());
  CHECK(run_shell(dev, "getprop ro.build.version.sdk").out == "33\n");
  CHECK(run_shell(dev, "setprop ro.build.version.sdk 34").exit == 1);
  CHECK(run_shell(dev, "ps -A").out.find(" com.example.shop\n") != std::string::npos);
  CHECK(run_shell(dev, "dumpsys SurfaceFlinger").out.find("refresh-rate              : 60.00 Hz") != std::string::npos);
  dev.set_refresh_hz(120);
  CHECK(run_shell(dev, "dumpsys display").out.find("fps=120.000000") != std::string::npos);
}

TEST_CASE("the same seed gives the same device") {
  ManualClock c1, c2;
  Device a(quiet_config(0.05), c1), b(quiet_config(0.05), c2);
  for (int i = 0; i < 20; ++i) {
    c1.advance_ms(250);
    c2.advance_ms(250);
    a.advance();
    b.advance();
  }
  CHECK(a.truth_json() == b.truth_json());
  CHECK(a.app("com.example.feed")->truth.skip_events > 0);
}

// Hostile devices and adb servers against the real jank_exporter binary. Each
// fault must end as a counted discard or a clear error; the daemon stays up,
// the other devices and the scrape are unaffected, memory stays bounded.
#include <catch2/catch.hpp>

#include <cmath>
#include <iostream>
#include <set>

#include "tests/hostile/support.h"

using namespace jank::daemon_test;
using namespace jank::hostile;

namespace {

constexpr const char* kFastPolls =
    "checkpoint_interval_seconds: 1\n"
    "gfxinfo:\n  poll_interval_seconds: 1\n  fast_poll_interval_seconds: 1\n";

// The value of a series, 0 while it is absent.
double value0(const Exporter& ex, const std::string& key) {
  const double v = ex.value(key);
  return std::isnan(v) ? 0 : v;
}

double sample(const std::map<std::string, double>& s, const std::string& key) {
  auto it = s.find(key);
  return it == s.end() ? 0 : it->second;
}

std::string labelled(const std::string& name, const std::string& serial, const std::string& key,
                     const std::string& value) {
  return name + "{serial=\"" + serial + "\"," + key + "=\"" + value + "\"}";
}

// promtool's verdict on an exposition ("" when it parses).
std::string promtool_check(const std::string& http_response) {
  const auto body_at = http_response.find("\r\n\r\n");
  TempDir dir;
  const std::string file = dir.path() + "/scrape.prom";
  std::ofstream(file) << (body_at == std::string::npos ? http_response : http_response.substr(body_at + 4));
  RunResult r = run({"sh", "-c", std::string(JANK_PROMTOOL) + " check metrics < " + file}, {}, 30000ms);
  // Lint remarks (e.g. counters without _total) are fine; parse errors are not.
  return r.err.find("error while linting") != std::string::npos ? r.err : "";
}

// The only device services the exporter may send: fixed commands, and
// package names that passed validation, single-quoted.
bool allowed_service(const std::string& s) {
  const std::string logcat =
      "shell:export ANDROID_LOG_TAGS=\"''\"; exec logcat '-v' 'threadtime' '-v' 'epoch' '-v' 'usec' '-b' 'main' '-b' 'system'";
  const std::set<std::string> fixed = {"shell:getprop", "shell:ps -A", "shell:dumpsys display",
                                       "shell:dumpsys SurfaceFlinger", "shell:dumpsys window displays",
                                       "shell:dumpsys SurfaceFlinger --list",
                                       "shell:dumpsys power | grep -e mWakefulness= -e 'Display Power: state='",
                                       "shell:dumpsys thermalservice", "shell:dumpsys battery",
                                       "shell:dumpsys graphicsstats", "shell:echo alive",
                                       "shell:dumpsys SurfaceFlinger --frametimeline -all | grep -e 'Number of display "
                                       "frames' -e 'Display Frame' -e 'Vsync Period' -e 'Layer - ' -e 'Token:' -e "
                                       "'Owner Pid' -e 'Layer ID' -e 'Present State' -e 'Prediction State' -e 'Jank "
                                       "Type' -e 'Present Metadata'",
                                       "shell:dumpsys SurfaceFlinger --timestats -dump -enable",
                                       "shell:'setprop' 'debug.choreographer.skipwarning' '1'",
                                       logcat, logcat + " '-d' '-t' '1'"};
  if (fixed.count(s)) return true;
  // Other logcat scripts (the stream with its preamble: boot id, logd's
  // pid, statistics): fixed words only, nothing a shell would expand or
  // chain beyond "; ".
  if (s.find("logcat") != std::string::npos &&
      s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 '\"=;:,._/-") ==
          std::string::npos) {
    return true;
  }
  auto between = [&](const std::string& prefix, const std::string& suffix, const char* chars) {
    if (s.size() <= prefix.size() + suffix.size() || s.rfind(prefix, 0) != 0 ||
        s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0) {
      return false;
    }
    const std::string middle = s.substr(prefix.size(), s.size() - prefix.size() - suffix.size());
    return middle.find_first_not_of(chars) == std::string::npos && middle[0] != '-';
  };
  // The resource poll (parsers/resource_files.h): kernel paths, pids and
  // globs; nothing a device names (no quote, `$`, backquote or pipe).
  return between("shell:grep -s -H ^cpu /proc/stat; grep -s -H ^ /proc/sys/kernel/random/boot_id ", "",
                 "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 /_.*[]^;-") ||
         between(logcat + " '-T' '", "'", "0123456789.") ||
         between("shell:'dumpsys' 'SurfaceFlinger' '--latency' '", "'",
                 "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._$/#[]() -") ||
         between("shell:'dumpsys' 'gfxinfo' '", "' 'framestats'",
                 "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-") ||
         between("shell:'dumpsys' 'gfxinfo' '", "'",  // the aggregate alone (per_frame.mode needed)
                 "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-") ||
         between("shell:'dumpsys' 'package' '",
                 "' | grep -F -e 'Package [' -e 'Hidden system packages:' -e versionCode= -e versionName= -e "
                 "'Unable to find package'",
                 "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._");
}

}  // namespace

TEST_CASE("shell metacharacters in serials and properties and package names never reach a device command") {
  // Names a device controls: its serial (adb server), getprop values, ps
  // names, ActivityManager process names and the focused window.
  const std::string evil_serial = "evil;reboot&&$(id)`id`|'\"x\xff";
  auto evil = std::make_shared<DeviceScript>();
  evil->getprop =
      "[ro.product.model]: [Pixel\"} 1\nfake_metric{x=\"1\"} 1 $(reboot)]\n"
      "[ro.product.manufacturer]: [Evil\xff\xfe Corp; reboot]\n"
      "[ro.build.version.release]: [13`reboot`]\n"
      "[debug.choreographer.skipwarning]: [1; reboot]\n";
  evil->ps =
      "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\n"
      "root             1     0 10000000  9000 do_epoll_wait       0 S init\n"
      "u0_a1         1001   500 1000 100 0 0 S com.evil;reboot\n"
      "u0_a2         1002   500 1000 100 0 0 S $(reboot)\n"
      "u0_a3         1003   500 1000 100 0 0 S `reboot`\n"
      "u0_a4         1004   500 1000 100 0 0 S -rf\n"
      "u0_a5         1005   500 1000 100 0 0 S com.example.feed\n"
      "u0_a6         1006   500 1000 100 0 0 S com.evil'reboot'\n"
      "u0_a7         1007   500 1000 100 0 0 S com.evil>reboot\n";
  evil->window = "  mCurrentFocus=Window{41b37570 u0 com.evil&&reboot/com.evil.Main}\n";
  // Layer names whose package or activity part a shell would act on.
  evil->layers =
      "com.example.feed/com.example.feed.Main#7\n"
      "com.example.feed/a';reboot;'#8\n"
      "com.example.feed/$(reboot)#9\n"
      "SurfaceView[com.example.feed/`reboot`](BLAST)#10\n"
      "com.evil;reboot/com.evil.Main#11\n"
      "RequestedLayerState{com.example.feed/x|reboot#12 parentId=1}\n";
  // Sensor names are printed raw: quotes, backslashes, braces, bad UTF-8.
  evil->thermal =
      "Thermal Status: 3\nCurrent temperatures from HAL:\n"
      "\tTemperature{mValue=40.5, mType=3, mName=skin\"} 1\\n$(reboot){x=\"\xff, mStatus=3}\n"
      "\tTemperature{mValue=41.0, mType=99, mName=a, mType=0, mName=b, mStatus=0}\n";
  evil->logcat = [](Conn& c) {
    c.write(log_line(900, 'I', "ActivityManager", "Start proc 2001:com.evil|reboot/u0a9 for activity {x/.M}"));
    c.write(log_line(900, 'I', "ActivityManager", "Start proc 2002:com.\xff\xfe\"reboot/u0a9 for activity {x/.M}"));
    c.write(log_line(900, 'I', "ActivityManager", "Start proc 2003:com.evil\treboot/u0a9 for activity {x/.M}"));
    for (int round = 0; round < 600; ++round) {
      std::string lines;
      for (int pid : {1001, 1002, 1003, 1004, 1005, 1006, 1007, 2001, 2002, 2003}) lines += skip_line(pid, 5);
      if (!c.write(lines) || !c.hold(200ms)) return;
    }
  };
  auto good = std::make_shared<DeviceScript>();
  good->logcat = [](Conn& c) {
    while (c.write(skip_line(1005, 3)) && c.hold(200ms)) {
    }
  };
  FakeAdbServer adb({scripted(evil_serial, evil), scripted("good-device", good)});
  TempDir state, conf_dir;
  Exporter ex({adb.port()}, state.path(), {"--config", write_config(conf_dir, kFastPolls)});

  auto gfxinfo_polls_of = [&](const std::string& package) {
    int n = 0;
    for (const auto& s : adb.services()) n += s.find("'gfxinfo' '" + package + "'") != std::string::npos;
    return n;
  };
  // Several poll rounds: every discovered name had its chance to be polled.
  REQUIRE(wait_until([&] { return gfxinfo_polls_of("com.example.feed") >= 8; }, 30000ms, 200ms));
  REQUIRE(wait_until([&] { return ex.scrape().find("android_thermal_temperature_celsius{") != std::string::npos; },
                     15000ms, 200ms));
  const std::string scrape = ex.scrape();
  INFO(ex.log());

  std::set<std::string> distinct;
  for (const auto& s : adb.services()) distinct.insert(s);
  std::cout << "hostile: every distinct device service string the exporter sent:\n";
  for (const auto& s : distinct) {
    std::cout << "  " << s << "\n";
    INFO("service: " << s);
    CHECK(allowed_service(s));
    CHECK(s.find("evil") == std::string::npos);
    CHECK(s.find("reboot") == std::string::npos);
    CHECK(s.find('`') == std::string::npos);
    CHECK(s.find("$(") == std::string::npos);
    CHECK(s.find('\n') == std::string::npos);
  }
  // The one harmless layer name was followed.
  CHECK(distinct.count("shell:'dumpsys' 'SurfaceFlinger' '--latency' 'com.example.feed/com.example.feed.Main#7'") == 1);
  // The serial only travels in host requests (length-framed, never a shell word).
  for (const auto& r : adb.requests()) {
    if (r.find("evil;") == std::string::npos) continue;
    INFO("request: " << r);
    CHECK((r == "host:transport:" + evil_serial || r == "host-serial:" + evil_serial + ":features"));
  }
  CHECK(gfxinfo_polls_of("com.example.feed") >= 8);

  // Hostile names are counted as data: escaped labels, a parseable exposition.
  CHECK(promtool_check(scrape).empty());
  CHECK(scrape.find("\nfake_metric") == std::string::npos);
  CHECK(scrape.find("package=\"com.evil;reboot\"") != std::string::npos);
  CHECK(scrape.find("package=\"com.\\\\xFF\\\\xFE\\\"reboot\"") != std::string::npos);
  CHECK(scrape.find("serial=\"evil;reboot&&$(id)`id`|'\\\"x\\\\xFF\"") != std::string::npos);
  CHECK(scrape.find("sensor=\"skin\\\"} 1\\\\n$(reboot){x=\\\"\\\\xFF\",type=\"skin\"} 40.5") != std::string::npos);
  CHECK(ex.alive());
  CHECK(ex.terminate() == 0);
}

TEST_CASE("a 10 MB line without newline and NUL bytes and invalid UTF-8 are counted discards in bounded memory") {
  std::atomic<bool> go{false};
  auto hostile = std::make_shared<DeviceScript>();
  hostile->logcat = [&go](Conn& c) {
    while (!go) {
      if (!c.hold(50ms)) return;
    }
    c.write(skip_line(1005, 7));
    const std::string chunk(64 * 1024, 'x');
    for (int i = 0; i < 160; ++i) {  // 10 MiB, no newline
      if (!c.write(chunk)) return;
    }
    c.write("\n");
    c.write(skip_line(1005, 9));
    const std::string nul = skip_line(1005, 50);
    c.write(nul.substr(0, 40) + std::string(3, '\0') + nul.substr(40));
    // A skip message mangled by invalid UTF-8: malformed, not counted.
    c.write(log_line(1005, 'I', "Choreographer", "Skipped 6 frames!  \xff\xfe\xc0\x80 main thread \xed\xa0\x80."));
    c.write(log_line(1005, 'I', "Tag\xc3\x28", "text \xf8\x88\x80\x80\x80 and \xc0\xaf"));  // unmatched
    c.write("\xff\xfe\xfd garbage without a header\n");                                        // unmatched
    c.write(skip_line(1005, 4));
    c.hold(1h);
  };
  std::atomic<int> good_frames{0};
  auto good = std::make_shared<DeviceScript>();
  good->logcat = [&good_frames](Conn& c) {
    if (!c.hold(1s)) return;  // after ps named pid 1005
    while (c.write(skip_line(1005, 3))) {
      good_frames += 3;
      if (!c.hold(100ms)) return;
    }
  };
  FakeAdbServer adb({scripted("hostile", hostile), scripted("good", good)});
  TempDir state, conf_dir;
  Exporter ex({adb.port()}, state.path(), {"--config", write_config(conf_dir, kFastPolls)});
  const std::string streams = series("jank_exporter_logcat_streams_total", "hostile");
  REQUIRE(wait_until([&] { return value0(ex, streams) >= 1; }, 20000ms, 100ms));
  std::this_thread::sleep_for(1s);
  const long rss_before = proc_status_kb(ex.pid(), "VmRSS");
  go = true;

  const std::string frames = series("android_choreographer_skipped_frames_total", "hostile", "com.example.feed");
  wait_until([&] { return ex.value(frames) == 7 + 9 + 4; }, 20000ms, 100ms);
  const auto s = ex.samples();
  INFO(ex.scrape());
  CHECK(sample(s, frames) == 7 + 9 + 4);
  CHECK(sample(s, labelled("jank_exporter_logcat_discarded_lines_total", "hostile", "reason", "too_long")) == 1);
  CHECK(sample(s, labelled("jank_exporter_logcat_discarded_lines_total", "hostile", "reason", "binary")) == 1);
  CHECK(sample(s, labelled("jank_exporter_logcat_discarded_lines_total", "hostile", "reason", "malformed")) == 1);
  CHECK(sample(s, labelled("jank_exporter_logcat_lines_total", "hostile", "result", "unmatched")) == 2);
  CHECK(sample(s, labelled("jank_exporter_logcat_lines_total", "hostile", "result", "parsed")) == 3);
  CHECK(sample(s, series("jank_exporter_logcat_streams_total", "hostile")) == 1);  // no reconnect needed
  // The other device kept being counted, exactly.
  const std::string good_series = series("android_choreographer_skipped_frames_total", "good", "com.example.feed");
  CHECK(wait_until([&] { return ex.value(good_series) >= good_frames.load() - 6; }, 10000ms, 100ms));
  const long hwm = proc_status_kb(ex.pid(), "VmHWM");
  std::cout << "hostile: 10 MiB line: VmRSS before " << rss_before << " kB, VmHWM after " << hwm << " kB\n";
#ifndef JANK_SANITIZED
  CHECK(hwm - rss_before < 6 * 1024);  // the line is never buffered (it would take 10+ MiB)
#endif
  CHECK(ex.alive());
  CHECK(ex.terminate() == 0);
}

TEST_CASE("100 MB of gfxinfo is cut at the output cap and counted as truncated in bounded memory") {
  std::atomic<bool> go{false};
  std::atomic<std::uint64_t> largest_sent{0};
  auto huge = std::make_shared<DeviceScript>();
  huge->gfxinfo = [&](const std::string& package, Conn& c) {
    if (!go || package != "com.example.feed") return (void)c.write(golden_gfxinfo());
    std::uint64_t sent = 0;
    std::string block = golden_gfxinfo();
    const std::string filler = "  Filler line of a runaway dump: 0123456789abcdef0123456789abcdef\n";
    while (block.size() < (1 << 20)) block += filler;
    while (sent < 100ull << 20 && c.write(block)) sent += block.size();
    std::uint64_t prev = largest_sent;
    while (sent > prev && !largest_sent.compare_exchange_weak(prev, sent)) {
    }
  };
  auto good = std::make_shared<DeviceScript>();
  FakeAdbServer adb({scripted("huge", huge), scripted("good", good)});
  TempDir state, conf_dir;
  Exporter ex({adb.port()}, state.path(), {"--config", write_config(conf_dir, kFastPolls)});
  const std::string ok_huge = labelled("jank_exporter_gfxinfo_polls_total", "huge", "result", "ok");
  REQUIRE(wait_until([&] { return value0(ex, ok_huge) >= 1; }, 20000ms, 100ms));
  const long rss_before = proc_status_kb(ex.pid(), "VmRSS");
  const std::string ok_good = labelled("jank_exporter_gfxinfo_polls_total", "good", "result", "ok");
  const double good_before = value0(ex, ok_good);
  go = true;

  const std::string truncated = labelled("jank_exporter_gfxinfo_polls_total", "huge", "result", "truncated");
  REQUIRE(wait_until([&] { return value0(ex, truncated) >= 3; }, 60000ms, 100ms));
  const auto s = ex.samples();
  INFO(ex.log());
  CHECK(sample(s, labelled("jank_exporter_device_commands_total", "huge", "result", "truncated")) >= 3);
  CHECK(sample(s, ok_good) >= good_before + 2);  // the other device kept being polled
  // The reader stops at the 8 MiB cap instead of draining 100 MB.
  std::cout << "hostile: 100 MB gfxinfo: largest amount the device got to send " << largest_sent.load() << " bytes\n";
  CHECK(largest_sent.load() < 24ull << 20);
  const long hwm = proc_status_kb(ex.pid(), "VmHWM");
  std::cout << "hostile: 100 MB gfxinfo: VmRSS before " << rss_before << " kB, VmHWM after " << hwm << " kB\n";
#ifndef JANK_SANITIZED
  CHECK(hwm - rss_before < 48 * 1024);  // one capped 8 MiB output and its parse, not 100 MB
#endif
  CHECK(ex.alive());
  CHECK(ex.terminate() == 0);
}

TEST_CASE("output that trickles forever is cut at the command deadline") {
  auto slow = std::make_shared<DeviceScript>();
  slow->gfxinfo = [](const std::string&, Conn& c) {
    // Always some data, never the end: only a deadline over the whole command stops it.
    for (int i = 0; i < 6000 && c.write("."); ++i) {
      if (!c.hold(100ms)) return;
    }
  };
  FakeAdbServer adb({scripted("slow", slow)});
  TempDir state, conf_dir;
  Exporter ex({adb.port()}, state.path(),
              {"--config", write_config(conf_dir, std::string(kFastPolls) + "timeouts:\n  command_seconds: 2\n")});
  const std::string timeouts = labelled("jank_exporter_gfxinfo_polls_total", "slow", "result", "timeout");
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(wait_until([&] { return value0(ex, timeouts) >= 2; }, 30000ms, 100ms));
  CHECK(std::chrono::steady_clock::now() - start < 15s);
  CHECK(ex.value(series("android_device_up", "slow")) == 1);
  CHECK(ex.alive());
}

TEST_CASE("a device that answers after 10 minutes hits the deadline while the other device and the scrape carry on") {
  AdbServer adb;
  DevSim sim({"--devices", "2", "--stall-prob", "0.05", "--skip-bands", "3-20:1,30-90:1", "--log-rate", "20"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  auto serial = [](const SimDeviceInfo& d) { return "emulator-" + std::to_string(d.port - 1); };
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(serial(d), "device", 10000ms));
  TempDir state, conf_dir;
  Exporter ex({adb.port()}, state.path(),
              {"--config", write_config(conf_dir, std::string(kFastPolls) + "timeouts:\n  command_seconds: 2\n")});
  const auto& hung = sim.devices()[0];
  const auto& healthy = sim.devices()[1];
  const std::string hung_streams = series("jank_exporter_logcat_streams_total", serial(hung));
  REQUIRE(wait_until([&] {
    return value0(ex, hung_streams) >= 1 && ex.value(series("jank_exporter_logcat_streams_total", serial(healthy))) >= 1;
  }, 20000ms, 100ms));
  const long rss_before = proc_status_kb(ex.pid(), "VmRSS");
  // "hang" answers nothing at all, for as long as it lasts: to the exporter,
  // a device that answers after 10 minutes is this until the deadline.
  REQUIRE(sim.control("hang " + hung.name).rfind("OK", 0) == 0);
  const std::string timeouts = labelled("jank_exporter_device_commands_total", serial(hung), "result", "timeout");
  const std::string healthy_polls = labelled("jank_exporter_gfxinfo_polls_total", serial(healthy), "result", "ok");
  const double polls_before = value0(ex, healthy_polls);
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(wait_until([&] { return value0(ex, timeouts) >= 1; }, 20000ms, 200ms));
  std::cout << "hostile: hung device: first command timeout after "
            << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count()
            << " ms (command_seconds: 2)\n";
  for (int i = 0; i < 6; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    CHECK(ex.scrape().find(" 200 ") != std::string::npos);
    CHECK(std::chrono::steady_clock::now() - t0 < 1s);
    std::this_thread::sleep_for(500ms);
  }
  CHECK(value0(ex, healthy_polls) >= polls_before + 2);
  // Back to life: the exporter polls the device again (the same session, or a
  // new one if the liveness check gave up on it meanwhile).
  const std::string hung_polls = labelled("jank_exporter_gfxinfo_polls_total", serial(hung), "result", "ok");
  const double hung_polls_before = value0(ex, hung_polls);
  REQUIRE(sim.control("unhang " + hung.name).rfind("OK", 0) == 0);
  CHECK(wait_until([&] { return value0(ex, hung_polls) >= hung_polls_before + 2; }, 60000ms, 250ms));
  const long hwm = proc_status_kb(ex.pid(), "VmHWM");
  std::cout << "hostile: hung device: VmRSS before " << rss_before << " kB, VmHWM after " << hwm << " kB\n";
#ifndef JANK_SANITIZED
  CHECK(hwm - rss_before < 16 * 1024);
#endif
  INFO(ex.log());
  CHECK(ex.alive());
  CHECK(ex.terminate() == 0);
}

TEST_CASE("malformed host-protocol replies are counted adb errors while the daemon and the other server carry on") {
  using Script = FakeAdbServer::TrackScript;
  const std::vector<std::pair<std::string, Script>> faults = {
      {"bad hex length", [](Conn& c, const std::string&) { c.write("OKAYzz!!garbage"); c.hold(2s); }},
      {"garbage status", [](Conn& c, const std::string&) { c.write("HELO0000"); c.hold(2s); }},
      {"EOF mid-length", [](Conn& c, const std::string&) { c.write("OKAY00"); }},
      {"EOF mid-block", [](Conn& c, const std::string&) { c.write("OKAY0040emulator-5554\tdev"); }},
      {"oversized block cut", [](Conn& c, const std::string&) { c.write("OKAYffff" + std::string(1000, 'a')); }},
  };
  std::vector<std::unique_ptr<FakeAdbServer>> bad;
  for (const auto& f : faults) bad.push_back(std::make_unique<FakeAdbServer>(std::vector<FakeDevice>{}, f.second));
  AdbServer adb;
  DevSim sim({"--devices", "1", "--stall-prob", "0.05", "--skip-bands", "3-20:1", "--log-rate", "20"});
  adb.emulator(sim.devices()[0].port);
  const std::string good_serial = "emulator-" + std::to_string(sim.devices()[0].port - 1);
  REQUIRE(adb.wait_state(good_serial, "device", 10000ms));
  std::vector<std::uint16_t> ports;
  for (const auto& b : bad) ports.push_back(b->port());
  ports.push_back(adb.port());
  TempDir state;
  Exporter ex(ports, state.path());
  REQUIRE(wait_until([&] { return ex.value(series("jank_exporter_logcat_streams_total", good_serial)) >= 1; },
                     20000ms, 100ms));
  auto errors = [&](const FakeAdbServer& b, const std::string& kind) {
    return ex.value("jank_exporter_adb_errors_total{server=\"127.0.0.1:" + std::to_string(b.port()) + "\",kind=\"" +
                    kind + "\"}");
  };
  const std::vector<std::string> expected_kind = {"protocol", "protocol", "eof", "eof", "eof"};
  for (std::size_t i = 0; i < faults.size(); ++i) {
    INFO(faults[i].first);
    CHECK(wait_until([&] { return errors(*bad[i], expected_kind[i]) >= 2; }, 30000ms, 250ms));  // retried, counted
    const std::string up = "jank_exporter_adb_server_up{server=\"127.0.0.1:" + std::to_string(bad[i]->port()) + "\"}";
    CHECK(wait_until([&] { return ex.value(up) == 0; }, 5000ms, 50ms));
  }
  // The good server's device is followed and counting.
  const auto s = ex.samples();
  CHECK(sample(s, "jank_exporter_adb_server_up{server=\"127.0.0.1:" + std::to_string(adb.port()) + "\"}") == 1);
  CHECK(sample(s, series("android_device_up", good_serial)) == 1);
  auto received = [&] {
    return value0(ex, labelled("jank_exporter_logcat_lines_total", good_serial, "result", "parsed")) +
           value0(ex, labelled("jank_exporter_logcat_lines_total", good_serial, "result", "unmatched"));
  };
  CHECK(wait_until([&] { return received() > 0; }, 20000ms, 250ms));
  INFO(ex.log());
  CHECK(ex.alive());
  CHECK(ex.terminate() == 0);
}

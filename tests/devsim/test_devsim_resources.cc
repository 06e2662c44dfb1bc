// The simulated device's CPU, memory, clock, GPU and battery-current files
// (docs/devsim.md, "CPU, memory, clocks, GPU and battery current"): the
// exporter's one-command poll on every release, read back with the
// exporter's own parsers to exactly the truth, and the releases'
// differences (kernels, SELinux labels, grep's exit status and buffering).
#include <catch2/catch.hpp>

#include <cerrno>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "devsim/model.h"
#include "devsim/shell.h"
#include "devsim/simulator.h"
#include "tests/devsim/sim_control.h"
#include "parsers/proc_stat.h"
#include "tests/rig/json.h"

using namespace jank::devsim;
using jank::devsim::test::control;
namespace parsers = jank::parsers;
using jank::rig::Json;

namespace {

constexpr const char* kFeed = "com.example.feed";
constexpr const char* kGame = "com.tencent.tmgp.sgame";

// An app and a game that never stall, no background lines.
DeviceConfig phone(int sdk, GpuKind gpu = GpuKind::adreno) {
  DeviceConfig c;
  c.sdk = sdk;
  c.noise_lines_per_sec = 0;
  c.gpu = gpu;
  AppConfig a;
  a.package = kFeed;
  a.stall_prob = 0;
  c.apps.push_back(a);
  AppConfig g;
  g.package = kGame;
  g.stall_prob = 0;
  g.hitch_prob = 0;
  g.game_fps = 60;
  c.apps.push_back(g);
  return c;
}

void run_for(Device& dev, ManualClock& clock, std::int64_t ms, std::int64_t step_ms = 1000) {
  for (std::int64_t t = 0; t < ms; t += step_ms) {
    clock.advance_ms(std::min(step_ms, ms - t));
    dev.advance();
  }
}

std::int32_t pid_of(const Device& dev, const char* pkg) { return dev.app(pkg)->pid; }

// The exporter's poll (issue 32): three greps, each with 2>&1. Kernels
// without cpufreq policy directories are read through cpuN/cpufreq.
std::string contract(const Device& dev, bool per_cpu_cpufreq) {
  std::string procs;
  for (const char* pkg : {kFeed, kGame}) {
    const std::string p = std::to_string(pid_of(dev, pkg));
    procs += " /proc/" + p + "/stat /proc/" + p + "/task/*/stat";
  }
  const std::string freq =
      per_cpu_cpufreq ? "/sys/devices/system/cpu/cpu[0-9]*/cpufreq/" : "/sys/devices/system/cpu/cpufreq/policy*/";
  std::string sys;
  for (const char* a : {"scaling_cur_freq", "scaling_max_freq", "cpuinfo_max_freq", "related_cpus"})
    sys += " " + freq + a;
  sys +=
      " /sys/class/kgsl/kgsl-3d0/gpuclk /sys/class/kgsl/kgsl-3d0/max_gpuclk /sys/class/kgsl/kgsl-3d0/gpubusy"
      " /sys/class/devfreq/*.mali/cur_freq /sys/class/devfreq/*.mali/max_freq"
      " /sys/class/power_supply/battery/current_now";
  const std::string feed = std::to_string(pid_of(dev, kFeed)), game = std::to_string(pid_of(dev, kGame));
  return "grep -H ^cpu /proc/stat 2>&1; grep -H ^" + procs + sys + " 2>&1; grep -H -e ^VmRSS -e ^VmSwap /proc/" + feed +
         "/status /proc/" + game + "/status 2>&1";
}

// The poll's answer taken apart by path, as a reader would.
struct Answers {
  std::string proc_stat;
  std::map<std::int32_t, parsers::TaskStat> procs;
  std::map<std::pair<std::int32_t, std::int32_t>, parsers::TaskStat> tasks;
  std::map<std::string, std::string> files;                                   // other paths: their one line
  std::map<std::int32_t, std::pair<std::uint64_t, std::uint64_t>> memory_kb;  // VmRSS, VmSwap
  std::vector<std::string> errors;
  std::size_t malformed = 0;
};

std::uint64_t kb_value(std::string_view v) {
  std::size_t i = v.find_first_of("0123456789");
  std::uint64_t n = 0;
  for (; i < v.size() && v[i] >= '0' && v[i] <= '9'; ++i) n = n * 10 + static_cast<std::uint64_t>(v[i] - '0');
  return n;
}

Answers parse(const std::string& out) {
  Answers a;
  std::size_t at = 0;
  while (at < out.size()) {
    const std::size_t nl = out.find('\n', at);
    std::string line = out.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    at = nl == std::string::npos ? out.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("grep: ", 0) == 0) {
      a.errors.push_back(line);
      continue;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) {
      ++a.malformed;
      continue;
    }
    const std::string path = line.substr(0, colon), value = line.substr(colon + 1);
    int pid = 0, tid = 0;
    char tail[32] = {};
    if (path == "/proc/stat") {
      a.proc_stat += value + "\n";
    } else if (std::sscanf(path.c_str(), "/proc/%d/task/%d/%31s", &pid, &tid, tail) == 3 &&
               std::string(tail) == "stat") {
      const auto t = parsers::parse_task_stat(value);
      if (t) {
        a.tasks[{pid, tid}] = *t;
      } else {
        ++a.malformed;
      }
    } else if (std::sscanf(path.c_str(), "/proc/%d/%31s", &pid, tail) == 2 && std::string(tail) == "stat") {
      const auto t = parsers::parse_task_stat(value);
      if (t) {
        a.procs[pid] = *t;
      } else {
        ++a.malformed;
      }
    } else if (std::sscanf(path.c_str(), "/proc/%d/%31s", &pid, tail) == 2 && std::string(tail) == "status") {
      if (value.rfind("VmRSS:", 0) == 0) a.memory_kb[pid].first = kb_value(value);
      if (value.rfind("VmSwap:", 0) == 0) a.memory_kb[pid].second = kb_value(value);
    } else {
      a.files[path] = value;
    }
  }
  return a;
}

Json truth(const Device& dev) {
  const auto t = jank::rig::parse_json(dev.truth_json());
  REQUIRE(t);
  return *t;
}

const Json& app_truth(const Json& t, const char* pkg) {
  for (const Json& a : t["apps"].arr) {
    if (a["package"].str == pkg) return a["proc"];
  }
  FAIL("no app " << pkg);
  static const Json none;
  return none;
}

// The truth's name of a thread: "main" for the process's own, the binder
// pool's threads together, else its comm.
std::string thread_key(std::int32_t pid, const parsers::TaskStat& t) {
  if (t.id == pid) return "main";
  if (t.name.rfind("Binder", 0) == 0 || t.name.rfind("binder", 0) == 0) return "binder";
  return t.name;
}

void check_cpu_line(const parsers::CpuTimes& c, const Json& t) {
  CHECK(c.user == t["user"].u64());
  CHECK(c.nice == t["nice"].u64());
  CHECK(c.system == t["system"].u64());
  CHECK(c.idle == t["idle"].u64());
  CHECK(c.iowait == t["iowait"].u64());
  CHECK(c.irq == t["irq"].u64());
  CHECK(c.softirq == t["softirq"].u64());
  CHECK(c.steal == t["steal"].u64());
}

std::optional<std::uint64_t> number(const Answers& a, const std::string& path) {
  const auto it = a.files.find(path);
  if (it == a.files.end()) return std::nullopt;
  return parsers::parse_sysfs_number(it->second + "\n");
}

bool has_error(const Answers& a, const std::string& text) {
  return std::find(a.errors.begin(), a.errors.end(), text) != a.errors.end();
}

// Everything the poll answered, read with the exporter's parsers, equals
// what the truth says was answered.
void check_against_truth(const Device& dev, const Answers& a) {
  const Json t = truth(dev);
  const Json& res = t["devices"][0].type == Json::Type::null ? t["resources"] : t["devices"][0]["resources"];
  CHECK(a.malformed == 0);
  const parsers::ProcStat ps = parsers::parse_proc_stat(a.proc_stat);
  CHECK(ps.malformed_lines == 0);
  REQUIRE(ps.all);
  check_cpu_line(*ps.all, res["proc_stat_ticks"]["cpu"]);
  for (const parsers::CpuTimes& c : ps.cores) {
    INFO("cpu" << *c.core);
    check_cpu_line(c, res["proc_stat_ticks"]["cpu" + std::to_string(*c.core)]);
  }
  for (const char* pkg : {kFeed, kGame}) {
    INFO(pkg);
    const std::int32_t pid = pid_of(dev, pkg);
    const Json& pt = app_truth(t, pkg);
    REQUIRE(a.procs.contains(pid));
    const parsers::TaskStat& p = a.procs.at(pid);
    CHECK(p.user_ticks == pt["user_ticks"].u64());
    CHECK(p.system_ticks == pt["system_ticks"].u64());
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> by_key;
    std::uint64_t live_user = 0;
    std::int64_t threads = 0;
    for (const auto& [ids, k] : a.tasks) {
      if (ids.first != pid) continue;
      auto& [u, s] = by_key[thread_key(pid, k)];
      u += k.user_ticks;
      s += k.system_ticks;
      live_user += k.user_ticks;
      ++threads;
      CHECK(k.threads == p.threads);
      CHECK(k.start_ticks == p.start_ticks);
    }
    CHECK(threads == p.threads);
    CHECK(p.user_ticks >= live_user);  // threads that exited stay in the process's time
    CHECK(by_key.size() == pt["threads"].size());
    for (const auto& [key, v] : by_key) {
      INFO(key);
      CHECK(v.first == pt["threads"][key]["user_ticks"].u64());
      CHECK(v.second == pt["threads"][key]["system_ticks"].u64());
    }
    REQUIRE(a.memory_kb.contains(pid));
    CHECK(a.memory_kb.at(pid).first * 1024 == pt["vm_rss_bytes"].u64());
    CHECK(a.memory_kb.at(pid).second * 1024 == pt["vm_swap_bytes"].u64());
    CHECK(p.rss_pages * 4 == a.memory_kb.at(pid).first);  // 4 KiB pages
  }
  const bool policies = dev.kernel().at_least(4, 4);
  for (const Json& pol : res["cpufreq"].arr) {
    const std::string first = std::to_string(pol["policy"].integer());
    const std::string dir = policies ? "/sys/devices/system/cpu/cpufreq/policy" + first + "/"
                                     : "/sys/devices/system/cpu/cpu" + first + "/cpufreq/";
    INFO(dir);
    CHECK(number(a, dir + "scaling_cur_freq") == pol["scaling_cur_freq_khz"].u64());
    CHECK(number(a, dir + "scaling_max_freq") == pol["scaling_max_freq_khz"].u64());
    CHECK(number(a, dir + "cpuinfo_max_freq") == pol["cpuinfo_max_freq_khz"].u64());
    std::string cpus;
    for (const Json& c : pol["cpus"].arr) cpus += (cpus.empty() ? "" : " ") + std::to_string(c.integer());
    CHECK(a.files.at(dir + "related_cpus") == cpus);
  }
  const Json& gpu = res["gpu_answers"];
  if (a.files.contains("/sys/class/kgsl/kgsl-3d0/gpuclk")) {
    CHECK(number(a, "/sys/class/kgsl/kgsl-3d0/gpuclk") == gpu["gpuclk_hz"].u64());
    CHECK(number(a, "/sys/class/kgsl/kgsl-3d0/max_gpuclk") == gpu["max_gpuclk_hz"].u64());
    std::uint64_t busy = 0, total = 0;
    REQUIRE(std::sscanf(a.files.at("/sys/class/kgsl/kgsl-3d0/gpubusy").c_str(), "%lu %lu", &busy, &total) == 2);
    CHECK(busy == gpu["gpubusy_busy"].u64());
    CHECK(total == gpu["gpubusy_total"].u64());
  } else {
    CHECK(gpu["gpuclk_hz"].type == Json::Type::null);
  }
  const auto current = a.files.find("/sys/class/power_supply/battery/current_now");
  if (current != a.files.end()) {
    CHECK(std::stoll(current->second) == res["current_now_ua"].integer());
  } else {
    CHECK(res["current_now_ua"].type == Json::Type::null);
  }
}

}  // namespace

TEST_CASE("devsim resources: the exporter's poll answers on every release and reads back to the truth", "[resources]") {
  for (int sdk = 21; sdk <= 36; ++sdk) {
    INFO("sdk " << sdk);
    ManualClock clock;
    Device dev(phone(sdk), clock);
    run_for(dev, clock, 30'000);
    const bool per_cpu = !dev.kernel().at_least(4, 4);
    // A terminal (adbd's PTY) keeps each grep's stderr in order with its stdout.
    ShellResult r = run_shell(dev, contract(dev, per_cpu), true);
    CHECK(r.err.empty());
    CHECK(r.exit == 0);  // the last grep's
    Answers a = parse(r.out);
    check_against_truth(dev, a);
    // Every app thread was there: 14 of an app (its start-up AsyncTask ended), 21 of a game.
    CHECK(a.procs.at(pid_of(dev, kFeed)).threads == 14);
    CHECK(a.procs.at(pid_of(dev, kGame)).threads == 21);
    CHECK(a.procs.at(pid_of(dev, kGame)).name == "cent.tmgp.sgame");  // the tail 15 bytes
    // The GPU's kgsl nodes: readable where SELinux lets the shell (below),
    // the Mali patterns match nothing on an Adreno phone and stay as typed.
    const bool gpu = sdk <= 23 || sdk >= 33;
    CHECK(a.files.contains("/sys/class/kgsl/kgsl-3d0/gpuclk") == gpu);
    CHECK(has_error(a, "grep: /sys/class/kgsl/kgsl-3d0/gpubusy: Permission denied") == !gpu);
    CHECK(has_error(a, "grep: /sys/class/devfreq/*.mali/cur_freq: No such file or directory"));
    CHECK(a.errors.size() == (gpu ? 2u : 5u));
    CHECK(a.files.contains("/sys/class/power_supply/battery/current_now"));
    // A second poll 10 s later: the truth follows the newest answers.
    run_for(dev, clock, 10'000);
    r = run_shell(dev, contract(dev, per_cpu), true);
    const Answers b = parse(r.out);
    check_against_truth(dev, b);
    const std::int32_t feed = pid_of(dev, kFeed);
    // The app drew all along: its main thread used a quarter of a core (85 % user).
    CHECK(b.tasks.at({feed, feed}).user_ticks - a.tasks.at({feed, feed}).user_ticks == Approx(212.5).margin(1));
    CHECK(b.tasks.at({feed, feed}).system_ticks - a.tasks.at({feed, feed}).system_ticks == Approx(37.5).margin(1));
  }
}

TEST_CASE("devsim resources: a real poll's bytes on Android 13 and 6.0", "[resources]") {
  ManualClock clock;
  Device a13(phone(33), clock);
  run_for(a13, clock, 30'000);
  const std::string f = std::to_string(pid_of(a13, kFeed));
  ShellResult r = run_shell(a13, "grep -H ^cpu /proc/stat 2>&1; grep -H ^ /proc/" + f + "/stat /proc/" + f +
                                     "/task/*/stat /sys/class/kgsl/kgsl-3d0/gpubusy /sys/class/devfreq/*.mali/cur_freq "
                                     "/sys/class/power_supply/battery/current_now 2>&1; grep -H -e ^VmRSS -e ^VmSwap "
                                     "/proc/" +
                                     f + "/status 2>&1");
  const std::string& out = r.out;
  CHECK(out.rfind("/proc/stat:cpu  ", 0) == 0);
  CHECK(out.find("\n/proc/stat:cpu7 ") != std::string::npos);
  CHECK(out.find("\n/proc/" + f + "/stat:" + f + " (om.example.feed) S ") != std::string::npos);
  CHECK(out.find("\n/proc/" + f + "/task/" + std::to_string(pid_of(a13, kFeed) + 17) +
                 "/stat:" + std::to_string(pid_of(a13, kFeed) + 17) + " (RenderThread) S ") != std::string::npos);
  CHECK(out.find(" (binder:" + f + "_1) S ") != std::string::npos);
  CHECK(out.find("\n/sys/class/kgsl/kgsl-3d0/gpubusy: ") != std::string::npos);
  CHECK(out.find("\ngrep: /sys/class/devfreq/*.mali/cur_freq: No such file or directory\n"
                 "/sys/class/power_supply/battery/current_now:-") != std::string::npos);
  CHECK(out.find("\n/proc/" + f + "/status:VmRSS:\t  ") != std::string::npos);
  CHECK(r.exit == 0);
  // Android 6.0: a 3.18 kernel's 52 fields with an unprivileged reader's
  // wchan, toolbox's binder names, no RssAnon in status.
  Device a6(phone(23), clock);
  run_for(a6, clock, 30'000);
  const std::string p6 = std::to_string(pid_of(a6, kFeed));
  r = run_shell(a6, "grep -H ^ /proc/" + p6 + "/stat /proc/" + p6 + "/task/*/stat /proc/" + p6 + "/status 2>&1", true);
  CHECK(r.out.find(" 4612 1 1073775864 18446744073709551615 0 0 17 ") != std::string::npos);
  CHECK(r.out.find(" (Binder_1) S ") != std::string::npos);
  CHECK(r.out.find("RssAnon") == std::string::npos);
  CHECK(r.out.find("/proc/" + p6 + "/status:VmRSS:") != std::string::npos);
  const std::string line = r.out.substr(0, r.out.find('\n'));
  CHECK(std::count(line.begin(), line.end(), ' ') == 51);  // 52 fields
}

TEST_CASE("devsim resources: mksh expands patterns against the device's files", "[resources]") {
  ManualClock clock;
  Device dev(phone(33), clock);
  run_for(dev, clock, 1'000);
  const std::int32_t pid = pid_of(dev, kFeed);
  // Sorted as strcmp sorts, a leading dot only for a leading dot; quoted
  // or escaped patterns are words as they are.
  CHECK(run_shell(dev, "echo /sys/devices/system/cpu/cpu[0-9]*").out ==
        "/sys/devices/system/cpu/cpu0 /sys/devices/system/cpu/cpu1 /sys/devices/system/cpu/cpu2 "
        "/sys/devices/system/cpu/cpu3 /sys/devices/system/cpu/cpu4 /sys/devices/system/cpu/cpu5 "
        "/sys/devices/system/cpu/cpu6 /sys/devices/system/cpu/cpu7\n");
  CHECK(run_shell(dev, "echo /sys/devices/system/cpu/cpufreq/policy?").out ==
        "/sys/devices/system/cpu/cpufreq/policy0 /sys/devices/system/cpu/cpufreq/policy4 "
        "/sys/devices/system/cpu/cpufreq/policy7\n");
  CHECK(run_shell(dev, "echo '/sys/devices/system/cpu/cpufreq/policy*' \"/proc/*/stat\" /proc/\\*/stat").out ==
        "/sys/devices/system/cpu/cpufreq/policy* /proc/*/stat /proc/*/stat\n");
  CHECK(run_shell(dev, "echo /sys/class/power_supply/[!u]*/type /sys/class/power_supply/[a-b]*y").out ==
        "/sys/class/power_supply/battery/type /sys/class/power_supply/battery\n");
  std::string tids;
  std::vector<std::string> sorted;
  for (const int off : {0, 5, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}) {
    sorted.push_back("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid + off) + "/stat");
  }
  std::sort(sorted.begin(), sorted.end());
  for (const auto& s : sorted) tids += (tids.empty() ? "" : " ") + s;
  CHECK(run_shell(dev, "echo /proc/" + std::to_string(pid) + "/task/*/stat").out == tids + "\n");
  // No match: the word stays; a literal tail after a pattern must exist.
  CHECK(run_shell(dev, "echo /proc/1/task/*/nosuch /sys/nosuch/* *:S").out ==
        "/proc/1/task/*/nosuch /sys/nosuch/* *:S\n");
  CHECK(run_shell(dev, "echo /proc/[0-9]*/stat").out.find("/proc/1/stat /proc/") != std::string::npos);
  // A 3.18 kernel has no policy directories: the pattern stays and grep says so.
  Device old(phone(24), clock);
  ShellResult r = run_shell(old, "grep -H ^ /sys/devices/system/cpu/cpufreq/policy*/scaling_max_freq");
  CHECK(r.err == "grep: /sys/devices/system/cpu/cpufreq/policy*/scaling_max_freq: No such file or directory\n");
  CHECK(r.exit == 2);
  r = run_shell(old, "grep -h ^ /sys/devices/system/cpu/cpu[0-9]*/cpufreq/cpuinfo_max_freq");
  CHECK(r.out == "1804800\n1804800\n1804800\n1804800\n2419200\n2419200\n2419200\n2995200\n");
  // From 4.4 both layouts resolve (cpuN/cpufreq links to the policy).
  r = run_shell(dev,
                "grep -h ^ /sys/devices/system/cpu/cpu[0-9]*/cpufreq/cpuinfo_max_freq "
                "/sys/devices/system/cpu/cpufreq/policy*/cpuinfo_max_freq");
  CHECK(r.out == "1804800\n1804800\n1804800\n1804800\n2419200\n2419200\n2419200\n2995200\n1804800\n2419200\n2995200\n");
}

TEST_CASE("devsim resources: grep's options, patterns and each release's exit status", "[resources]") {
  ManualClock clock;
  for (const int sdk : {23, 29, 30, 34}) {
    INFO("sdk " << sdk);
    Device dev(phone(sdk), clock);
    run_for(dev, clock, 1'000);
    const bool toybox = sdk >= 30;
    // One file: no name unless -H; -e repeats; ^ anchors, -F takes it literally.
    CHECK(run_shell(dev, "grep -e ^cpu0 -e ^cpu7 /proc/stat").out.find("cpu0 ") == 0);
    CHECK(run_shell(dev, "grep -F ^cpu /proc/stat").exit == 1);
    CHECK(run_shell(dev, "grep ctxt /proc/stat").out.rfind("ctxt ", 0) == 0);
    CHECK(run_shell(dev, "grep -H ^btime /proc/stat").out.rfind("/proc/stat:btime ", 0) == 0);
    CHECK(run_shell(dev, "grep ^ /proc/uptime /proc/sys/kernel/random/boot_id").out ==
          run_shell(dev, "grep -H ^ /proc/uptime /proc/sys/kernel/random/boot_id").out);
    CHECK(run_shell(dev, "grep -h ^ /proc/uptime /proc/sys/kernel/random/boot_id").out.find(':') == std::string::npos);
    // A missing file: 2 on both greps, even with a match.
    ShellResult r = run_shell(dev, "grep -H ^cpu /proc/stat /proc/99999/stat");
    CHECK(r.err == "grep: /proc/99999/stat: No such file or directory\n");
    CHECK(r.exit == 2);
    r = run_shell(dev, "grep -s ^cpu /proc/stat /proc/99999/stat");
    CHECK(r.err.empty());
    CHECK(r.exit == 2);
    // A file it may not open: toybox 2, NetBSD by the match (only ENOENT counts).
    const ShellResult denied = run_shell(dev, "grep -H ^cpu /proc/stat /proc/1/smaps /proc/1/mem");
    CHECK(denied.err == "grep: /proc/1/smaps: Permission denied\ngrep: /proc/1/mem: Permission denied\n");
    CHECK(denied.exit == (toybox ? 2 : 0));
    CHECK(run_shell(dev, "grep -H ^nomatch /proc/stat /proc/1/mem").exit == (toybox ? 2 : 1));
    // A read error after open (EBUSY, EISDIR) never counts as unopened.
    r = run_shell(dev, "grep -H ^cpu /proc/stat /proc");
    CHECK(r.err == "grep: /proc: Is a directory\n");
    CHECK(r.exit == 0);
    CHECK(run_shell(dev, "grep -Q x /proc/stat").exit == 2);
    CHECK(run_shell(dev, "grep").exit == 2);
  }
}

TEST_CASE("devsim resources: 2>&1 puts grep's errors where each release's buffering does", "[resources]") {
  ManualClock clock;
  // A poll whose first file is long and whose second is gone.
  for (const int sdk : {26, 29, 30, 31, 32, 33, 36}) {
    INFO("sdk " << sdk);
    Device dev(phone(sdk), clock);
    run_for(dev, clock, 1'000);
    const std::string game = std::to_string(pid_of(dev, kGame));
    const std::string cmd = "grep -H ^ /proc/" + game + "/task/*/stat /proc/99999/stat /proc/stat";
    const ShellResult apart = run_shell(dev, cmd);  // stdout and stderr apart
    REQUIRE(apart.out.size() > 4096);
    const std::string err = "grep: /proc/99999/stat: No such file or directory\n";
    CHECK(apart.err == err);
    const std::size_t before = apart.out.find("/proc/stat:");
    const ShellResult merged = run_shell(dev, cmd + " 2>&1");
    CHECK(merged.err.empty());
    std::string expected = apart.out;
    if (sdk <= 30) {
      // Full buffering (NetBSD grep; toybox 0.8.3): the error went out
      // while the last 4096-byte block was still held.
      expected.insert(before / 4096 * 4096, err);
    } else if (sdk <= 32) {
      // toybox 0.8.4: written before the newline of the line before it.
      expected.insert(before - 1, err);
    } else {
      expected.insert(before, err);
    }
    CHECK(merged.out == expected);
    // A terminal (adbd's PTY) line-buffers every release's stdout.
    std::string in_order = apart.out;
    in_order.insert(before, err);
    CHECK(run_shell(dev, cmd + " 2>&1", true).out == in_order);
    // NetBSD's --line-buffered fixes the order; toybox 0.8.3/0.8.4 accept and ignore it.
    const ShellResult lb =
        run_shell(dev, "grep --line-buffered -H ^ /proc/" + game + "/task/*/stat /proc/99999/stat /proc/stat 2>&1");
    CHECK((lb.out == in_order) == (sdk <= 29 || sdk >= 33));
  }
}

TEST_CASE("devsim resources: a dead process, a crash and a reboot", "[resources]") {
  ManualClock clock;
  Device dev(phone(34), clock);
  run_for(dev, clock, 20'000);
  const std::int32_t old = pid_of(dev, kFeed);
  const std::string p = std::to_string(old);
  const std::string poll = "grep -H ^ /proc/" + p + "/stat /proc/" + p + "/task/*/stat 2>&1";
  Answers a = parse(run_shell(dev, poll).out);
  const std::uint64_t old_user = a.procs.at(old).user_ticks, old_main = a.tasks.at({old, old}).user_ticks;
  REQUIRE(old_user > 0);
  REQUIRE(dev.restart_app(kFeed));
  run_for(dev, clock, 5'000);
  // The old pid is gone: its stat and the task pattern (left as typed).
  ShellResult r = run_shell(dev, poll);
  CHECK(r.out == "grep: /proc/" + p + "/stat: No such file or directory\ngrep: /proc/" + p +
                     "/task/*/stat: No such file or directory\n");
  CHECK(r.exit == 2);
  // The new process counts from 0 and started now; the truth keeps the old
  // one's last answer beside the new one's.
  const std::int32_t now = pid_of(dev, kFeed);
  CHECK(now != old);
  const std::string q = std::to_string(now);
  a = parse(run_shell(dev, "grep -H ^ /proc/" + q + "/stat /proc/" + q + "/task/*/stat").out);
  const parsers::TaskStat& fresh = a.procs.at(now);
  // 5 s of its threads' user time: 0.636 of a core (the start-up thread's 0.255 with the drawing ones').
  CHECK(fresh.user_ticks == Approx(318).margin(2));
  CHECK(fresh.start_ticks == static_cast<std::uint64_t>((dev.sim_now() - 5'000'000'000) / 10'000'000));
  const Json t = truth(dev);
  CHECK(app_truth(t, kFeed)["user_ticks"].u64() == old_user + fresh.user_ticks);
  CHECK(app_truth(t, kFeed)["threads"]["main"]["user_ticks"].u64() == old_main + a.tasks.at({now, now}).user_ticks);

  // A reboot: every count from zero; an exact reader of /proc/stat adds
  // the last answer of each boot, as the truth does.
  const parsers::ProcStat before = parsers::parse_proc_stat(run_shell(dev, "cat /proc/stat").out);
  dev.reboot(0);
  run_for(dev, clock, 2'000);
  const parsers::ProcStat after = parsers::parse_proc_stat(run_shell(dev, "cat /proc/stat").out);
  CHECK(after.all->idle < before.all->idle);
  CHECK(after.all->idle > 0);
  const Json t2 = truth(dev);
  CHECK(t2["resources"]["proc_stat_ticks"]["cpu3"]["idle"].u64() == before.cores[3].idle + after.cores[3].idle);
  CHECK(t2["resources"]["proc_stat_ticks"]["cpu"]["user"].u64() == before.all->user + after.all->user);
  // The app's processes of the old boot keep their last answers.
  CHECK(app_truth(t2, kFeed)["user_ticks"].u64() == old_user + fresh.user_ticks);
}

TEST_CASE("devsim resources: counts depend on the time only, not on how often it is looked at", "[resources]") {
  ManualClock c1, c2;
  Device a(phone(33), c1), b(phone(33), c2);
  run_for(a, c1, 25'000, 25'000);
  run_for(b, c2, 25'000, 37);
  const std::string p = std::to_string(pid_of(a, kGame));
  REQUIRE(pid_of(a, kGame) == pid_of(b, kGame));
  const std::string cmd = "cat /proc/stat /proc/" + p + "/stat /proc/" + p + "/task/" +
                          std::to_string(pid_of(a, kGame) + 21) + "/stat /proc/" + p + "/status";
  const ShellResult ra = run_shell(a, cmd), rb = run_shell(b, cmd);
  CHECK(ra.out == rb.out);
  CHECK(ra.out.find("(UnityMain)") != std::string::npos);
  // And every counter only grows within a boot.
  const parsers::ProcStat s1 = parsers::parse_proc_stat(run_shell(a, "cat /proc/stat").out);
  run_for(a, c1, 3'000, 700);
  const parsers::ProcStat s2 = parsers::parse_proc_stat(run_shell(a, "cat /proc/stat").out);
  for (std::size_t i = 0; i < s1.cores.size(); ++i) {
    CHECK(s2.cores[i].user >= s1.cores[i].user);
    CHECK(s2.cores[i].idle > s1.cores[i].idle);
    CHECK(s2.cores[i].total() - s1.cores[i].total() == Approx(300).margin(7));
  }
}

TEST_CASE("devsim resources: threads, memory and the status file per kernel", "[resources]") {
  ManualClock clock;
  Device dev(phone(28), clock);
  const std::string p = std::to_string(pid_of(dev, kFeed));
  run_for(dev, clock, 5'000);
  // The start-up thread lives its first 10 s; its time stays with the process.
  CHECK(run_shell(dev, "cat /proc/" + p + "/task/" + std::to_string(pid_of(dev, kFeed) + 20) + "/comm").out ==
        "AsyncTask #1\n");
  Answers a = parse(run_shell(dev, "grep -H ^ /proc/" + p + "/stat /proc/" + p + "/task/*/stat").out);
  CHECK(a.procs.begin()->second.threads == 15);
  run_for(dev, clock, 10'000);
  const ShellResult gone =
      run_shell(dev, "cat /proc/" + p + "/task/" + std::to_string(pid_of(dev, kFeed) + 20) + "/stat");
  CHECK(gone.err.find("No such file or directory") != std::string::npos);
  Answers b = parse(run_shell(dev, "grep -H ^ /proc/" + p + "/stat /proc/" + p + "/task/*/stat").out);
  std::uint64_t live = 0;
  for (const auto& [ids, k] : b.tasks) live += k.user_ticks + k.system_ticks;
  const parsers::TaskStat& whole = b.procs.begin()->second;
  CHECK(whole.threads == 14);
  // 10 s at 0.3 of a core: ~300 ticks that no live thread shows.
  CHECK(whole.user_ticks + whole.system_ticks - live == Approx(300).margin(16));
  // Its last answer stays in the truth under its name.
  CHECK(app_truth(truth(dev), kFeed)["threads"]["AsyncTask #1"]["user_ticks"].u64() ==
        a.tasks.at({pid_of(dev, kFeed), pid_of(dev, kFeed) + 20}).user_ticks);
  // status: the 4.9 kernel's lines, RSS in kB summing up, the same as stat's pages.
  const std::string status = run_shell(dev, "cat /proc/" + p + "/status").out;
  for (const char* key : {"Name:\tom.example.feed\n", "State:\tS (sleeping)\n", "Tgid:\t", "Pid:\t", "PPid:\t",
                          "Uid:\t10100\t10100\t10100\t10100\n", "VmPeak:\t", "VmSize:\t", "VmHWM:\t", "VmRSS:\t",
                          "RssAnon:\t", "RssFile:\t", "RssShmem:\t", "VmSwap:\t", "Threads:\t14\n", "Umask:\t0077\n"}) {
    CHECK(status.find(key) != std::string::npos);
  }
  auto field = [&](const std::string& key) { return kb_value(status.substr(status.find("\n" + key + ":") + 1)); };
  CHECK(field("VmRSS") == field("RssAnon") + field("RssFile") + field("RssShmem"));
  CHECK(field("VmHWM") >= field("VmRSS"));
  CHECK(field("VmRSS") > 150 * 1024);
  CHECK(field("VmRSS") < 420 * 1024);
  CHECK(field("VmRSS") == whole.rss_pages * 4);
  // 8.x's 4.4 kernel has no RssAnon yet, 5.0 later kernels more lines.
  Device oreo(phone(26), clock);
  CHECK(run_shell(oreo, "cat /proc/" + std::to_string(pid_of(oreo, kFeed)) + "/status").out.find("RssAnon") ==
        std::string::npos);
}

TEST_CASE("devsim resources: smaps_rollup is denied where the kernel has it, missing before", "[resources]") {
  ManualClock clock;
  for (int sdk = 21; sdk <= 36; ++sdk) {
    INFO("sdk " << sdk);
    Device dev(phone(sdk), clock);
    const std::string path = "/proc/" + std::to_string(pid_of(dev, kFeed)) + "/smaps_rollup";
    const ShellResult r = run_shell(dev, "cat " + path);
    CHECK(r.err == "cat: " + path + (sdk >= 29 ? ": Permission denied\n" : ": No such file or directory\n"));
    CHECK(r.exit == 1);
    CHECK(r.out.empty());
    // stat, status and the task files stay readable to the shell.
    CHECK(run_shell(dev, "cat /proc/" + std::to_string(pid_of(dev, kFeed)) + "/statm").exit == 0);
  }
  // adb root: permitted, the process's rollup.
  DeviceConfig c = phone(33);
  c.root_build = true;
  Device root(c, clock);
  const ShellResult r = run_shell(root, "cat /proc/" + std::to_string(pid_of(root, kFeed)) + "/smaps_rollup");
  CHECK(r.out.find("[rollup]\nRss:  ") != std::string::npos);
  CHECK(r.exit == 0);
}

TEST_CASE("devsim resources: GPU nodes per release, GPU and vendor label", "[resources]") {
  ManualClock clock;
  const std::string kgsl =
      "grep -H ^ /sys/class/kgsl/kgsl-3d0/gpuclk /sys/class/kgsl/kgsl-3d0/max_gpuclk "
      "/sys/class/kgsl/kgsl-3d0/gpubusy /sys/class/kgsl/kgsl-3d0/gpu_busy_percentage";
  const std::string mali =
      "grep -H ^ /sys/class/devfreq/*.mali/cur_freq /sys/class/devfreq/*.mali/max_freq "
      "/sys/class/misc/mali0/device/gpuinfo";
  for (int sdk = 21; sdk <= 36; ++sdk) {
    INFO("sdk " << sdk);
    Device adreno(phone(sdk), clock);
    run_for(adreno, clock, 2'000);
    ShellResult r = run_shell(adreno, kgsl);
    // Adreno labelled sysfs_gpu: AOSP lets app domains read it from 13.
    if (sdk <= 23 || sdk >= 33) {
      CHECK(r.exit == 0);
      std::uint64_t busy = 0, total = 0, pct = 0;
      const std::size_t at = r.out.find("gpubusy:");
      REQUIRE(at != std::string::npos);
      CHECK(std::sscanf(r.out.c_str() + at + 8, "%lu %lu", &busy, &total) == 2);
      CHECK(total > 1'000'000);
      CHECK(busy == total * 570'000 / 1'000'000);  // an app and a game drawing
      CHECK(std::sscanf(r.out.c_str() + r.out.find("percentage:") + 11, "%lu %%", &pct) == 1);
      CHECK(pct == busy * 100 / total);
      CHECK(r.out.find("/sys/class/kgsl/kgsl-3d0/max_gpuclk:750000000\n") != std::string::npos);
    } else {
      CHECK(r.out.empty());
      CHECK(r.err.find("grep: /sys/class/kgsl/kgsl-3d0/gpuclk: Permission denied\n") == 0);
      CHECK(r.exit == (sdk >= 30 ? 2 : 1));
    }
    adreno.set_sysfs_labels(SysfsLabel::sysfs, std::nullopt);
    CHECK((run_shell(adreno, kgsl).exit == 0) == (sdk <= 23));
    // Mali's devfreq node: sysfs_devfreq_cur from 12, plain sysfs before;
    // from 7.0 the shell may not even stat it, so the pattern stays.
    Device m(phone(sdk, GpuKind::mali), clock);
    run_for(m, clock, 2'000);
    r = run_shell(m, mali);
    if (sdk <= 23) {
      CHECK(r.out.find("/sys/class/devfreq/13000000.mali/cur_freq:") == 0);
      CHECK(r.out.find("/sys/class/devfreq/13000000.mali/max_freq:848000000\n") != std::string::npos);
      CHECK(r.out.find("/sys/class/misc/mali0/device/gpuinfo:Mali-G78 20 cores r1p1 0x9091\n") != std::string::npos);
    } else {
      CHECK(r.err ==
            "grep: /sys/class/devfreq/*.mali/cur_freq: No such file or directory\n"
            "grep: /sys/class/devfreq/*.mali/max_freq: No such file or directory\n"
            "grep: /sys/class/misc/mali0/device/gpuinfo: Permission denied\n");
    }
    CHECK(run_shell(m, "grep -H ^ /sys/class/kgsl/kgsl-3d0/gpuclk").err ==
          "grep: /sys/class/kgsl/kgsl-3d0/gpuclk: No such file or directory\n");
    // A vendor that labels its Mali nodes sysfs_gpu: readable from 13.
    m.set_sysfs_labels(SysfsLabel::sysfs_gpu, std::nullopt);
    CHECK((run_shell(m, mali).exit == 0) == (sdk <= 23 || sdk >= 33));
    // No GPU nodes at all.
    Device none(phone(sdk, GpuKind::none), clock);
    CHECK(run_shell(none, "grep -H ^ /sys/class/devfreq/*.mali/cur_freq /sys/class/kgsl/kgsl-3d0/gpuclk").exit == 2);
  }
}

TEST_CASE("devsim resources: the GPU follows load, screen and throttling", "[resources]") {
  ManualClock clock;
  Device dev(phone(34), clock);
  run_for(dev, clock, 2'000);
  auto clk = [&](const char* node) {
    return parsers::parse_sysfs_number(run_shell(dev, std::string("cat /sys/class/kgsl/kgsl-3d0/") + node).out);
  };
  // 0.57 of the GPU × 1.25 of headroom of 750 MHz: the 596 MHz level.
  CHECK(clk("gpuclk") == 596'000'000u);
  dev.set_idle(kGame, true);
  CHECK(clk("gpuclk") == 180'000'000u);  // 0.12 × 1.25 × 750 MHz
  dev.set_screen(Screen::off);
  CHECK(run_shell(dev, "cat /sys/class/kgsl/kgsl-3d0/gpubusy").out == "      0       0\n");
  dev.set_screen(Screen::on);
  dev.set_idle(kGame, false);
  dev.thermal_episode(4, -1);  // critical: 60 % of the top clock
  CHECK(clk("max_gpuclk") == 414'000'000u);
  CHECK(clk("gpuclk") == 414'000'000u);
  dev.end_thermal_episode();
  CHECK(clk("max_gpuclk") == 750'000'000u);
  CHECK(truth(dev)["resources"]["gpu_answers"]["max_gpuclk_hz"].u64() == 750'000'000u);
}

TEST_CASE("devsim resources: cpufreq follows load, caps, throttling and hotplug", "[resources]") {
  ManualClock clock;
  Device dev(phone(33), clock);
  run_for(dev, clock, 12'000);  // the start-up threads are gone
  const std::string dir = "/sys/devices/system/cpu/cpufreq/";
  auto khz = [&](const std::string& path) {
    return parsers::parse_sysfs_number(run_shell(dev, "cat " + dir + path).out);
  };
  CHECK(khz("policy4/scaling_max_freq") == 2'419'200u);
  CHECK(khz("policy0/cpuinfo_min_freq") == 300'000u);
  CHECK(run_shell(dev, "cat " + dir + "policy0/scaling_available_frequencies").out.rfind("300000 576000 ", 0) == 0);
  CHECK(run_shell(dev, "cat " + dir + "policy4/related_cpus " + dir + "policy4/affected_cpus").out == "4 5 6\n4 5 6\n");
  // cpuinfo_cur_freq is 0400: root's.
  ShellResult r = run_shell(dev, "cat " + dir + "policy0/cpuinfo_cur_freq");
  CHECK(r.err == "cat: " + dir + "policy0/cpuinfo_cur_freq: Permission denied\n");
  // The little cores idle along at a low clock; the big one follows the load.
  CHECK(khz("policy0/scaling_cur_freq") == 576'000u);
  const auto busy = khz("policy4/scaling_cur_freq");
  dev.set_idle(kFeed, true);
  dev.set_idle(kGame, true);
  CHECK(khz("policy4/scaling_cur_freq") < busy);
  CHECK(khz("policy4/scaling_cur_freq") == 710'400u);
  dev.set_idle(kFeed, false);
  dev.set_idle(kGame, false);
  // The control's cap, resolved to the OPP table; then back.
  CHECK(dev.set_cpufreq_cap(4, 1'600'000).empty());
  CHECK(khz("policy4/scaling_max_freq") == 1'574'400u);
  CHECK(khz("policy4/scaling_cur_freq") == 1'574'400u);
  CHECK(khz("policy0/scaling_max_freq") == 1'804'800u);
  CHECK(dev.set_cpufreq_cap(4, 0).empty());
  CHECK(khz("policy4/scaling_max_freq") == 2'419'200u);
  CHECK(dev.set_cpufreq_cap(5, 1'000'000) == "no policy5");
  CHECK(dev.set_cpufreq_cap(7, 100) == "max for policy7 must be 844800..2995200 kHz");
  // Severe (3) caps the mid and big clusters at 75 % of their top clocks.
  dev.thermal_episode(3, -1);
  CHECK(khz("policy0/scaling_max_freq") == 1'804'800u);
  CHECK(khz("policy4/scaling_max_freq") == 1'766'400u);
  CHECK(khz("policy7/scaling_max_freq") == 2'227'200u);
  dev.thermal_episode(2, -1);
  CHECK(khz("policy7/scaling_max_freq") == 2'995'200u);
  dev.end_thermal_episode();
  // Hotplug: an offline core has no cpuN line and its counts stop.
  const parsers::ProcStat s1 = parsers::parse_proc_stat(run_shell(dev, "cat /proc/stat").out);
  REQUIRE(s1.cores.size() == 8);
  CHECK(dev.set_core_online(5, false).empty());
  run_for(dev, clock, 3'000);
  const parsers::ProcStat s2 = parsers::parse_proc_stat(run_shell(dev, "cat /proc/stat").out);
  REQUIRE(s2.cores.size() == 7);
  CHECK(*s2.cores[5].core == 6);
  CHECK(run_shell(dev,
                  "cat /sys/devices/system/cpu/online /sys/devices/system/cpu/offline "
                  "/sys/devices/system/cpu/cpu5/online " +
                      dir + "policy4/affected_cpus")
            .out == "0-4,6-7\n5\n0\n4 6\n");
  CHECK(truth(dev)["resources"]["proc_stat_ticks"]["cpu5"]["idle"].u64() == s1.cores[5].idle);
  CHECK(dev.set_core_online(5, true).empty());
  run_for(dev, clock, 1'000);
  const parsers::ProcStat s3 = parsers::parse_proc_stat(run_shell(dev, "cat /proc/stat").out);
  REQUIRE(s3.cores.size() == 8);
  CHECK(s3.cores[5].total() - s1.cores[5].total() == Approx(100).margin(7));  // 1 s online since
  // A policy without an online core: EBUSY from the policy's files.
  CHECK(dev.set_core_online(7, false).empty());
  r = run_shell(dev, "grep -H ^ " + dir + "policy7/scaling_cur_freq " + dir + "policy0/scaling_cur_freq");
  CHECK(r.err == "grep: " + dir + "policy7/scaling_cur_freq: Device or resource busy\n");
  CHECK(r.exit == 0);
  CHECK(dev.set_core_online(0, false) == "cpu0 cannot go offline");
  CHECK(dev.set_core_online(8, false) == "no cpu8");
  // Before 4.4 an offline core's cpufreq directory is gone.
  Device old(phone(23), clock);
  CHECK(old.set_core_online(6, false).empty());
  CHECK(run_shell(old, "cat /sys/devices/system/cpu/cpu6/cpufreq/scaling_cur_freq").err ==
        "cat: /sys/devices/system/cpu/cpu6/cpufreq/scaling_cur_freq: No such file or directory\n");
  CHECK(run_shell(old, "cat /sys/devices/system/cpu/cpu5/cpufreq/scaling_cur_freq").exit == 0);
}

TEST_CASE("devsim resources: the cpu control sets the main thread's and RenderThread's time", "[resources]") {
  ManualClock clock;
  Device dev(phone(35), clock);
  run_for(dev, clock, 12'000);
  const std::int32_t pid = pid_of(dev, kFeed);
  const std::string p = std::to_string(pid);
  const std::string cmd =
      "cat /proc/" + p + "/task/" + p + "/stat /proc/" + p + "/task/" + std::to_string(pid + 17) + "/stat";
  auto ticks = [&] {
    const std::string out = run_shell(dev, cmd).out;
    const auto main = parsers::parse_task_stat(out.substr(0, out.find('\n')));
    const auto render = parsers::parse_task_stat(out.substr(out.find('\n') + 1));
    REQUIRE(main);
    REQUIRE(render);
    return std::pair{main->user_ticks + main->system_ticks, render->user_ticks + render->system_ticks};
  };
  CHECK(dev.set_cpu_busy(kFeed, 0.9, 0.0).empty());
  auto [m0, r0] = ticks();
  run_for(dev, clock, 10'000, 250);
  auto [m1, r1] = ticks();
  CHECK(m1 - m0 == Approx(900).margin(1));  // 0.9 s a second, within one tick
  CHECK(r1 - r0 <= 1);
  // Also with the screen off (a control is no drawing), and back to the model.
  dev.set_screen(Screen::off);
  run_for(dev, clock, 2'000);
  auto [m2, r2] = ticks();
  CHECK(m2 - m1 == Approx(180).margin(1));
  CHECK(dev.set_cpu_busy(kFeed, -1, -1).empty());
  run_for(dev, clock, 2'000);
  auto [m3, r3] = ticks();
  CHECK(m3 - m2 <= 1);  // the model: the screen is off
  dev.set_screen(Screen::on);
  run_for(dev, clock, 4'000);
  auto [m4, r4] = ticks();
  CHECK(m4 - m3 == Approx(100).margin(1));  // 0.25 of a core drawing
  CHECK(r4 - r3 == Approx(60).margin(1));   // 0.15
  CHECK(dev.set_cpu_busy("com.nosuch", 0.5, std::nullopt) == "unknown package com.nosuch");
}

TEST_CASE("devsim resources: the battery's power_supply files agree with dumpsys battery", "[resources]") {
  ManualClock clock;
  for (const int sdk : {22, 23, 24, 30, 36}) {
    INFO("sdk " << sdk);
    Device dev(phone(sdk), clock);
    run_for(dev, clock, 60'000);
    const std::string dir = "/sys/class/power_supply/battery/";
    ShellResult r = run_shell(
        dev, "cat " + dir + "current_now " + dir + "voltage_now " + dir + "temp " + dir + "capacity " + dir + "status");
    REQUIRE(r.exit == 0);
    const SimBattery b = dev.battery();
    std::int64_t ua = 0, uv = 0, temp = 0, level = 0;
    char status[32] = {};
    REQUIRE(std::sscanf(r.out.c_str(), "%ld\n%ld\n%ld\n%ld\n%31s", &ua, &uv, &temp, &level, status) == 5);
    // An app and a game on a lit screen: 8 + 3 × 4 % of 4500 mAh an hour, discharging: negative.
    CHECK(ua == -900'000);
    CHECK(uv == b.voltage_mv * 1000);
    CHECK(temp == b.temperature_tenths);
    CHECK(level == b.level);
    CHECK(std::string(status) == "Discharging");
    REQUIRE(dev.set_battery(*parse_battery_control({"plugged=usb"})).empty());
    CHECK(run_shell(dev, "cat " + dir + "current_now").out == "675000\n");  // 15 %/h
    CHECK(truth(dev)["resources"]["current_now_ua"].integer() == 675'000);
    // A vendor that left the files plain sysfs: denied from 7.0.
    dev.set_sysfs_labels(std::nullopt, SysfsLabel::sysfs);
    r = run_shell(dev, "grep -H ^ " + dir + "current_now");
    CHECK(r.exit == (sdk <= 23 ? 0 : sdk >= 30 ? 2 : 1));  // NetBSD grep: only a missing file is 2
    if (sdk >= 24) CHECK(r.err == "grep: " + dir + "current_now: Permission denied\n");
  }
  // A driver of the other sign.
  DeviceConfig c = phone(34);
  c.current_positive_discharging = true;
  Device inverted(c, clock);
  run_for(inverted, clock, 1'000);
  CHECK(run_shell(inverted, "cat /sys/class/power_supply/battery/current_now").out == "900000\n");
  CHECK(truth(inverted)["resources"]["current_now_sign_discharging"].str == "positive");
}

TEST_CASE("devsim resources: options and controls", "[resources]") {
  boost::asio::io_context io;
  ManualClock clock;
  SimOptions o;
  o.devices = 3;
  o.sdk = {33, 30, 34};
  o.packages = {kFeed};
  o.log_rate = 0;
  o.gpu = {GpuKind::adreno, GpuKind::mali, GpuKind::none};
  o.gpu_label = {SysfsLabel::automatic, SysfsLabel::sysfs};
  o.battery_label = {SysfsLabel::sysfs_batteryinfo, SysfsLabel::sysfs};
  o.current_positive_discharging = {false, true};
  Simulator sim(io, o, clock);
  sim.start();
  const auto& d = sim.devices();
  const std::string reply = control(io, sim, "truth");
  REQUIRE(reply.rfind("OK ", 0) == 0);
  const auto t = jank::rig::parse_json(std::string_view(reply).substr(3));
  REQUIRE(t);
  const Json& r0 = (*t)["devices"][0]["resources"];
  const Json& r1 = (*t)["devices"][1]["resources"];
  const Json& r2 = (*t)["devices"][2]["resources"];
  CHECK(r0["gpu"].str == "adreno");
  CHECK(r0["gpu_label"].str == "sysfs_gpu");
  CHECK(r0["kernel"].str == "5.10");
  CHECK(r1["gpu"].str == "mali");
  CHECK(r1["gpu_label"].str == "sysfs");
  CHECK(r1["battery_label"].str == "sysfs");
  CHECK(r1["current_now_sign_discharging"].str == "positive");
  CHECK(r2["gpu"].str == "none");
  CHECK(r2["gpu_label"].str == "sysfs");  // no label of its own: auto is plain sysfs
  CHECK(r2["battery_label"].str == "sysfs_batteryinfo");
  CHECK(r0["online_cores"].size() == 8);
  CHECK(r0["cpufreq"][1]["policy"].integer() == 4);
  CHECK(r0["cpufreq"][1]["scaling_cur_freq_khz"].type == Json::Type::null);  // never answered yet

  Device& a13 = d[0]->model();
  CHECK(control(io, sim, "cpu sim0 com.example.feed main=0.9 render=auto") == "OK");
  CHECK(a13.app(kFeed)->cpu_main_ppm == 900'000u);
  CHECK_FALSE(a13.app(kFeed)->cpu_render_ppm);
  CHECK(control(io, sim, "cpu sim0 com.example.feed main=auto") == "OK");
  CHECK_FALSE(a13.app(kFeed)->cpu_main_ppm);
  CHECK(control(io, sim, "cpu sim0 com.nosuch main=0.5") == "ERR unknown package com.nosuch");
  const std::string cpu_usage = "ERR usage: cpu DEV PKG [main=0..1|auto] [render=0..1|auto]";
  CHECK(control(io, sim, "cpu sim0 com.example.feed") == cpu_usage);
  CHECK(control(io, sim, "cpu sim0 com.example.feed main=1.5") == cpu_usage);
  CHECK(control(io, sim, "cpu sim0 com.example.feed gpu=0.5") == cpu_usage);

  CHECK(control(io, sim, "cpufreq sim0 policy=7 max=1555200") == "OK");
  CHECK(run_shell(a13, "cat /sys/devices/system/cpu/cpufreq/policy7/scaling_max_freq").out == "1555200\n");
  CHECK(control(io, sim, "cpufreq sim0 policy=7 max=auto") == "OK");
  CHECK(run_shell(a13, "cat /sys/devices/system/cpu/cpufreq/policy7/scaling_max_freq").out == "2995200\n");
  CHECK(control(io, sim, "cpufreq sim0 policy=3 max=auto") == "ERR no policy3");
  CHECK(control(io, sim, "cpufreq sim0 policy=7") == "ERR usage: cpufreq DEV policy=N max=KHZ|auto");
  CHECK(control(io, sim, "cpufreq sim0 policy=x max=1") == "ERR usage: cpufreq DEV policy=N max=KHZ|auto");

  CHECK(control(io, sim, "cpu-online * core=3 off") == "OK");
  CHECK(run_shell(d[2]->model(), "cat /sys/devices/system/cpu/online").out == "0-2,4-7\n");
  CHECK(control(io, sim, "cpu-online sim2 core=3 on") == "OK");
  CHECK(control(io, sim, "cpu-online sim0 core=0 off") == "ERR cpu0 cannot go offline");
  CHECK(control(io, sim, "cpu-online sim0 core=3") == "ERR usage: cpu-online DEV core=N on|off");

  CHECK(control(io, sim, "sysfs-label sim0 gpu=sysfs battery=sysfs") == "OK");
  CHECK(run_shell(a13, "cat /sys/class/kgsl/kgsl-3d0/gpuclk").err ==
        "cat: /sys/class/kgsl/kgsl-3d0/gpuclk: Permission denied\n");
  CHECK(control(io, sim, "sysfs-label sim0 gpu=auto battery=sysfs_batteryinfo") == "OK");
  CHECK(run_shell(a13, "cat /sys/class/kgsl/kgsl-3d0/gpuclk").exit == 0);
  const std::string label_usage =
      "ERR usage: sysfs-label DEV [gpu=auto|sysfs|sysfs_gpu|sysfs_devfreq_cur] [battery=sysfs_batteryinfo|sysfs]";
  CHECK(control(io, sim, "sysfs-label sim0") == label_usage);
  CHECK(control(io, sim, "sysfs-label sim0 battery=sysfs_gpu") == label_usage);
  CHECK(control(io, sim, "sysfs-label sim0 gpu=vendor_gpu") == label_usage);
  sim.stop();
  io.poll();
}

// The resource poll's modules (cpu, clocks, memory, the battery's current):
// counters that count only what is new across polls, app restarts, pid
// reuse, reboots and an exporter restart (the state file), the throttled
// time between polls in a row, and the gauges' freshness. The expected
// numbers are worked out from the kernel's definitions (ticks of 10 ms,
// utime and stime per task), not from the module.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "metrics/sources/battery.h"
#include "metrics/sources/clocks.h"
#include "metrics/sources/cpu.h"
#include "metrics/sources/memory.h"
#include "metrics/store.h"
#include "parsers/resource_files.h"
#include "tests/unit/state_fixture.h"

using namespace jank;

namespace {

// A task stat line of `pid` (comm `name`) with its utime, stime and start.
std::string stat_line(int pid, const std::string& name, int user, int system, int start, int threads = 20) {
  return std::to_string(pid) + " (" + name + ") S 1 1 0 0 -1 0 0 0 0 0 " + std::to_string(user) + " " +
         std::to_string(system) + " 0 0 10 -10 " + std::to_string(threads) + " 0 " + std::to_string(start) +
         " 1 512";
}

struct Poll {
  std::string boot = "boot-1";
  std::string text;

  Poll& core(int n, int user, int idle) {
    text += "/proc/stat:cpu" + std::to_string(n) + " " + std::to_string(user) + " 0 0 " + std::to_string(idle) +
            " 0 0 0 0 0 0\n";
    return *this;
  }
  Poll& process(int pid, const std::string& name, int user, int system, int start) {
    text += "/proc/" + std::to_string(pid) + "/stat:" + stat_line(pid, name, user, system, start) + "\n";
    return *this;
  }
  Poll& thread(int pid, int tid, const std::string& name, int user, int system, int start) {
    text += "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat:" +
            stat_line(tid, name, user, system, start) + "\n";
    return *this;
  }
  parsers::ResourceAnswer answer() const {
    return parsers::parse_resource_answer("/proc/sys/kernel/random/boot_id:" + boot + "\n" + text);
  }
};

const std::vector<std::string> kThreads = {"RenderThread"};

void record(metrics::Store& store, metrics::DeviceMetrics& d, const Poll& p) {
  const parsers::ResourceAnswer a = p.answer();
  REQUIRE(a.malformed_lines == 0);
  metrics::record_cpu(store, d, a, {kThreads});
}

const metrics::AppCpuState& app(metrics::Store& store, metrics::DeviceMetrics& d, const std::string& pkg) {
  const metrics::AppCpuState* a = metrics::app_cpu_of(store.package(d, pkg));
  REQUIRE(a != nullptr);
  return *a;
}

}  // namespace

TEST_CASE("cpu: a core's ticks count what is new, and a reboot counts from 0") {
  metrics::Store store;
  auto& d = store.device("s");
  record(store, d, Poll{}.core(0, 100, 1000).core(1, 50, 900));
  record(store, d, Poll{}.core(0, 160, 1500).core(1, 50, 1400));
  const metrics::CpuState* s = metrics::cpu_of(d);
  REQUIRE(s != nullptr);
  CHECK(s->cores.at(0).counted[0] == 160);  // user
  CHECK(s->cores.at(0).counted[3] == 1500);  // idle
  // Core 1 goes offline (no line): its counts stand still.
  record(store, d, Poll{}.core(0, 200, 1600));
  CHECK(s->cores.at(1).counted[3] == 1400);
  // A reboot: the new boot's ticks are all new, the old boot's stay.
  Poll reboot;
  reboot.boot = "boot-2";
  record(store, d, reboot.core(0, 30, 40));
  CHECK(s->cores.at(0).counted[0] == 200 + 30);
  CHECK(s->cores.at(0).counted[3] == 1600 + 40);
  // Times that went back with an unread boot id: a reboot all the same.
  Poll back;
  back.boot = "boot-2";
  record(store, d, back.core(0, 10, 20));
  CHECK(s->cores.at(0).counted[0] == 230 + 10);
}

TEST_CASE("cpu: an app's process and threads count what is new across polls, crashes and pid reuse") {
  metrics::Store store;
  auto& d = store.device("s");
  d.pid_names.started(4242, "com.example.feed");
  // The main thread's comm is the package's last 15 bytes.
  const std::string comm = "com.example.feed";
  REQUIRE(metrics::process_comm(comm) == "om.example.feed");

  record(store, d,
         Poll{}.process(4242, "om.example.feed", 100, 40, 5000).thread(4242, 4242, "om.example.feed", 70, 20, 5000)
             .thread(4242, 4250, "RenderThread", 20, 10, 5001).thread(4242, 4251, "HeapTaskDaemon", 5, 5, 5001));
  record(store, d,
         Poll{}.process(4242, "om.example.feed", 190, 60, 5000).thread(4242, 4242, "om.example.feed", 140, 30, 5000)
             .thread(4242, 4250, "RenderThread", 35, 15, 5001));
  {
    const metrics::AppCpuState& a = app(store, d, comm);
    CHECK(a.user == 190);
    CHECK(a.system == 60);
    CHECK(a.threads.at("main") == 170);
    CHECK(a.threads.at("RenderThread") == 50);
    CHECK_FALSE(a.threads.contains("HeapTaskDaemon"));  // not named in resources.threads
    CHECK(a.thread_count == 20);
  }
  // The app crashes and starts again as pid 5151: the new process counts from 0.
  d.pid_names.died(4242);
  d.pid_names.started(5151, comm);
  record(store, d, Poll{}.process(5151, "om.example.feed", 12, 3, 9000).thread(5151, 5151, "om.example.feed", 10, 2, 9000));
  {
    const metrics::AppCpuState& a = app(store, d, comm);
    CHECK(a.user == 190 + 12);
    CHECK(a.system == 60 + 3);
    CHECK(a.threads.at("main") == 170 + 12);
    CHECK(a.threads.at("RenderThread") == 50);  // the old process's stays counted
  }
  // The pid read now names another process (the app died, the pid was given away): not the app's.
  record(store, d, Poll{}.process(5151, "ndroid.settings", 900, 900, 9900));
  CHECK(app(store, d, comm).user == 202);
  CHECK(metrics::cpu_of(d)->stale_pids == 1);
  // Same pid, a later start: a new process that took the pid (and the name).
  record(store, d, Poll{}.process(5151, "om.example.feed", 7, 1, 9950));
  CHECK(app(store, d, comm).user == 202 + 7);
}

TEST_CASE("cpu: counts survive an exporter restart through the state file without counting twice") {
  metrics::Store store;
  auto& d = store.device("s");
  d.pid_names.started(4242, "p");
  record(store, d,
         Poll{}.core(0, 100, 1000).process(4242, "p", 100, 40, 5000).thread(4242, 4242, "p", 70, 20, 5000)
             .thread(4242, 4250, "RenderThread", 20, 10, 5001));
  const std::string saved = store.save();

  metrics::Store restored;
  test::load_state(restored, saved);
  auto& r = restored.device("s");
  r.pid_names.started(4242, "p");
  record(restored, r,
         Poll{}.core(0, 130, 1100).process(4242, "p", 110, 45, 5000).thread(4242, 4242, "p", 78, 22, 5000)
             .thread(4242, 4250, "RenderThread", 21, 10, 5001));
  const metrics::AppCpuState& a = app(restored, r, "p");
  CHECK(a.user == 110);
  CHECK(a.system == 45);
  CHECK(a.threads.at("main") == 100);
  CHECK(a.threads.at("RenderThread") == 31);
  CHECK(metrics::cpu_of(r)->cores.at(0).counted[0] == 130);
  CHECK(a.thread_count == 20);
  // Saved again, the file says the same.
  CHECK(restored.save().find("app_cpu") != std::string::npos);
}

TEST_CASE("cpu: a state file whose counts cannot be true drops the record alone") {
  metrics::Store store;
  auto& d = store.device("s");
  d.pid_names.started(4242, "p");
  record(store, d, Poll{}.core(0, 100, 1000).process(4242, "p", 100, 40, 5000));
  const std::string saved = store.save();
  // The process's last reading above what the app counted in all: no exporter writes that.
  const std::string broken = test::replaced(saved, "\napp_cpu 100 40 ", "\napp_cpu 10 40 ");
  metrics::Store restored;
  const auto report = test::load_state(restored, broken);
  CHECK(report.rejected.size() == 1);
  // The cores' record is whole.
  CHECK(metrics::cpu_of(restored.device("s"))->cores.at(0).counted[0] == 100);
}

TEST_CASE("clocks: the throttled time is the host time between polls in a row that both saw the cap") {
  metrics::Store store;
  auto& d = store.device("s");
  auto poll = [&](std::int64_t at_s, int max_khz) {
    store.set_host_time(at_s * 1'000'000'000);
    const std::string text = "/sys/devices/system/cpu/cpufreq/policy7/scaling_cur_freq:1000000\n"
                             "/sys/devices/system/cpu/cpufreq/policy7/scaling_max_freq:" + std::to_string(max_khz) +
                             "\n/sys/devices/system/cpu/cpufreq/policy7/cpuinfo_max_freq:3000000\n";
    metrics::record_clocks(store, d, parsers::parse_resource_answer(text), 15'000'000'000);
  };
  poll(100, 3000000);  // not capped
  poll(105, 2000000);  // capped from here
  poll(110, 2000000);  // +5 s
  poll(115, 1500000);  // +5 s
  poll(120, 3000000);  // the cap lifted: nothing
  poll(125, 2000000);
  poll(160, 2000000);  // 35 s since the answer before: a gap, not counted
  poll(165, 2000000);  // +5 s
  const metrics::ClockState* c = metrics::clocks_of(d);
  REQUIRE(c != nullptr);
  CHECK(c->policies.at(7).throttled_ns == 15'000'000'000);
  CHECK(c->policies.at(7).reading.max_khz == 2000000u);
}

TEST_CASE("clocks: a device without policy directories is asked per core from then on") {
  metrics::Store store;
  auto& d = store.device("s");
  CHECK(metrics::cpufreq_layout(d) == parsers::CpufreqLayout::policy);
  metrics::record_clocks(
      store, d,
      parsers::parse_resource_answer(
          "grep: /sys/devices/system/cpu/cpufreq/policy*/scaling_cur_freq: No such file or directory\n"));
  CHECK(metrics::cpufreq_layout(d) == parsers::CpufreqLayout::per_core);
}

TEST_CASE("memory: read when asked, for the app whose pid the answer names, current while fresh") {
  metrics::Store store;
  auto& d = store.device("s");
  d.pid_names.started(4242, "p");
  d.pid_names.started(4343, "q");
  store.set_host_time(50'000'000'000);
  metrics::record_memory(store, d,
                         parsers::parse_resource_answer("/proc/4242/stat:" + stat_line(4242, "p", 1, 1, 1) + "\n" +
                                                        "/proc/4343/stat:" + stat_line(4343, "other", 1, 1, 1) + "\n" +
                                                        "/proc/4242/status:VmRSS:\t  1000 kB\n"
                                                        "/proc/4343/status:VmRSS:\t  2000 kB\n"),
                         10'000'000'000);
  CHECK(metrics::memory_read_at(d) == 50'000'000'000);
  const metrics::AppMemoryState* p = metrics::app_memory_of(store.package(d, "p"));
  REQUIRE(p != nullptr);
  CHECK(p->rss_bytes == 1000u * 1024);
  CHECK(p->fresh_until_ns == 60'000'000'000);
  CHECK(metrics::app_memory_of(store.package(d, "q")) == nullptr);  // pid 4343 is no longer q
  // An answer that did not ask for memory leaves the time it was read.
  store.set_host_time(55'000'000'000);
  metrics::record_memory(store, d, parsers::parse_resource_answer("/proc/4242/stat:" + stat_line(4242, "p", 2, 1, 1)));
  CHECK(metrics::memory_read_at(d) == 50'000'000'000);
}

TEST_CASE("battery current: signed by the charging status where the driver signs the other way") {
  // BatteryManager.BATTERY_STATUS_CHARGING 2, DISCHARGING 3, FULL 5.
  CHECK(metrics::battery_current_amperes(-412000, 3) == Approx(-0.412));
  CHECK(metrics::battery_current_amperes(412000, 3) == Approx(-0.412));
  CHECK(metrics::battery_current_amperes(-1500000, 2) == Approx(1.5));
  CHECK(metrics::battery_current_amperes(1500000, 2) == Approx(1.5));
  CHECK(metrics::battery_current_amperes(20000, 5) == Approx(0.02));  // full: as the driver says
  CHECK(metrics::battery_current_amperes(-20000, std::nullopt) == Approx(-0.02));
}

TEST_CASE("clocks: a quiet answer without cpufreq tries the per-core layout once, then settles") {
  metrics::Store store;
  auto& d = store.device("s");
  const auto nothing = parsers::parse_resource_answer("/proc/stat:cpu0 1 0 0 1 0 0 0 0 0 0\n");
  metrics::record_clocks(store, d, nothing);
  CHECK(metrics::cpufreq_layout(d) == parsers::CpufreqLayout::per_core);
  metrics::record_clocks(store, d, nothing);  // per core found nothing either: the device shows none
  CHECK(metrics::cpufreq_layout(d) == parsers::CpufreqLayout::policy);
  metrics::record_clocks(store, d, nothing);
  CHECK(metrics::cpufreq_layout(d) == parsers::CpufreqLayout::policy);

  // A kernel before 4.4: the per-core layout answers, and is kept.
  auto& old = store.device("old");
  metrics::record_clocks(store, old, nothing);
  REQUIRE(metrics::cpufreq_layout(old) == parsers::CpufreqLayout::per_core);
  metrics::record_clocks(
      store, old, parsers::parse_resource_answer("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq:960000\n"));
  metrics::record_clocks(store, old, nothing);  // a later answer without cpufreq (cores asleep) changes nothing
  CHECK(metrics::cpufreq_layout(old) == parsers::CpufreqLayout::per_core);
}

// The resource poll's command and the parser of its answer: grep -H lines
// of the kernel's files and grep's complaints, as an Android 14 phone with
// an Adreno GPU and an Android 6.0 phone (per-core cpufreq, CRLF, a PTY)
// answer; the project's own fixtures in the layouts of proc(5), cpufreq and
// kgsl (docs/parsing.md, "Kernel files").
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "parsers/resource_files.h"
#include "tests/support/crlf.h"

using namespace jank::parsers;

namespace {

constexpr std::string_view kPhone14 =
    "/proc/stat:cpu  9000 10 3000 80000 200 30 20 0 0 0\n"
    "/proc/stat:cpu0 3000 10 1000 20000 100 10 10 0 0 0\n"
    "/proc/stat:cpu1 3000 0 1000 20000 50 10 5 0 0 0\n"
    "/proc/stat:cpu7 3000 0 1000 40000 50 10 5 0 0 0\n"
    "/proc/sys/kernel/random/boot_id:5f1c8e0a-3b2d-4c7e-9a61-0d2f4b6c8e10\n"
    "/proc/4242/stat:4242 (example.game) S 612 612 0 0 -1 1077952832 90000 0 12 0 1500 300 0 0 10 -10 "
    "64 0 360000 7000000000 60000 18446744073709551615 1 1 0 0 0 0 4612 1 1073775864 0 0 0 17 7 0 0 0 0 0 "
    "0 0 0 0 0 0 0\n"
    "/proc/4242/task/4242/stat:4242 (example.game) S 612 612 0 0 -1 1077952832 1 0 0 0 900 100 0 0 10 -10 "
    "64 0 360000 7000000000 60000 18446744073709551615 1 1 0 0 0 0 4612 1 1073775864 0 0 0 17 7 0 0 0 0 0 "
    "0 0 0 0 0 0 0\n"
    "/proc/4242/task/4260/stat:4260 (RenderThread) S 612 612 0 0 -1 1077952832 1 0 0 0 400 150 0 0 10 -10 "
    "64 0 360010 7000000000 60000 18446744073709551615 1 1 0 0 0 0 4612 1 1073775864 0 0 0 17 5 0 0 0 0 0 "
    "0 0 0 0 0 0 0\n"
    "grep: /proc/5151/stat: No such file or directory\n"
    "grep: /proc/5151/task/*/stat: No such file or directory\n"
    "/sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq:1200000\n"
    "/sys/devices/system/cpu/cpufreq/policy7/scaling_cur_freq:2400000\n"
    "/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq:1800000\n"
    "/sys/devices/system/cpu/cpufreq/policy7/scaling_max_freq:2000000\n"
    "/sys/devices/system/cpu/cpufreq/policy0/cpuinfo_max_freq:1800000\n"
    "/sys/devices/system/cpu/cpufreq/policy7/cpuinfo_max_freq:3000000\n"
    "/sys/devices/system/cpu/cpufreq/policy0/related_cpus:0 1 2 3 4 5 6\n"
    "/sys/devices/system/cpu/cpufreq/policy7/related_cpus:7\n"
    "/sys/class/kgsl/kgsl-3d0/gpuclk:585000000\n"
    "/sys/class/kgsl/kgsl-3d0/max_gpuclk:900000000\n"
    "/sys/class/kgsl/kgsl-3d0/gpubusy:  41234   99812\n"
    "grep: /sys/class/devfreq/*.mali/cur_freq: No such file or directory\n"
    "grep: /sys/class/devfreq/*.mali/max_freq: No such file or directory\n"
    "/sys/class/power_supply/battery/current_now:-412000\n"
    "/proc/4242/status:VmRSS:\t  312400 kB\n"
    "/proc/4242/status:VmSwap:\t    1024 kB\n";

// Android 6.0 on a 3.18 kernel: no policy directories, SELinux lets the
// shell read sysfs, the PTY ends lines with CRLF.
constexpr std::string_view kPhone6 =
    "/proc/stat:cpu  500 0 200 9000 10 0 0 0 0 0\n"
    "/proc/stat:cpu0 500 0 200 9000 10 0 0 0 0 0\n"
    "/proc/sys/kernel/random/boot_id:0a0b0c0d-0000-4000-8000-000000000001\n"
    "grep: /sys/devices/system/cpu/cpufreq/policy*/scaling_cur_freq: No such file or directory\n"
    "grep: /sys/devices/system/cpu/cpufreq/policy*/scaling_max_freq: No such file or directory\n"
    "grep: /sys/devices/system/cpu/cpufreq/policy*/cpuinfo_max_freq: No such file or directory\n"
    "grep: /sys/devices/system/cpu/cpufreq/policy*/related_cpus: No such file or directory\n"
    "grep: /sys/class/kgsl/kgsl-3d0/gpuclk: Permission denied\n"
    "grep: /sys/class/power_supply/battery/current_now: Permission denied\n";

constexpr std::string_view kPerCore =
    "/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq:960000\n"
    "/sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq:960000\n"
    "/sys/devices/system/cpu/cpu2/cpufreq/scaling_cur_freq:1500000\n"
    "/sys/devices/system/cpu/cpu0/cpufreq/related_cpus:0 1\n"
    "/sys/devices/system/cpu/cpu1/cpufreq/related_cpus:0 1\n"
    "/sys/devices/system/cpu/cpu2/cpufreq/related_cpus:2\n";

}  // namespace

TEST_CASE("resource command: the files of each part, the per-core cpufreq layout and memory when due") {
  const std::string cpu_only = resource_command({});
  CHECK(cpu_only.starts_with("grep -s -H ^cpu /proc/stat; grep -s -H ^ /proc/sys/kernel/random/boot_id "));
  CHECK(cpu_only.find("/sys/devices/system/cpu/cpufreq/policy*/scaling_max_freq") != std::string::npos);
  CHECK(cpu_only.find("/sys/class/kgsl/kgsl-3d0/gpubusy") != std::string::npos);
  CHECK(cpu_only.find("/sys/class/devfreq/*.mali/cur_freq") != std::string::npos);
  CHECK(cpu_only.ends_with("/sys/class/power_supply/battery/current_now"));
  CHECK(cpu_only.find("2>&1") == std::string::npos);  // complaints would land inside output lines
  CHECK(cpu_only.find("VmRSS") == std::string::npos);  // memory without processes: nothing to ask

  const std::string apps = resource_command({{4242, 5151}, CpufreqLayout::per_core, true});
  CHECK(apps.find(" /proc/4242/stat /proc/4242/task/*/stat /proc/5151/stat /proc/5151/task/*/stat ") !=
        std::string::npos);
  CHECK(apps.find("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/related_cpus") != std::string::npos);
  CHECK(apps.find("policy*") == std::string::npos);
  CHECK(apps.ends_with("; grep -s -H -e ^VmRSS -e ^VmSwap /proc/4242/status /proc/5151/status"));
  CHECK(resource_command({{4242}, CpufreqLayout::policy, false}).find("status") == std::string::npos);
}

TEST_CASE("resource answer: CPU, a process and its threads, clocks, GPU, battery current and memory") {
  const ResourceAnswer a = parse_resource_answer(kPhone14);
  CHECK(a.malformed_lines == 0);
  CHECK(a.lines == 26);
  CHECK(a.boot_id == "5f1c8e0a-3b2d-4c7e-9a61-0d2f4b6c8e10");

  REQUIRE(a.cpu.has_value());
  REQUIRE(a.cpu->cores.size() == 3);
  CHECK(a.cpu->cores[2].core == 7);
  CHECK(a.cpu->cores[2].idle == 40000);
  CHECK(a.cpu->all->user == 9000);
  CHECK(a.cpu_access.readable());

  REQUIRE(a.processes.size() == 2);
  const ProcessFiles& game = a.processes.at(4242);
  REQUIRE(game.process.has_value());
  CHECK(game.process->user_ticks == 1500);
  CHECK(game.process->system_ticks == 300);
  CHECK(game.process->start_ticks == 360000);
  REQUIRE(game.threads.size() == 2);
  CHECK(game.threads[0].id == 4242);
  CHECK(game.threads[1].name == "RenderThread");
  CHECK(game.threads[1].user_ticks == 400);
  CHECK(game.rss_bytes == 312400u * 1024);
  CHECK(game.swap_bytes == 1024u * 1024);
  // A process gone since the poll was built: both of its files missing.
  const ProcessFiles& gone = a.processes.at(5151);
  CHECK_FALSE(gone.process.has_value());
  CHECK(gone.stat.missing == 2);
  CHECK(gone.stat.read == 0);

  REQUIRE(a.cpufreq.size() == 2);
  CHECK(a.cpufreq.at(0).cur_khz == 1200000u);
  CHECK(a.cpufreq.at(7).max_khz == 2000000u);  // capped below the hardware's 3 GHz
  CHECK(a.cpufreq.at(7).hw_max_khz == 3000000u);
  CHECK(a.cpufreq.at(0).cpus.size() == 7);
  CHECK_FALSE(a.no_policy_directories);

  CHECK(a.gpu.kind == GpuKind::adreno);
  CHECK(a.gpu.cur_hz == 585000000u);
  CHECK(a.gpu.max_hz == 900000000u);
  CHECK(a.gpu.busy == 41234u);
  CHECK(a.gpu.busy_total == 99812u);
  CHECK(a.gpu.access.read == 3);
  CHECK(a.gpu.access.missing == 2);  // no Mali on this phone: its patterns matched nothing

  CHECK(a.battery_current_ua == -412000);
  CHECK(a.battery_current_access.readable());
}

TEST_CASE("resource answer: an old kernel without policy directories and files the shell may not read") {
  const ResourceAnswer a = parse_resource_answer(jank::test::crlf(kPhone6));
  CHECK(a.malformed_lines == 0);
  CHECK(a.no_policy_directories);
  CHECK(a.cpufreq.empty());
  CHECK(a.cpufreq_access.missing == 4);
  CHECK(a.gpu.access.refused());
  CHECK(a.gpu.kind == GpuKind::none);
  CHECK(a.battery_current_access.refused());
  CHECK_FALSE(a.battery_current_ua.has_value());
  REQUIRE(a.cpu.has_value());
  CHECK(a.cpu->cores.size() == 1);
}

TEST_CASE("resource answer: per-core cpufreq folds into one policy per related_cpus group") {
  const ResourceAnswer a = parse_resource_answer(kPerCore);
  CHECK(a.malformed_lines == 0);
  REQUIRE(a.cpufreq.size() == 2);
  CHECK(a.cpufreq.at(0).cur_khz == 960000u);
  CHECK(a.cpufreq.at(0).cpus == std::vector<int>{0, 1});
  CHECK(a.cpufreq.at(2).cur_khz == 1500000u);
}

TEST_CASE("resource answer: values no kernel prints are malformed and set nothing") {
  const ResourceAnswer a = parse_resource_answer(
      "/proc/stat:cpu0 -1 0 0 0\n"                                  // negative ticks
      "/proc/sys/kernel/random/boot_id:\n"                          // empty boot id
      "/proc/77/stat:78 (x) S 1 1 0 0 -1 0 0 0 0 0 1 1 0 0 0 0 1 0 1 1 1\n"  // another pid's line
      "/proc/77/task/77/stat:77 (x) S\n"                            // too few fields
      "/proc/77/status:VmRSS: lots kB\n"
      "/proc/77/status:VmHWM:\t 10 kB\n"                            // a key the command never asks for
      "/sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq:18446744073709551616\n"
      "/sys/devices/system/cpu/cpufreq/policyX/scaling_cur_freq:1000\n"
      "/sys/devices/system/cpu/cpufreq/policy0/related_cpus:\n"
      "/sys/class/kgsl/kgsl-3d0/gpubusy:9 5\n"                      // busy beyond its window
      "/sys/class/kgsl/kgsl-3d0/gpuclk:fast\n"
      "/sys/class/power_supply/battery/current_now:99999999999\n"
      "/etc/passwd:root:x:0:0\n"                                    // a path the command never reads
      "grep: /etc/shadow: Permission denied\n"
      "no colon at all\n");
  CHECK(a.lines == 15);
  CHECK(a.malformed_lines == 15);
  CHECK(a.boot_id.empty());
  CHECK(a.cpufreq.empty());
  CHECK_FALSE(a.gpu.busy.has_value());
  CHECK(a.gpu.kind == GpuKind::none);
  CHECK_FALSE(a.battery_current_ua.has_value());
  CHECK(a.processes.empty());
}

TEST_CASE("resource answer: a flood of process paths is bounded") {
  std::string text;
  for (int pid = 1; pid <= 1000; ++pid) text += "grep: /proc/" + std::to_string(pid) + "/stat: No such file or directory\n";
  const ResourceAnswer a = parse_resource_answer(text);
  CHECK(a.processes.size() == 256);
  CHECK(a.malformed_lines == 1000 - 256);
}

TEST_CASE("resource answer: arbitrary bytes never throw and count every line") {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::string text(static_cast<std::size_t>(rng() % 600), '\0');
    for (char& c : text) c = static_cast<char>(rng() % 4 == 0 ? "/:\n 0"[rng() % 5] : rng());
    const ResourceAnswer a = parse_resource_answer(text);
    CHECK(a.malformed_lines <= a.lines);
  }
}

// CPU time and memory from the kernel's own files, as the device's `shell`
// user reads them: /proc/stat, /proc/PID/stat and /proc/PID/task/TID/stat,
// /proc/PID/smaps_rollup, and one-number sysfs files (cpufreq). Their layouts
// are the kernel's, not Android's, and the same on every release a farm runs
// (proc(5); docs/parsing.md, "Kernel files"):
//   /proc/stat           "cpu  u n s i w irq sirq steal guest guest_nice", then
//                        "cpuN ..." per online core; "ctxt N", "btime N", ...
//                        Times in clock ticks (USER_HZ: 100 on Android).
//   /proc/PID/stat       "pid (comm) state ppid ... utime stime ... num_threads
//                        itrealvalue starttime vsize rss ..." on one line; comm
//                        (15 bytes at most) may hold spaces and parentheses.
//   smaps_rollup         "Rss:   1234 kB", "Pss: ..." after a "[rollup]" line.
// Values no kernel prints (a negative or non-numeric count, one past 2^64,
// a missing field) make the line malformed: counted, never a number.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jank::parsers {

// Clock ticks per second of the times in /proc (the kernel's USER_HZ, 100 on
// every architecture Android runs on: arm, arm64, x86, x86_64, riscv64).
inline constexpr std::int64_t kProcTicksPerSecond = 100;

// One "cpu" or "cpuN" line of /proc/stat, in clock ticks. guest and
// guest_nice are already inside user and nice, so they are not kept.
struct CpuTimes {
  std::optional<int> core;  // N of "cpuN"; nullopt for the all-cores line
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;

  // Time the core ran something: every state but idle and iowait.
  std::uint64_t busy() const { return user + nice + system + irq + softirq + steal; }
  std::uint64_t total() const { return busy() + idle + iowait; }
};

struct ProcStat {
  std::optional<CpuTimes> all;  // the "cpu" line: every possible core
  // "cpuN" lines in the order printed: online cores only, so a core that
  // went offline (hotplug, thermal) is absent rather than 0.
  std::vector<CpuTimes> cores;
  std::optional<std::uint64_t> context_switches;  // "ctxt"
  std::optional<std::uint64_t> boot_time_s;       // "btime": wall clock seconds of boot
  std::size_t lines = 0;
  std::size_t malformed_lines = 0;  // a cpu/ctxt/btime line whose values did not read
};
ProcStat parse_proc_stat(std::string_view text);

// One /proc/PID/stat or /proc/PID/task/TID/stat line.
struct TaskStat {
  std::int32_t id = 0;  // the pid, or the tid of a task file
  std::string name;     // comm: the thread's name ("RenderThread"), or the process's, truncated to 15 bytes
  char state = '?';     // R S D Z T t X I ...
  std::uint64_t user_ticks = 0;    // utime
  std::uint64_t system_ticks = 0;  // stime
  std::int64_t threads = 0;        // num_threads
  // starttime: ticks after boot the task started. Ids are reused; id and
  // start together name one task across polls.
  std::uint64_t start_ticks = 0;
  std::uint64_t rss_pages = 0;  // rss, in pages
};
// nullopt when the line is not such a line (too few fields, a field that is
// not a number where the kernel prints one, a pid out of range).
std::optional<TaskStat> parse_task_stat(std::string_view line);

// /proc/PID/smaps_rollup (Linux 4.14 and later): the process's mappings
// summed. Absent keys stay unset (Pss_Anon and its siblings came in 5.x).
struct MemoryRollup {
  bool recognised = false;  // the "[rollup]" header line was seen
  std::optional<std::uint64_t> rss_bytes, pss_bytes, pss_anon_bytes, pss_file_bytes, pss_shmem_bytes;
  std::optional<std::uint64_t> swap_bytes, swap_pss_bytes;
  std::size_t lines = 0;
  std::size_t malformed_lines = 0;  // a known key whose value is not "N kB" within 2^64 bytes
};
MemoryRollup parse_smaps_rollup(std::string_view text);

// A sysfs attribute of one unsigned number and a line end ("1804800\n"):
// scaling_cur_freq, scaling_max_freq, a devfreq cur_freq. nullopt otherwise.
std::optional<std::uint64_t> parse_sysfs_number(std::string_view text);

}  // namespace jank::parsers

// The resource poll: one shell command per device that reads the kernel's
// CPU, memory, clock and battery-current files with `grep -H`, and the
// parser of its answer. The command and the parser live together because
// the paths are their shared vocabulary: each path is written once, here.
//
// The command (docs/metrics.md, "Resources"; docs/parsing.md, "Kernel files"):
//   grep -s -H ^cpu /proc/stat;
//   grep -s -H ^ /proc/sys/kernel/random/boot_id /proc/PID/stat /proc/PID/task/*/stat …
//                <cpufreq files> <GPU files> /sys/class/power_supply/battery/current_now;
//   grep -s -H -e ^VmRSS -e ^VmSwap /proc/PID/status …          (when memory is due)
// Every line of the answer is "PATH:CONTENT" (before Android 7.0 adb's PTY
// ends lines with CRLF). -s keeps grep quiet about files the device lacks
// or refuses: its complaints go to stderr unbuffered while its output into
// adb's socket is written in 4 KiB blocks (Android 7.0 to 12), so with
// 2>&1 they would land inside an output line. A file the device lacks or
// refuses is thus one that gave no line. A grep that complains all the
// same ("grep: PATH: REASON", where a PTY merges the streams in order) is
// understood: missing from refused, and a glob that matched nothing (mksh
// hands it on as written) names its pattern.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/proc_stat.h"

namespace jank::parsers {

// Where the device keeps cpufreq's attributes: one directory per policy
// (Linux 4.4 and later, /sys/devices/system/cpu/cpufreq/policyN/), or only
// per core (older kernels, /sys/devices/system/cpu/cpuN/cpufreq/).
enum class CpufreqLayout : std::uint8_t { policy, per_core };

struct ResourceCommand {
  std::vector<std::int32_t> pids;  // the processes to read (apps being measured)
  CpufreqLayout cpufreq = CpufreqLayout::policy;
  bool memory = false;  // read each process's status for its RSS and swap
};
std::string resource_command(const ResourceCommand& command);

// How a group of files answered: how many were read, missing (no such
// file: the kernel or the device lacks it) or refused (permission denied:
// SELinux or the file's mode).
struct FileAccess {
  std::uint32_t read = 0, missing = 0, denied = 0, failed = 0;
  bool any() const { return read + missing + denied + failed > 0; }
  // Read at least once, or refused at least once (never both on one device).
  bool readable() const { return read > 0; }
  bool refused() const { return read == 0 && denied > 0; }
};

struct ProcessFiles {
  std::optional<TaskStat> process;  // /proc/PID/stat: the whole process
  std::vector<TaskStat> threads;    // /proc/PID/task/TID/stat, in the order printed
  std::optional<std::uint64_t> rss_bytes, swap_bytes;  // /proc/PID/status VmRSS, VmSwap
  FileAccess stat, status;
};

// One cpufreq policy (a cluster of cores that share a clock), in kHz.
struct CpufreqPolicy {
  std::optional<std::uint64_t> cur_khz;     // scaling_cur_freq: the clock now
  std::optional<std::uint64_t> max_khz;     // scaling_max_freq: the highest allowed now (thermal caps lower it)
  std::optional<std::uint64_t> hw_max_khz;  // cpuinfo_max_freq: the hardware's highest
  std::vector<int> cpus;                    // related_cpus
};

enum class GpuKind : std::uint8_t { none, adreno, mali };

struct GpuFiles {
  GpuKind kind = GpuKind::none;  // the first kind a file was read of
  std::optional<std::uint64_t> cur_hz, max_hz;
  // kgsl's gpubusy: busy and total time of its last sampling window.
  std::optional<std::uint64_t> busy, busy_total;
  FileAccess access;
};

struct ResourceAnswer {
  std::string boot_id;      // "" when unread
  std::optional<ProcStat> cpu;  // the /proc/stat cpu lines
  FileAccess cpu_access;
  std::map<std::int32_t, ProcessFiles> processes;
  // By the policy's first core (policyN's N; per core: the lowest of
  // related_cpus, or the core itself before related_cpus is read).
  std::map<int, CpufreqPolicy> cpufreq;
  FileAccess cpufreq_access;
  // The policy directories' pattern matched nothing: the kernel keeps
  // cpufreq per core (ask that way next time).
  bool no_policy_directories = false;
  GpuFiles gpu;
  // current_now in µA, as the driver signs it (vendors differ).
  std::optional<std::int64_t> battery_current_ua;
  FileAccess battery_current_access;

  std::uint64_t lines = 0;
  // Lines no such command prints: no known path, a value that does not
  // read, a complaint about a file the command never names. Counted, and
  // nothing of them used.
  std::uint64_t malformed_lines = 0;
};

// Never throws; any bytes give a well-formed answer with their lines counted.
ResourceAnswer parse_resource_answer(std::string_view text);

}  // namespace jank::parsers

// The simulated device's CPU time: per-thread busy time of every process,
// each core's time per /proc/stat mode, the cpufreq policies (OPP tables,
// caps, online cores), and what a reader was last answered, for the truth.
// Pure bookkeeping: the Device decides how busy each thread is
// (devsim/resources.cc) and devsim/procfs.cc prints the kernel's files.
// docs/devsim.md, "CPU, memory, clocks, GPU and battery current".
#pragma once

#include <array>
#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace jank::devsim {

// USER_HZ is 100 on every Android release (bionic libc/bionic/sysconf.cpp:46
// @ android-5.0.0_r1; from 6.0 getauxval(AT_CLKTCK), the kernel's USER_HZ:
// libc/kernel/uapi/asm-generic/param.h:10), so a tick is 10 ms.
inline constexpr std::int64_t kTickNs = 10'000'000;
inline constexpr std::uint32_t kPpm = 1'000'000;
// An app's threads take the ids right after its pid (the kernel hands out
// thread and process ids from one counter); the next process starts after them.
inline constexpr std::int32_t kTidSpan = 32;

// A time counter that grows at `ppm` millionths of elapsed time, piecewise:
// its value at t is the value when the rate last changed plus the exact
// floor of the rate times the time since. So a value depends only on when
// the rates changed, never on how often anyone looked.
struct Meter {
  std::int64_t base = 0;   // ns counted up to `since`
  std::int64_t since = 0;  // device monotonic ns
  std::uint32_t ppm = 0;

  std::int64_t at(std::int64_t t) const {
    const std::int64_t dt = t > since ? t - since : 0;
    return base + dt / 1'000'000 * ppm + dt % 1'000'000 * ppm / 1'000'000;
  }
  void set(std::int64_t t, std::uint32_t rate) {
    if (rate == ppm) return;
    base = at(t);
    since = t > since ? t : since;
    ppm = rate;
  }
};

// /proc/stat's modes, in its column order (steal, guest and guest_nice are
// always 0 here: no hypervisor).
enum CpuMode : std::size_t { kUser, kNice, kSystem, kIdle, kIowait, kIrq, kSoftirq, kModes };
inline constexpr std::size_t kStatColumns = 10;  // with steal, guest, guest_nice

// One cpufreq policy: its CPUs and their OPP table (kHz, ascending).
struct CpuPolicy {
  std::vector<int> cpus;  // the first one names the policy (policyN)
  std::vector<std::uint32_t> opp_khz;
  std::uint32_t max_khz() const { return opp_khz.back(); }
  std::uint32_t min_khz() const { return opp_khz.front(); }
};

struct CpuTopology {
  int cores = 8;
  std::vector<CpuPolicy> policies;
  // Three clusters as on recent phones: cpu0-3 little up to 1.8 GHz, cpu4-6
  // mid up to 2.4 GHz, cpu7 big up to 3.0 GHz (representative OPP tables).
  static CpuTopology standard();
  int policy_of(int cpu) const;  // index into policies, -1 for none
};

// A thread: its busy time split into user and system, on one core.
struct SimTask {
  std::int32_t tid = 0;
  std::string comm;                   // as the kernel prints it: at most 15 bytes
  std::string key;                    // its name in the truth ("main", "RenderThread", "binder", …)
  int core = 0;                       // where it runs (the stat's `processor`)
  std::uint32_t user_share_pct = 85;  // of its busy time
  // How busy it is (ppm of a core) while its app draws and while it does not.
  std::uint32_t draw_ppm = 0, idle_ppm = 0;
  enum class Role : std::uint8_t { other, main, render } role = Role::other;
  int nice = 0;
  std::int64_t start_ns = 0;
  // When it exits (-1: with the process). Given to CpuModel::start as a
  // lifetime, kept as a time.
  std::int64_t end_ns = -1;
  Meter user, sys;
  // The last /proc/PID/task/TID/stat answered (ticks).
  bool answered = false;
  std::uint64_t last_user = 0, last_sys = 0;
};

// A process (thread group) of this boot.
struct SimProc {
  std::uint64_t serial = 0;  // new per process: pids are reused
  std::int32_t pid = 0;
  std::int32_t app = -1;  // index of the device's app, -1 for the platform's
  std::int32_t uid = 0;
  std::int64_t start_ns = 0;
  std::vector<SimTask> tasks;                      // [0]: the main thread (tid = pid)
  std::int64_t dead_user_ns = 0, dead_sys_ns = 0;  // threads that exited
  // The last /proc/PID/stat answered (ticks), and memory seen so far.
  bool answered = false;
  std::uint64_t last_user = 0, last_sys = 0;
  std::uint64_t hwm_kb = 0;
};

// The sysfs values last answered (nullopt: never), for the truth.
struct SysfsAnswers {
  struct Policy {
    std::optional<std::uint64_t> scaling_cur_khz, scaling_max_khz, cpuinfo_max_khz;
  };
  std::vector<Policy> policies;
  std::optional<std::uint64_t> gpuclk_hz, max_gpuclk_hz, gpubusy_busy, gpubusy_total, gpu_busy_percentage;
  std::optional<std::uint64_t> devfreq_cur_hz, devfreq_max_hz;  // Mali's devfreq device
  std::optional<std::int64_t> current_now_ua;
};

// Per app, what an exact reader of every answer counts: processes and
// threads that died keep their last answered values here.
struct ProcTruth {
  std::uint64_t user = 0, sys = 0;
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> threads;  // key → user, sys
  std::optional<std::uint64_t> vm_rss_kb, vm_swap_kb;                      // the last answered (any process)
};

class CpuModel {
 public:
  explicit CpuModel(CpuTopology topology = CpuTopology::standard());

  const CpuTopology& topology() const { return topo_; }

  // A new boot at device monotonic time 0: every process and count from
  // zero; what a reader was answered in the old boot stays in the truth.
  void reboot();

  // A process starts at t with these threads (tasks[0] its main thread).
  SimProc& start(std::int32_t pid, std::int32_t app, std::int32_t uid, std::int64_t t, std::vector<SimTask> tasks);
  // It dies at t (its pid is free again).
  void end(std::int32_t pid, std::int64_t t);
  SimProc* find(std::int32_t pid);
  const SimProc* find(std::int32_t pid) const;
  const std::map<std::int32_t, SimProc>& processes() const { return procs_; }

  // Threads whose end_ns passed are gone (their time stays with the
  // process). Called before any rate changes and reads.
  void settle(std::int64_t t);
  // When the next thread exits (INT64_MAX: none pending). Kept up to date
  // by start, end and settle: the device asks at every event.
  std::int64_t next_exit() const { return next_exit_; }
  // How busy a thread is from t on (millionths of a core).
  void set_busy(SimTask& task, std::int64_t t, std::uint32_t ppm);
  // Every core's mode rates from t on: the background plus the live
  // threads on it, capped at the core (the idle time takes the rest).
  void update_cores(std::int64_t t);

  // Process and thread times now, in ns (the kernel sums ns, then converts).
  std::int64_t proc_ns(const SimProc& p, bool user, std::int64_t t) const;
  static std::int64_t task_ns(const SimTask& k, bool user, std::int64_t t) { return (user ? k.user : k.sys).at(t); }
  // A core's mode time at t (ns).
  std::int64_t core_ns(int cpu, CpuMode mode, std::int64_t t) const {
    return cores_[static_cast<std::size_t>(cpu)][mode].at(t);
  }
  // The busiest share of a core now (1 − idle), in ppm.
  std::uint32_t core_busy_ppm(int cpu) const;

  // Hotplug: an offline core prints no cpuN line and its counts stop.
  bool online(int cpu) const { return online_[static_cast<std::size_t>(cpu)]; }
  // Where a thread meant for `cpu` runs: there, or on the first online core.
  int run_core(int cpu) const;
  void set_online(int cpu, bool on, std::int64_t t);
  // scaling_max_freq's cap by the `cpufreq` control (0: none).
  void set_policy_cap(std::size_t policy, std::uint32_t khz) { caps_[policy] = khz; }
  std::uint32_t policy_cap(std::size_t policy) const { return caps_[policy]; }

  // Answers, for the truth.
  void answered_proc(SimProc& p, std::uint64_t user, std::uint64_t sys);
  void answered_task(SimTask& k, std::uint64_t user, std::uint64_t sys);
  void answered_memory(std::int32_t app, std::uint64_t rss_kb, std::uint64_t swap_kb);
  // /proc/stat: row 0 the "cpu" line, row 1 + N core N; columns as printed.
  void answered_stat_row(std::size_t row, const std::array<std::uint64_t, kStatColumns>& values);
  // Summed over boots: the last answer of each boot (what an exact reader
  // accumulating deltas, from 0 after a reboot, adds up).
  std::array<std::uint64_t, kStatColumns> stat_truth(std::size_t row) const;
  // Per app: dead processes' and threads' last answers plus the live ones'.
  ProcTruth app_truth(std::int32_t app) const;
  // GPU, cpufreq and battery nodes: the last answers (over boots).
  SysfsAnswers sysfs;

 private:
  void fold(const SimProc& p);
  void find_next_exit();
  void fold_task(std::int32_t app, const SimTask& k);

  CpuTopology topo_;
  std::vector<std::array<Meter, kModes>> cores_;
  std::vector<bool> online_;
  std::vector<std::uint32_t> caps_;
  std::map<std::int32_t, SimProc> procs_;  // by pid
  std::uint64_t next_serial_ = 1;
  std::int64_t next_exit_ = INT64_MAX;
  std::map<std::int32_t, ProcTruth> folded_;  // by app: what the dead left
  std::vector<std::array<std::uint64_t, kStatColumns>> stat_prev_, stat_now_;
};

}  // namespace jank::devsim

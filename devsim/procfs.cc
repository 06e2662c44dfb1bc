// The simulated /proc and /sys (devsim/procfs.h). Sources per file are in
// docs/devsim.md, "CPU, memory, clocks, GPU and battery current".
#include "devsim/procfs.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <functional>

#include "devsim/appendf.h"
#include "devsim/model.h"
#include "devsim/text.h"

namespace jank::devsim {

KernelVersion kernel_of(int sdk) {
  // Representative kernels of each release's devices (launch kernels of
  // that year's phones; the kernel, not Android, decides these files).
  if (sdk <= 20) return {3, 4};
  if (sdk <= 22) return {3, 10};
  if (sdk <= 25) return {3, 18};
  if (sdk <= 27) return {4, 4};
  if (sdk == 28) return {4, 9};
  if (sdk == 29) return {4, 14};
  if (sdk == 30) return {4, 19};
  if (sdk <= 32) return {5, 4};
  if (sdk == 33) return {5, 10};
  if (sdk == 34) return {5, 15};
  if (sdk == 35) return {6, 1};
  return {6, 6};
}

std::string_view gpu_kind_name(GpuKind k) {
  switch (k) {
    case GpuKind::adreno: return "adreno";
    case GpuKind::mali: return "mali";
    case GpuKind::none: return "none";
  }
  return "none";
}

std::optional<GpuKind> gpu_kind_from_name(std::string_view name) {
  for (const GpuKind k : {GpuKind::adreno, GpuKind::mali, GpuKind::none}) {
    if (gpu_kind_name(k) == name) return k;
  }
  return std::nullopt;
}

std::string_view sysfs_label_name(SysfsLabel l) {
  switch (l) {
    case SysfsLabel::automatic: return "auto";
    case SysfsLabel::sysfs: return "sysfs";
    case SysfsLabel::sysfs_gpu: return "sysfs_gpu";
    case SysfsLabel::sysfs_devfreq_cur: return "sysfs_devfreq_cur";
    case SysfsLabel::sysfs_batteryinfo: return "sysfs_batteryinfo";
  }
  return "sysfs";
}

std::optional<SysfsLabel> sysfs_label_from_name(std::string_view name) {
  for (const SysfsLabel l : {SysfsLabel::automatic, SysfsLabel::sysfs, SysfsLabel::sysfs_gpu,
                             SysfsLabel::sysfs_devfreq_cur, SysfsLabel::sysfs_batteryinfo}) {
    if (sysfs_label_name(l) == name) return l;
  }
  return std::nullopt;
}

std::string_view fs_error_text(int err) {
  switch (err) {
    case ENOENT: return "No such file or directory";
    case EACCES: return "Permission denied";
    case EBUSY: return "Device or resource busy";
    case EISDIR: return "Is a directory";
    default: return "I/O error";
  }
}

namespace {

using Comps = std::vector<std::string_view>;

Comps components(std::string_view path) {
  Comps out;
  while (!path.empty()) {
    const std::size_t slash = path.find('/');
    const std::string_view c = path.substr(0, slash);
    if (!c.empty() && c != ".") out.push_back(c);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

// A decimal id of at most 7 digits, or -1.
std::int32_t id_of(std::string_view s) {
  if (!text::all_digits(s) || s.size() > 7 || (s.size() > 1 && s[0] == '0')) return -1;
  std::int32_t v = 0;
  for (const char c : s) v = v * 10 + (c - '0');
  return v;
}

std::uint64_t ticks(std::int64_t ns) { return static_cast<std::uint64_t>(std::max<std::int64_t>(ns, 0) / kTickNs); }

// Can the SELinux domain shell read (and getattr) a GPU or battery node
// with this label? 5.x/6.0: r_dir_file(domain, sysfs) reads all of sysfs
// (external/sepolicy domain.te:138 @ cm-12.0, :148 @ cm-13.0), and vendors
// had no labels of their own for these nodes yet. 7.0+: plain sysfs files
// are not readable (sepolicy commit 6e3506e1; domain.te:105,128 @
// android-7.0.0_r1 grant only sysfs lnk_file read and dir search);
// sysfs_gpu is readable by app domains (shell is one) from 13 (private/
// app.te:363 @ android-13.0.0_r1); sysfs_devfreq_cur only by traced_probes
// (private/traced_probes.te:86-87 @ android-12.0.0_r1); sysfs_batteryinfo
// by shell (shell.te:127 @ android-7.0.0_r1; public/shell.te:169-170 @ 9).
bool label_readable(const Device& dev, SysfsLabel label) {
  const int sdk = dev.config().sdk;
  if (dev.is_root() || sdk <= 23) return true;
  switch (label) {
    case SysfsLabel::sysfs_gpu: return sdk >= 33;
    case SysfsLabel::sysfs_batteryinfo: return true;
    default: return false;
  }
}

// One node of the tree: a directory (its entries when asked) or a file
// (how to read it). A file the shell may not open still exists (EACCES).
struct Node {
  enum class Kind : std::uint8_t { none, dir, file } kind = Kind::none;
  bool listable = true;  // a directory readdir works on
  bool stat_ok = true;   // lstat works (SELinux getattr)
  int read_err = 0;      // open()/read() fails so
  std::vector<std::string> entries;
  std::function<std::string()> read;
};

Node dir(std::vector<std::string> entries = {}) {
  Node n;
  n.kind = Node::Kind::dir;
  n.entries = std::move(entries);
  return n;
}

Node file(std::function<std::string()> read, int err = 0) {
  Node n;
  n.kind = Node::Kind::file;
  n.read = std::move(read);
  n.read_err = err;
  return n;
}

// A file SELinux hides from the shell: neither stat nor open.
Node denied_file(std::function<std::string()> read) {
  Node n = file(std::move(read), EACCES);
  n.stat_ok = false;
  return n;
}

std::string line(std::uint64_t v) { return std::to_string(v) + "\n"; }

// "0-3,5" as the kernel prints a cpumask list (cpumap_print_to_pagebuf).
std::string cpu_ranges(const std::vector<int>& cpus) {
  std::string s;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!s.empty()) s += ',';
    s += std::to_string(cpus[i]);
    if (j > i) s += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return s + "\n";
}

// ---- processes -------------------------------------------------------------

struct ProcEntry {
  Device::Process info;
  std::int32_t uid = 0;
};

std::int32_t uid_of_user(const std::string& user) {
  if (user == "root") return 0;
  if (user == "system") return 1000;
  if (user == "logd") return 1036;
  if (user == "shell") return 2000;
  if (user == "nobody") return 9999;
  if (user.rfind("u0_a", 0) == 0) return 10000 + static_cast<std::int32_t>(std::strtol(user.c_str() + 4, nullptr, 10));
  return 0;
}

std::optional<ProcEntry> process_of(const Device& dev, std::int32_t pid) {
  for (const auto& p : dev.processes()) {
    if (p.pid == pid) return ProcEntry{p, uid_of_user(p.user)};
  }
  return std::nullopt;
}

// ptrace_may_access(PTRACE_MODE_READ) for the shell: the same uid, or root
// (adb root). Apps fail it (kernel/ptrace.c __ptrace_may_access: another
// uid, no CAP_SYS_PTRACE): stat's masked fields, smaps' EACCES.
bool permitted(const Device& dev, std::int32_t uid) { return dev.is_root() || uid == 2000; }

std::uint32_t task_ppm(const SimTask& k) { return k.user.ppm + k.sys.ppm; }

// /proc/PID/stat (whole: the thread group) or /proc/PID/task/TID/stat:
// do_task_stat in fs/proc/array.c (kernel_common @ 0381789d): 52 fields
// from 3.5, the fields a reader without ptrace rights sees masked, comm in
// parentheses as it is; times in USER_HZ ticks.
std::string task_stat(Device& dev, const ProcEntry& e, SimProc& p, SimTask& k, bool whole) {
  const std::int64_t t = dev.sim_now();
  CpuModel& cpu = dev.cpu();
  const bool app = p.app >= 0;
  const bool allowed = permitted(dev, e.uid);
  const KernelVersion kv = dev.kernel();
  const Device::Memory m = dev.memory_of(p);
  const std::uint64_t user = ticks(whole ? cpu.proc_ns(p, true, t) : CpuModel::task_ns(k, true, t));
  const std::uint64_t sys = ticks(whole ? cpu.proc_ns(p, false, t) : CpuModel::task_ns(k, false, t));
  const std::uint64_t busy_ms = (user + sys) * 10;
  const std::int32_t pgrp = app ? e.info.ppid : e.info.pid == 1 ? 0 : e.info.pid;
  const std::int32_t session = app || e.info.pid == 1 ? 0 : e.info.pid;
  const SimTask& leader = p.tasks.front();
  const SimTask& shown = whole ? leader : k;
  const char state = task_ppm(shown) >= 500'000 ? 'R' : 'S';
  std::string s;
  appendf(s, "%d (%s) %c %d %d %d 0 -1 %u", k.tid, k.comm.c_str(), state, e.info.ppid, pgrp, session,
          app ? 1077952832u : 4194560u);
  appendf(s, " %" PRIu64 " 0 %" PRIu64 " 0", 300 + busy_ms / 4, busy_ms / 400);
  appendf(s, " %" PRIu64 " %" PRIu64 " 0 0 %d %d %zu 0 %" PRIu64, user, sys, 20 + shown.nice, shown.nice,
          p.tasks.size(), ticks(whole ? p.start_ns : k.start_ns));
  appendf(s, " %" PRIu64 " %" PRIu64 " 18446744073709551615", m.size_kb * 1024, m.rss_kb / 4);
  if (allowed) {
    s += " 406919708672 406919733584 549755809232 0 0";
  } else {
    s += " 1 1 0 0 0";
  }
  s += app ? " 0 4612 1 1073775864" : " 0 0 0 0";
  // wchan: older kernels print an unprivileged reader's ~0UL (kernel_common
  // fs/proc/array.c @ 0381789d, a 4.4-era tree), newer ones 0 (where it
  // changed is not known here: 4.9 is a choice; no reader should parse it).
  s += !allowed && !kv.at_least(4, 9) ? " 18446744073709551615" : " 0";
  appendf(s, " 0 0 %d %d 0 0 0 0 0", whole || k.tid == p.pid ? 17 : -1, cpu.run_core(shown.core));
  if (kv.at_least(3, 5)) {
    s += allowed ? " 406919737344 406919745536 406919749632 549755811573 549755811605 549755811605 549755811818 0"
                 : " 0 0 0 0 0 0 0 0";
  }
  s += '\n';
  if (whole) {
    cpu.answered_proc(p, user, sys);
  } else {
    cpu.answered_task(k, user, sys);
  }
  return s;
}

// /proc/PID/status (task_name, task_state, task_mem, … in fs/proc/array.c
// and fs/proc/task_mmu.c): the lines of the device's kernel version.
std::string task_status(Device& dev, const ProcEntry& e, SimProc& p, const SimTask& k) {
  const KernelVersion kv = dev.kernel();
  const bool app = p.app >= 0;
  const Device::Memory m = dev.memory_of(p);
  const std::int32_t uid = e.uid;
  const char state = task_ppm(k) >= 500'000 ? 'R' : 'S';
  std::string s;
  appendf(s, "Name:\t%s\n", k.comm.c_str());
  if (kv.at_least(4, 7)) s += app ? "Umask:\t0077\n" : "Umask:\t0000\n";
  appendf(s, "State:\t%c (%s)\n", state, state == 'R' ? "running" : "sleeping");
  appendf(s, "Tgid:\t%d\n", p.pid);
  if (kv.at_least(3, 13)) s += "Ngid:\t0\n";
  appendf(s, "Pid:\t%d\nPPid:\t%d\nTracerPid:\t0\n", k.tid, e.info.ppid);
  appendf(s, "Uid:\t%d\t%d\t%d\t%d\nGid:\t%d\t%d\t%d\t%d\n", uid, uid, uid, uid, uid, uid, uid, uid);
  appendf(s, "FDSize:\t%d\n", app ? 128 : 64);
  std::string groups;
  if (app) {
    // inet, everybody, the app's cache and shared gids (AID_CACHE_GID_START, AID_SHARED_GID_START).
    groups = "3003 9997 " + std::to_string(uid + 10000) + " " + std::to_string(uid + 40000);
  }
  if (!kv.at_least(4, 9) && !groups.empty()) groups += ' ';  // older kernels end each group with a blank
  s += "Groups:\t" + groups + "\n";
  auto kb = [&](const char* key, std::uint64_t v) { appendf(s, "%s:\t%8" PRIu64 " kB\n", key, v); };
  kb("VmPeak", m.peak_kb);
  kb("VmSize", m.size_kb);
  kb("VmLck", 0);
  kb("VmPin", 0);
  kb("VmHWM", m.hwm_kb);
  kb("VmRSS", m.rss_kb);
  if (kv.at_least(4, 5)) {
    kb("RssAnon", m.anon_kb);
    kb("RssFile", m.file_kb);
    kb("RssShmem", m.shmem_kb);
  }
  kb("VmData", m.data_kb);
  kb("VmStk", m.stack_kb);
  kb("VmExe", m.exe_kb);
  kb("VmLib", m.lib_kb);
  kb("VmPTE", m.pte_kb);
  if (kv.at_least(4, 0) && !kv.at_least(4, 15)) kb("VmPMD", 12);
  kb("VmSwap", m.swap_kb);
  if (kv.at_least(4, 15)) s += "CoreDumping:\t0\n";
  if (kv.at_least(5, 0)) s += "THP_enabled:\t1\n";
  appendf(s, "Threads:\t%zu\n", p.tasks.size());
  s += "SigQ:\t0/21285\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n";
  s += app ? "SigBlk:\t0000000080001204\nSigIgn:\t0000000000000001\nSigCgt:\t0000006e400084f8\n"
           : "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\nSigCgt:\t0000000000000000\n";
  s += "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n"
       "CapBnd:\t0000000000000000\n";
  if (kv.at_least(4, 3)) s += "CapAmb:\t0000000000000000\n";
  if (kv.at_least(4, 10)) s += "NoNewPrivs:\t0\n";
  s += app ? "Seccomp:\t2\n" : "Seccomp:\t0\n";
  if (kv.at_least(5, 9)) s += app ? "Seccomp_filters:\t1\n" : "Seccomp_filters:\t0\n";
  if (kv.at_least(4, 17)) s += "Speculation_Store_Bypass:\tthread vulnerable\n";
  s += "Cpus_allowed:\tff\nCpus_allowed_list:\t0-7\nMems_allowed:\t1\nMems_allowed_list:\t0\n";
  const std::uint64_t busy_ms =
      (ticks(CpuModel::task_ns(k, true, dev.sim_now())) + ticks(CpuModel::task_ns(k, false, dev.sim_now()))) * 10;
  appendf(s, "voluntary_ctxt_switches:\t%" PRIu64 "\nnonvoluntary_ctxt_switches:\t%" PRIu64 "\n", 40 + busy_ms * 3,
          busy_ms / 10);
  if (k.tid == p.pid) dev.cpu().answered_memory(p.app, m.rss_kb, m.swap_kb);
  return s;
}

std::string statm(Device& dev, SimProc& p) {
  const Device::Memory m = dev.memory_of(p);
  std::string s;
  appendf(s, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " 0 %" PRIu64 " 0\n", m.size_kb / 4, m.rss_kb / 4,
          (m.file_kb + m.shmem_kb) / 4, m.exe_kb / 4, m.data_kb / 4);
  return s;
}

// smaps_rollup (Linux 4.14; Android's VTS requires it from 10:
// libmeminfo/vts/vts_meminfo_test.cpp:24-27 @ android-10.0.0_r1), as the
// process's own user or root read it.
std::string smaps_rollup(Device& dev, SimProc& p) {
  const Device::Memory m = dev.memory_of(p);
  std::string s = "7fc0000000-7fffffffff ---p 00000000 00:00 0                              [rollup]\n";
  auto kb = [&](const char* key, std::uint64_t v) { appendf(s, "%-16s%8" PRIu64 " kB\n", key, v); };
  const std::uint64_t pss = m.anon_kb + m.file_kb / 3 + m.shmem_kb / 2;
  kb("Rss:", m.rss_kb);
  kb("Pss:", pss);
  if (dev.kernel().at_least(5, 4)) {
    kb("Pss_Anon:", m.anon_kb);
    kb("Pss_File:", m.file_kb / 3);
    kb("Pss_Shmem:", m.shmem_kb / 2);
  }
  kb("Shared_Clean:", m.file_kb * 2 / 3);
  kb("Shared_Dirty:", m.shmem_kb);
  kb("Private_Clean:", m.file_kb - m.file_kb * 2 / 3);
  kb("Private_Dirty:", m.anon_kb);
  kb("Referenced:", m.rss_kb);
  kb("Anonymous:", m.anon_kb);
  kb("Swap:", m.swap_kb);
  kb("SwapPss:", m.swap_kb);
  kb("Locked:", 0);
  return s;
}

// ---- /proc/stat ------------------------------------------------------------

// show_stat (fs/proc/stat.c): the "cpu" line sums every possible CPU's
// ns before converting, "cpuN" lines only for online CPUs, then the
// interrupt, context-switch, boot-time and process counts.
std::string proc_stat(Device& dev) {
  CpuModel& cpu = dev.cpu();
  const std::int64_t t = dev.sim_now();
  const int n = cpu.topology().cores;
  std::array<std::int64_t, kModes> sum{};
  for (int c = 0; c < n; ++c) {
    for (std::size_t m = 0; m < kModes; ++m) sum[m] += cpu.core_ns(c, static_cast<CpuMode>(m), t);
  }
  auto row = [&](const char* head, std::size_t index, const std::array<std::int64_t, kModes>& ns) {
    std::array<std::uint64_t, kStatColumns> v{};
    for (std::size_t m = 0; m < kModes; ++m) v[m] = ticks(ns[m]);
    std::string s = head;
    for (const std::uint64_t x : v) s += " " + std::to_string(x);
    cpu.answered_stat_row(index, v);
    return s + "\n";
  };
  std::string s = row("cpu ", 0, sum);
  std::uint64_t busy_ticks = 0, irq_ticks = 0;
  for (int c = 0; c < n; ++c) {
    std::array<std::int64_t, kModes> ns{};
    for (std::size_t m = 0; m < kModes; ++m) ns[m] = cpu.core_ns(c, static_cast<CpuMode>(m), t);
    busy_ticks += ticks(ns[kUser]) + ticks(ns[kSystem]);
    irq_ticks += ticks(ns[kIrq]) + ticks(ns[kSoftirq]);
    if (!cpu.online(c)) continue;
    s += row(("cpu" + std::to_string(c)).c_str(), static_cast<std::size_t>(c) + 1, ns);
  }
  const std::uint64_t up = static_cast<std::uint64_t>(std::max<std::int64_t>(t, 0) / 1'000'000'000);
  // Interrupts and softirqs per source, summing to their totals (a short
  // list: a real intr line has one count per IRQ number, hundreds).
  const std::uint64_t intr = up * 650 + irq_ticks * 40;
  appendf(s, "intr %" PRIu64 " 0 0 0 0 0 0 0 0 0 0 0 %" PRIu64 " %" PRIu64 " 0 0 %" PRIu64 "\n", intr, intr * 6 / 10,
          intr * 3 / 10, intr - intr * 6 / 10 - intr * 3 / 10);
  appendf(s, "ctxt %" PRIu64 "\n", up * 900 + busy_ticks * 120);
  appendf(s, "btime %" PRId64 "\n", dev.wall_of(0) / 1'000'000'000);
  std::size_t running = 1;
  for (const auto& [pid, p] : cpu.processes()) {
    for (const SimTask& k : p.tasks) running += task_ppm(k) >= 500'000 ? 1 : 0;
  }
  appendf(s, "processes %" PRIu64 "\nprocs_running %zu\nprocs_blocked 0\n", 1800 + up / 3, running);
  const std::uint64_t soft = up * 420 + irq_ticks * 25;
  appendf(s, "softirq %" PRIu64 " 0 %" PRIu64 " 0 %" PRIu64 " %" PRIu64 " 0 %" PRIu64 " %" PRIu64 " 0 %" PRIu64 "\n",
          soft, soft * 3 / 10, soft / 20, soft / 10, soft / 50, soft / 4,
          soft - soft * 3 / 10 - soft / 20 - soft / 10 - soft / 50 - soft / 4);
  return s;
}

// ---- cpufreq ---------------------------------------------------------------

struct PolicyNow {
  bool active = false;  // a CPU of it is online
  std::uint32_t cur = 0, max = 0;
};

// The highest OPP at or below `khz` (the lowest when none is).
std::uint32_t opp_at_most(const std::vector<std::uint32_t>& opps, std::uint64_t khz) {
  std::uint32_t best = opps.front();
  for (const std::uint32_t f : opps) {
    if (f <= khz) best = f;
  }
  return best;
}

// The thermal cap of a mid or big cluster (and a GPU): from severe (3) on,
// a share of the highest clock (representative of a vendor's thermal HAL
// capping through cooling devices).
double thermal_share(int status) {
  static constexpr std::array<double, 7> kShare = {1, 1, 1, 0.75, 0.6, 0.5, 0.4};
  return kShare[static_cast<std::size_t>(std::clamp(status, 0, 6))];
}

PolicyNow policy_now(const Device& dev, std::size_t index) {
  const CpuModel& cpu = dev.cpu();
  const CpuPolicy& pol = cpu.topology().policies[index];
  PolicyNow now;
  std::uint32_t util = 0;
  for (const int c : pol.cpus) {
    if (!cpu.online(c)) continue;
    now.active = true;
    util = std::max(util, cpu.core_busy_ppm(c));
  }
  std::uint64_t max = pol.max_khz();
  if (cpu.policy_cap(index) != 0) max = std::min<std::uint64_t>(max, cpu.policy_cap(index));
  if (index > 0) {
    max = std::min<std::uint64_t>(max, static_cast<std::uint64_t>(pol.max_khz() * thermal_share(dev.thermal_status())));
  }
  now.max = opp_at_most(pol.opp_khz, max);
  // schedutil: 1.25 × max × util, the lowest OPP that covers it (kernel/
  // sched/cpufreq_schedutil.c get_next_freq), within the limits.
  const std::uint64_t target = static_cast<std::uint64_t>(pol.max_khz()) * util / kPpm * 5 / 4;
  now.cur = pol.opp_khz.back();
  for (const std::uint32_t f : pol.opp_khz) {
    if (f >= target) {
      now.cur = f;
      break;
    }
  }
  now.cur = std::min(now.cur, now.max);
  return now;
}

// A policy's attribute (show_* in drivers/cpufreq/cpufreq.c): one
// number in kHz, or a CPU list; an inactive policy (every CPU offline)
// answers EBUSY on kernels with policy directories.
Node policy_attr(Device& dev, std::size_t index, std::string_view attr) {
  const CpuPolicy& pol = dev.cpu().topology().policies[index];
  const bool policies = dev.kernel().at_least(4, 4);
  const int busy = policies && !policy_now(dev, index).active ? EBUSY : 0;
  auto num = [&, busy](std::function<std::uint64_t()> f) { return file([f] { return line(f()); }, busy); };
  SysfsAnswers::Policy& ans = dev.cpu().sysfs.policies[index];
  if (attr == "scaling_cur_freq") {
    return num([&dev, index, &ans] { return *(ans.scaling_cur_khz = policy_now(dev, index).cur); });
  }
  if (attr == "scaling_max_freq") {
    return num([&dev, index, &ans] { return *(ans.scaling_max_khz = policy_now(dev, index).max); });
  }
  if (attr == "cpuinfo_max_freq") return num([&ans, &pol] { return *(ans.cpuinfo_max_khz = pol.max_khz()); });
  if (attr == "cpuinfo_min_freq" || attr == "scaling_min_freq") return num([&pol] { return pol.min_khz(); });
  // 0400: root's only, whatever SELinux says.
  if (attr == "cpuinfo_cur_freq") {
    if (!dev.is_root()) return file([] { return std::string(); }, EACCES);
    return num([&dev, index] { return policy_now(dev, index).cur; });
  }
  if (attr == "cpuinfo_transition_latency") return num([] { return 0; });
  if (attr == "related_cpus" || attr == "affected_cpus") {
    const bool affected = attr == "affected_cpus";
    return file(
        [&dev, &pol, affected] {
          std::string s;
          for (const int c : pol.cpus) {
            if (affected && !dev.cpu().online(c)) continue;
            s += (s.empty() ? "" : " ") + std::to_string(c);
          }
          return s + "\n";
        },
        busy);
  }
  if (attr == "scaling_available_frequencies") {
    return file(
        [&pol] {
          std::string s;
          for (const std::uint32_t f : pol.opp_khz) s += std::to_string(f) + " ";
          return s + "\n";
        },
        busy);
  }
  const bool sched = dev.kernel().at_least(4, 9);
  if (attr == "scaling_governor") {
    return file([sched] { return std::string(sched ? "schedutil\n" : "interactive\n"); }, busy);
  }
  if (attr == "scaling_available_governors") {
    return file(
        [sched] {
          return std::string(sched ? "schedutil performance powersave\n" : "interactive performance powersave\n");
        },
        busy);
  }
  if (attr == "scaling_driver") return file([] { return std::string("cpufreq-dt\n"); }, busy);
  if (attr == "scaling_setspeed") return file([] { return std::string("<unsupported>\n"); }, busy);
  return {};
}

const std::vector<std::string> kPolicyAttrs = {"affected_cpus",
                                               "cpuinfo_cur_freq",
                                               "cpuinfo_max_freq",
                                               "cpuinfo_min_freq",
                                               "cpuinfo_transition_latency",
                                               "related_cpus",
                                               "scaling_available_frequencies",
                                               "scaling_available_governors",
                                               "scaling_cur_freq",
                                               "scaling_driver",
                                               "scaling_governor",
                                               "scaling_max_freq",
                                               "scaling_min_freq",
                                               "scaling_setspeed"};

// /sys/devices/system/cpu/...
Node cpu_node(Device& dev, const Comps& c, std::size_t at) {
  CpuModel& cpu = dev.cpu();
  const CpuTopology& topo = cpu.topology();
  const bool policies = dev.kernel().at_least(4, 4);
  auto cpus_where = [&](auto pred) {
    std::vector<int> v;
    for (int i = 0; i < topo.cores; ++i) {
      if (pred(i)) v.push_back(i);
    }
    return v;
  };
  if (c.size() == at) {
    std::vector<std::string> e = {"cpufreq", "cpuidle",  "kernel_max", "offline",
                                  "online",  "possible", "present",    "uevent"};
    for (int i = 0; i < topo.cores; ++i) e.push_back("cpu" + std::to_string(i));
    return dir(std::move(e));
  }
  const std::string_view name = c[at];
  if (c.size() == at + 1) {
    if (name == "online") {
      return file([&dev, cpus_where] { return cpu_ranges(cpus_where([&](int i) { return dev.cpu().online(i); })); });
    }
    if (name == "offline") {
      return file([&dev, cpus_where] { return cpu_ranges(cpus_where([&](int i) { return !dev.cpu().online(i); })); });
    }
    if (name == "possible" || name == "present") {
      return file([cpus_where] { return cpu_ranges(cpus_where([](int) { return true; })); });
    }
    if (name == "kernel_max") return file([&topo] { return line(static_cast<std::uint64_t>(topo.cores - 1)); });
    if (name == "uevent") return file([] { return std::string(); });
    if (name == "cpuidle") return dir();
  }
  // cpufreq/policyN (4.4+: one kobject per policy, cpuN/cpufreq a link to
  // it, cpufreq_policy_alloc); older kernels only cpuN/cpufreq, gone while
  // the core is offline (a choice: not confirmed from a 3.x tree).
  std::optional<std::size_t> policy;
  std::size_t next = at + 1;
  if (name == "cpufreq") {
    if (c.size() == at + 1) {
      std::vector<std::string> e;
      if (policies) {
        for (const CpuPolicy& p : topo.policies) e.push_back("policy" + std::to_string(p.cpus.front()));
      } else {
        e.push_back("interactive");
      }
      return dir(std::move(e));
    }
    const std::string_view pn = c[at + 1];
    if (!policies) return pn == "interactive" && c.size() == at + 2 ? dir() : Node{};
    if (pn.rfind("policy", 0) != 0) return {};
    const std::int32_t first = id_of(pn.substr(6));
    for (std::size_t i = 0; i < topo.policies.size(); ++i) {
      if (topo.policies[i].cpus.front() == first) policy = i;
    }
    if (!policy) return {};
    next = at + 2;
  } else if (name.rfind("cpu", 0) == 0) {
    const std::int32_t n = id_of(name.substr(3));
    if (n < 0 || n >= topo.cores) return {};
    if (c.size() == at + 1) {
      std::vector<std::string> e = {"cpuidle", "topology", "uevent"};
      if (n > 0) e.push_back("online");
      if (policies || cpu.online(n)) e.push_back("cpufreq");
      return dir(std::move(e));
    }
    const std::string_view sub = c[at + 1];
    if (c.size() == at + 2 && sub == "online" && n > 0) {
      return file([&dev, n] { return std::string(dev.cpu().online(n) ? "1\n" : "0\n"); });
    }
    if (c.size() == at + 2 && sub == "uevent") return file([] { return std::string(); });
    if (c.size() == at + 2 && (sub == "cpuidle" || sub == "topology")) return dir();
    if (sub != "cpufreq" || (!policies && !cpu.online(n))) return {};
    const int pi = topo.policy_of(n);
    if (pi < 0) return {};
    policy = static_cast<std::size_t>(pi);
    next = at + 2;
  } else {
    return {};
  }
  if (c.size() == next) return dir(kPolicyAttrs);
  if (c.size() != next + 1) return {};
  return policy_attr(dev, *policy, c[next]);
}

// ---- GPU -------------------------------------------------------------------

const std::vector<std::uint64_t>& gpu_opps(GpuKind k) {
  static const std::vector<std::uint64_t> kAdreno = {180'000'000, 257'000'000, 342'000'000, 414'000'000,
                                                     515'000'000, 596'000'000, 670'000'000, 750'000'000};
  static const std::vector<std::uint64_t> kMali = {151'000'000, 302'000'000, 455'000'000, 572'000'000,
                                                   683'000'000, 762'000'000, 848'000'000};
  return k == GpuKind::mali ? kMali : kAdreno;
}

struct GpuNow {
  std::uint64_t cur = 0, max = 0, busy = 0, total = 0;
};

GpuNow gpu_now(const Device& dev) {
  const auto& opps = gpu_opps(dev.config().gpu);
  GpuNow g;
  const auto cap = static_cast<std::uint64_t>(static_cast<double>(opps.back()) * thermal_share(dev.thermal_status()));
  g.max = opps.front();
  for (const std::uint64_t f : opps) {
    if (f <= cap) g.max = f;
  }
  const std::uint32_t load = dev.gpu_load_ppm();
  const std::uint64_t target = opps.back() / 1000 * load / 1000 * 5 / 4;
  g.cur = opps.back();
  for (const std::uint64_t f : opps) {
    if (f >= target) {
      g.cur = f;
      break;
    }
  }
  if (!dev.gpu_powered()) g.cur = opps.front();
  g.cur = std::min(g.cur, g.max);
  // kgsl's busy/total of its last window (kgsl_pwrctrl_busy_time refreshes
  // it past UPDATE_BUSY_VAL; a second of µs here, the unit not confirmed);
  // both 0 while the GPU is off.
  if (dev.gpu_powered()) {
    const std::uint64_t window = static_cast<std::uint64_t>(std::max<std::int64_t>(dev.sim_now(), 0) / 1'000'000'000);
    g.total = 1'000'000 + window * 7919 % 1000;
    g.busy = g.total * load / kPpm;
  }
  return g;
}

// kgsl-3d0's nodes (aosp-mirror/kernel_msm drivers/gpu/msm/kgsl_pwrctrl.c
// @ 03f7a6a6): gpuclk and max_gpuclk in Hz, gpubusy "%7d %7d", and
// gpu_busy_percentage "N %".
Node kgsl_node(Device& dev, std::string_view attr) {
  const bool ok = label_readable(dev, dev.gpu_label());
  SysfsAnswers& a = dev.cpu().sysfs;
  std::function<std::string()> read;
  if (attr == "gpuclk") read = [&dev, &a] { return line(*(a.gpuclk_hz = gpu_now(dev).cur)); };
  if (attr == "max_gpuclk") read = [&dev, &a] { return line(*(a.max_gpuclk_hz = gpu_now(dev).max)); };
  if (attr == "clock_mhz") read = [&dev] { return line(gpu_now(dev).cur / 1'000'000); };
  if (attr == "max_clock_mhz") read = [&dev] { return line(gpu_now(dev).max / 1'000'000); };
  if (attr == "gpubusy") {
    read = [&dev, &a] {
      const GpuNow g = gpu_now(dev);
      a.gpubusy_busy = g.busy;
      a.gpubusy_total = g.total;
      std::string s;
      appendf(s, "%7" PRIu64 " %7" PRIu64 "\n", g.busy, g.total);
      return s;
    };
  }
  if (attr == "gpu_busy_percentage") {
    read = [&dev, &a] {
      const GpuNow g = gpu_now(dev);
      const std::uint64_t pct = g.total == 0 ? 0 : g.busy * 100 / g.total;
      a.gpu_busy_percentage = pct;
      return std::to_string(pct) + " %\n";
    };
  }
  if (attr == "gpu_model") read = [] { return std::string("Adreno660v1\n"); };
  if (!read) return {};
  return ok ? file(std::move(read)) : denied_file(std::move(read));
}

const std::vector<std::string> kKgslAttrs = {"clock_mhz", "gpu_busy_percentage", "gpu_model", "gpubusy",
                                             "gpuclk",    "max_clock_mhz",       "max_gpuclk"};
const std::vector<std::string> kDevfreqAttrs = {
    "available_frequencies", "cur_freq", "governor", "max_freq", "min_freq", "polling_interval", "target_freq"};

std::string devfreq_name(GpuKind k) { return k == GpuKind::mali ? "13000000.mali" : "3d00000.qcom,kgsl-3d0"; }

// A devfreq device's attributes (drivers/devfreq/devfreq.c): Hz.
Node devfreq_node(Device& dev, std::string_view attr) {
  const bool ok = label_readable(dev, dev.gpu_label());
  SysfsAnswers& a = dev.cpu().sysfs;
  const auto& opps = gpu_opps(dev.config().gpu);
  std::function<std::string()> read;
  if (attr == "cur_freq" || attr == "target_freq") {
    const bool cur = attr == "cur_freq";
    read = [&dev, &a, cur] {
      const std::uint64_t f = gpu_now(dev).cur;
      if (cur) a.devfreq_cur_hz = f;
      return line(f);
    };
  }
  if (attr == "max_freq") read = [&dev, &a] { return line(*(a.devfreq_max_hz = gpu_now(dev).max)); };
  if (attr == "min_freq") read = [&opps] { return line(opps.front()); };
  if (attr == "available_frequencies") {
    read = [&opps] {
      std::string s;
      for (const std::uint64_t f : opps) s += (s.empty() ? "" : " ") + std::to_string(f);
      return s + "\n";
    };
  }
  if (attr == "governor") read = [] { return std::string("simple_ondemand\n"); };
  if (attr == "polling_interval") read = [] { return std::string("50\n"); };
  if (!read) return {};
  return ok ? file(std::move(read)) : denied_file(std::move(read));
}

// ---- battery ---------------------------------------------------------------

// /sys/class/power_supply/battery: µA, µV, tenths of °C, percent (healthd
// divides voltage_now by 1000: healthd/BatteryMonitor.cpp:223 @
// android-7.0.0_r1); consistent with what dumpsys battery prints now.
Node battery_node(Device& dev, std::string_view supply, std::string_view attr) {
  const bool ok = label_readable(dev, dev.battery_label());
  std::function<std::string()> read;
  if (supply == "usb") {
    if (attr == "online") read = [&dev] { return std::string(dev.battery().plugged == SimPlug::usb ? "1\n" : "0\n"); };
    if (attr == "present") read = [] { return std::string("1\n"); };
    if (attr == "type") read = [] { return std::string("USB\n"); };
  } else {
    if (attr == "current_now") {
      read = [&dev] {
        const std::int64_t ua = dev.battery_current_ua();
        dev.cpu().sysfs.current_now_ua = ua;
        return std::to_string(ua) + "\n";
      };
    }
    if (attr == "voltage_now") {
      read = [&dev] { return line(static_cast<std::uint64_t>(dev.battery().voltage_mv) * 1000); };
    }
    if (attr == "temp") read = [&dev] { return std::to_string(dev.battery().temperature_tenths) + "\n"; };
    if (attr == "capacity") read = [&dev] { return line(static_cast<std::uint64_t>(dev.battery().level)); };
    if (attr == "charge_counter") {
      read = [&dev] { return line(static_cast<std::uint64_t>(dev.battery().charge_counter_uah)); };
    }
    if (attr == "status") {
      read = [&dev] {
        const int st = dev.battery().status;
        return std::string(st == 2 ? "Charging\n" : st == 5 ? "Full\n" : "Discharging\n");
      };
    }
    if (attr == "health") read = [] { return std::string("Good\n"); };
    if (attr == "present") read = [] { return std::string("1\n"); };
    if (attr == "technology") read = [] { return std::string("Li-ion\n"); };
    if (attr == "type") read = [] { return std::string("Battery\n"); };
  }
  if (!read) return {};
  return ok ? file(std::move(read)) : denied_file(std::move(read));
}

const std::vector<std::string> kBatteryAttrs = {"capacity", "charge_counter", "current_now", "health", "present",
                                                "status",   "technology",     "temp",        "type",   "voltage_now"};

// /sys/class/...
Node class_node(Device& dev, const Comps& c) {
  const GpuKind gpu = dev.config().gpu;
  if (c.size() == 2) {
    std::vector<std::string> e = {"devfreq", "misc", "power_supply", "thermal"};
    if (gpu == GpuKind::adreno) e.push_back("kgsl");
    return dir(std::move(e));
  }
  const std::string_view cls = c[2];
  if (cls == "kgsl" && gpu == GpuKind::adreno) {
    if (c.size() == 3) return dir({"kgsl-3d0"});
    if (c[3] != "kgsl-3d0") return {};
    if (c.size() == 4) return dir(kKgslAttrs);
    return c.size() == 5 ? kgsl_node(dev, c[4]) : Node{};
  }
  if (cls == "devfreq") {
    if (c.size() == 3) return gpu == GpuKind::none ? dir() : dir({devfreq_name(gpu)});
    if (gpu == GpuKind::none || c[3] != devfreq_name(gpu)) return {};
    if (c.size() == 4) return dir(kDevfreqAttrs);
    return c.size() == 5 ? devfreq_node(dev, c[4]) : Node{};
  }
  if (cls == "misc") {
    // Mali's kbase device (mali_kbase_core_linux.c): gpuinfo, 0444; its
    // label is the vendor's sysfs_gpu, or plain sysfs.
    if (c.size() == 3) return gpu == GpuKind::mali ? dir({"mali0"}) : dir();
    if (gpu != GpuKind::mali || c[3] != "mali0") return {};
    if (c.size() == 4) return dir({"device"});
    if (c[4] != "device") return {};
    if (c.size() == 5) return dir({"gpuinfo"});
    if (c.size() != 6 || c[5] != "gpuinfo") return {};
    auto read = [] { return std::string("Mali-G78 20 cores r1p1 0x9091\n"); };
    return label_readable(dev, dev.gpu_label() == SysfsLabel::sysfs_gpu ? SysfsLabel::sysfs_gpu : SysfsLabel::sysfs)
               ? file(read)
               : denied_file(read);
  }
  if (cls == "power_supply") {
    if (c.size() == 3) return dir({"battery", "usb"});
    if (c[3] != "battery" && c[3] != "usb") return {};
    if (c.size() == 4) {
      return dir(c[3] == "usb" ? std::vector<std::string>{"online", "present", "type"} : kBatteryAttrs);
    }
    return c.size() == 5 ? battery_node(dev, c[3], c[4]) : Node{};
  }
  if (cls == "thermal" && c.size() == 3) return dir();
  return {};
}

// ---- the tree --------------------------------------------------------------

Node proc_pid_node(Device& dev, const Comps& c) {
  const std::int32_t pid = id_of(c[1]);
  const auto e = pid > 0 ? process_of(dev, pid) : std::nullopt;
  if (!e) return {};
  dev.sync_platform_processes();
  SimProc* p = dev.cpu().find(pid);
  if (p == nullptr || p->tasks.empty()) return {};
  const bool rollup = dev.kernel().at_least(4, 14);
  const bool allowed = permitted(dev, e->uid);
  if (c.size() == 2) {
    std::vector<std::string> entries = {"cmdline", "comm", "environ", "maps",   "mem",
                                        "smaps",   "stat", "statm",   "status", "task"};
    if (rollup) entries.push_back("smaps_rollup");
    return dir(std::move(entries));
  }
  const std::string_view name = c[2];
  auto task_files = [&](SimTask& k, std::string_view f) -> Node {
    const ProcEntry pe = *e;
    if (f == "stat") return file([&dev, pe, p, &k] { return task_stat(dev, pe, *p, k, false); });
    if (f == "status") return file([&dev, pe, p, &k] { return task_status(dev, pe, *p, k); });
    if (f == "comm") return file([&k] { return k.comm + "\n"; });
    if (f == "cmdline") return file([&dev, pid] { return dev.cmdline_of(pid).value_or(""); });
    return {};
  };
  if (c.size() == 3) {
    const ProcEntry pe = *e;
    if (name == "stat") return file([&dev, pe, p] { return task_stat(dev, pe, *p, p->tasks.front(), true); });
    if (name == "status") return file([&dev, pe, p] { return task_status(dev, pe, *p, p->tasks.front()); });
    if (name == "statm") return file([&dev, p] { return statm(dev, *p); });
    if (name == "comm" || name == "cmdline") return task_files(p->tasks.front(), name);
    // Opened through proc_mem_open → mm_access: EACCES without ptrace
    // rights, on every release (fs/proc/base.c proc_mem_open → kernel/
    // fork.c mm_access); smaps_rollup only from 4.14.
    if (name == "smaps_rollup" && !rollup) return {};
    if (name == "smaps_rollup") return file([&dev, p] { return smaps_rollup(dev, *p); }, allowed ? 0 : EACCES);
    if (name == "smaps" || name == "maps" || name == "mem" || name == "environ") {
      return file([] { return std::string(); }, allowed ? 0 : EACCES);
    }
    if (name == "task") {
      std::vector<std::string> tids;
      for (const SimTask& k : p->tasks) tids.push_back(std::to_string(k.tid));
      return dir(std::move(tids));
    }
    return {};
  }
  if (name != "task") return {};
  const std::int32_t tid = id_of(c[3]);
  for (SimTask& k : p->tasks) {
    if (k.tid != tid) continue;
    if (c.size() == 4) return dir({"cmdline", "comm", "stat", "status"});
    return c.size() == 5 ? task_files(k, c[4]) : Node{};
  }
  return {};
}

Node proc_node(Device& dev, const Comps& c, bool want_entries) {
  if (c.size() == 1) {
    std::vector<std::string> entries = {"stat", "sys", "uptime"};
    if (want_entries) {
      for (const auto& p : dev.processes()) entries.push_back(std::to_string(p.pid));
    }
    return dir(std::move(entries));
  }
  if (c.size() == 2 && c[1] == "stat") return file([&dev] { return proc_stat(dev); });
  if (c.size() == 2 && c[1] == "uptime") {
    return file([&dev] {
      const double up = static_cast<double>(dev.sim_now()) / 1e9;
      std::string s;
      appendf(s, "%.2f %.2f\n", up, up * 3.1);
      return s;
    });
  }
  static const std::vector<std::string_view> kBootId = {"sys", "kernel", "random", "boot_id"};
  if (c.size() <= 5 && c[1] == "sys") {
    for (std::size_t i = 1; i < c.size(); ++i) {
      if (c[i] != kBootId[i - 1]) return {};
    }
    if (c.size() == 5) return file([&dev] { return dev.boot_id() + "\n"; });
    return dir({std::string(kBootId[c.size() - 1])});
  }
  return proc_pid_node(dev, c);
}

Node lookup(Device& dev, const Comps& c, bool want_entries) {
  static const std::vector<std::string> kRoot = {"acct",   "apex",    "bin", "cache",  "config", "d",    "data",
                                                 "dev",    "etc",     "mnt", "odm",    "oem",    "proc", "product",
                                                 "sdcard", "storage", "sys", "system", "vendor"};
  if (c.empty()) return dir(kRoot);
  if (c[0] == "proc") return proc_node(dev, c, want_entries);
  if (c[0] == "sys") {
    if (c.size() == 1) return dir({"block", "bus", "class", "devices", "firmware", "fs", "kernel", "module", "power"});
    if (c[1] == "class") return class_node(dev, c);
    if (c[1] == "devices") {
      if (c.size() == 2) return dir({"platform", "system", "virtual"});
      if (c[2] != "system") return c.size() == 3 && (c[2] == "platform" || c[2] == "virtual") ? dir() : Node{};
      if (c.size() == 3) return dir({"cpu"});
      return c[3] == "cpu" ? cpu_node(dev, c, 4) : Node{};
    }
    static const std::vector<std::string_view> kOther = {"block", "bus", "firmware", "fs", "kernel", "module", "power"};
    if (c.size() == 2 && std::find(kOther.begin(), kOther.end(), c[1]) != kOther.end()) return dir();
    return {};
  }
  // Other top-level directories exist; the shell may not list them here.
  if (c.size() == 1 && std::find(kRoot.begin(), kRoot.end(), c[0]) != kRoot.end()) {
    Node n = dir();
    n.listable = false;
    return n;
  }
  return {};
}

}  // namespace

FsRead fs_read(Device& dev, std::string_view path) {
  const Node n = lookup(dev, components(path), false);
  if (n.kind == Node::Kind::none) return {ENOENT, {}};
  if (n.kind == Node::Kind::dir) return {EISDIR, {}};
  if (n.read_err != 0) return {n.read_err, {}};
  return {0, n.read()};
}

std::optional<std::vector<std::string>> fs_list(Device& dev, std::string_view path) {
  Node n = lookup(dev, components(path), true);
  if (n.kind != Node::Kind::dir || !n.listable) return std::nullopt;
  return std::move(n.entries);
}

bool fs_stat(Device& dev, std::string_view path) {
  const Node n = lookup(dev, components(path), false);
  return n.kind != Node::Kind::none && n.stat_ok;
}

}  // namespace jank::devsim

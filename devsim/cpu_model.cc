#include "devsim/cpu_model.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace jank::devsim {
namespace {

// What the kernel, daemons and interrupts keep a core busy with, per mode
// (ppm): a few percent, so an idle phone's cores are mostly idle.
constexpr std::array<std::uint32_t, kModes> kBackground = {30'000, 1'000, 20'000, 0, 2'000, 3'000, 5'000};

}  // namespace

CpuTopology CpuTopology::standard() {
  CpuTopology t;
  t.cores = 8;
  t.policies = {
      {{0, 1, 2, 3},
       {300'000, 576'000, 768'000, 1'017'600, 1'248'000, 1'324'800, 1'497'600, 1'612'800, 1'708'800, 1'804'800}},
      {{4, 5, 6},
       {710'400, 844'800, 960'000, 1'171'200, 1'382'400, 1'574'400, 1'766'400, 1'977'600, 2'112'000, 2'227'200,
        2'419'200}},
      {{7},
       {844'800, 1'113'600, 1'305'600, 1'555'200, 1'785'600, 2'016'000, 2'227'200, 2'419'200, 2'649'600, 2'841'600,
        2'995'200}},
  };
  return t;
}

int CpuTopology::policy_of(int cpu) const {
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const auto& c = policies[i].cpus;
    if (std::find(c.begin(), c.end(), cpu) != c.end()) return static_cast<int>(i);
  }
  return -1;
}

CpuModel::CpuModel(CpuTopology topology) : topo_(std::move(topology)) {
  sysfs.policies.resize(topo_.policies.size());
  stat_prev_.assign(static_cast<std::size_t>(topo_.cores) + 1, {});
  stat_now_ = stat_prev_;
  reboot();
}

void CpuModel::reboot() {
  for (const auto& [pid, p] : procs_) fold(p);
  procs_.clear();
  next_exit_ = INT64_MAX;
  for (std::size_t r = 0; r < stat_now_.size(); ++r) {
    for (std::size_t c = 0; c < kStatColumns; ++c) stat_prev_[r][c] += stat_now_[r][c];
    stat_now_[r] = {};
  }
  cores_.assign(static_cast<std::size_t>(topo_.cores), {});
  online_.assign(static_cast<std::size_t>(topo_.cores), true);
  caps_.assign(topo_.policies.size(), 0);
  update_cores(0);
}

SimProc& CpuModel::start(std::int32_t pid, std::int32_t app, std::int32_t uid, std::int64_t t,
                         std::vector<SimTask> tasks) {
  if (procs_.contains(pid)) end(pid, t);
  SimProc& p = procs_[pid];
  p.serial = next_serial_++;
  p.pid = pid;
  p.app = app;
  p.uid = uid;
  p.start_ns = t;
  p.tasks = std::move(tasks);
  for (SimTask& k : p.tasks) {
    k.start_ns = t;
    if (k.end_ns >= 0) k.end_ns += t;
    k.user = Meter{0, t, 0};
    k.sys = Meter{0, t, 0};
  }
  if (app >= 0) folded_.try_emplace(app);
  find_next_exit();
  return p;
}

void CpuModel::end(std::int32_t pid, std::int64_t t) {
  settle(t);
  const auto it = procs_.find(pid);
  if (it == procs_.end()) return;
  fold(it->second);
  procs_.erase(it);
  find_next_exit();
  update_cores(t);
}

SimProc* CpuModel::find(std::int32_t pid) {
  const auto it = procs_.find(pid);
  return it == procs_.end() ? nullptr : &it->second;
}

const SimProc* CpuModel::find(std::int32_t pid) const {
  const auto it = procs_.find(pid);
  return it == procs_.end() ? nullptr : &it->second;
}

void CpuModel::settle(std::int64_t t) {
  if (t < next_exit_) return;
  bool changed = false;
  for (auto& [pid, p] : procs_) {
    for (auto it = p.tasks.begin(); it != p.tasks.end();) {
      if (it->end_ns < 0 || it->end_ns > t || it->tid == p.pid) {
        ++it;
        continue;
      }
      // The kernel adds an exiting thread's times to its group's signal
      // struct (__exit_signal): the process's totals keep them.
      p.dead_user_ns += it->user.at(it->end_ns);
      p.dead_sys_ns += it->sys.at(it->end_ns);
      if (p.app >= 0) fold_task(p.app, *it);
      it = p.tasks.erase(it);
      changed = true;
    }
  }
  if (!changed) return;
  find_next_exit();
  update_cores(t);
}

void CpuModel::find_next_exit() {
  next_exit_ = INT64_MAX;
  for (const auto& [pid, p] : procs_) {
    for (const SimTask& k : p.tasks) {
      if (k.end_ns >= 0 && k.tid != p.pid) next_exit_ = std::min(next_exit_, k.end_ns);
    }
  }
}

void CpuModel::set_busy(SimTask& task, std::int64_t t, std::uint32_t ppm) {
  const std::uint32_t user = static_cast<std::uint32_t>(static_cast<std::uint64_t>(ppm) * task.user_share_pct / 100);
  task.user.set(t, user);
  task.sys.set(t, ppm - user);
}

void CpuModel::update_cores(std::int64_t t) {
  const auto n = static_cast<std::size_t>(topo_.cores);
  std::vector<std::uint64_t> user(n, 0), sys(n, 0);
  for (const auto& [pid, p] : procs_) {
    if (p.app < 0) continue;  // the platform's daemons are in the background load
    for (const SimTask& k : p.tasks) {
      const auto c = static_cast<std::size_t>(run_core(k.core));
      user[c] += k.user.ppm;
      sys[c] += k.sys.ppm;
    }
  }
  for (std::size_t c = 0; c < n; ++c) {
    std::array<std::uint64_t, kModes> r{};
    if (online_[c]) {
      for (std::size_t m = 0; m < kModes; ++m) r[m] = kBackground[m];
      r[kUser] += user[c];
      r[kSystem] += sys[c];
      const std::uint64_t fixed = r[kNice] + r[kIowait] + r[kIrq] + r[kSoftirq];
      const std::uint64_t room = kPpm - fixed;
      const std::uint64_t busy = r[kUser] + r[kSystem];
      if (busy > room) {
        // More threads than the core can run: each gets its share of it.
        const std::uint64_t u = r[kUser] * room / busy;
        r[kUser] = u;
        r[kSystem] = room - u;
      }
      r[kIdle] = kPpm - fixed - r[kUser] - r[kSystem];
    }
    for (std::size_t m = 0; m < kModes; ++m) cores_[c][m].set(t, static_cast<std::uint32_t>(r[m]));
  }
}

std::int64_t CpuModel::proc_ns(const SimProc& p, bool user, std::int64_t t) const {
  std::int64_t ns = user ? p.dead_user_ns : p.dead_sys_ns;
  for (const SimTask& k : p.tasks) ns += task_ns(k, user, t);
  return ns;
}

int CpuModel::run_core(int cpu) const {
  cpu = std::clamp(cpu, 0, topo_.cores - 1);
  if (online_[static_cast<std::size_t>(cpu)]) return cpu;
  // A thread of an offline core runs on another one.
  for (int c = 0; c < topo_.cores; ++c) {
    if (online_[static_cast<std::size_t>(c)]) return c;
  }
  return 0;
}

std::uint32_t CpuModel::core_busy_ppm(int cpu) const {
  const auto c = static_cast<std::size_t>(cpu);
  if (!online_[c]) return 0;
  return kPpm - cores_[c][kIdle].ppm;
}

void CpuModel::set_online(int cpu, bool on, std::int64_t t) {
  online_[static_cast<std::size_t>(cpu)] = on;
  update_cores(t);
}

void CpuModel::answered_proc(SimProc& p, std::uint64_t user, std::uint64_t sys) {
  p.answered = true;
  p.last_user = user;
  p.last_sys = sys;
}

void CpuModel::answered_task(SimTask& k, std::uint64_t user, std::uint64_t sys) {
  k.answered = true;
  k.last_user = user;
  k.last_sys = sys;
}

void CpuModel::answered_memory(std::int32_t app, std::uint64_t rss_kb, std::uint64_t swap_kb) {
  if (app < 0) return;
  ProcTruth& t = folded_[app];
  t.vm_rss_kb = rss_kb;
  t.vm_swap_kb = swap_kb;
}

void CpuModel::answered_stat_row(std::size_t row, const std::array<std::uint64_t, kStatColumns>& values) {
  if (row < stat_now_.size()) stat_now_[row] = values;
}

std::array<std::uint64_t, kStatColumns> CpuModel::stat_truth(std::size_t row) const {
  std::array<std::uint64_t, kStatColumns> v{};
  if (row >= stat_now_.size()) return v;
  for (std::size_t c = 0; c < kStatColumns; ++c) v[c] = stat_prev_[row][c] + stat_now_[row][c];
  return v;
}

void CpuModel::fold_task(std::int32_t app, const SimTask& k) {
  if (!k.answered) return;
  auto& [u, s] = folded_[app].threads[k.key];
  u += k.last_user;
  s += k.last_sys;
}

void CpuModel::fold(const SimProc& p) {
  if (p.app < 0) return;
  ProcTruth& t = folded_[p.app];
  if (p.answered) {
    t.user += p.last_user;
    t.sys += p.last_sys;
  }
  for (const SimTask& k : p.tasks) fold_task(p.app, k);
}

ProcTruth CpuModel::app_truth(std::int32_t app) const {
  ProcTruth t;
  if (const auto it = folded_.find(app); it != folded_.end()) t = it->second;
  for (const auto& [pid, p] : procs_) {
    if (p.app != app) continue;
    if (p.answered) {
      t.user += p.last_user;
      t.sys += p.last_sys;
    }
    for (const SimTask& k : p.tasks) {
      auto& [u, s] = t.threads[k.key];
      if (!k.answered) continue;
      u += k.last_user;
      s += k.last_sys;
    }
  }
  return t;
}

}  // namespace jank::devsim

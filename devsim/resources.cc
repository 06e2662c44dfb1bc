// The simulated device's CPU, memory, clocks and GPU: which threads each
// process runs and how busy they are, how much memory it holds, the GPU's
// load, the controls that change them and their truth. The counts live in
// devsim/cpu_model.*; devsim/procfs.cc prints the files. docs/devsim.md,
// "CPU, memory, clocks, GPU and battery current".
#include <algorithm>
#include <cmath>
#include <set>

#include "devsim/json.h"
#include "devsim/model.h"

namespace jank::devsim {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

// A thread of an app's process, at pid + offset (the kernel hands its ids
// out in creation order; gaps are threads that came and went). Busy shares
// in ppm while the app draws and while it does not; a heavy thread runs on
// the mid and big cores, the others on the little ones.
struct ThreadSpec {
  int offset;
  const char* comm;  // nullptr: the binder pool's name
  const char* key;
  std::uint32_t draw, idle;
  std::uint32_t user_pct;
  SimTask::Role role;
  int heavy_slot;  // -1: a little core
  int nice;
  std::int64_t lifetime_ns;  // -1: as long as the process
};

// An app's threads as ART and HWUI name them (the main thread after the
// tail of the process name; frameworks/base libs/hwui/renderthread/
// RenderThread.cpp starts "RenderThread"; ART's daemons; the binder pool):
// representative shares, 85 % user time except the binder threads, which
// mostly run the driver. "AsyncTask #1" is the app's start-up work: it
// ends 10 s after the process starts.
constexpr ThreadSpec kAppThreads[] = {
    {0, nullptr, "main", 250'000, 0, 85, SimTask::Role::main, 0, -10, -1},
    {5, "Signal Catcher", "Signal Catcher", 0, 0, 85, SimTask::Role::other, -1, 0, -1},
    {8, "Jit thread pool", "Jit thread pool", 8'000, 0, 85, SimTask::Role::other, -1, 0, -1},
    {9, "HeapTaskDaemon", "HeapTaskDaemon", 12'000, 1'000, 85, SimTask::Role::other, -1, 4, -1},
    {10, "ReferenceQueueD", "ReferenceQueueD", 1'000, 0, 85, SimTask::Role::other, -1, 0, -1},
    {11, "FinalizerDaemon", "FinalizerDaemon", 2'000, 0, 85, SimTask::Role::other, -1, 0, -1},
    {12, "FinalizerWatchd", "FinalizerWatchd", 0, 0, 85, SimTask::Role::other, -1, 0, -1},
    {13, nullptr, "binder", 6'000, 500, 40, SimTask::Role::other, -1, 0, -1},
    {14, nullptr, "binder", 4'000, 0, 40, SimTask::Role::other, -1, 0, -1},
    {15, nullptr, "binder", 2'000, 0, 40, SimTask::Role::other, -1, 0, -1},
    {16, "Profile Saver", "Profile Saver", 0, 0, 85, SimTask::Role::other, -1, 0, -1},
    {17, "RenderThread", "RenderThread", 150'000, 0, 85, SimTask::Role::render, 1, -10, -1},
    {18, "hwuiTask0", "hwuiTask0", 10'000, 0, 85, SimTask::Role::other, -1, -2, -1},
    {19, "hwuiTask1", "hwuiTask1", 10'000, 0, 85, SimTask::Role::other, -1, -2, -1},
    {20, "AsyncTask #1", "AsyncTask #1", 300'000, 300'000, 85, SimTask::Role::other, -1, 10, 10 * kSecond},
};
// A Unity game's engine threads (closed source: names as traces show them):
// its Java main thread and HWUI idle along.
constexpr ThreadSpec kGameThreads[] = {
    {21, "UnityMain", "UnityMain", 450'000, 0, 85, SimTask::Role::other, 2, -4, -1},
    {22, "UnityGfxDeviceW", "UnityGfxDeviceW", 300'000, 0, 85, SimTask::Role::other, 3, -4, -1},
    {23, "UnityChoreograp", "UnityChoreograp", 10'000, 0, 85, SimTask::Role::other, -1, 0, -1},
    {24, "Job.Worker 0", "Job.Worker 0", 80'000, 0, 85, SimTask::Role::other, -1, 0, -1},
    {25, "Job.Worker 1", "Job.Worker 1", 80'000, 0, 85, SimTask::Role::other, -1, 0, -1},
    {26, "Job.Worker 2", "Job.Worker 2", 80'000, 0, 85, SimTask::Role::other, -1, 0, -1},
    {27, "Job.Worker 3", "Job.Worker 3", 80'000, 0, 85, SimTask::Role::other, -1, 0, -1},
};
constexpr std::uint32_t kGameMainDraw = 50'000, kGameRenderDraw = 30'000;
static_assert(27 < kTidSpan, "a game's threads fit the ids after its pid");

// The kernel keeps 15 bytes of a thread's name; Android names a process's
// main thread after the tail of the process name (libcutils
// process_name.c:55-58 @ android-5.0.0_r1; AndroidRuntime::setArgv0 later):
// "com.android.systemui" → "ndroid.systemui".
std::string comm_of(std::string_view name) {
  return std::string(name.size() > 15 ? name.substr(name.size() - 15) : name);
}

// libbinder's pool threads (ProcessState::makeBinderThreadName): "Binder_N"
// before 7.0, "Binder:PID_N" from 7.0; lower case "binder:" is taken from
// 12 on (UNVERIFIED release). N in hex.
std::string binder_name(int sdk, std::int32_t pid, int n) {
  char b[32];
  if (sdk < 24) {
    std::snprintf(b, sizeof b, "Binder_%X", n);
  } else {
    std::snprintf(b, sizeof b, "%s:%d_%X", sdk >= 31 ? "binder" : "Binder", pid, n);
  }
  return comm_of(b);
}

std::uint64_t fnv(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

void Device::cpu_app_started(AppState& a) {
  const auto index = static_cast<std::int32_t>(&a - apps_.data());
  const CpuTopology& topo = cpu_.topology();
  const std::vector<int>& little = topo.policies.front().cpus;
  std::vector<int> heavy;
  for (std::size_t i = 1; i < topo.policies.size(); ++i)
    heavy.insert(heavy.end(), topo.policies[i].cpus.begin(), topo.policies[i].cpus.end());
  if (heavy.empty()) heavy = little;
  const bool game = a.cfg.game_fps > 0;
  std::vector<SimTask> tasks;
  int binders = 0;
  auto add = [&](const ThreadSpec& s) {
    SimTask k;
    k.tid = a.pid + s.offset;
    k.comm = s.comm != nullptr ? std::string(s.comm)
             : s.offset == 0   ? comm_of(a.cfg.package)
                               : binder_name(cfg_.sdk, a.pid, ++binders);
    k.key = s.key;
    k.draw_ppm = s.draw;
    k.idle_ppm = s.idle;
    if (game && s.role == SimTask::Role::main) k.draw_ppm = kGameMainDraw;
    if (game && s.role == SimTask::Role::render) k.draw_ppm = kGameRenderDraw;
    k.user_share_pct = s.user_pct;
    k.role = s.role;
    k.nice = s.nice;
    k.end_ns = s.lifetime_ns;
    // Apps spread over the cores: each one's heavy threads on its own mid/big cores.
    k.core = s.heavy_slot >= 0 ? heavy[static_cast<std::size_t>(index * 2 + s.heavy_slot) % heavy.size()]
                               : little[static_cast<std::size_t>(s.offset + index) % little.size()];
    tasks.push_back(std::move(k));
  };
  for (const ThreadSpec& s : kAppThreads) add(s);
  if (game) {
    for (const ThreadSpec& s : kGameThreads) add(s);
  }
  cpu_.start(a.pid, index, a.uid, sim_time_, std::move(tasks));
  sync_cpu();
}

void Device::cpu_app_ended(AppState& a) {
  if (a.pid != 0) cpu_.end(a.pid, sim_time_);
}

void Device::sync_cpu() {
  const std::int64_t t = sim_time_;
  cpu_.settle(t);
  for (std::size_t i = 0; i < apps_.size(); ++i) {
    const AppState& a = apps_[i];
    SimProc* p = a.pid != 0 ? cpu_.find(a.pid) : nullptr;
    if (p == nullptr || p->app != static_cast<std::int32_t>(i)) continue;
    for (SimTask& k : p->tasks) {
      std::uint32_t ppm = draws(a) ? k.draw_ppm : k.idle_ppm;
      if (k.role == SimTask::Role::main && a.cpu_main_ppm) ppm = *a.cpu_main_ppm;
      if (k.role == SimTask::Role::render && a.cpu_render_ppm) ppm = *a.cpu_render_ppm;
      if (paused_) ppm = 0;  // nothing happens while the simulation is paused
      cpu_.set_busy(k, t, ppm);
    }
  }
  cpu_.update_cores(t);
}

void Device::cpu_reboot() { cpu_.reboot(); }

void Device::sync_platform_processes() {
  const std::int64_t t = sim_time_;
  std::set<std::int32_t> live;
  for (const Process& p : processes()) {
    if (std::any_of(apps_.begin(), apps_.end(), [&](const AppState& a) { return a.pid == p.pid; })) continue;
    live.insert(p.pid);
    if (cpu_.find(p.pid) != nullptr) continue;
    // Platform processes: one thread each, a constant small load (their
    // part of the cores is in the background). Start times: init's, logd's
    // and zygote's as this boot had them; perfetto's daemons and clients
    // from when /proc first showed them (their starts are not modelled).
    std::int64_t start = t;
    std::uint32_t ppm = 2'000;
    std::string comm = p.name;
    if (p.pid == 1) start = std::min<std::int64_t>(t, 400'000'000), ppm = 500;
    if (p.pid == logd_pid_) start = logd_started_ns_, ppm = 3'000;
    if (p.pid == zygote_pid_) start = zygote_started_ns_, ppm = 0, comm = "main";
    if (p.pid == system_server_pid_) start = std::min(t, zygote_started_ns_ + 400'000'000), ppm = 40'000;
    SimTask k;
    k.tid = p.pid;
    k.comm = comm_of(comm);
    k.key = "main";
    k.user_share_pct = 60;
    k.role = SimTask::Role::main;
    std::int32_t uid = 0;
    if (p.user == "system") uid = 1000;
    if (p.user == "logd") uid = 1036;
    if (p.user == "shell") uid = 2000;
    if (p.user == "nobody") uid = 9999;
    SimProc& proc = cpu_.start(p.pid, -1, uid, std::min(start, t), {std::move(k)});
    cpu_.set_busy(proc.tasks.front(), proc.start_ns, ppm);
  }
  std::vector<std::int32_t> gone;
  for (const auto& [pid, p] : cpu_.processes()) {
    if (p.app < 0 && !live.contains(pid)) gone.push_back(pid);
  }
  for (const std::int32_t pid : gone) cpu_.end(pid, t);
}

Device::Memory Device::memory_of(SimProc& p) {
  Memory m;
  const double age_s = static_cast<double>(std::max<std::int64_t>(0, sim_time_ - p.start_ns)) / 1e9;
  double base_kb = 0;
  double anon_share = 0.45;
  if (p.app >= 0) {
    const AppState& a = apps_[static_cast<std::size_t>(p.app)];
    const std::uint64_t h = fnv(a.cfg.package);
    const bool game = a.cfg.game_fps > 0;
    // 150-400 MB for an app, 450-800 MB for a game, growing over its first
    // 20 s and breathing ±4 % over three minutes (representative).
    base_kb = (game ? 450.0 + static_cast<double>(h % 350) : 150.0 + static_cast<double>(h % 250)) * 1024;
    if (game) anon_share = 0.6;
    const double ramp = 0.55 + 0.45 * std::min(1.0, age_s / 20);
    const double phase = static_cast<double>(h >> 32 & 0xffff) / 65536.0 * 6.283185307179586;
    base_kb *= ramp * (1 + 0.04 * std::sin(6.283185307179586 * age_s / 180 + phase));
    m.size_kb = 5'600'000 + static_cast<std::uint64_t>(base_kb / 2) / 4 * 4 + (game ? 2'000'000 : 0);
    m.lib_kb = 180'000;
  } else {
    const std::string& comm = p.tasks.front().comm;
    base_kb = comm == "system_server" ? 350'000 : comm == "main" ? 110'000 : comm == "logd" ? 10'000 : 6'000;
    anon_share = 0.5;
    m.size_kb = comm == "main" || comm == "system_server" ? 5'400'000 : 60'000;
    m.lib_kb = comm == "main" || comm == "system_server" ? 150'000 : 8'000;
  }
  m.rss_kb = static_cast<std::uint64_t>(base_kb) / 4 * 4;
  m.anon_kb = static_cast<std::uint64_t>(static_cast<double>(m.rss_kb) * anon_share) / 4 * 4;
  m.shmem_kb = m.rss_kb * 3 / 100 / 4 * 4;
  m.file_kb = m.rss_kb - m.anon_kb - m.shmem_kb;
  m.swap_kb = p.app >= 0 ? static_cast<std::uint64_t>(base_kb * 0.03) / 4 * 4 : 0;
  p.hwm_kb = std::max(p.hwm_kb, m.rss_kb);
  m.hwm_kb = p.hwm_kb;
  m.peak_kb = m.size_kb + 20'480;
  m.data_kb = m.anon_kb * 3 / 2 / 4 * 4;
  m.stack_kb = 8'192;
  m.exe_kb = 28;
  m.pte_kb = m.rss_kb / 200 / 4 * 4;
  return m;
}

SysfsLabel Device::gpu_label() const {
  if (gpu_label_ != SysfsLabel::automatic) return gpu_label_;
  // The defaults (a vendor's choice: AOSP labels neither): an Adreno
  // vendor labels kgsl's nodes sysfs_gpu (the type AOSP defines from 13,
  // public/file.te:109 @ android-13.0.0_r1); a Mali vendor's devfreq node
  // takes AOSP's sysfs_devfreq_cur from 12 (public/file.te:91 @
  // android-12.0.0_r1); before, both stayed plain sysfs.
  if (cfg_.gpu == GpuKind::adreno && cfg_.sdk >= 24) return SysfsLabel::sysfs_gpu;
  if (cfg_.gpu == GpuKind::mali && cfg_.sdk >= 31) return SysfsLabel::sysfs_devfreq_cur;
  return SysfsLabel::sysfs;
}

void Device::set_sysfs_labels(std::optional<SysfsLabel> gpu, std::optional<SysfsLabel> battery) {
  if (gpu) gpu_label_ = *gpu;
  if (battery) battery_label_ = *battery;
}

std::uint32_t Device::gpu_load_ppm() const {
  if (!gpu_powered()) return 0;
  // An app's UI a little, a game's 3D much (representative).
  std::uint64_t load = 0;
  for (const AppState& a : apps_) {
    if (a.pid != 0 && draws(a)) load += a.cfg.game_fps > 0 ? 450'000 : 120'000;
  }
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(load, 980'000));
}

std::string Device::set_cpu_busy(std::string_view pkg, std::optional<double> main, std::optional<double> render) {
  advance();
  for (AppState& a : apps_) {
    if (a.cfg.package != pkg) continue;
    auto apply = [](std::optional<std::uint32_t>& field, std::optional<double> v) {
      if (!v) return;
      if (*v < 0) {
        field.reset();
      } else {
        field = static_cast<std::uint32_t>(std::lround(std::min(*v, 1.0) * kPpm));
      }
    };
    apply(a.cpu_main_ppm, main);
    apply(a.cpu_render_ppm, render);
    sync_cpu();
    return {};
  }
  return "unknown package " + std::string(pkg);
}

std::string Device::set_cpufreq_cap(int policy, std::uint32_t khz) {
  const CpuTopology& topo = cpu_.topology();
  for (std::size_t i = 0; i < topo.policies.size(); ++i) {
    const CpuPolicy& p = topo.policies[i];
    if (p.cpus.front() != policy) continue;
    if (khz != 0 && (khz < p.min_khz() || khz > p.max_khz())) {
      return "max for policy" + std::to_string(policy) + " must be " + std::to_string(p.min_khz()) + ".." +
             std::to_string(p.max_khz()) + " kHz";
    }
    advance();
    cpu_.set_policy_cap(i, khz);
    return {};
  }
  return "no policy" + std::to_string(policy);
}

std::string Device::set_core_online(int core, bool on) {
  if (core < 0 || core >= cpu_.topology().cores) return "no cpu" + std::to_string(core);
  // cpu0 has no online attribute on arm64 phones: it cannot be unplugged.
  if (core == 0 && !on) return "cpu0 cannot go offline";
  advance();
  cpu_.settle(sim_time_);
  cpu_.set_online(core, on, sim_time_);
  return {};
}

Json Device::proc_truth(std::size_t app) const {
  const ProcTruth t = cpu_.app_truth(static_cast<std::int32_t>(app));
  Json threads = Json::object();
  for (const auto& [key, v] : t.threads) threads[key] = {{"user_ticks", v.first}, {"system_ticks", v.second}};
  Json rss = t.vm_rss_kb ? Json(*t.vm_rss_kb * 1024) : Json();
  Json swap = t.vm_swap_kb ? Json(*t.vm_swap_kb * 1024) : Json();
  return {{"user_ticks", t.user},
          {"system_ticks", t.sys},
          {"threads", std::move(threads)},
          {"vm_rss_bytes", std::move(rss)},
          {"vm_swap_bytes", std::move(swap)}};
}

Json Device::resources_truth() const {
  static constexpr const char* kColumns[kStatColumns] = {"user", "nice",    "system", "idle",  "iowait",
                                                         "irq",  "softirq", "steal",  "guest", "guest_nice"};
  const CpuTopology& topo = cpu_.topology();
  auto stat_row = [&](std::size_t row) {
    const auto v = cpu_.stat_truth(row);
    Json r = Json::object();
    for (std::size_t c = 0; c < kStatColumns; ++c) r[kColumns[c]] = v[c];
    return r;
  };
  Json stat = Json::object();
  stat["cpu"] = stat_row(0);
  for (int c = 0; c < topo.cores; ++c) stat["cpu" + std::to_string(c)] = stat_row(static_cast<std::size_t>(c) + 1);
  Json online = Json::array();
  for (int c = 0; c < topo.cores; ++c) {
    if (cpu_.online(c)) online.push_back(c);
  }
  auto opt = [](const auto& v) { return v ? Json(*v) : Json(); };
  Json freq = Json::array();
  for (std::size_t i = 0; i < topo.policies.size(); ++i) {
    const SysfsAnswers::Policy& a = cpu_.sysfs.policies[i];
    freq.push_back({{"policy", topo.policies[i].cpus.front()},
                    {"cpus", topo.policies[i].cpus},
                    {"scaling_cur_freq_khz", opt(a.scaling_cur_khz)},
                    {"scaling_max_freq_khz", opt(a.scaling_max_khz)},
                    {"cpuinfo_max_freq_khz", opt(a.cpuinfo_max_khz)},
                    {"cap_khz", cpu_.policy_cap(i)}});
  }
  const SysfsAnswers& s = cpu_.sysfs;
  return {{"kernel", kernel().text()},
          {"gpu", std::string(gpu_kind_name(cfg_.gpu))},
          {"gpu_label", std::string(sysfs_label_name(gpu_label()))},
          {"battery_label", std::string(sysfs_label_name(battery_label_))},
          {"current_now_sign_discharging", cfg_.current_positive_discharging ? "positive" : "negative"},
          {"online_cores", std::move(online)},
          {"proc_stat_ticks", std::move(stat)},
          {"cpufreq", std::move(freq)},
          {"gpu_answers",
           {{"gpuclk_hz", opt(s.gpuclk_hz)},
            {"max_gpuclk_hz", opt(s.max_gpuclk_hz)},
            {"gpubusy_busy", opt(s.gpubusy_busy)},
            {"gpubusy_total", opt(s.gpubusy_total)},
            {"gpu_busy_percentage", opt(s.gpu_busy_percentage)},
            {"devfreq_cur_freq_hz", opt(s.devfreq_cur_hz)},
            {"devfreq_max_freq_hz", opt(s.devfreq_max_hz)}}},
          {"current_now_ua", opt(s.current_now_ua)}};
}

}  // namespace jank::devsim

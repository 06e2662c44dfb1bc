#include "metrics/sources/cpu.h"

#include <algorithm>

namespace jank::metrics {
namespace {

constexpr FamilySpec kFamilies[] = {
    {"android_cpu_seconds_total", FamilyType::counter, "seconds",
     "Time each online core spent in each mode (/proc/stat), summed over boots.", "serial,cpu,mode"},
    {"jank_exporter_resource_polls_total", FamilyType::counter, "",
     "Resource polls (one shell command reading /proc and sysfs files), by result.", "serial,result"},
    {"jank_exporter_resource_lines_total", FamilyType::counter, "lines",
     "Resource poll lines received, by outcome (received = parsed + discarded; discarded: a value no kernel prints "
     "or a file the poll never reads).",
     "serial,result"},
    {"jank_exporter_resource_stale_pids_total", FamilyType::counter, "",
     "Measured processes whose pid named another process when read (the app had died): not counted.", "serial"},
    {"jank_exporter_resource_supported", FamilyType::gauge, "",
     "1 when the newest resource poll could read the group's files on the device, 0 when the device lacks them or "
     "refuses the shell (SELinux, file modes): its series are then absent, never 0.",
     "serial,resource"},
    {"android_app_cpu_seconds_total", FamilyType::counter, "seconds",
     "CPU time of the app's main process (/proc/PID/stat utime and stime), by mode, summed over its processes.",
     "serial,package,mode"},
    {"android_app_thread_cpu_seconds_total", FamilyType::counter, "seconds",
     "CPU time (user and system) of the app's main thread (thread=\"main\") and of its threads named in "
     "resources.threads, summed over processes and same-named threads.",
     "serial,package,thread"},
    {"android_app_threads", FamilyType::gauge, "", "Threads of the app's main process (num_threads).",
     "serial,package"},
};
constexpr const FamilySpec& kCoreSeconds = kFamilies[0];
constexpr const FamilySpec& kPolls = kFamilies[1];
constexpr const FamilySpec& kLines = kFamilies[2];
constexpr const FamilySpec& kStalePids = kFamilies[3];
constexpr const FamilySpec& kSupported = kFamilies[4];
constexpr const FamilySpec& kAppSeconds = kFamilies[5];
constexpr const FamilySpec& kThreadSeconds = kFamilies[6];
constexpr const FamilySpec& kThreads = kFamilies[7];

constexpr std::uint64_t kMaxCores = 4096;
constexpr std::uint64_t kMaxThreads = 4096;

double seconds(std::uint64_t ticks) {
  return static_cast<double>(ticks) / static_cast<double>(parsers::kProcTicksPerSecond);
}

CpuTicks ticks_of(const parsers::CpuTimes& t) {
  return {t.user, t.nice, t.system, t.idle, t.iowait, t.irq, t.softirq, t.steal};
}

AppCpuState& app_state(PackageMetrics& p) { return p.sources.get<AppCpuState>(cpu_source().slot()); }

// What is new in `now` since `before` of the same task: all of it for a new
// task (or one whose times went back, which no kernel does to a live task).
std::pair<std::uint64_t, std::uint64_t> new_ticks(const TaskCpu* before, const TaskCpu& now) {
  if (before == nullptr || before->start != now.start || now.user < before->user || now.system < before->system) {
    return {now.user, now.system};
  }
  return {now.user - before->user, now.system - before->system};
}

// A device group is asked in every poll: no line of it is a device that
// lacks or refuses it (grep -s says nothing). A process may have died since
// the poll was built, so only a refusal says an app group is unreadable.
void note_supported(CpuState& s, ResourceGroup g, const parsers::FileAccess& a, bool asked_every_poll) {
  auto& slot = s.supported[static_cast<std::size_t>(g)];
  if (a.readable()) {
    slot = true;
  } else if (asked_every_poll || a.denied > 0 || a.failed > 0) {
    slot = false;
  }
}

void record_cores(CpuState& s, const parsers::ResourceAnswer& answer) {
  if (!answer.boot_id.empty() && answer.boot_id != s.boot_id) {
    // A new boot: the kernel counts from 0 again; the old boot's counts stay.
    s.boot_id = answer.boot_id;
    for (auto& [core, c] : s.cores) c.last = {};
  }
  if (!answer.cpu) return;
  for (const parsers::CpuTimes& t : answer.cpu->cores) {
    CoreCpu& c = s.cores[*t.core];
    const CpuTicks now = ticks_of(t);
    bool back = false;
    for (std::size_t m = 0; m < now.size(); ++m) back = back || now[m] < c.last[m];
    // Times that went back are a boot the boot id did not show (unread): counted from 0.
    for (std::size_t m = 0; m < now.size(); ++m) c.counted[m] += back ? now[m] : now[m] - c.last[m];
    c.last = now;
  }
}

void record_app(AppCpuState& a, const std::string& boot_id, std::int32_t pid, const parsers::ProcessFiles& files,
                const ThreadNames& names) {
  const parsers::TaskStat& proc = *files.process;
  // An unread boot id (never on AOSP: the file is world-readable) leaves pid and start to name the process.
  const bool same_boot = boot_id == a.boot_id;
  const TaskCpu now{proc.start_ticks, proc.user_ticks, proc.system_ticks};
  const bool same_process = same_boot && a.pid == pid;
  const auto [user, system] = new_ticks(same_process ? &a.process : nullptr, now);
  a.user += user;
  a.system += system;
  a.boot_id = boot_id;
  a.pid = pid;
  a.process = now;
  a.thread_count = proc.threads;

  std::map<std::int32_t, std::pair<std::string, TaskCpu>> tasks;
  for (const parsers::TaskStat& t : files.threads) {
    std::string label = t.id == pid ? "main" : names.follows(t.name) ? t.name : "";
    if (label.empty() || tasks.size() >= kMaxThreads) continue;
    const TaskCpu task{t.start_ticks, t.user_ticks, t.system_ticks};
    const auto it = same_process ? a.tasks.find(t.id) : a.tasks.end();
    const TaskCpu* before = it != a.tasks.end() && it->second.first == label ? &it->second.second : nullptr;
    const auto [u, s] = new_ticks(before, task);
    a.threads[label] += u + s;
    tasks.insert_or_assign(t.id, std::make_pair(std::move(label), task));
  }
  // Threads that ended keep what they counted; only the living are followed.
  a.tasks = std::move(tasks);
}

}  // namespace

const CpuSource& cpu_source() {
  static const CpuSource source;
  return source;
}

std::span<const FamilySpec> CpuSource::families() const { return kFamilies; }

bool ThreadNames::follows(std::string_view comm) const {
  return std::find(names.begin(), names.end(), comm) != names.end();
}

std::string_view process_comm(std::string_view process_name) {
  constexpr std::size_t kCommBytes = 15;  // TASK_COMM_LEN - 1
  return process_name.size() <= kCommBytes ? process_name : process_name.substr(process_name.size() - kCommBytes);
}

const std::string* measured_app(const DeviceMetrics& device, std::int32_t pid, const parsers::ProcessFiles& files) {
  const std::string* name = device.pid_names.find(pid);
  if (name == nullptr || !files.process || files.process->name != process_comm(*name)) return nullptr;
  return name;
}

bool CpuSource::checkpoint_state(Checkpoint& c, CpuState& s) const {
  bool sane = true;
  c.str(s.boot_id).count(s.answers).count(s.lines).count(s.malformed_lines).count(s.stale_pids);
  c.entries(s.cores, kMaxCores, [&](Checkpoint& e, int& core, CoreCpu& v) {
    std::int64_t n = core;
    e.i64(n).counts(v.counted).counts(v.last);
    core = static_cast<int>(std::clamp<std::int64_t>(n, -1, 4095));
    sane = sane && n >= 0 && n < static_cast<std::int64_t>(kMaxCores);
    for (std::size_t m = 0; m < v.last.size(); ++m) sane = sane && v.last[m] <= v.counted[m];
  });
  return c.valid() && sane && s.malformed_lines <= s.lines && s.boot_id.size() <= 64;
}

bool CpuSource::package_worth_saving(const SourceState& state, PackageAt at) const {
  return at == PackageAt::last && static_cast<const AppCpuState&>(state).pid != 0;
}

bool CpuSource::checkpoint_package(Checkpoint& c, SourceState& state, PackageAt) const {
  auto& a = static_cast<AppCpuState&>(state);
  bool sane = true;
  std::int64_t pid = a.pid;
  c.count(a.user).count(a.system).str(a.boot_id).i64(pid).count(a.process.start).count(a.process.user).count(
      a.process.system);
  a.pid = static_cast<std::int32_t>(std::clamp<std::int64_t>(pid, 0, 1 << 22));
  sane = sane && pid == a.pid && a.process.user <= a.user && a.process.system <= a.system && a.boot_id.size() <= 64;
  c.entries(a.threads, kMaxThreads, [&](Checkpoint& e, std::string& label, std::uint64_t& ticks) {
    e.str(label).count(ticks);
    sane = sane && !label.empty() && label.size() <= 64;
  });
  c.entries(a.tasks, kMaxThreads, [&](Checkpoint& e, std::int32_t& tid, std::pair<std::string, TaskCpu>& t) {
    std::int64_t id = tid;
    e.i64(id).str(t.first).count(t.second.start).count(t.second.user).count(t.second.system);
    tid = static_cast<std::int32_t>(std::clamp<std::int64_t>(id, 0, 1 << 22));
    const auto counted = a.threads.find(t.first);
    sane = sane && id == tid && id > 0 && counted != a.threads.end() && t.second.user + t.second.system <= counted->second;
  });
  return c.valid() && sane;
}

void CpuSource::collect(SeriesSink& f, const DeviceMetrics& d, const LabelSet& dev, std::int64_t now,
                        CollectAt) const {
  const CpuState* s = find(d);
  if (s == nullptr) return;
  collect_polled_input(f, d, dev, kPolls, kLines, {s->polls, s->answers, s->lines, s->malformed_lines});
  if (s->answers == 0) return;
  f.sample(kStalePids, dev, count_value(s->stale_pids));
  for (const auto& [core, c] : s->cores) {
    const LabelSet labels = f.labels({{"serial", d.serial}, {"cpu", std::to_string(core)}});
    for (std::size_t m = 0; m < kCpuModes.size(); ++m) {
      f.sample(kCoreSeconds, labels, Extra{"mode", kCpuModes[m]}, seconds(c.counted[m]));
    }
  }
  if (!reading_current(d, s->fresh_until_ns, now)) return;
  for (std::size_t g = 0; g < kResourceGroups.size(); ++g) {
    if (s->supported[g]) f.sample(kSupported, dev, Extra{"resource", kResourceGroups[g]}, *s->supported[g] ? 1 : 0);
  }
}

void CpuSource::collect_package(SeriesSink& f, const DeviceMetrics& d, const std::string& package,
                                const PackageMetrics& p, std::int64_t now, PackageAt at) const {
  const AppCpuState* a = app_cpu_of(p);
  if (a == nullptr || a->pid == 0 || at != PackageAt::last) return;
  const LabelSet labels = f.labels({{"serial", d.serial}, {"package", package}});
  f.sample(kAppSeconds, labels, Extra{"mode", "user"}, seconds(a->user));
  f.sample(kAppSeconds, labels, Extra{"mode", "system"}, seconds(a->system));
  for (const auto& [thread, ticks] : a->threads) {
    f.sample(kThreadSeconds, f.labels({{"serial", d.serial}, {"package", package}, {"thread", thread}}),
             seconds(ticks));
  }
  if (a->thread_count && reading_current(d, a->fresh_until_ns, now)) {
    f.sample(kThreads, labels, static_cast<double>(*a->thread_count));
  }
}

void record_cpu(Store& store, DeviceMetrics& device, const parsers::ResourceAnswer& answer, const ThreadNames& names,
                std::int64_t fresh_for_ns) {
  CpuState& s = cpu_source().state(device);
  ++s.answers;
  s.lines += answer.lines;
  s.malformed_lines += answer.malformed_lines;
  s.fresh_until_ns = fresh_until(store, fresh_for_ns);
  record_cores(s, answer);
  note_supported(s, ResourceGroup::cpu, answer.cpu_access, true);
  note_supported(s, ResourceGroup::cpufreq, answer.cpufreq_access, true);
  note_supported(s, ResourceGroup::gpu, answer.gpu.access, true);
  note_supported(s, ResourceGroup::battery_current, answer.battery_current_access, true);
  for (const auto& [pid, files] : answer.processes) {
    note_supported(s, ResourceGroup::app_cpu, files.stat, false);
    if (files.status.any()) note_supported(s, ResourceGroup::app_memory, files.status, false);
    if (!files.process) continue;
    const std::string* name = measured_app(device, pid, files);
    if (name == nullptr) {
      ++s.stale_pids;
      continue;
    }
    AppCpuState& a = app_state(store.package(device, *name));
    record_app(a, s.boot_id, pid, files, names);
    a.fresh_until_ns = s.fresh_until_ns;
  }
}

void count_resource_poll(DeviceMetrics& device, std::string_view result) {
  cpu_source().state(device).polls.count(result);
}

const CpuState* cpu_of(const DeviceMetrics& device) { return cpu_source().find(device); }

const AppCpuState* app_cpu_of(const PackageMetrics& package) {
  return package.sources.find_as<AppCpuState>(cpu_source().slot());
}

}  // namespace jank::metrics

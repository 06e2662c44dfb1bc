// Source module: CPU time from the kernel (the resource poll,
// parsers/resource_files.h). Per device, each online core's time by mode
// (/proc/stat); per measured app, its main process's time and its named
// threads' (/proc/PID/stat, /proc/PID/task/TID/stat). Counters in seconds
// that only grow: what is new since the newest answer is added, a new boot,
// process or thread counts from 0, so counts survive restarts of the app,
// the device and the exporter (checkpointed). The poll's own input (polls,
// lines, what the device let the shell read) is counted here too.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/source.h"
#include "parsers/resource_files.h"

namespace jank::metrics {

// /proc/stat's modes, in its order (guest time is inside user and nice).
inline constexpr std::array<std::string_view, 8> kCpuModes = {"user",   "nice", "system",  "idle",
                                                              "iowait", "irq",  "softirq", "steal"};
using CpuTicks = std::array<std::uint64_t, kCpuModes.size()>;

struct CoreCpu {
  CpuTicks counted{};  // every boot's, in ticks
  CpuTicks last{};     // the newest answer's, this boot
};

// What the newest answer let the shell read of each group of files
// (jank_exporter_resource_supported): unset until a file of it was named.
enum class ResourceGroup : std::uint8_t { cpu, app_cpu, app_memory, cpufreq, gpu, battery_current };
inline constexpr std::array<std::string_view, 6> kResourceGroups = {"cpu",     "app_cpu", "app_memory",
                                                                    "cpufreq", "gpu",     "battery_current"};

struct CpuState final : SourceState {
  std::string boot_id;  // of the cores' `last`
  std::map<int, CoreCpu> cores;
  std::uint64_t answers = 0;
  std::uint64_t lines = 0, malformed_lines = 0;
  // Processes whose pid named another process by the time it was read (the
  // app died and the kernel gave the pid away): not counted for the app.
  std::uint64_t stale_pids = 0;
  PollCounts polls;                                                    // not checkpointed
  std::array<std::optional<bool>, kResourceGroups.size()> supported;  // not checkpointed
  std::int64_t fresh_until_ns = 0;
};

// One task (a process or a thread) as last read: its start names it
// across reads (ids are reused).
struct TaskCpu {
  std::uint64_t start = 0, user = 0, system = 0;
};

struct AppCpuState final : SourceState {
  std::uint64_t user = 0, system = 0;            // counted ticks, over its processes
  std::map<std::string, std::uint64_t> threads;  // counted ticks by thread ("main", "RenderThread", …)
  // The newest answer's, so that only what is new is added.
  std::string boot_id;
  std::int32_t pid = 0;
  TaskCpu process;
  std::map<std::int32_t, std::pair<std::string, TaskCpu>> tasks;  // followed threads by tid
  std::optional<std::int64_t> thread_count;                       // num_threads (gauge, not checkpointed)
  std::int64_t fresh_until_ns = 0;
};

class CpuSource final : public DeviceSourceOf<CpuState> {
 public:
  std::string_view name() const override { return "cpu"; }
  std::span<const FamilySpec> families() const override;
  void collect(SeriesSink& sink, const DeviceMetrics& device, const LabelSet& device_labels, std::int64_t now_ns,
               CollectAt at) const override;

  std::unique_ptr<SourceState> make_package_state() const override { return std::make_unique<AppCpuState>(); }
  std::string_view package_tag(PackageAt at) const override { return at == PackageAt::last ? "app_cpu" : ""; }
  bool package_worth_saving(const SourceState& state, PackageAt) const override;
  bool checkpoint_package(Checkpoint& c, SourceState& state, PackageAt at) const override;
  void collect_package(SeriesSink& sink, const DeviceMetrics& device, const std::string& package,
                       const PackageMetrics& p, std::int64_t now_ns, PackageAt at) const override;

 protected:
  bool state_worth_saving(const CpuState& state) const override { return state.answers > 0; }
  bool checkpoint_state(Checkpoint& c, CpuState& state) const override;
};
const CpuSource& cpu_source();

// What the poll measures of each app: the main thread (as "main") and the
// threads of these names (comm, 15 bytes at most), the same name summed.
struct ThreadNames {
  std::span<const std::string> names;
  bool follows(std::string_view comm) const;
};

// An answer of the resource poll: the cores' time, and each process the
// device's pid names say is an app's main process (its comm the name's
// last 15 bytes, as Android sets it), counted for that app.
void record_cpu(Store& store, DeviceMetrics& device, const parsers::ResourceAnswer& answer, const ThreadNames& threads,
                std::int64_t fresh_for_ns = 0);
void count_resource_poll(DeviceMetrics& device, std::string_view result);
const CpuState* cpu_of(const DeviceMetrics& device);
const AppCpuState* app_cpu_of(const PackageMetrics& package);

// The app whose main process the answer read as `pid`: the name the
// device's pid names give it, when the kernel's name of the process (its
// comm) is still that name's; null for a pid that names another process now.
const std::string* measured_app(const DeviceMetrics& device, std::int32_t pid, const parsers::ProcessFiles& files);

// The comm the kernel shows for a process of this name: its last 15 bytes
// (Android's process naming keeps the tail of long package names).
std::string_view process_comm(std::string_view process_name);

}  // namespace jank::metrics

// The simulated device's read-only /proc and /sys, as the `shell` user
// (uid 2000, domain shell) reads them on each release: /proc/stat, every
// process's stat, status, statm, comm, cmdline, smaps_rollup and task
// files, cpufreq, the GPU's kgsl or Mali devfreq nodes and the battery's
// power_supply files, with the errors DAC, ptrace and SELinux give.
// docs/devsim.md, "CPU, memory, clocks, GPU and battery current", cites
// the sources.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jank::devsim {

class Device;

// The kernel a release's devices typically run (representative: vendors
// ship older or newer ones). What a file holds or whether it exists
// follows it: cpufreq policyN directories from 4.4, smaps_rollup from 4.14,
// RssAnon/RssFile/RssShmem from 4.5.
struct KernelVersion {
  int major = 5, minor = 10;
  bool at_least(int ma, int mi) const { return major > ma || (major == ma && minor >= mi); }
  std::string text() const { return std::to_string(major) + "." + std::to_string(minor); }
};
KernelVersion kernel_of(int sdk);

// The GPU's driver, and so its sysfs nodes: Qualcomm's kgsl (Adreno) or
// Arm's kbase with a devfreq device (Mali).
enum class GpuKind : std::uint8_t { adreno, mali, none };
std::string_view gpu_kind_name(GpuKind k);
std::optional<GpuKind> gpu_kind_from_name(std::string_view name);

// The SELinux type a vendor gives its GPU or battery sysfs nodes (AOSP
// labels neither: a vendor's genfs_contexts does). `automatic`: the GPU's
// default (Adreno sysfs_gpu from 7.0, Mali's devfreq sysfs_devfreq_cur
// from 12, plain sysfs before).
enum class SysfsLabel : std::uint8_t { automatic, sysfs, sysfs_gpu, sysfs_devfreq_cur, sysfs_batteryinfo };
std::string_view sysfs_label_name(SysfsLabel l);
std::optional<SysfsLabel> sysfs_label_from_name(std::string_view name);

// One file read as the shell reads it: the bytes, or the errno of open()
// or read(): ENOENT, EACCES, EBUSY (a cpufreq policy with every CPU
// offline), EISDIR.
struct FsRead {
  int err = 0;
  std::string data;
};
// Reads `path` now, and tells the device's truth what was answered.
FsRead fs_read(Device& dev, std::string_view path);
// A directory's entries as readdir gives them (unsorted, without . and
// ..); nullopt when it is no directory or the shell may not read it.
std::optional<std::vector<std::string>> fs_list(Device& dev, std::string_view dir);
// lstat() succeeds: the path exists and SELinux lets the shell getattr it.
bool fs_stat(Device& dev, std::string_view path);

// strerror's text for the errnos above.
std::string_view fs_error_text(int err);

}  // namespace jank::devsim

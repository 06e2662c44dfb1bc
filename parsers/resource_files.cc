#include "parsers/resource_files.h"

#include <algorithm>
#include <array>
#include <limits>

#include "parsers/text_scan.h"

namespace jank::parsers {
namespace {

constexpr std::string_view kProcStat = "/proc/stat";
constexpr std::string_view kBootId = "/proc/sys/kernel/random/boot_id";
constexpr std::string_view kCpuDir = "/sys/devices/system/cpu/";
constexpr std::string_view kPolicyGlob = "/sys/devices/system/cpu/cpufreq/policy*/";
constexpr std::string_view kPerCoreGlob = "/sys/devices/system/cpu/cpu[0-9]*/cpufreq/";
constexpr std::array<std::string_view, 4> kCpufreqFiles = {"scaling_cur_freq", "scaling_max_freq",
                                                          "cpuinfo_max_freq", "related_cpus"};
constexpr std::string_view kKgslDir = "/sys/class/kgsl/kgsl-3d0/";
constexpr std::array<std::string_view, 3> kKgslFiles = {"gpuclk", "max_gpuclk", "gpubusy"};
constexpr std::string_view kDevfreqDir = "/sys/class/devfreq/";
constexpr std::string_view kMaliSuffix = ".mali";
constexpr std::array<std::string_view, 2> kDevfreqFiles = {"cur_freq", "max_freq"};
constexpr std::string_view kBatteryCurrent = "/sys/class/power_supply/battery/current_now";

// The largest core number a path may carry (as parse_proc_stat's).
constexpr int kMaxCore = 4095;
constexpr std::int32_t kMaxPid = 1 << 22;  // PID_MAX_LIMIT
// More processes than any poll asks for: the rest of such an answer is malformed.
constexpr std::size_t kMaxProcesses = 256;

enum class PathKind : std::uint8_t {
  unknown,
  proc_stat,
  boot_id,
  process_stat,  // /proc/PID/stat
  task_stat,     // /proc/PID/task/TID/stat, or its glob
  status,        // /proc/PID/status
  cpufreq,       // a policy's or a core's attribute, or their globs
  kgsl,
  mali,
  battery_current,
};

struct Path {
  PathKind kind = PathKind::unknown;
  std::int32_t pid = 0;
  int core = -1;      // cpufreq: policyN's or cpuN's N; -1 for a glob
  bool per_core = false;
  std::string_view file;  // the attribute's file name
};

std::optional<std::int32_t> pid_of(std::string_view s) {
  const auto v = scan::parse_int<std::int32_t>(s);
  if (!v || *v <= 0 || *v > kMaxPid) return std::nullopt;
  return v;
}

template <std::size_t N>
bool one_of(std::string_view s, const std::array<std::string_view, N>& names) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

Path classify_proc(std::string_view rest) {  // after "/proc/"
  Path p;
  const std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return p;
  const auto pid = pid_of(rest.substr(0, slash));
  if (!pid) return p;
  p.pid = *pid;
  const std::string_view tail = rest.substr(slash + 1);
  if (tail == "stat") {
    p.kind = PathKind::process_stat;
  } else if (tail == "status") {
    p.kind = PathKind::status;
  } else if (tail.starts_with("task/")) {
    std::string_view t = tail.substr(5);
    if (!t.ends_with("/stat")) return {};
    t.remove_suffix(5);
    if (t != "*" && !pid_of(t)) return {};
    p.kind = PathKind::task_stat;
  }
  return p;
}

Path classify_cpufreq(std::string_view rest) {  // after kCpuDir
  Path p;
  int core = -1;
  bool per_core = false;
  std::string_view file;
  if (scan::consume_prefix(rest, "cpufreq/policy")) {
    const std::size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return p;
    const std::string_view n = rest.substr(0, slash);
    if (n != "*") {
      const auto v = scan::parse_int<int>(n);
      if (!v || *v < 0 || *v > kMaxCore) return p;
      core = *v;
    }
    file = rest.substr(slash + 1);
  } else if (scan::consume_prefix(rest, "cpu")) {
    per_core = true;
    const std::size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return p;
    const std::string_view n = rest.substr(0, slash);
    if (n != "[0-9]*") {
      const auto v = scan::parse_int<int>(n);
      if (!v || *v < 0 || *v > kMaxCore) return p;
      core = *v;
    }
    rest = rest.substr(slash + 1);
    if (!scan::consume_prefix(rest, "cpufreq/")) return p;
    file = rest;
  } else {
    return p;
  }
  if (!one_of(file, kCpufreqFiles)) return p;
  p.kind = PathKind::cpufreq;
  p.core = core;
  p.per_core = per_core;
  p.file = file;
  return p;
}

Path classify(std::string_view path) {
  Path p;
  if (path == kProcStat) {
    p.kind = PathKind::proc_stat;
  } else if (path == kBootId) {
    p.kind = PathKind::boot_id;
  } else if (path == kBatteryCurrent) {
    p.kind = PathKind::battery_current;
  } else if (scan::consume_prefix(path, "/proc/")) {
    p = classify_proc(path);
  } else if (scan::consume_prefix(path, kCpuDir)) {
    p = classify_cpufreq(path);
  } else if (scan::consume_prefix(path, kKgslDir)) {
    if (one_of(path, kKgslFiles)) p = {PathKind::kgsl, 0, -1, false, path};
  } else if (scan::consume_prefix(path, kDevfreqDir)) {
    const std::size_t slash = path.find('/');
    if (slash != std::string_view::npos && path.substr(0, slash).ends_with(kMaliSuffix) &&
        one_of(path.substr(slash + 1), kDevfreqFiles)) {
      p = {PathKind::mali, 0, -1, false, path.substr(slash + 1)};
    }
  }
  return p;
}

// "VmRSS:\t  123456 kB" as bytes.
std::optional<std::uint64_t> status_kb(std::string_view value) {
  scan::Tokens tokens(value);
  std::string_view number, unit, extra;
  if (!tokens.next(number) || !tokens.next(unit) || tokens.next(extra) || unit != "kB") return std::nullopt;
  const auto kb = scan::parse_int<std::uint64_t>(number);
  if (!kb || *kb > std::numeric_limits<std::uint64_t>::max() / 1024) return std::nullopt;
  return *kb * 1024;
}

std::optional<std::vector<int>> core_list(std::string_view value) {
  std::vector<int> cores;
  scan::Tokens tokens(value);
  std::string_view tok;
  while (tokens.next(tok)) {
    const auto v = scan::parse_int<int>(tok);
    if (!v || *v < 0 || *v > kMaxCore || cores.size() > kMaxCore) return std::nullopt;
    cores.push_back(*v);
  }
  if (cores.empty()) return std::nullopt;
  return cores;
}

// The group a complaint about the file counts in; null for a file the
// command never names.
FileAccess* access_of(ResourceAnswer& out, const Path& p) {
  if (p.pid != 0 && out.processes.size() >= kMaxProcesses && !out.processes.contains(p.pid)) return nullptr;
  switch (p.kind) {
    case PathKind::proc_stat: return &out.cpu_access;
    case PathKind::process_stat:
    case PathKind::task_stat: return &out.processes[p.pid].stat;
    case PathKind::status: return &out.processes[p.pid].status;
    case PathKind::cpufreq: return &out.cpufreq_access;
    case PathKind::kgsl:
    case PathKind::mali: return &out.gpu.access;
    case PathKind::battery_current: return &out.battery_current_access;
    case PathKind::unknown:
    case PathKind::boot_id: break;
  }
  return nullptr;
}

class AnswerReader {
 public:
  explicit AnswerReader(ResourceAnswer& out) : out_(out) {}

  void line(std::string_view line) {
    ++out_.lines;
    if (scan::consume_prefix(line, "grep: ")) {
      complaint(line);
      return;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      ++out_.malformed_lines;
      return;
    }
    const Path p = classify(line.substr(0, colon));
    if (!value(p, scan::trim(line.substr(colon + 1)))) ++out_.malformed_lines;
  }

  void finish() {
    if (!stat_lines_.empty()) {
      ProcStat s = parse_proc_stat(stat_lines_);
      out_.malformed_lines += s.malformed_lines;
      out_.cpu = std::move(s);
    }
    // Per-core attributes: one policy per related_cpus group, keyed by its first core.
    for (auto& [core, policy] : per_core_) {
      const int first = policy.cpus.empty() ? core : *std::min_element(policy.cpus.begin(), policy.cpus.end());
      out_.cpufreq.try_emplace(first, std::move(policy));
    }
  }

 private:
  // "PATH: REASON".
  void complaint(std::string_view rest) {
    const std::size_t sep = rest.rfind(": ");
    const Path p = sep == std::string_view::npos ? Path{} : classify(rest.substr(0, sep));
    FileAccess* access = access_of(out_, p);
    if (access == nullptr) {
      ++out_.malformed_lines;
      return;
    }
    const std::string_view reason = rest.substr(sep + 2);
    FileAccess& a = *access;
    if (reason == "No such file or directory") {
      ++a.missing;
      if (p.kind == PathKind::cpufreq && !p.per_core && p.core < 0) out_.no_policy_directories = true;
    } else if (reason == "Permission denied") {
      ++a.denied;
    } else {
      ++a.failed;
    }
  }

  bool value(const Path& p, std::string_view v) {
    switch (p.kind) {
      case PathKind::unknown: return false;
      case PathKind::proc_stat:
        if (stat_lines_.size() > kMaxStatBytes) return false;
        stat_lines_.append(v).push_back('\n');
        if (!stat_seen_) ++out_.cpu_access.read;
        stat_seen_ = true;
        return true;
      case PathKind::boot_id:
        if (v.empty() || v.size() > 64) return false;
        out_.boot_id = std::string(v);
        return true;
      case PathKind::process_stat:
      case PathKind::task_stat: {
        auto t = parse_task_stat(v);
        // A process file speaks of its own pid; a thread's of a thread.
        if (!t || !room_for(p.pid) || (p.kind == PathKind::process_stat && t->id != p.pid)) return false;
        ProcessFiles& f = out_.processes[p.pid];
        ++f.stat.read;
        if (p.kind == PathKind::process_stat) {
          f.process = std::move(*t);
        } else {
          f.threads.push_back(std::move(*t));
        }
        return true;
      }
      case PathKind::status: {
        const std::size_t colon = v.find(':');
        if (colon == std::string_view::npos || !room_for(p.pid)) return false;
        const std::string_view key = v.substr(0, colon);
        const auto bytes = status_kb(v.substr(colon + 1));
        if (!bytes || (key != "VmRSS" && key != "VmSwap")) return false;
        ProcessFiles& f = out_.processes[p.pid];
        if (key == "VmRSS") {
          f.rss_bytes = bytes;
          ++f.status.read;
        } else {
          f.swap_bytes = bytes;
        }
        return true;
      }
      case PathKind::cpufreq: return cpufreq(p, v);
      case PathKind::kgsl:
      case PathKind::mali: return gpu(p, v);
      case PathKind::battery_current: {
        const auto ua = scan::parse_int<std::int64_t>(v);
        // A phone's battery carries tens of amperes at the very most.
        if (!ua || *ua < -100'000'000 || *ua > 100'000'000) return false;
        out_.battery_current_ua = *ua;
        ++out_.battery_current_access.read;
        return true;
      }
    }
    return false;
  }

  bool room_for(std::int32_t pid) const {
    return out_.processes.size() < kMaxProcesses || out_.processes.contains(pid);
  }

  bool cpufreq(const Path& p, std::string_view v) {
    if (p.core < 0) return false;  // a glob is never a file that was read
    auto policy = [&]() -> CpufreqPolicy& { return p.per_core ? per_core_[p.core] : out_.cpufreq[p.core]; };
    if (p.file == "related_cpus") {
      auto cores = core_list(v);
      if (!cores) return false;
      policy().cpus = std::move(*cores);
    } else {
      const auto khz = parse_sysfs_number(v);
      // 100 GHz: no CPU clock comes near it.
      if (!khz || *khz > 100'000'000) return false;
      CpufreqPolicy& into = policy();
      (p.file == "scaling_cur_freq" ? into.cur_khz : p.file == "scaling_max_freq" ? into.max_khz : into.hw_max_khz) =
          *khz;
    }
    ++out_.cpufreq_access.read;
    return true;
  }

  bool gpu(const Path& p, std::string_view v) {
    GpuFiles& g = out_.gpu;
    const GpuKind kind = p.kind == PathKind::kgsl ? GpuKind::adreno : GpuKind::mali;
    if (g.kind != GpuKind::none && g.kind != kind) return false;  // one GPU per device
    constexpr std::uint64_t kMaxHz = 100'000'000'000;
    if (p.file == "gpubusy") {
      scan::Tokens tokens(v);
      std::string_view a, b, extra;
      if (!tokens.next(a) || !tokens.next(b) || tokens.next(extra)) return false;
      const auto busy = scan::parse_int<std::uint64_t>(a), total = scan::parse_int<std::uint64_t>(b);
      if (!busy || !total || *busy > *total) return false;
      g.busy = busy;
      g.busy_total = total;
    } else {
      const auto hz = parse_sysfs_number(v);
      if (!hz || *hz > kMaxHz) return false;
      (p.file == "gpuclk" || p.file == "cur_freq" ? g.cur_hz : g.max_hz) = *hz;
    }
    g.kind = kind;
    ++g.access.read;
    return true;
  }

  // /proc/stat's cpu lines: a few hundred bytes on any phone.
  static constexpr std::size_t kMaxStatBytes = 1 << 16;

  ResourceAnswer& out_;
  std::string stat_lines_;
  bool stat_seen_ = false;
  std::map<int, CpufreqPolicy> per_core_;
};

}  // namespace

std::string resource_command(const ResourceCommand& c) {
  std::string out = "grep -s -H ^cpu ";
  out.append(kProcStat).append("; grep -s -H ^ ").append(kBootId);
  for (const std::int32_t pid : c.pids) {
    const std::string dir = "/proc/" + std::to_string(pid);
    out.append(" ").append(dir).append("/stat ").append(dir).append("/task/*/stat");
  }
  const std::string_view cpufreq = c.cpufreq == CpufreqLayout::policy ? kPolicyGlob : kPerCoreGlob;
  for (const std::string_view f : kCpufreqFiles) out.append(" ").append(cpufreq).append(f);
  for (const std::string_view f : kKgslFiles) out.append(" ").append(kKgslDir).append(f);
  for (const std::string_view f : kDevfreqFiles) {
    out.append(" ").append(kDevfreqDir).append("*").append(kMaliSuffix).append("/").append(f);
  }
  out.append(" ").append(kBatteryCurrent);
  if (c.memory && !c.pids.empty()) {
    out.append("; grep -s -H -e ^VmRSS -e ^VmSwap");
    for (const std::int32_t pid : c.pids) out.append(" /proc/").append(std::to_string(pid)).append("/status");
  }
  return out;
}

ResourceAnswer parse_resource_answer(std::string_view text) {
  ResourceAnswer out;
  AnswerReader reader(out);
  scan::Lines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    line = scan::strip_trailing_crs(line);
    if (line.empty()) continue;
    reader.line(line);
  }
  reader.finish();
  return out;
}

}  // namespace jank::parsers

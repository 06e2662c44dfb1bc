#include "parsers/proc_stat.h"

#include <array>
#include <limits>

#include "parsers/text_scan.h"

namespace jank::parsers {
namespace {

// The largest core number a "cpuN" line may carry (NR_CPUS is at most a few
// thousand on any kernel; phones have up to 12 cores).
constexpr int kMaxCore = 4095;

// "cpu" or "cpuN" with its times; false when the values do not read. The
// kernel prints ten values since 2.6.33; at least user, nice, system and idle
// on any kernel, and later kernels may add more, which are ignored.
bool read_cpu_line(std::string_view name, scan::Tokens& tokens, CpuTimes& out) {
  if (name.size() > 3) {
    const auto core = scan::parse_int<int>(name.substr(3));
    if (!core || *core < 0 || *core > kMaxCore) return false;
    out.core = *core;
  }
  std::array<std::uint64_t*, 8> fields = {&out.user,    &out.nice, &out.system,  &out.idle,
                                          &out.iowait,  &out.irq,  &out.softirq, &out.steal};
  std::size_t read = 0;
  std::string_view tok;
  while (tokens.next(tok)) {
    const auto v = scan::parse_int<std::uint64_t>(tok);
    if (!v) return false;
    if (read < fields.size()) *fields[read] = *v;
    ++read;
  }
  // Ticks sum to busy() and total(): values that would overflow them are no
  // kernel's (2^64 ticks is 5.8e9 years).
  constexpr std::uint64_t kMaxTicks = std::numeric_limits<std::uint64_t>::max() / 16;
  for (const std::uint64_t* f : fields) {
    if (*f > kMaxTicks) return false;
  }
  return read >= 4;
}

std::optional<std::uint64_t> single_value(scan::Tokens& tokens) {
  std::string_view tok, extra;
  if (!tokens.next(tok) || tokens.next(extra)) return std::nullopt;
  return scan::parse_int<std::uint64_t>(tok);
}

}  // namespace

ProcStat parse_proc_stat(std::string_view text) {
  ProcStat out;
  scan::for_each_trimmed_line(text, [&](std::string_view line) {
    ++out.lines;
    scan::Tokens tokens(line);
    std::string_view name;
    tokens.next(name);
    if (name.starts_with("cpu")) {
      CpuTimes t;
      if (!read_cpu_line(name, tokens, t)) {
        ++out.malformed_lines;
      } else if (!t.core) {
        out.all = t;
      } else {
        out.cores.push_back(t);
      }
    } else if (name == "ctxt" || name == "btime") {
      const auto v = single_value(tokens);
      if (!v) {
        ++out.malformed_lines;
      } else {
        (name == "ctxt" ? out.context_switches : out.boot_time_s) = *v;
      }
    }
    // intr, softirq, processes, procs_running, procs_blocked: not used.
  });
  return out;
}

std::optional<TaskStat> parse_task_stat(std::string_view line) {
  line = scan::trim_ascii_space(line);
  // "pid (comm) ...": comm is whatever lies between the first " (" and the
  // last ") ", as the kernel wrote it without escaping.
  const std::size_t open = line.find(" (");
  const std::size_t close = line.rfind(") ");
  if (open == std::string_view::npos || close == std::string_view::npos || close < open + 2) return std::nullopt;
  TaskStat t;
  const auto id = scan::parse_int<std::int32_t>(line.substr(0, open));
  // PID_MAX_LIMIT: 2^22.
  if (!id || *id <= 0 || *id > (1 << 22)) return std::nullopt;
  t.id = *id;
  t.name = std::string(line.substr(open + 2, close - open - 2));
  if (t.name.size() > 64) return std::nullopt;  // comm is 16 bytes; a kthread's name 64 at most
  // Fields from 3 (state) on, numbered as proc(5) numbers them.
  scan::Tokens tokens(line.substr(close + 2), scan::is_blank);
  std::string_view tok;
  int field = 3;
  bool ok = true;
  auto u64 = [&](std::uint64_t& into) {
    const auto v = scan::parse_int<std::uint64_t>(tok);
    if (v) into = *v;
    ok = ok && v.has_value();
  };
  while (ok && field <= 24 && tokens.next(tok)) {
    switch (field) {
      case 3:
        if (tok.size() != 1 || !scan::is_alpha(tok[0])) ok = false;
        t.state = tok.empty() ? '?' : tok[0];
        break;
      case 14: u64(t.user_ticks); break;
      case 15: u64(t.system_ticks); break;
      case 20: {
        const auto v = scan::parse_int<std::int64_t>(tok);
        ok = v.has_value() && *v >= 0;
        t.threads = v.value_or(0);
        break;
      }
      case 22: u64(t.start_ticks); break;
      case 24: u64(t.rss_pages); break;
      default:
        // Signed fields (ppid, tty_nr, priority, nice, cutime, ...): numbers all the same.
        ok = scan::parse_int<std::int64_t>(tok).has_value() || scan::parse_int<std::uint64_t>(tok).has_value();
        break;
    }
    ++field;
  }
  constexpr std::uint64_t kMaxTicks = std::numeric_limits<std::uint64_t>::max() / 4;
  if (!ok || field <= 24 || t.user_ticks > kMaxTicks || t.system_ticks > kMaxTicks) return std::nullopt;
  return t;
}

MemoryRollup parse_smaps_rollup(std::string_view text) {
  MemoryRollup out;
  struct Key {
    std::string_view name;
    std::optional<std::uint64_t> MemoryRollup::*field;
  };
  static constexpr std::array<Key, 7> kKeys = {{{"Rss", &MemoryRollup::rss_bytes},
                                                {"Pss", &MemoryRollup::pss_bytes},
                                                {"Pss_Anon", &MemoryRollup::pss_anon_bytes},
                                                {"Pss_File", &MemoryRollup::pss_file_bytes},
                                                {"Pss_Shmem", &MemoryRollup::pss_shmem_bytes},
                                                {"Swap", &MemoryRollup::swap_bytes},
                                                {"SwapPss", &MemoryRollup::swap_pss_bytes}}};
  scan::for_each_trimmed_line(text, [&](std::string_view line) {
    ++out.lines;
    if (line.ends_with("[rollup]")) {
      out.recognised = true;
      return;
    }
    if (!out.recognised) return;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    const std::string_view key = line.substr(0, colon);
    for (const Key& k : kKeys) {
      if (k.name != key) continue;
      scan::Tokens tokens(line.substr(colon + 1));
      std::string_view number, unit, extra;
      const bool shaped = tokens.next(number) && tokens.next(unit) && !tokens.next(extra) && unit == "kB";
      const auto kb = shaped ? scan::parse_int<std::uint64_t>(number) : std::nullopt;
      if (!kb || *kb > std::numeric_limits<std::uint64_t>::max() / 1024) {
        ++out.malformed_lines;
      } else {
        out.*k.field = *kb * 1024;
      }
      return;
    }
  });
  return out;
}

std::optional<std::uint64_t> parse_sysfs_number(std::string_view text) {
  // adb shell v1 (before Android 7.0) ends lines with CRLF.
  if (text.ends_with('\n')) text.remove_suffix(1);
  return scan::parse_int<std::uint64_t>(scan::strip_trailing_crs(text));
}

}  // namespace jank::parsers

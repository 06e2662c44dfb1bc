#include "devsim/shell.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <optional>
#include <string_view>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <ctime>

#include "devsim/text.h"

namespace jank::devsim {
namespace {

constexpr char kOp = '\0';

bool is_op(const std::string& w) { return !w.empty() && w[0] == kOp; }

std::string size_text(std::size_t bytes) {
  if (bytes >= 4u * 1024 * 1024) return std::to_string(bytes / (1024 * 1024)) + " MiB";
  if (bytes >= 1024) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " B";
}

using text::all_digits;

// Android 5.x's head of `logcat -S` (LogStatistics::format,
// logd/LogStatistics.cpp:522-587 @ android-5.0.0_r1): `span -> size/num` and
// the buffer names, no Total column; the Total row starts with the time since
// logd started, the Now row with the age of the oldest entry held in the
// selected buffers (0 when none); cells start every 19 columns and an empty
// buffer's Now cell is left out.
std::string lollipop_statistics(const Device& dev, LogMask mask) {
  const LogBuffers& logs = dev.logs();
  constexpr int kColumn = 19;
  auto span = [](std::int64_t d) {
    d = std::max<std::int64_t>(d, 0);
    char b[48];
    std::snprintf(b, sizeof b, "%lld:%02lld:%02lld.%09lld", static_cast<long long>(d / 3'600'000'000'000),
                  static_cast<long long>(d / 60'000'000'000 % 60), static_cast<long long>(d / 1'000'000'000 % 60),
                  static_cast<long long>(d % 1'000'000'000));
    return std::string(b);
  };
  // Each cell starts kColumn columns after the previous one (`spaces` carries
  // the shortfall, as there).
  auto row = [&](std::string line, int spaces, auto cell_of) {
    for (std::size_t i = 0; i < kLogIdCount; ++i) {
      if (!(mask & (LogMask{1} << i))) continue;
      const std::string cell = cell_of(static_cast<LogId>(i));
      if (cell.empty()) {
        spaces += kColumn;
        continue;
      }
      line.append(static_cast<std::size_t>(std::max(spaces, 0)), ' ');
      line += cell;
      spaces = kColumn - static_cast<int>(cell.size());
    }
    return line + "\n";
  };
  const std::int64_t now = dev.now_mono();
  const auto oldest = logs.read(mask, 0, 1);
  std::string out = row("        span -> size/num", 2, [](LogId id) { return std::string(log_id_name(id)); });
  std::string total = span(now - dev.logd_started_ns());
  total.insert(0, std::string(std::max<int>(0, 4 - static_cast<int>(total.find(':'))), ' '));
  out += row("Total" + total, 1, [&](LogId id) {
    const auto& st = logs.stats(id);
    return std::to_string(st.written_bytes) + "/" + std::to_string(st.written);
  });
  std::string held = span(oldest.empty() ? 0 : now - oldest.front()->mono_ns);
  held.insert(0, std::string(std::max<int>(0, 6 - static_cast<int>(held.find(':'))), ' '));
  out += row("Now" + held, 1, [&](LogId id) -> std::string {
    const std::uint64_t n = logs.entry_count(LogMask{1} << static_cast<std::size_t>(id));
    if (n == 0) return {};
    return std::to_string(logs.stats(id).used) + "/" + std::to_string(n);
  });
  return out;
}

// The head of logd's `logcat -S`: per selected buffer "size/lines" ever
// written (Total) and held now (Now); the difference left by wrap or clear.
std::string logd_statistics(const LogBuffers& logs, LogMask mask) {
  std::string head = "size/num", total = "Total   ", now = "Now     ";
  std::uint64_t tb = 0, tn = 0, nb = 0, nn = 0;
  auto col = [](std::string& row, const std::string& cell) {
    row += ' ';
    row += cell;
    if (cell.size() < 18) row.append(18 - cell.size(), ' ');
  };
  for (std::size_t i = 0; i < kLogIdCount; ++i) {
    if (!(mask & (LogMask{1} << i))) continue;
    const auto& st = logs.stats(static_cast<LogId>(i));
    const std::uint64_t now_lines = logs.entry_count(LogMask{1} << i);
    const std::uint64_t total_bytes = st.written_bytes;
    col(head, std::string(log_id_name(static_cast<LogId>(i))));
    col(total, std::to_string(total_bytes) + "/" + std::to_string(st.written));
    col(now, std::to_string(st.used) + "/" + std::to_string(now_lines));
    tb += total_bytes;
    tn += st.written;
    nb += st.used;
    nn += now_lines;
  }
  col(head, "Total");
  col(total, std::to_string(tb) + "/" + std::to_string(tn));
  col(now, std::to_string(nb) + "/" + std::to_string(nn));
  auto trim = [](std::string s) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  return trim(head) + trim(total) + trim(now);
}

// What logcat before Android 7.0 says of a -v word it does not know, or ""
// when it knows it (docs/devsim.md, "Releases"). 5.x knows the eight formats
// and no modifier (liblog/logprint.c:187-195 @ android-5.0.0_r1; logcat.cpp
// :538-543 exits -1); 6.0 adds color, usec and printable
// (liblog/logprint.c:244-255 @ android-6.0.0_r1; logcat_panic, exit 1); 7.0
// brings epoch, year, zone, monotonic and uid.
std::string older_format_refusal(int sdk, const std::string& value, int* exit) {
  if (sdk >= 24) return {};
  static const std::set<std::string_view> kFormats = {"brief", "process", "tag",        "thread",
                                                      "raw",   "time",    "threadtime", "long"};
  std::string_view rest = value;
  while (!rest.empty()) {
    const auto c = rest.find_first_of(", ");
    const std::string_view word = rest.substr(0, c);
    rest = c == std::string_view::npos ? std::string_view() : rest.substr(c + 1);
    if (word.empty() || kFormats.contains(word)) continue;
    if (sdk >= 23 && (word == "color" || word == "usec" || word == "printable")) continue;
    *exit = sdk >= 23 ? 1 : 255;
    return sdk >= 23 ? "Invalid parameter " + std::string(word) + " to -v\n" : std::string("Invalid parameter to -v\n");
  }
  return {};
}

// `logcat ARGS`: returns the finished result or a follow.
ShellResult run_logcat(Device& dev, const std::vector<std::string>& args) {
  const int sdk = dev.config().sdk;
  ShellResult r;
  LogcatFollow f;
  bool mask_given = false, clear = false, getsize = false, dump = false, statistics = false;
  std::optional<std::string> setsize;
  std::optional<std::size_t> count;
  std::optional<std::int64_t> since;
  LogMask mask = 0;
  auto need = [&](std::size_t& i, std::string_view opt, std::string& val) {
    if (i + 1 >= args.size()) {
      r.err += "logcat: option requires an argument -- '" + std::string(opt.substr(1)) + "'\n";
      r.exit = 1;
      return false;
    }
    val = args[++i];
    return true;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string val;
    // Options may carry their argument glued on: -vthreadtime, -bmain, --pid=12.
    auto opt_with_value = [&](std::string_view opt) -> int {
      if (a == opt) return need(i, opt, val) ? 1 : -1;
      if (opt.size() == 2 && a.size() > 2 && a.compare(0, 2, opt) == 0) {
        val = a.substr(2);
        return 1;
      }
      return 0;
    };
    int got = 0;
    if ((got = opt_with_value("-v")) != 0) {
      if (got < 0) return r;
      if (const std::string refusal = older_format_refusal(sdk, val, &r.exit); !refusal.empty()) {
        r.err += refusal;
        return r;
      }
      if (!f.format.apply(val)) {
        r.err += "logcat: Invalid parameter \"" + val + "\" to -v\n";
        r.exit = 1;
        return r;
      }
    } else if ((got = opt_with_value("-b")) != 0) {
      if (got < 0) return r;
      // Before 7.1 -b names one buffer: a list is a name no log device has
      // (logcat.cpp:1076-1083,1117-1118 @ android-7.0.0_r1; :833 @ 6.0).
      if (sdk < 25 && val.find_first_of(",:; \t") != std::string::npos) {
        r.err += "Unable to open log device '" + val + "'\n";
        r.exit = 1;
        return r;
      }
      std::string bad;
      auto m = parse_log_mask(val, &bad);
      if (!m) {
        r.err += "Unknown buffer '" + bad + "' listed for -b.\n";
        r.exit = 1;
        return r;
      }
      mask |= *m;
      mask_given = true;
    } else if (a.rfind("--buffer=", 0) == 0) {
      std::string bad;
      auto m = parse_log_mask(a.substr(9), &bad);
      if (!m) {
        r.err += "Unknown buffer '" + bad + "' listed for -b.\n";
        r.exit = 1;
        return r;
      }
      mask |= *m;
      mask_given = true;
    } else if ((got = opt_with_value("-T")) != 0 || (got = opt_with_value("-t")) != 0) {
      if (got < 0) return r;
      if (a.rfind("-t", 0) == 0) dump = true;
      if (!parse_logcat_start(val, dev.config().tz_offset_s, dev.wall_of(dev.now_mono()), &count, &since)) {
        r.err += "logcat: unrecognized time format '" + val + "'\n";
        r.exit = 1;
        return r;
      }
    } else if ((got = opt_with_value("-G")) != 0) {
      if (got < 0) return r;
      setsize = val;
    } else if ((got = opt_with_value("-m")) != 0) {
      if (got < 0) return r;
      f.max_count = std::strtoll(val.c_str(), nullptr, 10);
    } else if (a.rfind("--pid=", 0) == 0) {
      f.pid = static_cast<std::int32_t>(std::strtol(a.c_str() + 6, nullptr, 10));
    } else if (a == "--pid") {
      if (!need(i, a, val)) return r;
      f.pid = static_cast<std::int32_t>(std::strtol(val.c_str(), nullptr, 10));
    } else if (a == "-d") {
      dump = true;
    } else if (a == "-c" || a == "--clear") {
      clear = true;
    } else if (a == "-g" || a == "--buffer-size") {
      getsize = true;
    } else if (a == "-s") {
      f.default_min = 'S';
    } else if (a == "-S" || a == "--statistics") {
      statistics = true;
    } else if (sdk < 23 && (a == "-D" || a == "--dividers")) {
      // 5.x: no -D (getopt string "cdt:T:gG:sQf:r:n:v:b:BSpP:", logcat.cpp:342,620-623 @ android-5.0.0_r1).
      r.err += "Unrecognized Option\n";
      r.exit = 255;
      return r;
    } else if (a == "-D" || a == "--dividers") {
      f.dividers = true;
    } else if (a == "-B" || a == "-Q") {
      // Accepted, no effect in the simulator.
    } else if (!a.empty() && a[0] == '-') {
      r.err += "logcat: invalid option -- '" + a.substr(1) + "'\n";
      r.exit = 1;
      return r;
    } else {
      // Filter spec TAG[:PRIO]; "*:S" silences the rest.
      std::size_t c = a.rfind(':');
      std::string tag = a.substr(0, c);
      char p = c == std::string::npos || c + 1 >= a.size() ? 'V' : static_cast<char>(std::toupper(static_cast<unsigned char>(a[c + 1])));
      if (prio_rank(p) < 0) {
        r.err += "Invalid filter expression '" + a + "'\n";
        r.exit = 1;
        return r;
      }
      if (tag == "*") f.default_min = p;
      else f.tag_min.emplace_back(tag, p);
    }
  }
  f.mask = mask_given ? mask : kDefaultLogMask;
  auto& logs = dev.logs();
  if (statistics) {
    // A snapshot of logd's state as it is: no simulation step first, so that
    // `logcat -d …; logcat -S` in one script sees one state.
    r.out = sdk < 23 ? lollipop_statistics(dev, f.mask) : logd_statistics(logs, f.mask);
    dev.statistics_read();
    return r;
  }
  dev.advance();
  if (clear) {
    logs.clear(f.mask);
    return r;
  }
  if (setsize) {
    std::size_t mult = 1;
    std::string v = *setsize;
    if (!v.empty() && (v.back() == 'K' || v.back() == 'k')) mult = 1024, v.pop_back();
    else if (!v.empty() && (v.back() == 'M' || v.back() == 'm')) mult = 1024 * 1024, v.pop_back();
    if (!all_digits(v) || !logs.set_capacity(f.mask, std::stoull(v) * mult)) {
      r.err += "failed to set the log size\n";
      r.exit = 1;
    }
    return r;
  }
  if (getsize) {
    for (std::size_t i = 0; i < kLogIdCount; ++i) {
      if (!(f.mask & (LogMask{1} << i))) continue;
      const auto& st = logs.stats(static_cast<LogId>(i));
      r.out += std::string(log_id_name(static_cast<LogId>(i))) + ": ring buffer is " + size_text(st.capacity) +
               " (" + size_text(st.used) + " consumed), max entry is 5120 B, max payload is 4068 B\n";
    }
    return r;
  }
  if (count) {
    f.next_seq = logs.seq_of_last(f.mask, *count, f.pid);
  } else if (since) {
    // logd 12 (LogReader, LogReaderThread): start at the first entry stamped
    // at or after TIME in sequence order; the first flush then skips what is
    // stamped at or before TIME, later flushes skip nothing.
    f.next_seq = logs.seq_at_time(f.mask, *since, f.pid);
    f.start_time = *since;
    f.first_pass_end = logs.next_seq();
  } else {
    f.next_seq = 0;
  }
  f.dump = dump;
  f.logd_gen = dev.logd_generation();
  if (!dump) dev.reader_follow(f.mask);
  if (dump) {
    bool done = false;
    r.out += pump_logcat(dev, f, SIZE_MAX, &done);
    return r;
  }
  r.follow = std::move(f);
  return r;
}

// toybox `date [-u] [+FORMAT]` on the device's clock (only reading it).
int run_date(const Device& dev, const std::vector<std::string>& w, ShellResult& r) {
  bool utc = false;
  std::string format = "%a %b %e %H:%M:%S %Z %Y";
  for (std::size_t i = 1; i < w.size(); ++i) {
    if (w[i] == "-u") {
      utc = true;
    } else if (!w[i].empty() && w[i][0] == '+') {
      format = w[i].substr(1);
    } else {
      r.err += "date: cannot set date: Operation not permitted\n";
      return 1;
    }
  }
  const std::int64_t ns = dev.wall_now();
  const std::int64_t secs = ns / 1'000'000'000 - (ns % 1'000'000'000 < 0 ? 1 : 0);
  const std::int32_t off = utc ? 0 : dev.config().tz_offset_s;
  std::time_t tt = static_cast<std::time_t>(secs + off);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  std::string out;
  char b[128];
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%' || i + 1 >= format.size()) {
      out += format[i];
      continue;
    }
    const char c = format[++i];
    const std::int32_t a = off < 0 ? -off : off;
    if (c == 's') {
      out += std::to_string(secs);
    } else if (c == 'N') {
      std::snprintf(b, sizeof b, "%09lld", static_cast<long long>(ns - secs * 1'000'000'000));
      out += b;
    } else if (c == 'Z') {
      if (off == 0) {
        out += "UTC";
      } else {
        std::snprintf(b, sizeof b, "GMT%c%02d:%02d", off < 0 ? '-' : '+', a / 3600, a / 60 % 60);
        out += b;
      }
    } else if (c == 'z') {
      std::snprintf(b, sizeof b, "%c%02d%02d", off < 0 ? '-' : '+', a / 3600, a / 60 % 60);
      out += b;
    } else {
      const char spec[3] = {'%', c, '\0'};
      const std::size_t n = std::strftime(b, sizeof b, spec, &tm);
      out.append(b, n);
    }
  }
  r.out += out + "\n";
  return 0;
}

std::string joined(const std::vector<std::string>& w, std::size_t from) {
  std::string s;
  for (std::size_t i = from; i < w.size(); ++i) {
    if (i > from) s += ' ';
    s += w[i];
  }
  return s;
}

// The exporter's stream script starts by echoing where its cursor stands
// (`jank_exporter:cursor boot=ID logd=PID main=N:HASH system=M:HASH`, the
// hash in hex and optional): a real shell
// just prints it; for the truth it is the reader saying where it resumes
// from, as a `-T TIME` once did. Lines it had read past that point but not
// durably (after its last checkpoint) are unread again: the same as the
// control channel's `reader` rollback. Forward, it got lines whose
// acknowledgement never reached the device (the connection died after the
// adb server passed them on), never more than streams wrote out
// (Device::reader_declared). A declaration about another boot or logd is not
// about this log and changes nothing.
void reader_declares(Device& dev, const std::vector<std::string>& w, std::size_t from) {
  std::map<std::string, std::string> kv;
  for (std::size_t i = from; i < w.size(); ++i) {
    const auto eq = w[i].find('=');
    if (eq != std::string::npos) kv[w[i].substr(0, eq)] = w[i].substr(eq + 1);
  }
  if (kv["boot"] != dev.boot_id() || kv["logd"] != std::to_string(dev.logd_pid())) return;
  for (const auto& [key, value] : kv) {
    const std::string index = value.substr(0, value.find(':'));
    const std::string hash = value.size() > index.size() ? value.substr(index.size() + 1) : "";
    if (key == "boot" || key == "logd" || !all_digits(index) || hash.size() > 16 ||
        hash.find_first_not_of("0123456789abcdef") != std::string::npos) {
      continue;
    }
    std::string bad;
    const auto mask = parse_log_mask(key, &bad);
    if (!mask) continue;
    for (std::size_t id = 0; id < kLogIdCount; ++id) {
      if (*mask == (LogMask{1} << id)) {
        dev.reader_declared(static_cast<LogId>(id), std::stoull(index), hash.empty() ? 0 : std::stoull(hash, nullptr, 16));
      }
    }
  }
}

// Android's /system/bin/sh (mksh) on a command it cannot find: status 127.
// mksh says "not found" up to R56 (exec.c:804 @ mksh-R50, the release of
// Android 5.0) and "inaccessible or not found" from R57 (MirBSD/mksh commit
// 64918da0, 2019-03-01): Android 9 and older predate it.
int mksh_not_found(int sdk, const std::string& cmd, ShellResult& r) {
  r.err += "/system/bin/sh: " + cmd + (sdk >= 29 ? ": inaccessible or not found\n" : ": not found\n");
  return 127;
}

// The groups adbd gives its shell: before 6.0 the ten it sets with
// setgroups (adb/adb.c:1358-1363 @ android-5.0.0_r1), listed in the
// kernel's (ascending) order; toybox's list from 6.0 starts with the gid.
constexpr std::pair<int, const char*> kToolboxGroups[] = {
    {1003, "graphics"}, {1004, "input"},        {1007, "log"},    {1011, "adb"},  {1015, "sdcard_rw"},
    {1028, "sdcard_r"}, {3001, "net_bt_admin"}, {3002, "net_bt"}, {3003, "inet"}, {3006, "net_bw_stats"}};
constexpr std::pair<int, const char*> kToyboxShellGroups[] = {
    {2000, "shell"},        {1004, "input"},        {1007, "log"},    {1011, "adb"},
    {1015, "sdcard_rw"},    {1028, "sdcard_r"},     {3001, "net_bt_admin"}, {3002, "net_bt"},
    {3003, "inet"},         {3006, "net_bw_stats"}, {3009, "readproc"},     {3011, "uhid"}};

// `id`: toolbox before 6.0 ignores its arguments (toolbox/id.c:30-55 @
// android-5.0.0_r1); toybox from 6.0 knows -u, -g, -G and -n.
int run_id(const Device& dev, const std::vector<std::string>& w, ShellResult& r) {
  const bool root = dev.is_root();
  const std::string who = root ? "0(root)" : "2000(shell)";
  const std::string context = root ? "u:r:su:s0" : "u:r:shell:s0";
  auto groups = [](auto begin, auto end, bool names, bool words) {
    std::string s;
    for (auto it = begin; it != end; ++it) {
      if (!s.empty()) s += words ? " " : ",";
      s += names ? std::string(it->second) : std::to_string(it->first);
      if (!words) s += "(" + std::string(it->second) + ")";
    }
    return s;
  };
  if (dev.config().sdk < 23) {
    r.out += "uid=" + who + " gid=" + who + " groups=" +
             groups(std::begin(kToolboxGroups), std::end(kToolboxGroups), false, false) + " context=" + context + "\n";
    return 0;
  }
  char only = 0;
  bool names = false;
  for (std::size_t i = 1; i < w.size(); ++i) {
    bool known = w[i].size() >= 2 && w[i][0] == '-';
    for (std::size_t k = 1; known && k < w[i].size(); ++k) {
      const char c = w[i][k];
      if (c == 'n') names = true;
      else if (c == 'u' || c == 'g' || c == 'G') only = c;
      else known = false;
    }
    if (!known) {  // a user name, -r, -Z, …
      r.err += "id: " + w[i] + " is not simulated by jank_devsim\n";
      return 2;
    }
  }
  if (only == 'u' || only == 'g') {
    r.out += names ? (root ? "root\n" : "shell\n") : (root ? "0\n" : "2000\n");
    return 0;
  }
  if (root) {
    if (only == 'G') r.out += names ? "root\n" : "0\n";
    else r.out += "uid=0(root) gid=0(root) groups=0(root) context=u:r:su:s0\n";
    return 0;
  }
  if (only == 'G') {
    r.out += groups(std::begin(kToyboxShellGroups), std::end(kToyboxShellGroups), names, true) + "\n";
    return 0;
  }
  r.out += "uid=2000(shell) gid=2000(shell) groups=" +
           groups(std::begin(kToyboxShellGroups), std::end(kToyboxShellGroups), false, false) +
           " context=u:r:shell:s0\n";
  return 0;
}

// printf FORMAT [ARG…] with %s %d %i %c %% and backslash escapes; the format
// is used again while arguments remain (POSIX).
int run_printf(const std::vector<std::string>& w, ShellResult& r) {
  if (w.size() < 2) {
    r.err += "printf: Needs 1 argument\n";
    return 1;
  }
  const std::string& f = w[1];
  std::size_t arg = 2;
  do {
    const std::size_t before = arg;
    for (std::size_t i = 0; i < f.size(); ++i) {
      const char c = f[i];
      if (c == '\\' && i + 1 < f.size()) {
        const char e = f[++i];
        r.out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'a' ? '\a' : e;
      } else if (c == '%' && i + 1 < f.size()) {
        const char k = f[++i];
        const std::string a = arg < w.size() ? w[arg] : std::string();
        if (k == '%') {
          r.out += '%';
          continue;
        }
        if (arg < w.size()) ++arg;
        if (k == 's') r.out += a;
        else if (k == 'd' || k == 'i') r.out += std::to_string(std::strtoll(a.c_str(), nullptr, 10));
        else if (k == 'c') r.out += a.substr(0, 1);
        else {
          r.err += std::string("printf: %") + k + ": invalid conversion\n";
          return 1;
        }
      } else {
        r.out += c;
      }
    }
    if (arg == before) break;  // the format takes no argument
  } while (arg < w.size());
  return 0;
}

// mksh's kill builtin: kill [-s SIG | -SIG | -N] PID…
int run_kill(Device& dev, const std::vector<std::string>& w, ShellResult& r) {
  int sig = 15;
  std::size_t i = 1;
  auto signal_number = [](std::string name) {
    if (name.rfind("SIG", 0) == 0) name = name.substr(3);
    if (all_digits(name)) return std::stoi(name);
    static const std::pair<const char*, int> kNames[] = {{"HUP", 1}, {"INT", 2}, {"QUIT", 3}, {"KILL", 9},
                                                         {"USR1", 10}, {"USR2", 12}, {"TERM", 15}};
    for (const auto& [n, v] : kNames) {
      if (name == n) return v;
    }
    return -1;
  };
  if (i < w.size() && w[i] == "-s" && i + 1 < w.size()) {
    sig = signal_number(w[i + 1]);
    i += 2;
  } else if (i < w.size() && w[i].size() > 1 && w[i][0] == '-') {
    sig = signal_number(w[i].substr(1));
    ++i;
  }
  if (sig < 0 || sig > 64) {
    r.err += "/system/bin/sh: kill: " + w[i - 1] + ": unknown signal\n";
    return 1;
  }
  if (i >= w.size()) {
    r.err += "/system/bin/sh: kill: usage: kill [-s signame | -signum | -signame] { job | pid | pgrp } ...\n";
    return 1;
  }
  int status = 0;
  for (; i < w.size(); ++i) {
    if (!all_digits(w[i])) {
      r.err += "/system/bin/sh: kill: " + w[i] + ": arguments must be jobs or process IDs\n";
      status = 1;
      continue;
    }
    const auto pid = static_cast<std::int32_t>(std::strtol(w[i].c_str(), nullptr, 10));
    int err = ESRCH;
    if (dev.perfetto().is_process(pid)) {
      err = dev.perfetto().signal(pid, sig);
    } else if (dev.cmdline_of(pid)) {
      // Other uids' processes: the shell user may not signal them.
      err = EPERM;
    }
    if (err != 0) {
      r.err += "/system/bin/sh: kill: " + w[i] + ": " + (err == EPERM ? "Operation not permitted" : "No such process") + "\n";
      status = 1;
    }
  }
  return status;
}

// toybox rm: only the trace directory is modelled (other paths do not exist).
int run_rm(Device& dev, const std::vector<std::string>& w, ShellResult& r) {
  bool force = false;
  int status = 0;
  for (std::size_t i = 1; i < w.size(); ++i) {
    if (w[i].size() > 1 && w[i][0] == '-') {
      force = force || w[i].find('f') != std::string::npos;
      continue;
    }
    if (!dev.perfetto().remove_file(w[i]) && !force) {
      r.err += "rm: " + w[i] + ": No such file or directory\n";
      status = 1;
    }
  }
  return status;
}

// cat of /proc, /sys and trace files; a trace bigger than kInlineFileMax is
// streamed (r.file) and ends the arguments, a hung pull sets r.hang. Both
// cats (NetBSD's in 5.x's toolbox, toybox's from 6.0) write with write(2):
// an error lands between the files' bytes in order. Errors go on with the
// next file and make the status 1 (toolbox cat.c:275-277 @ android-5.0.0_r1;
// toybox lib/lib.c loopfiles_rw, WARN_ONLY).
int run_cat(Device& dev, const std::vector<std::string>& w, ShellResult& r) {
  int status = 0;
  auto fail = [&](const std::string& path, std::string_view why) {
    r.err_at.emplace_back(r.out.size(), "cat: " + path + ": " + std::string(why) + "\n");
    status = 1;
  };
  for (std::size_t i = 1; i < w.size(); ++i) {
    const std::string& path = w[i];
    if (path.rfind(kPerfettoTraceDir, 0) == 0) {
      const TraceRead t = dev.perfetto().cat(path);
      if (t.kind == TraceRead::Kind::hang) {
        r.hang = true;
        return status;
      }
      if (t.kind == TraceRead::Kind::denied) {
        fail(path, "Permission denied");
        continue;
      }
      if (t.kind == TraceRead::Kind::data) {
        if (t.length <= kInlineFileMax) {
          r.out += t.content.slice(0, static_cast<std::size_t>(t.length));
          continue;
        }
        r.file = FileStream{t.content, t.length};
        return status;
      }
      fail(path, "No such file or directory");
      continue;
    }
    const FsRead f = fs_read(dev, path);
    if (f.err != 0) {
      fail(path, fs_error_text(f.err));
      continue;
    }
    r.out += f.data;
  }
  return status;
}

// Runs one simple command (no operators). Returns its exit status.
// `input`: what a pipe feeds it (only grep and perfetto read it).
int run_simple(Device& dev, std::vector<std::string> w, ShellResult& r, bool* stop, bool tty,
               const std::string* input = nullptr) {
  // Leading VAR=value assignments only set the environment, which we ignore.
  while (!w.empty() && w[0].find('=') != std::string::npos && w[0][0] != '=' &&
         text::is_alpha(w[0][0])) {
    w.erase(w.begin());
  }
  if (w.empty()) return 0;
  if (w[0] == "exec") {
    w.erase(w.begin());
    *stop = true;
    if (w.empty()) return 0;
  }
  const std::string& cmd = w[0];
  if (cmd == "export" || cmd == "true" || cmd == ":" || cmd == "cd") return 0;
  if (cmd == "false") return 1;
  if (cmd == "exit") {
    *stop = true;
    return w.size() > 1 ? static_cast<int>(std::strtol(w[1].c_str(), nullptr, 10) & 0xff) : 0;
  }
  if (cmd == "echo") {
    bool nl = true;
    std::size_t i = 1;
    if (i < w.size() && w[i] == "-n") nl = false, ++i;
    r.out += joined(w, i);
    if (nl) r.out += '\n';
    if (i < w.size() && w[i] == "jank_exporter:cursor") reader_declares(dev, w, i + 1);
    return 0;
  }
  if (cmd == "id") return run_id(dev, w, r);
  if (cmd == "getprop") {
    if (w.size() >= 2) {
      auto v = dev.getprop(w[1]);
      r.out += (v ? *v : (w.size() >= 3 ? w[2] : std::string())) + "\n";
      return 0;
    }
    for (const auto& [k, v] : dev.props()) r.out += "[" + k + "]: [" + v + "]\n";
    return 0;
  }
  if (cmd == "setprop") {
    if (w.size() != 3) {
      r.err += "usage: setprop NAME VALUE\n\nSets an Android system property.\n";
      return 1;
    }
    SetpropResult s = dev.setprop(w[1], w[2]);
    r.err += s.err;
    return s.exit;
  }
  if (cmd == "ps") {
    int code = 0;
    r.out += dev.ps(std::vector<std::string>(w.begin() + 1, w.end()), &code);
    return code;
  }
  if (cmd == "dumpsys") {
    if (w.size() < 2) {
      r.out += "Currently running services:\n  SurfaceFlinger\n  battery\n  display\n  gfxinfo\n  package\n  power\n  window\n";
      return 0;
    }
    if (w[1] == "gfxinfo") {
      int code = 0;
      r.out += dev.dumpsys_gfxinfo(std::vector<std::string>(w.begin() + 2, w.end()), &code);
      return code;
    }
    if (w[1] == "graphicsstats") {
      r.out += dev.dumpsys_graphicsstats();
      return 0;
    }
    if (w[1] == "package") {
      // dumpsys package [PKG]: options (-f, --checkin, ...) are not simulated.
      dev.advance();
      r.out += dev.dumpsys_package(w.size() >= 3 ? std::string_view(w[2]) : std::string_view());
      return 0;
    }
    if (w[1] == "display") {
      dev.advance();
      r.out += dev.dumpsys_display();
      return 0;
    }
    if (w[1] == "SurfaceFlinger") {
      dev.advance();
      dev.surfaceflinger_dumped();
      if (w.size() >= 3 && w[2] == "--list") {
        r.out += dev.surfaceflinger_list();
      } else if (w.size() >= 3 && w[2] == "--latency") {
        r.out += dev.surfaceflinger_latency(w.size() >= 4 ? w[3] : std::string());
      } else if (w.size() >= 3 && w[2] == "--timestats") {
        r.out += dev.surfaceflinger_timestats(std::vector<std::string>(w.begin() + 3, w.end()));
      } else if (w.size() >= 3 && w[2] == "--frametimeline") {
        bool all = false, jank = false;
        for (std::size_t i = 3; i < w.size(); ++i) {
          all = all || w[i] == "-all";
          jank = jank || w[i] == "-jank";
        }
        r.out += dev.surfaceflinger_frametimeline(all, jank);
      } else {
        r.out += dev.dumpsys_surfaceflinger();
      }
      return 0;
    }
    if (w[1] == "window") {
      dev.advance();
      r.out += dev.dumpsys_window(std::vector<std::string>(w.begin() + 2, w.end()));
      return 0;
    }
    if (w[1] == "power") {
      dev.advance();
      r.out += dev.dumpsys_power();
      return 0;
    }
    if (w[1] == "battery") {
      // BatteryService, on every release (devsim/battery.cc). Its dump takes
      // no arguments but -a; set/unplug/reset (its shell commands) are not simulated.
      if (w.size() > 2 && w[2] != "-a") {
        r.err += "dumpsys battery: " + w[2] + " is not simulated by jank_devsim\n";
        return 2;
      }
      dev.advance();
      r.out += dev.dumpsys_battery();
      return 0;
    }
    if (w[1] == "thermalservice" && dev.config().sdk >= 29) {  // ThermalManagerService came with Android 10
      dev.advance();
      r.out += format_thermalservice(dev.config().sdk, dev.thermal());
      return 0;
    }
    r.err += "Can't find service: " + w[1] + "\n";
    return 0;
  }
  if (cmd == "cat") return run_cat(dev, w, r);
  if (cmd == "pidof") {
    // No pidof before 6.0 (toolbox/Android.mk OUR_TOOLS @ android-5.0.0_r1; toybox brings it).
    if (dev.config().sdk < 23) return mksh_not_found(dev.config().sdk, cmd, r);
    // toybox: every pid of every name on one line; nothing found is exit 1.
    std::string pids;
    for (std::size_t i = 1; i < w.size(); ++i) {
      if (!w[i].empty() && w[i][0] == '-') continue;
      for (std::int32_t pid : dev.pids_of(w[i])) pids += (pids.empty() ? "" : " ") + std::to_string(pid);
    }
    if (pids.empty()) return 1;
    r.out += pids + "\n";
    return 0;
  }
  if (cmd == "date") return run_date(dev, w, r);
  if (cmd == "grep") return run_grep(dev, w, input, tty, r);
  if (cmd == "printf") return run_printf(w, r);
  if (cmd == "kill") return run_kill(dev, w, r);
  if (cmd == "rm") return run_rm(dev, w, r);
  if (cmd == "perfetto" || cmd == "/system/bin/perfetto") {
    if (dev.config().sdk < 28) return mksh_not_found(dev.config().sdk, cmd, r);  // Perfetto came with Android 9
    PerfettoRun p = dev.perfetto().run_perfetto(w, input);
    r.out += p.out;
    r.err += p.err;
    return p.exit;
  }
  if (cmd == "trigger_perfetto" || cmd == "/system/bin/trigger_perfetto") {
    if (dev.config().sdk < 29) return mksh_not_found(dev.config().sdk, cmd, r);  // and trigger_perfetto with Android 10
    PerfettoRun p = dev.perfetto().trigger_perfetto(w);
    r.out += p.out;
    r.err += p.err;
    return p.exit;
  }
  if (cmd == "logcat") {
    ShellResult lr = run_logcat(dev, std::vector<std::string>(w.begin() + 1, w.end()));
    r.out += lr.out;
    r.err += lr.err;
    if (lr.follow) {
      r.follow = std::move(lr.follow);
      *stop = true;
    }
    return lr.exit;
  }
  r.err += "sh: " + cmd + ": not found\n";
  return 127;
}

}  // namespace

std::vector<std::string> shell_words(std::string_view s, bool* ok) { return shell_words(s, ok, nullptr); }

std::vector<std::string> shell_words(std::string_view s, bool* ok, std::vector<std::string>* unquoted) {
  std::vector<std::string> out;
  *ok = true;
  std::string cur, mask;  // mask: '1' for each byte of cur that was not quoted
  bool in_word = false;
  auto flush = [&] {
    if (in_word) {
      out.push_back(std::move(cur));
      if (unquoted) unquoted->push_back(std::move(mask));
    }
    cur.clear();
    mask.clear();
    in_word = false;
  };
  auto op = [&](std::string o) {
    out.push_back(std::move(o));
    if (unquoted) unquoted->emplace_back();
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      flush();
    } else if (c == ';') {
      flush();
      op(std::string(1, kOp) + ";");
    } else if (c == '&' && i + 1 < s.size() && s[i + 1] == '&') {
      flush();
      op(std::string(1, kOp) + "&&");
      ++i;
    } else if (c == '|' && i + 1 < s.size() && s[i + 1] == '|') {
      flush();
      op(std::string(1, kOp) + "||");
      ++i;
    } else if (c == '|') {
      flush();
      op(std::string(1, kOp) + "|");
    } else if (c == '&' || c == '<' || c == '(' || c == ')' || c == '`') {
      *ok = false;  // background jobs, subshells: not simulated
      return out;
    } else if (c == '>' || (!in_word && (c == '1' || c == '2') && i + 1 < s.size() && s[i + 1] == '>')) {
      // Redirection: [n]>[>]target or n>&m.
      std::string fd = c == '>' ? "1" : std::string(1, c);
      flush();
      if (c != '>') ++i;
      ++i;
      if (i < s.size() && s[i] == '>') ++i;
      if (i < s.size() && s[i] == '&') {
        ++i;
        std::string to;
        while (i < s.size() && text::is_digit(s[i])) to += s[i++];
        op(std::string(1, kOp) + ">" + fd + "&" + to);
      } else {
        op(std::string(1, kOp) + ">" + fd);
      }
      --i;
    } else if (c == '\'') {
      in_word = true;
      std::size_t e = s.find('\'', i + 1);
      if (e == std::string_view::npos) {
        *ok = false;
        return out;
      }
      cur.append(s.substr(i + 1, e - i - 1));
      mask.append(e - i - 1, '0');
      i = e;
    } else if (c == '"') {
      in_word = true;
      ++i;
      for (; i < s.size() && s[i] != '"'; ++i) {
        char m = '2';  // double-quoted: no globbing, but parameters expand
        if (s[i] == '\\' && i + 1 < s.size() &&
            (s[i + 1] == '"' || s[i + 1] == '\\' || s[i + 1] == '$' || s[i + 1] == '`')) {
          ++i;
          m = '0';
        }
        cur += s[i];
        mask += m;
      }
      if (i >= s.size()) {
        *ok = false;
        return out;
      }
    } else if (c == '\\' && i + 1 < s.size()) {
      in_word = true;
      cur += s[++i];
      mask += '0';
    } else {
      in_word = true;
      cur += c;
      mask += '1';
    }
  }
  flush();
  return out;
}

namespace {

// What $EPOCHREALTIME reads in a script: the device's wall clock when the
// script began plus the work its commands did on the device so far (the
// observer's cost; the script itself runs in one instant of the model).
struct ScriptClock {
  std::int64_t wall_ns = 0;
  std::int64_t work_ns = 0;
};

// mksh's `$?` and `$EPOCHREALTIME` (`${…}` alike) where the word was not
// single-quoted (mask '1' unquoted, '2' double-quoted); other parameters are
// not simulated and stay as written. EPOCHREALTIME is "%u.%06u" of
// gettimeofday (mksh var.c, R59c L1286-1296), in mksh since R41; Android 4.4
// has R43 (external/mksh src/sh.h:169 @ cm-11.0), earlier releases are not
// modelled: there it reads empty. The expansion's bytes are never globbed.
std::pair<std::string, std::string> expand_parameters(const Device& dev, const std::string& word,
                                                      const std::string& mask, int status, const ScriptClock& clock) {
  if (word.find('$') == std::string::npos) return {word, mask};
  std::string out, out_mask;
  for (std::size_t i = 0; i < word.size(); ++i) {
    const bool active = i < mask.size() && (mask[i] == '1' || mask[i] == '2');
    if (word[i] == '$' && active) {
      std::string value;
      std::size_t used = 0;
      if (word.compare(i + 1, 1, "?") == 0) {
        value = std::to_string(status);
        used = 1;
      } else {
        for (const char* form : {"EPOCHREALTIME", "{EPOCHREALTIME}"}) {
          const std::size_t n = std::strlen(form);
          if (word.compare(i + 1, n, form) != 0) continue;
          // A longer name (EPOCHREALTIMEX) is another parameter.
          if (form[0] != '{' && i + 1 + n < word.size() && text::is_word_char(word[i + 1 + n])) break;
          used = n;
          if (dev.config().sdk >= 19) {
            const std::int64_t us = (clock.wall_ns + dev.command_work_ns() - clock.work_ns) / 1000;
            char buf[32];
            std::snprintf(buf, sizeof buf, "%lld.%06lld", static_cast<long long>(us / 1'000'000),
                          static_cast<long long>(us % 1'000'000));
            value = buf;
          }
          break;
        }
      }
      if (used > 0) {
        out += value;
        out_mask.append(value.size(), '0');
        i += used;
        continue;
      }
    }
    out += word[i];
    out_mask += i < mask.size() ? mask[i] : '0';
  }
  return {out, out_mask};
}

}  // namespace

ShellResult run_shell(Device& dev, std::string_view script, bool tty) {
  ShellResult r;
  bool ok = true;
  std::vector<std::string> unquoted;
  auto words = shell_words(script, &ok, &unquoted);
  if (!ok) {
    r.err = "sh: syntax not supported by the simulator\n";
    r.exit = 2;
    return r;
  }
  if (dev.failing() && !words.empty()) {
    const std::string& first = words.front();
    r.err = "/system/bin/sh: " + (is_op(first) ? first.substr(1) : first) + ": can't execute: I/O error\n";
    r.exit = 126;
    return r;
  }
  // A script runs in one instant of the simulation, so that its commands
  // (`logcat -S; logcat …`, say) see one state of the device.
  dev.advance();
  dev.hold(true);
  struct Release {
    Device& d;
    ~Release() { d.hold(false); }
  } release{dev};
  int status = 0;
  const ScriptClock clock{dev.wall_now(), dev.command_work_ns()};
  std::string pending_op = ";";
  std::optional<std::string> piped;  // the previous command's output, when it ended in `|`
  std::size_t i = 0;
  while (i < words.size()) {
    // Collect one simple command and its redirections.
    std::vector<std::string> cmd;
    bool out_null = false, err_null = false, err_to_out = false, out_to_err = false;
    while (i < words.size() && !(is_op(words[i]) && words[i][1] != '>')) {
      if (is_op(words[i])) {
        const std::string op = words[i].substr(1);
        if (op.find('&') != std::string::npos) {
          if (op.substr(1, 1) == "2" && op.back() == '1') err_to_out = true;
          if (op.substr(1, 1) == "1" && op.back() == '2') out_to_err = true;
        } else if (i + 1 < words.size() && !is_op(words[i + 1])) {
          const bool null = words[i + 1] == "/dev/null";
          if (op == ">1") out_null = null;
          if (op == ">2") err_null = null;
          ++i;
        }
        ++i;
        continue;
      }
      // Pathname expansion (mksh) of the words with unquoted patterns.
      auto [word, mask] = expand_parameters(dev, words[i], unquoted[i], status, clock);
      for (std::string& x : expand_glob(dev, word, mask)) cmd.push_back(std::move(x));
      ++i;
    }
    const bool to_pipe = i < words.size() && words[i] == std::string(1, kOp) + "|";
    const bool run = pending_op == ";" || pending_op == "|" || (pending_op == "&&" && status == 0) ||
                     (pending_op == "||" && status != 0);
    if (run) {
      ShellResult one;
      bool stop = false;
      std::optional<std::string> input = std::move(piped);
      piped.reset();
      status = run_simple(dev, std::move(cmd), one, &stop, tty, input ? &*input : nullptr);
      if (one.file && to_pipe) {
        one.file.reset();
        one.err += "sh: a pipe of a file over 4 MiB is not simulated\n";
        status = 2;
      }
      // Its stdout, with its stderr where each part lands when 2>&1 sends
      // both to one file (the tool's own buffering decides: err_at).
      std::string out = std::move(one.out);
      std::string err;
      if (err_to_out && !out_null) {
        std::size_t shift = 0;
        for (const auto& [at, text] : one.err_at) {
          out.insert(std::min(at + shift, out.size()), text);
          shift += text.size();
        }
        out += one.err;
      } else if (!err_null) {
        for (const auto& [at, text] : one.err_at) err += text;
        err += one.err;
      }
      if (out_to_err && !out_null) {
        err += out;
        out.clear();
      }
      if (to_pipe) {
        piped = out_null ? std::string() : std::move(out);
      } else if (!out_null) {
        r.out += out;
      }
      r.err += err;
      if (one.follow) {
        r.follow = std::move(one.follow);
        break;
      }
      if (one.hang) {
        r.hang = true;
        break;
      }
      if (one.file) {
        // Streamed by the transport after what came before; the script ends here.
        if (!out_null) r.file = std::move(one.file);
        break;
      }
      if (stop) break;
    }
    if (i < words.size()) pending_op = words[i++].substr(1);
  }
  r.exit = status;
  return r;
}

namespace {

// " identical 3 lines" / " expire 1 line" (LogBufferElement.cpp:123,165-168 @ 8.0).
std::string fmt_summary(bool identical, std::uint32_t n) {
  return std::string(identical ? " identical " : " expire ") + std::to_string(n) + (n > 1 ? " lines" : " line");
}

}  // namespace

std::string pump_logcat(const Device& dev, LogcatFollow& f, std::size_t max_bytes, bool* done,
                        std::vector<WrittenEntry>* written) {
  std::string out;
  *done = false;
  if (!f.dump && f.logd_gen != dev.logd_generation()) {
    // logd went away: the reader socket reads EOF and logcat (Android 13's
    // logcat.cpp) gives up with an error (its longer advice is left out).
    *done = true;
    f.exit = 1;
    f.err = "logcat: Unexpected EOF!\n";
    return out;
  }
  const auto& logs = dev.logs();
  for (;;) {
    auto batch = logs.read(f.mask, f.next_seq, 256);
    if (batch.empty()) break;
    for (const LogEntry* e : batch) {
      f.next_seq = e->seq + 1;
      if (e->seq < f.first_pass_end && e->wall_ns <= f.start_time) continue;
      if (f.pid >= 0 && e->pid != f.pid) continue;
      const auto lid = static_cast<std::size_t>(e->id);
      const bool same_tid = f.last_tid[lid] == e->tid;
      f.last_tid[lid] = e->summary > 0 && !same_tid ? 0 : e->tid;
      LogEntry summary;
      if (e->summary > 0) {
        // logd writes a summary's text as it sends it, and sends nothing
        // when log.tag.chatty forbids INFO (LogBufferElement.cpp:114-121).
        if (!dev.loggable('I', "chatty")) continue;
        summary = *e;
        summary.msg += fmt_summary(same_tid, e->summary);
        e = &summary;
      }
      char min = f.default_min;
      for (const auto& [tag, p] : f.tag_min) {
        if (tag == e->tag) min = p;
      }
      if (prio_rank(e->prio) < prio_rank(min)) continue;
      const auto b = static_cast<std::size_t>(e->id);
      if (!f.begun[b]) {
        f.begun[b] = true;
        out += "--------- beginning of ";
        out += log_id_name(e->id);
        out += '\n';
      } else if (f.dividers && f.last_printed != static_cast<int>(b)) {
        out += "--------- switch to ";
        out += log_id_name(e->id);
        out += '\n';
      }
      f.last_printed = static_cast<int>(b);
      const std::size_t start = out.size();
      out += format_entry(*e, f.format, dev.config().tz_offset_s);
      if (written) {
        const std::string_view text = std::string_view(out).substr(start);
        written->push_back(WrittenEntry{out.size(), e->id, e->index, first_line_hash(text.substr(0, text.find('\n')))});
      }
      if (f.max_count > 0 && --f.max_count == 0) {
        *done = true;
        return out;
      }
    }
    if (out.size() >= max_bytes) return out;
  }
  if (f.dump) *done = true;
  return out;
}

bool parse_logcat_start(std::string_view arg, std::int32_t tz_offset_s, std::int64_t now_wall_ns,
                        std::optional<std::size_t>* count, std::optional<std::int64_t>* wall_ns) {
  if (all_digits(arg)) {
    *count = static_cast<std::size_t>(std::stoull(std::string(arg)));
    return true;
  }
  auto frac_ns = [](std::string_view f) -> std::int64_t {
    std::int64_t v = 0;
    int digits = 0;
    for (char c : f) {
      if (c < '0' || c > '9' || digits == 9) break;
      v = v * 10 + (c - '0');
      ++digits;
    }
    for (; digits < 9; ++digits) v *= 10;
    return v;
  };
  // Epoch form: seconds '.' fraction (the fraction is what tells it from a count).
  std::size_t dot = arg.find('.');
  if (dot != std::string_view::npos && all_digits(arg.substr(0, dot)) && dot + 1 < arg.size() &&
      text::is_digit(arg[dot + 1])) {
    *wall_ns = std::stoll(std::string(arg.substr(0, dot))) * 1'000'000'000 + frac_ns(arg.substr(dot + 1));
    return true;
  }
  std::tm tm{};
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, used = 0;
  std::string a(arg);
  if (std::sscanf(a.c_str(), "%4d-%2d-%2d %2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &used) == 6 && used >= 19) {
  } else if (std::sscanf(a.c_str(), "%2d-%2d %2d:%2d:%2d%n", &mo, &d, &h, &mi, &sec, &used) == 5) {
    std::time_t now = static_cast<std::time_t>(now_wall_ns / 1'000'000'000 + tz_offset_s);
    std::tm nowtm{};
    gmtime_r(&now, &nowtm);
    y = nowtm.tm_year + 1900;
  } else {
    return false;
  }
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  std::int64_t secs = static_cast<std::int64_t>(timegm(&tm)) - tz_offset_s;
  std::int64_t ns = 0;
  if (static_cast<std::size_t>(used) < a.size() && a[static_cast<std::size_t>(used)] == '.') {
    ns = frac_ns(std::string_view(a).substr(static_cast<std::size_t>(used) + 1));
  }
  *wall_ns = secs * 1'000'000'000 + ns;
  return true;
}

std::uint64_t first_line_hash(std::string_view line) {
  std::uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : line) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h == 0 ? 1 : h;
}

}  // namespace jank::devsim

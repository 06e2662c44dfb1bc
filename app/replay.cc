#include "app/replay.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <memory>
#include <ostream>
#include <string_view>
#include <thread>
#include <vector>

#include "exporters/prometheus_collector.h"
#include "metrics/store.h"
#include "parsers/gfxinfo.h"
#include "parsers/input_kind.h"
#include "parsers/logcat_stream.h"
#include "parsers/sf_latency.h"
#include "parsers/text_input.h"

namespace jank::app {
namespace {

constexpr std::size_t kChunkBytes = 1 << 20;
constexpr std::size_t kMaxLineBytes = parsers::LogcatStreamOptions{}.max_line_bytes;
constexpr std::size_t kProbeBytes = 64 * 1024;
// Dumps are read whole; nothing real comes near this (an all-process
// framestats dump is a few hundred KiB).
constexpr std::size_t kMaxDumpBytes = 256u << 20;

struct Options {
  unsigned threads = 0;  // 0: one per core
  std::string serial = "replay";
  double refresh_hz = 60;
  std::int64_t window_seconds = 60;
  int year = 0;
  std::vector<std::string> files;
};

template <typename T>
bool parse_number(std::string_view text, T& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

int current_utc_year() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  return tm.tm_year + 1900;
}

// Returns an error message, or "" on success.
std::string parse_args(const std::vector<std::string>& args, Options& o, bool& help) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& v) -> bool {
      if (i + 1 >= args.size()) return false;
      v = args[++i];
      return true;
    };
    std::string v;
    if (a == "-h" || a == "--help") {
      help = true;
    } else if (a == "--serial") {
      if (!value(v) || v.empty()) return "--serial needs a name";
      o.serial = v;
    } else if (a == "--refresh-rate") {
      if (!value(v) || !parse_number(v, o.refresh_hz) || !(o.refresh_hz > 0 && o.refresh_hz <= 1000))
        return "--refresh-rate needs a rate in Hz between 0 and 1000";
    } else if (a == "--window-seconds") {
      if (!value(v) || !parse_number(v, o.window_seconds) || o.window_seconds <= 0 || o.window_seconds > 86400)
        return "--window-seconds needs a whole number of seconds from 1 to 86400";
    } else if (a == "--threads") {
      if (!value(v) || !parse_number(v, o.threads) || o.threads < 1 || o.threads > 64)
        return "--threads needs a number from 1 to 64";
    } else if (a == "--year") {
      if (!value(v) || !parse_number(v, o.year) || o.year < 1970 || o.year > 9999)
        return "--year needs a year from 1970 to 9999";
    } else if (a == "-" || (!a.empty() && a[0] != '-')) {
      o.files.push_back(a);
    } else {
      return "unknown option " + a;
    }
  }
  if (!help && o.files.empty()) return "no input: give one or more FILEs, or - for standard input";
  return "";
}

class Input {
 public:
  Input(std::FILE* f, bool owned) : f_(f), owned_(owned) {}
  ~Input() {
    if (owned_ && f_ != nullptr) std::fclose(f_);
  }
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;
  std::FILE* file() const { return f_; }
  // Appends up to n bytes; returns bytes read, 0 at EOF; -1 on error.
  long read(std::string& buf, std::size_t n) {
    const std::size_t old = buf.size();
    buf.resize(old + n);
    std::size_t got = std::fread(buf.data() + old, 1, n, f_);
    buf.resize(old + got);
    if (got == 0 && std::ferror(f_)) return -1;
    return static_cast<long>(got);
  }

 private:
  std::FILE* f_;
  bool owned_;
};

// Files at least this big are scanned on several threads.
constexpr std::size_t kParallelMinBytes = 1u << 20;
constexpr std::size_t kWindowBytesPerThread = 8u << 20;

// A large UTF-8 file: the pre-filter (the costly part) runs on every core
// over contiguous slices; the few lines it selects are then parsed in input
// order, so the result is the same as reading it in one stream.
bool replay_mapped(Input& in, unsigned threads, parsers::LogcatStream& stream) {
  const int fd = fileno(in.file());
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size < kParallelMinBytes) return false;
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) return false;
  ::madvise(map, size, MADV_SEQUENTIAL);
  std::string_view all(static_cast<const char*>(map), size);
  const parsers::Encoding encoding = parsers::detect_encoding(all.substr(0, 64));
  if (encoding != parsers::Encoding::utf8 && encoding != parsers::Encoding::utf8_bom) {
    ::munmap(map, size);
    return false;
  }
  if (encoding == parsers::Encoding::utf8_bom) all.remove_prefix(3);
  stream.assume_utf8();
  const char* last_nl = static_cast<const char*>(memrchr(all.data(), '\n', all.size()));
  const std::size_t body_len = last_nl ? static_cast<std::size_t>(last_nl - all.data()) + 1 : 0;
  // Windows of a few MiB per thread keep resident memory bounded: each is
  // scanned in slices, fed, then its pages are released.
  const std::size_t window = kWindowBytesPerThread * threads;
  std::size_t start = 0;
  while (start < body_len) {
    std::size_t end = std::min(body_len, start + window);
    if (end < body_len) {
      const void* nl = std::memchr(all.data() + end, '\n', body_len - end);
      end = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - all.data()) + 1 : body_len;
    }
    const std::string_view body = all.substr(start, end - start);
    std::vector<std::size_t> cuts = {0};
    for (unsigned i = 1; i < threads; ++i) {
      const std::size_t at = std::max(cuts.back(), body.size() * i / threads);
      const void* nl = at < body.size() ? std::memchr(body.data() + at, '\n', body.size() - at) : nullptr;
      if (nl == nullptr) break;
      cuts.push_back(static_cast<std::size_t>(static_cast<const char*>(nl) - body.data()) + 1);
    }
    cuts.push_back(body.size());
    std::vector<parsers::ScannedRegion> regions(cuts.size() - 1);
    std::vector<std::thread> workers;
    for (std::size_t i = 1; i + 1 < cuts.size(); ++i) {
      workers.emplace_back([&, i] {
        regions[i] = parsers::scan_region(body.substr(cuts[i], cuts[i + 1] - cuts[i]), kMaxLineBytes);
      });
    }
    regions[0] = parsers::scan_region(body.substr(0, cuts[1]), kMaxLineBytes);
    for (auto& w : workers) w.join();
    for (const auto& r : regions) stream.feed_scanned(r);
    // Page-aligned release of what was read (the mapping is private and read-only).
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const auto base = reinterpret_cast<std::uintptr_t>(map);
    const std::uintptr_t from = (reinterpret_cast<std::uintptr_t>(body.data()) - base) / page * page;
    const std::uintptr_t to = (reinterpret_cast<std::uintptr_t>(body.data() + body.size()) - base) / page * page;
    if (to > from) ::madvise(static_cast<char*>(map) + from, to - from, MADV_DONTNEED);
    start = end;
  }
  stream.feed(all.substr(body_len));
  ::munmap(map, size);
  return true;
}

// Runs one input through the pipeline. Returns an error message or "".
std::string replay_one(const std::string& name, Input& in, const Options& o, metrics::Store& store,
                       metrics::DeviceMetrics& device) {
  std::string head;
  while (head.size() < kProbeBytes) {
    long n = in.read(head, kProbeBytes - head.size());
    if (n < 0) return "read error: " + std::string(std::strerror(errno));
    if (n == 0) break;
  }
  const std::string head_text = parsers::decode_to_utf8(head);
  const parsers::InputKind kind = parsers::detect_input_kind(head_text);

  if (kind == parsers::InputKind::logcat) {
    parsers::LogcatStreamOptions stream_options;
    stream_options.parse.default_year = o.year != 0 ? o.year : current_utc_year();
    metrics::DeviceLogcatRecorder recorder(store, device);
    parsers::LogcatStream stream(recorder, stream_options);
    const unsigned threads = o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
    if (name == "-" || threads < 2 || !replay_mapped(in, threads, stream)) {
      stream.feed(head);
      std::string chunk;
      for (;;) {
        chunk.clear();
        long n = in.read(chunk, kChunkBytes);
        if (n < 0) return "read error: " + std::string(std::strerror(errno));
        if (n == 0) break;
        stream.feed(chunk);
      }
    }
    stream.finish();
    device.lines += stream.counts();
    if (stream.last_time().base == parsers::TimeBase::wall) store.note_time(device, stream.last_time().ns);
    return "";
  }

  std::string all = std::move(head);
  for (;;) {
    if (all.size() > kMaxDumpBytes) return "dump larger than 256 MiB, not a gfxinfo/SurfaceFlinger output";
    long n = in.read(all, kChunkBytes);
    if (n < 0) return "read error: " + std::string(std::strerror(errno));
    if (n == 0) break;
  }
  const std::string text = parsers::decode_to_utf8(all);
  if (kind == parsers::InputKind::gfxinfo) {
    store.record_gfxinfo(device, parsers::parse_gfxinfo(text));
  } else {
    const parsers::SfLatency latency = parsers::parse_sf_latency(text);
    if (latency.refresh_period_ns && *latency.refresh_period_ns > 0) {
      device.refresh_hz = 1e9 / static_cast<double>(*latency.refresh_period_ns);
      device.refresh_is_fallback = false;
    }
  }
  return "";
}

}  // namespace

void print_replay_help(std::ostream& out) {
  out << "Usage: jank_exporter replay [OPTIONS] FILE... | -\n"
         "\n"
         "Runs recorded inputs through jank_exporter's parsers and metrics and prints\n"
         "the Prometheus exposition the daemon would serve for them. Each input's kind\n"
         "is detected: a logcat capture (any `logcat -v` layout, Android Studio or\n"
         "`flutter run` output; UTF-8 or UTF-16LE), a `dumpsys gfxinfo [framestats]`\n"
         "output, or `dumpsys SurfaceFlinger --latency` output (its refresh period\n"
         "sets the refresh rate). All inputs belong to one device, in the order given.\n"
         "\n"
         "Options:\n"
         "  --serial NAME          serial label of the device (default: replay)\n"
         "  --refresh-rate HZ      refresh rate when no input measures it (default: 60)\n"
         "  --window-seconds S     window of the SM and worst-skip gauges, ending at the\n"
         "                         newest timestamp of the input (default: 60)\n"
         "  --year YYYY            year for timestamps printed without one (default: this year)\n"
         "  --threads N            threads scanning large files (default: one per core)\n"
         "  -h, --help             this text\n"
         "\n"
         "Processes are labelled by name when the input names them (process start\n"
         "lines, Android Studio layouts, gfxinfo headers), otherwise package=\"pid:N\".\n"
         "\n"
         "Exit status: 0 success, 64 bad usage, 66 an input could not be read.\n";
}

int run_replay(const std::vector<std::string>& args, std::FILE* stdin_file, std::ostream& out, std::ostream& err) {
  Options o;
  bool help = false;
  if (std::string e = parse_args(args, o, help); !e.empty()) {
    err << "jank_exporter replay: " << e << "\n(see jank_exporter replay --help)\n";
    return kExitUsage;
  }
  if (help) {
    print_replay_help(out);
    return kExitOk;
  }
  metrics::StoreOptions store_options;
  store_options.default_refresh_hz = o.refresh_hz;
  store_options.window_seconds = o.window_seconds;
  metrics::Store store(store_options);
  metrics::DeviceMetrics& device = store.device(o.serial);

  for (const std::string& name : o.files) {
    std::FILE* f = name == "-" ? stdin_file : std::fopen(name.c_str(), "rb");
    if (f == nullptr) {
      err << "jank_exporter replay: cannot open " << name << ": " << std::strerror(errno) << "\n";
      return kExitNoInput;
    }
    Input in(f, name != "-");
    if (std::string e = replay_one(name, in, o, store, device); !e.empty()) {
      err << "jank_exporter replay: " << name << ": " << e << "\n";
      return kExitNoInput;
    }
  }
  exporters::StoreCollector collector(store, exporters::input_time_now());
  out << collector.Text().str();
  return kExitOk;
}

}  // namespace jank::app

#include "app/cli/replay.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <ostream>
#include <string_view>
#include <thread>
#include <vector>

#include "app/cli/replay_bugreport.h"
#include "app/cli/replay_dumps.h"
#include "app/cli/replay_input.h"
#include "app/cli/replay_logcat.h"
#include "app/cli/replay_options.h"
#include "config/config.h"
#include "exporters/prometheus_collector.h"
#include "metrics/logcat_recorder.h"
#include "metrics/store.h"
#include "parsers/bugreport.h"
#include "parsers/input_kind.h"
#include "parsers/logcat_line.h"
#include "parsers/logcat_stream.h"
#include "parsers/sf_latency.h"
#include "parsers/text_input.h"
#include "parsers/time_units.h"

namespace jank::app {
namespace {

constexpr std::size_t kChunkBytes = 1 << 20;
constexpr std::size_t kMaxLineBytes = parsers::LogcatStreamOptions{}.max_line_bytes;
constexpr std::size_t kProbeBytes = 64 * 1024;
// Dumps are read whole; nothing real comes near this (an all-process
// framestats dump is a few hundred KiB).
constexpr std::size_t kMaxDumpBytes = 256u << 20;
// A bug report (a zip or its text) is read whole: they run to a few hundred MiB.
constexpr std::size_t kMaxBugreportBytes = 1u << 30;

// Files at least this big are scanned on several threads.
constexpr std::size_t kParallelMinBytes = 1u << 20;
// Each thread scans this much between two synchronisations...
constexpr std::size_t kSliceBytesPerThread = 256u << 20;
// ...releasing the mapped pages after each piece of this size.
constexpr std::size_t kPieceBytes = 8u << 20;

// The lines the pre-filter selected from one piece, copied out of the mapping
// so that its pages can be released at once.
struct ScannedPiece {
  std::string storage;
  parsers::ScannedRegion region;
};

// End of the line that contains `at` (exclusive), or `text.size()`.
std::size_t line_end_after(std::string_view text, std::size_t at) {
  if (at >= text.size()) return text.size();
  const void* nl = std::memchr(text.data() + at, '\n', text.size() - at);
  return nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) + 1 : text.size();
}

// Scans `slice` (whole lines) piece by piece into `out`.
void scan_slice(std::string_view slice, const char* map_base, const parsers::LogPatternSet* patterns,
                std::vector<ScannedPiece>& out) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  for (std::size_t start = 0; start < slice.size();) {
    const std::size_t end = line_end_after(slice, std::min(slice.size(), start + kPieceBytes));
    const std::string_view piece = slice.substr(start, end - start);
    ScannedPiece& scanned = out.emplace_back();
    scanned.region = parsers::scan_region(piece, kMaxLineBytes, patterns);
    std::size_t bytes = scanned.region.last_line.size();
    for (const auto& line : scanned.region.lines) bytes += line.first.size();
    scanned.storage.reserve(bytes);  // no reallocation below: the views stay valid
    auto keep = [&](std::string_view v) {
      const std::size_t at = scanned.storage.size();
      scanned.storage.append(v);
      return std::string_view(scanned.storage.data() + at, v.size());
    };
    for (auto& line : scanned.region.lines) line.first = keep(line.first);
    scanned.region.last_line = keep(scanned.region.last_line);
    // Release the pages read (the mapping is private and read-only, so a page
    // a neighbour still reads is simply read again from the page cache).
    const auto offset = static_cast<std::size_t>(piece.data() - map_base);
    const std::size_t from = offset / page * page, to = (offset + piece.size()) / page * page;
    if (to > from) ::madvise(const_cast<char*>(map_base) + from, to - from, MADV_DONTNEED);
    start = end;
  }
}

// A large UTF-8 file: the pre-filter (the costly part) runs on every core
// over contiguous slices; the few lines it selects are then parsed in input
// order, so the result is the same as reading it in one stream.
bool replay_mapped(Input& in, unsigned threads, const parsers::LogPatternSet* patterns,
                   parsers::LogcatStream& stream) {
  const int fd = fileno(in.file());
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size < kParallelMinBytes) return false;
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) return false;
  ::madvise(map, size, MADV_SEQUENTIAL);
  const char* map_base = static_cast<const char*>(map);
  std::string_view all(map_base, size);
  const parsers::Encoding encoding = parsers::detect_encoding(all.substr(0, 64));
  if (encoding != parsers::Encoding::utf8 && encoding != parsers::Encoding::utf8_bom) {
    ::munmap(map, size);
    return false;
  }
  if (encoding == parsers::Encoding::utf8_bom) all.remove_prefix(3);
  stream.assume_utf8();
  const char* last_nl = static_cast<const char*>(memrchr(all.data(), '\n', all.size()));
  const std::size_t body_len = last_nl ? static_cast<std::size_t>(last_nl - all.data()) + 1 : 0;
  const std::string_view body_all = all.substr(0, body_len);
  // Rounds of `threads` slices: memory holds one round's selected lines.
  for (std::size_t start = 0; start < body_len;) {
    const std::size_t end = line_end_after(body_all, std::min(body_len, start + kSliceBytesPerThread * threads));
    const std::string_view round = body_all.substr(start, end - start);
    std::vector<std::size_t> cuts = {0};
    for (unsigned i = 1; i < threads; ++i) {
      cuts.push_back(line_end_after(round, std::max(cuts.back(), round.size() * i / threads)));
    }
    cuts.push_back(round.size());
    std::vector<std::vector<ScannedPiece>> slices(cuts.size() - 1);
    std::vector<std::thread> workers;
    for (std::size_t i = 1; i < slices.size(); ++i) {
      workers.emplace_back(
          [&, i] { scan_slice(round.substr(cuts[i], cuts[i + 1] - cuts[i]), map_base, patterns, slices[i]); });
    }
    scan_slice(round.substr(0, cuts[1]), map_base, patterns, slices[0]);
    for (auto& w : workers) w.join();
    for (const auto& slice : slices) {
      for (const auto& piece : slice) stream.feed_scanned(piece.region);
    }
    start = end;
  }
  stream.feed(all.substr(body_len));
  ::munmap(map, size);
  return true;
}

// Appends the rest of `in` to `all`, up to `cap` bytes. Returns an error
// message (`too_big` past the cap) or "".
std::string read_rest(Input& in, std::string& all, std::size_t cap, const char* too_big) {
  for (;;) {
    if (all.size() > cap) return too_big;
    const long n = in.read(all, kChunkBytes);
    if (n < 0) return "read error: " + std::string(std::strerror(errno));
    if (n == 0) return "";
  }
}

// Runs one input through the pipeline. Returns an error message or "".
std::string replay_one(const std::string& name, Input& in, const ReplayOptions& o, metrics::Store& store,
                       metrics::DeviceMetrics& device, std::string& layer_name, std::ostream& err) {
  std::string head;
  while (head.size() < kProbeBytes) {
    long n = in.read(head, kProbeBytes - head.size());
    if (n < 0) return "read error: " + std::string(std::strerror(errno));
    if (n == 0) break;
  }
  const std::string head_text = parsers::decode_to_utf8(head);
  // A bug report, zipped or not: read whole, its sections each to its source.
  const bool zipped = looks_like_zip(head);
  if (zipped || parsers::looks_like_bugreport(head_text)) {
    std::string all = std::move(head);
    if (std::string e = read_rest(in, all, kMaxBugreportBytes, "larger than 1 GiB, not a bug report replay can read");
        !e.empty()) {
      return e;
    }
    if (!zipped) return replay_bugreport(name, parsers::decode_to_utf8(all), o, store, device, err);
    std::string error;
    const std::string text = bugreport_text_of_zip(all, kMaxBugreportBytes, error);
    if (!error.empty()) return error;
    return replay_bugreport(name, parsers::decode_to_utf8(text), o, store, device, err);
  }
  const parsers::InputKind kind = parsers::detect_input_kind(head_text);

  if (kind == parsers::InputKind::logcat) {
    const parsers::LogcatStreamOptions stream_options = logcat_replay_options(o);
    metrics::DeviceLogcatRecorder recorder(store, device, o.max_pattern_values);
    parsers::LogcatStream stream(recorder, stream_options);
    const unsigned threads = o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
    // When every line is parsed for the patterns, the parse (in order, one
    // thread) is the cost, not the scan: the selected lines of a parallel
    // round would only fill memory.
    const bool every_line = o.patterns && o.patterns->prefilter().every_line;
    if (name == "-" || threads < 2 || every_line || !replay_mapped(in, threads, o.patterns.get(), stream)) {
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
    finish_logcat_replay(stream, head_text, stream_options, store, device);
    return "";
  }

  std::string all = std::move(head);
  if (std::string e = read_rest(in, all, kMaxDumpBytes, "dump larger than 256 MiB, not a gfxinfo/SurfaceFlinger output");
      !e.empty()) {
    return e;
  }
  return record_dump(kind, name, parsers::decode_to_utf8(all), store, device, layer_name, err);
}

// The refresh rate that judges frames by the interval (framestats rows
// without FrameInterval, the gfxinfo refresh-aware slow frames), decided
// before any input is recorded so that no result depends on the order of the
// inputs: --refresh-rate when given, else the period the SurfaceFlinger
// --latency inputs print most often (the shorter on a tie), else the default.
// Standard input is read once, in the main pass: a period only it holds is
// not used here.
double judging_refresh_hz(const ReplayOptions& o) {
  if (o.refresh_given) return o.refresh_hz;
  std::map<std::int64_t, std::uint64_t> periods;
  for (const std::string& name : o.files) {
    if (name == "-") continue;
    std::FILE* f = std::fopen(name.c_str(), "rb");
    if (f == nullptr) continue;  // reported by the main pass
    Input in(f, true);
    std::string text;
    while (text.size() <= kMaxDumpBytes) {
      const long n = in.read(text, kChunkBytes);
      if (n <= 0) break;
      if (text.size() >= kProbeBytes && parsers::detect_input_kind(parsers::decode_to_utf8(text.substr(0, kProbeBytes))) !=
                                             parsers::InputKind::sf_latency) {
        break;
      }
    }
    const std::string decoded = parsers::decode_to_utf8(text);
    if (parsers::detect_input_kind(decoded.substr(0, kProbeBytes)) != parsers::InputKind::sf_latency) continue;
    parsers::count_printed_periods(decoded, periods);
  }
  const auto best = parsers::most_printed_period(periods);
  return best ? parsers::units::rate_of_period_ns(*best) : o.refresh_hz;
}

}  // namespace

int run_replay(const std::vector<std::string>& args, std::FILE* stdin_file, std::ostream& out, std::ostream& err) {
  ReplayOptions o;
  if (auto status = parse_replay_options(args, o, out, err)) return *status;
  if (!o.config.empty()) {
    const auto loaded = config::load_config_file(o.config);
    for (const auto& e : loaded.errors) err << e.to_string() << "\n";
    if (!loaded.ok()) return kExitConfig;
    o.patterns = loaded.config.log_pattern_set;
    o.max_pattern_values = loaded.config.log_patterns_max_values;
  }
  metrics::StoreOptions store_options;
  store_options.default_refresh_hz = o.refresh_hz;
  store_options.judge_refresh_hz = judging_refresh_hz(o);
  store_options.sm_window = o.sm_window;
  metrics::Store store(store_options);
  metrics::DeviceMetrics& device = store.device(o.serial);
  std::string layer_name = o.layer;

  for (const std::string& name : o.files) {
    std::FILE* f = name == "-" ? stdin_file : std::fopen(name.c_str(), "rb");
    if (f == nullptr) {
      err << "jank_exporter replay: cannot open " << name << ": " << std::strerror(errno) << "\n";
      return kExitNoInput;
    }
    Input in(f, name != "-");
    if (std::string e = replay_one(name, in, o, store, device, layer_name, err); !e.empty()) {
      err << "jank_exporter replay: " << name << ": " << e << "\n";
      return kExitNoInput;
    }
  }
  exporters::StoreCollector collector(store, exporters::input_time_now());
  collector.set_window_span(exporters::input_span());
  out << collector.Text().str();
  return kExitOk;
}

}  // namespace jank::app

// Replays every logcat and Davey capture of ../shared/corpus and checks the
// facts listed for it in SOURCES.md (transcribed below). Skipped when the
// corpus is not beside the project.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "exporters/prometheus_collector.h"
#include "metrics/logcat_recorder.h"
#include "metrics/store.h"
#include "parsers/logcat_stream.h"
#include "parsers/text_input.h"
#include "tests/support/names.h"

namespace {

namespace fs = std::filesystem;
using namespace jank;

struct LogcatFacts {
  const char* file;
  std::uint64_t lines;
  std::uint64_t skip_lines;
  std::uint64_t skip_sum;
  std::vector<std::uint32_t> n_values;
  std::map<std::int32_t, std::uint64_t> frames_by_pid;
  std::map<std::string, int> formats;
  std::uint64_t davey_lines;
  std::vector<std::int64_t> davey_ms;
  std::map<std::string, int> davey_tags;
  std::map<std::string, int> davey_flags;
  std::map<std::string, int> separators;
};

// From ../shared/corpus/SOURCES.md, "Expected facts" of each file.
const std::vector<LogcatFacts>& facts() {
  static const std::vector<LogcatFacts> table = {
    {"logcat/cordovaapp_threadtime_crlf_crashbuffer.txt", 194, 1, 36, {36}, {{2156, 36}}, {{"threadtime", 1}}, 0, {}, {}, {}, {{"main", 1}, {"system", 1}, {"crash", 1}}},
    {"logcat/cpdgym_flutter_run_verbose_prefixed_brief.txt", 12805, 1, 49, {49}, {{5046, 49}}, {{"brief", 1}}, 0, {}, {}, {}, {}},
    {"logcat/esteem306_logcatapp_long_like_excerpt.txt", 32, 5, 28, {7, 14, 4, 2, 1}, {{10387, 28}}, {{"long-like", 5}}, 0, {}, {}, {}, {}},
    {"logcat/falldetection_studio_process_started.log", 589, 1, 39, {39}, {{25680, 39}}, {{"studio-new", 1}}, 0, {}, {}, {}, {{"crash", 1}, {"system", 1}, {"main", 1}}},
    {"logcat/flutter11533_run_brief_excerpt.txt", 8, 1, 169, {169}, {{2414, 169}}, {{"brief", 1}}, 0, {}, {}, {}, {}},
    {"logcat/fortochca_device_threadtime_full.txt", 14324, 1, 821, {821}, {{18008, 821}}, {{"threadtime", 1}}, 0, {}, {}, {}, {{"system", 1}, {"crash", 1}, {"main", 1}}},
    {"logcat/hmt1_studio3x_pidtid_pkg_format.txt", 7191, 1, 151, {151}, {{1868, 151}}, {{"studio-3x", 1}}, 0, {}, {}, {}, {}},
    {"logcat/hotrebooter_android10_samsung_studio.txt", 63, 2, 350, {306, 44}, {{10754, 350}}, {{"studio-new", 2}}, 0, {}, {}, {}, {}},
    {"logcat/hotrebooter_android13_samsung_studio.txt", 104, 1, 56, {56}, {{3211, 56}}, {{"studio-new", 1}}, 2, {1242LL, 1068LL}, {{"OpenGLRenderer", 2}}, {{"1", 1}, {"0", 1}}, {}},
    {"logcat/leindroid_testapp_emulator_android6_threadtime.txt", 187, 2, 357, {31, 326}, {{1338, 31}, {2177, 326}}, {{"threadtime", 2}}, 0, {}, {}, {}, {}},
    {"logcat/loghub_Android_2k.log", 2000, 0, 0, {}, {}, {}, 0, {}, {}, {}, {}},
    {"logcat/microg_kernel_system_crash_main_trap.txt", 29935, 0, 0, {}, {}, {}, 0, {}, {}, {}, {{"kernel", 1}, {"system", 1}, {"crash", 1}, {"main", 1}}},
    {"logcat/mythtv193_eclipse_time_colon_excerpt.txt", 1, 1, 613, {613}, {{10853, 613}}, {{"time", 1}}, 0, {}, {}, {}, {}},
    {"logcat/ohmybread_studio_logcat.txt", 282, 1, 85, {85}, {{2155, 85}}, {{"studio-new", 1}}, 0, {}, {}, {}, {{"main", 1}, {"system", 1}}},
    {"logcat/redux_android_sample_ci_emulator_threadtime.log", 1387, 23, 1102, {82, 33, 44, 31, 44, 188, 38, 63, 39, 39, 41, 33, 45, 50, 44, 33, 30, 31, 41, 30, 34, 39, 50}, {{1239, 367}, {1725, 420}, {2231, 315}}, {{"threadtime", 23}}, 0, {}, {}, {}, {{"main", 1}, {"system", 1}}},
    {"logcat/sandeshvahak_androidstudio_logcat.md", 511, 5, 252, {33, 83, 58, 44, 34}, {{21017, 252}}, {{"studio-new", 5}}, 6, {1292LL, 1539LL, 880LL, 1108LL, 802LL, 739LL}, {{"HWUI", 6}}, {{"1", 1}, {"0", 5}}, {{"crash", 1}, {"system", 1}, {"main", 1}}},
    {"logcat/sandeshvahak_device_utf16le_threadtime.txt", 13980, 4, 185, {43, 80, 32, 30}, {{17699, 185}}, {{"threadtime", 4}}, 2, {1275LL, 1459LL}, {{"HWUI", 2}}, {{"1", 1}, {"0", 1}}, {{"main", 1}, {"system", 1}}},
    {"logcat/tablefixheaders61_old_studio_fe55_excerpt.txt", 5, 5, 212, {47, 41, 39, 42, 43}, {{857, 212}}, {{"studio-3x", 5}}, 0, {}, {}, {}, {}},
    {"logcat/tauri_android16_emulator_threadtime.txt", 103, 2, 113, {60, 53}, {{17042, 113}}, {{"threadtime", 2}}, 2, {1597LL, 1068LL}, {{"HWUI", 2}}, {{"1", 1}, {"0", 1}}, {{"main", 1}}},
    {"logcat/trainingapp_flutter_run_brief_utf16le.txt", 40, 3, 357, {180, 40, 137}, {{12787, 357}}, {{"brief", 3}}, 0, {}, {}, {}, {}},
    {"logcat/yuvaupdate_oplus_time_format.txt", 1501, 1, 47, {47}, {{12224, 47}}, {{"time", 1}}, 1, {896LL}, {{"HWUI", 1}}, {{"1", 1}}, {{"main", 1}, {"system", 1}}},
    {"davey/cloudgallery_studio_hwui_davey.md", 2129, 23, 1407, {31, 75, 137, 36, 32, 83, 87, 32, 31, 34, 81, 102, 37, 30, 77, 30, 68, 65, 32, 82, 105, 45, 75}, {{28642, 279}, {28644, 265}, {28645, 524}, {30864, 339}}, {{"studio-new", 23}}, 39, {1216LL, 1375LL, 2265LL, 2625LL, 1436LL, 1369LL, 1487LL, 1502LL, 1569LL, 837LL, 874LL, 948LL, 835LL, 963LL, 1306LL, 1481LL, 1762LL, 2018LL, 1190LL, 888LL, 915LL, 826LL, 1240LL, 1503LL, 846LL, 1173LL, 1252LL, 850LL, 1078LL, 1206LL, 774LL, 1307LL, 1491LL, 1743LL, 2072LL, 1218LL, 893LL, 1283LL, 1353LL}, {{"HWUI", 39}}, {{"1", 4}, {"0", 35}}, {{"crash", 1}, {"system", 1}, {"main", 1}}},
    {"davey/fwfh57_brief_oldest_input_event_excerpt.txt", 2, 0, 0, {}, {}, {}, 2, {2218LL, 2223LL}, {{"OpenGLRenderer", 2}}, {{"0", 2}}, {}},
    {"davey/mnemosyne245_studio_120hz_excerpt.txt", 3, 0, 0, {}, {}, {}, 1, {9223329580940LL}, {{"OpenGLRenderer", 1}}, {{"1", 1}}, {}},
    {"davey/revanced634_opengl_threadtime_excerpt.txt", 5, 0, 0, {}, {}, {}, 1, {76513LL}, {{"OpenGLRenderer", 1}}, {{"1", 1}}, {}},
    {"davey/reveny117_los19.1_android12_threadtime_excerpt.txt", 1, 0, 0, {}, {}, {}, 1, {9223360591227LL}, {{"OpenGLRenderer", 1}}, {{"0", 1}}, {}},
    {"davey/tauri_android15_emulator_threadtime.txt", 140, 0, 0, {}, {}, {}, 1, {746LL}, {{"HWUI", 1}}, {{"0", 1}}, {{"main", 1}}},
  };
  return table;
}

std::string corpus_format_name(parsers::LogLayout layout) {
  switch (layout) {
    case parsers::LogLayout::studio: return "studio-new";
    case parsers::LogLayout::studio_legacy: return "studio-3x";
    case parsers::LogLayout::logcatapp: return "long-like";
    default: return std::string(test::layout_name(layout));
  }
}

struct Recorder : parsers::LogcatSink {
  std::vector<std::uint32_t> n_values;
  std::map<std::int32_t, std::uint64_t> frames_by_pid;
  std::map<std::string, int> formats;
  std::vector<std::int64_t> davey_ms;
  std::map<std::string, int> davey_tags;
  std::map<std::string, int> davey_flags;

  void on_skipped_frames(const parsers::LogLine& line, std::uint32_t frames) override {
    n_values.push_back(frames);
    frames_by_pid[line.pid] += frames;
    ++formats[corpus_format_name(line.layout)];
  }
  void on_davey(const parsers::LogLine& line, const parsers::DaveyFrame& davey) override {
    davey_ms.push_back(davey.duration_ms);
    ++davey_tags[std::string(line.tag)];
    ++davey_flags[std::to_string(davey.flags)];
  }
  void on_process_event(const parsers::LogLine&, const parsers::ProcessEvent&) override {}
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double family_total(const std::vector<prometheus::MetricFamily>& families, const std::string& name) {
  double total = 0;
  for (const auto& f : families) {
    if (f.name != name) continue;
    for (const auto& m : f.metric) total += m.counter.value;
  }
  return total;
}

}  // namespace

TEST_CASE("corpus logcat and Davey captures yield the SOURCES.md facts", "[corpus][logcat]") {
  const fs::path corpus = JANK_CORPUS_DIR;
  if (!fs::exists(corpus / "SOURCES.md")) {
    WARN("corpus not found at " << corpus << ": skipped");
    return;
  }
  for (const auto& f : facts()) {
    SECTION(f.file) {
      const std::string bytes = read_file(corpus / f.file);
      REQUIRE_FALSE(bytes.empty());

      // Record level: every skip with its pid and layout, every Davey.
      Recorder rec;
      parsers::LogcatStreamOptions options;
      options.parse.default_year = 2024;
      parsers::LogcatStream stream(rec, options);
      // Odd chunk sizes: results must not depend on where reads split lines.
      for (std::size_t at = 0; at < bytes.size(); at += 4093) stream.feed(std::string_view(bytes).substr(at, 4093));
      stream.finish();

      CHECK(rec.n_values == f.n_values);
      CHECK(rec.n_values.size() == f.skip_lines);
      CHECK(rec.frames_by_pid == f.frames_by_pid);
      CHECK(rec.formats == f.formats);
      CHECK(rec.davey_ms == f.davey_ms);
      CHECK(rec.davey_ms.size() == f.davey_lines);
      CHECK(rec.davey_tags == f.davey_tags);
      CHECK(rec.davey_flags == f.davey_flags);

      const auto& c = stream.counts();
      CHECK(c.received == f.lines);
      CHECK(c.received == c.parsed + c.unmatched + c.discarded_total());

      // Separators, counted on unprefixed lines as SOURCES.md does.
      std::map<std::string, int> separators;
      parsers::LineSplitter splitter(1 << 20);
      auto count_separator = [&](std::string_view line, bool) {
        if (auto buffer = parsers::buffer_separator(line)) ++separators[std::string(*buffer)];
      };
      splitter.feed(parsers::decode_to_utf8(bytes), count_separator);
      splitter.finish(count_separator);
      CHECK(separators == f.separators);

      // Exposition level: the same totals come out of the metric model.
      metrics::Store store;
      auto& device = store.device("corpus");
      metrics::DeviceLogcatRecorder recorder(store, device);
      parsers::LogcatStream replay(recorder, options);
      replay.feed(bytes);
      replay.finish();
      exporters::StoreCollector collector(store, exporters::input_time_now());
      const auto families = collector.Collect();
      std::uint64_t sum = 0;
      for (auto n : f.n_values) sum += n;
      CHECK(sum == f.skip_sum);
      CHECK(family_total(families, "android_choreographer_skipped_frames_total") == static_cast<double>(f.skip_sum));
      CHECK(family_total(families, "android_choreographer_skip_events_total") == static_cast<double>(f.skip_lines));
      CHECK(family_total(families, "android_hwui_davey_frames_total") == static_cast<double>(f.davey_lines));
    }
  }
}

// Real device captures from ../shared/corpus against the facts listed in its
// SOURCES.md (gfxinfo/, framestats/ and surfaceflinger/ sections). Expected
// values are transcribed from SOURCES.md, never derived from the parser.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/framestats.h"
#include "parsers/gfxinfo.h"
#include "parsers/sf_latency.h"
#include "parsers/text_input.h"

namespace fs = std::filesystem;
using namespace jank::parsers;

namespace {

constexpr std::int64_t kAbsent = -1;  // the fact is not printed in that dump

// One "stats block N" line of SOURCES.md, in its order of fields.
struct StatsFacts {
  std::int64_t total, janky, janky_legacy, p50, p90, p95, p99, missed_vsync, high_input_latency,
      slow_ui, slow_bitmap, slow_issue_draw, deadline_missed, deadline_missed_legacy, gpu_p50,
      gpu_p90, gpu_p95, gpu_p99, stats_since, hist_sum, hist_buckets, gpu_hist_sum,
      gpu_hist_buckets;
};

// One PROFILEDATA block. slow = Flags=0 rows with 16.67 ms < duration < 10 s,
// garbage = Flags=0 rows with a negative or >= 10 s duration, max_ms over the
// other Flags=0 rows (duration = FrameCompleted - IntendedVsync).
struct BlockFacts {
  std::string_view window;
  std::int64_t rows, flags0, slow, garbage;
  double max_ms;            // < 0: not stated
  std::int64_t int64_max;   // INT64_MAX cells, kAbsent: not stated
  bool closed;
};

struct GfxFileFacts {
  std::string_view path;
  std::int64_t sections;          // "** Graphics info" sections (all of one pid here)
  std::int32_t pid;
  std::string_view package;
  std::vector<std::string_view> windows;  // every window, in file order
  std::vector<StatsFacts> stats;          // process-level, then window-level, in file order
  std::vector<BlockFacts> blocks;         // PROFILEDATA blocks in file order
};

const std::vector<GfxFileFacts>& gfx_files() {
  static const std::vector<GfxFileFacts> files = {
      {"gfxinfo/droidmonitor_api18ish_chrome_kk.txt", 1, 29541, "com.android.chrome", {}, {}, {}},
      {"gfxinfo/droidmonitor_api21_chrome.txt", 1, 26834, "com.android.chrome", {}, {}, {}},
      {"gfxinfo/droidmonitor_api23_chrome.txt", 1, 9702, "com.android.chrome",
       // Android 6 repeats the block under the view root; we name it after that line.
       {"com.android.chrome/org.chromium.chrome.browser.firstrun.FirstRunActivityStaging/"
        "android.view.ViewRootImpl@6b40547"},
       {{3, 2, -1, -1, 101, 101, 101, 2, 0, 2, 0, 1, -1, -1, -1, -1, -1, -1, 9656484850794, -1, -1, -1, -1},
        {3, 2, -1, -1, 101, 101, 101, 2, 0, 2, 0, 1, -1, -1, -1, -1, -1, -1, 9656484850794, -1, -1, -1, -1}},
       {}},
      {"gfxinfo/droidmonitor_api24_settings.txt", 1, 3015, "com.android.settings", {},
       {{24, 14, -1, 19, 65, 150, 300, 3, 0, 5, 1, 12, -1, -1, -1, -1, -1, -1, 6839009800620, 24, 154, -1, -1}},
       {}},
      {"gfxinfo/droidmonitor_api28_chrome.txt", 1, 2720, "com.android.chrome", {},
       {{43, 7, -1, 5, 69, 150, 200, 5, 14, 5, 0, 1, 5, -1, -1, -1, -1, -1, 101382312046230, 43, 154, -1, -1}},
       {}},
      {"gfxinfo/flashlight_GfxInfoSample_processconfig.txt", 1, 2599, "com.example", {},
       {{21, 4, 16, 19, 57, 57, 200, 1, 35, 4, 1, 1, 4, 3, 4, 5, 9, 9, 558712350232182, 21, 154, 21, 26}},
       {}},
      // A view root with a profile table is a window named after its line.
      {"gfxinfo/flashlight_reactnativefeed_android9.txt", 1, 14824, "com.reactnativefeed",
       {"com.reactnativefeed/com.reactnativefeed.MainActivity/android.view.ViewRootImpl@654e274"},
       {{35360, 23595, -1, 28, 48, 53, 57, 4838, 12547, 5842, 3, 11523, 12149, -1, -1, -1, -1, -1, 27089945586046, 35360, 154, -1, -1}},
       {}},
      {"gfxinfo/frontendnative_android14plus_gralloc.txt", 1, 7871, "com.tungdzai123.Frontend", {},
       {{139, 9, 91, 25, 34, 34, 65, 0, 256, 5, 0, 5, 9, 9, 16, 20, 22, 4950, 714728958534, 139, 154, 139, 26}},
       {}},
      {"gfxinfo/nuviotv_com.nuvio.tv_profiledata.txt", 1, 2062, "com.nuvio.tv",
       {"com.nuvio.tv/com.nuvio.tv.MainActivity/android.view.ViewRootImpl@6e5075b"},
       {{2903, 772, -1, 9, 73, 109, 150, 279, 1857, 414, 0, 32, 422, -1, 7, 11, 12, 14, 89732159635559, 2903, 154, 2900, 26}},
       {}},
      {"gfxinfo/solox249_empty_window_zero_frames_excerpt.txt", 0, 0, "", {""},
       {{0, 0, 0, 4950, 4950, 4950, 4950, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, 17271434783, -1, -1, -1, -1}},
       {}},
      {"gfxinfo/solox_doc_rrmj_partial_android7or8.txt", 1, 13422, "com.zhongduomei.rrmj.society", {},
       {{110, 7, -1, 9, 13, 18, 36, 2, 0, 6, 3, 0, -1, -1, -1, -1, -1, -1, 152741070392878, -1, -1, -1, -1}},
       {}},
      {"gfxinfo/toster_instagram_skia.txt", 1, 31185, "com.instagram.android", {},
       {{51, 9, 13, 7, 48, 109, 300, 7, 83, 9, 0, 2, 9, 9, 5, 7, 8, 8, 314435469478872, 51, 154, 51, 26}},
       {}},
      // The first two dumps (no framestats) have a profile table under the
      // view root only; in the third the table joins the Window: block.
      {"framestats/anavmode_android14_report_excerpt.txt", 3, 31520, "de.codevoid.aNavMode",
       {"de.codevoid.aNavMode/de.codevoid.aNavMode.MainActivity/android.view.ViewRootImpl@11a8704",
        "de.codevoid.aNavMode/de.codevoid.aNavMode.MainActivity/android.view.ViewRootImpl@11a8704",
        "de.codevoid.aNavMode/de.codevoid.aNavMode.MainActivity"},
       {{375, 60, 162, 18, 150, 150, 200, 47, 595, 58, 2, 1, 60, 68, 5, 6, 6, 8, 27289200609394, 375, 154, 375, 26},
        {377, 62, 164, 18, 150, 150, 200, 49, 595, 60, 2, 1, 62, 70, 5, 6, 6, 8, 27289200609394, 377, 154, 377, 26},
        {2, 2, 2, 150, 150, 150, 150, 2, 0, 2, 0, 0, 2, 2, 5, 5, 5, 5, 27302369582703, 2, 154, 2, 26},
        {2, 2, 2, 150, 150, 150, 150, 2, 0, 2, 0, 0, 2, 2, 5, 5, 5, 5, 27302369580857, 2, 154, 2, 26}},
       // "one Flags=0 row has FrameCompleted < IntendedVsync"
       {{"de.codevoid.aNavMode/de.codevoid.aNavMode.MainActivity", 2, 2, 1, 1, 177.035, 0, true}}},
      {"framestats/solox249_android12plus_profiledata_excerpt.txt", 0, 0, "", {}, {},
       {{"", 3, 2, 0, kAbsent, 2.993, 1, false}}},
      {"framestats/soundvis_120hz_framestats.txt", 1, 31667, "com.soundvisualization.accessibility",
       {"com.soundvisualization.accessibility/com.soundvisualization.accessibility.MainActivity"},
       {{516, 113, 356, 11, 31, 65, 101, 42, 876, 110, 0, 30, 113, 43, 3, 3, 4, 8, 314846275543381, 516, 154, 516, 26},
        {516, 113, 356, 11, 31, 65, 101, 42, 876, 110, 0, 30, 113, 43, 3, 3, 4, 8, 314846275541194, 516, 154, 516, 26}},
       {{"com.soundvisualization.accessibility/com.soundvisualization.accessibility.MainActivity",
         120, 120, 10, kAbsent, 77.22, 0, true}}},
      {"framestats/soundvis_120hz_framestats_stay.txt", 1, 16473, "com.soundvisualization.accessibility",
       {"com.soundvisualization.accessibility/com.soundvisualization.accessibility.MainActivity"},
       {{134, 20, 40, 9, 38, 109, 129, 8, 237, 20, 0, 13, 20, 11, 3, 4, 8, 9, 306923870933174, 134, 154, 134, 26},
        {134, 20, 40, 9, 38, 109, 129, 8, 237, 20, 0, 13, 20, 11, 3, 4, 8, 9, 306923870932445, 134, 154, 134, 26}},
       {{"com.soundvisualization.accessibility/com.soundvisualization.accessibility.MainActivity",
         120, 120, 15, kAbsent, 130.289, 0, true}}},
      {"framestats/yuvaupdate_utf16le_bom_framestats.txt", 1, 6972, "com.nareshkumarbalamurugan.YuvaUpdate",
       {"com.nareshkumarbalamurugan.YuvaUpdate/com.nareshkumarbalamurugan.YuvaUpdate.MainActivity"},
       {{3, 2, 2, 125, 550, 550, 550, 1, 0, 2, 0, 2, 2, 2, 3, 5, 5, 5, 116541334337022, 3, 154, 3, 26},
        {3, 2, 2, 125, 550, 550, 550, 1, 0, 2, 0, 2, 2, 2, 3, 5, 5, 5, 116541534239407, 3, 154, 3, 26}},
       {{"com.nareshkumarbalamurugan.YuvaUpdate/com.nareshkumarbalamurugan.YuvaUpdate.MainActivity",
         3, 2, 1, kAbsent, 124.705, 0, true}}},
  };
  return files;
}

// framestats/anavmode_allprocs_framestats.txt, process-level values:
// pid package: total / janky / janky(legacy) / p50 / p90 / p95 / p99.
struct ProcFacts {
  std::int32_t pid;
  std::string_view package;
  std::int64_t total, janky, janky_legacy, p50, p90, p95, p99;
};
const std::vector<ProcFacts> kAllProcsWithStats = {
    {17477, "de.codevoid.andronavibar", 3370, 363, 1614, 18, 32, 46, 150},
    {1955, "com.android.settings", 3463, 173, 389, 12, 20, 31, 150},
    {2018, "com.android.launcher3", 3968, 270, 496, 8, 20, 27, 53},
    {2345, "com.google.android.inputmethod.latin", 86, 9, 14, 10, 21, 36, 800},
    {26131, "com.google.android.apps.docs", 557, 82, 125, 10, 77, 150, 650},
    {26843, "com.android.settings.intelligence", 459, 11, 18, 9, 12, 15, 40},
    {2780, "com.thorkracing.dmd2launcher", 17143, 1389, 3616, 14, 38, 53, 85},
    {7208, "de.codevoid.androsnd", 470, 106, 141, 12, 121, 150, 400},
    {1652, "com.android.systemui", 7309, 3344, 4094, 21, 53, 57, 113},
    {1415, "system", 0, 0, 0, 4950, 4950, 4950, 4950},
};
const std::vector<BlockFacts> kAllProcsBlocks = {
    {"de.codevoid.andronavibar/de.codevoid.andronavibar.MainActivity", 120, 116, 78, 0, 420.002, kAbsent, true},
    {"com.android.settings/com.android.settings.homepage.SettingsHomepageActivity", 67, 34, 13, 2, 490.182, kAbsent, true},
    {"com.android.settings/com.android.settings.SubSettings", 80, 19, 9, 0, 162.806, kAbsent, true},
    {"com.android.settings/com.android.settings.spa.SpaActivity", 120, 39, 33, 1, 141.803, kAbsent, true},
    {"Taskbar", 120, 34, 0, 0, 10.553, kAbsent, true},
    {"com.android.launcher3/com.android.quickstep.RecentsActivity", 120, 119, 2, 4, 33.710, kAbsent, true},
    {"InputMethod", 86, 83, 13, 0, 144.536, kAbsent, true},
    {"com.google.android.apps.docs/com.google.android.apps.docs.drive.app.navigation.NavigationActivity", 117, 81, 56, 0, 683.040, kAbsent, true},
    {"ShellDropTarget", 0, 0, 0, 0, -1, kAbsent, true},
    {"ScreenDecorOverlay", 21, 19, 3, 2, 35.322, kAbsent, true},
    {"ScreenDecorOverlayBottom", 0, 0, 0, 0, -1, kAbsent, true},
    {"NotificationShade", 120, 105, 58, 2, 186.942, kAbsent, true},
    {"StatusBar", 120, 119, 72, 0, 118.351, kAbsent, true},
};

// "Profile data: N `Draw\tPrepare\tProcess\tExecute` header(s), M tab-separated
// 4-column rows" of SOURCES.md; a capture whose entry lists no such line has
// no table.
struct ProfileFacts {
  std::string_view path;
  std::int64_t tables, rows;
};
const std::vector<ProfileFacts> kProfileFiles = {
    {"gfxinfo/droidmonitor_api18ish_chrome_kk.txt", 0, 0},
    {"gfxinfo/droidmonitor_api21_chrome.txt", 0, 0},
    {"gfxinfo/droidmonitor_api23_chrome.txt", 0, 0},
    {"gfxinfo/droidmonitor_api24_settings.txt", 0, 0},
    {"gfxinfo/droidmonitor_api28_chrome.txt", 0, 0},
    {"gfxinfo/flashlight_GfxInfoSample_processconfig.txt", 0, 0},
    {"gfxinfo/flashlight_reactnativefeed_android9.txt", 1, 120},
    {"gfxinfo/frontendnative_android14plus_gralloc.txt", 0, 0},
    {"gfxinfo/nuviotv_com.nuvio.tv_profiledata.txt", 1, 120},
    {"gfxinfo/solox249_empty_window_zero_frames_excerpt.txt", 0, 0},
    {"gfxinfo/solox_doc_rrmj_partial_android7or8.txt", 0, 0},
    {"gfxinfo/toster_instagram_skia.txt", 0, 0},
    {"framestats/anavmode_allprocs_framestats.txt", 13, 3},
    {"framestats/anavmode_android14_report_excerpt.txt", 3, 124},
    {"framestats/solox249_android12plus_profiledata_excerpt.txt", 0, 0},
    {"framestats/soundvis_120hz_framestats.txt", 0, 0},
    {"framestats/soundvis_120hz_framestats_stay.txt", 0, 0},
    {"framestats/yuvaupdate_utf16le_bom_framestats.txt", 0, 0},
};

struct SfFacts {
  std::string_view path;
  std::int64_t period, rows, zero_rows, pending_rows, malformed_lines;
  std::int64_t col2_span;  // last − first actualPresent, kAbsent: not stated
};
const std::vector<SfFacts> kSfFiles = {
    // The first line is a Windows prompt with the adb command.
    {"surfaceflinger/solox249_blast_surfaceview_latency_excerpt.txt", 16666667, 25, 0, 0, 1, 993472000},
    {"surfaceflinger/solox249_nonblast_zero_rows_latency_excerpt.txt", 16666667, 12, 12, 0, 1, kAbsent},
    {"surfaceflinger/ztt_latency_period_only_utf16le.txt", 16666667, 0, 0, 0, 0, kAbsent},
};

bool corpus_missing() {
  if (fs::is_directory(JANK_CORPUS_DIR)) return false;
  WARN("corpus directory " << JANK_CORPUS_DIR << " not found: skipped");
  SUCCEED();
  return true;
}

std::string read_decoded(std::string_view rel) {
  fs::path p = fs::path(JANK_CORPUS_DIR) / rel;
  std::ifstream in(p, std::ios::binary);
  INFO("reading " << p.string());
  REQUIRE(in.good());
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return decode_to_utf8(bytes);
}

void check_opt(const char* what, const auto& actual, std::int64_t expected) {
  INFO(what);
  if (expected == kAbsent) {
    CHECK_FALSE(actual.has_value());
  } else {
    REQUIRE(actual.has_value());
    CHECK(static_cast<std::int64_t>(*actual) == expected);
  }
}

std::int64_t bin_sum(const std::vector<HistogramBin>& bins) {
  std::int64_t s = 0;
  for (const auto& b : bins) s += static_cast<std::int64_t>(b.count);
  return s;
}

void check_histogram(const char* what, const std::vector<HistogramBin>& bins, std::int64_t sum,
                     std::int64_t buckets) {
  INFO(what);
  if (buckets == kAbsent) {
    CHECK(bins.empty());
    return;
  }
  CHECK(static_cast<std::int64_t>(bins.size()) == buckets);
  CHECK(bin_sum(bins) == sum);
}

void check_stats(const GfxStats& s, const StatsFacts& f) {
  check_opt("total", s.total_frames, f.total);
  check_opt("janky", s.janky_frames, f.janky);
  check_opt("janky_legacy", s.janky_frames_legacy, f.janky_legacy);
  check_opt("p50", s.p50_ms, f.p50);
  check_opt("p90", s.p90_ms, f.p90);
  check_opt("p95", s.p95_ms, f.p95);
  check_opt("p99", s.p99_ms, f.p99);
  check_opt("missed_vsync", s.missed_vsync, f.missed_vsync);
  check_opt("high_input_latency", s.high_input_latency, f.high_input_latency);
  check_opt("slow_ui", s.slow_ui_thread, f.slow_ui);
  check_opt("slow_bitmap", s.slow_bitmap_uploads, f.slow_bitmap);
  check_opt("slow_issue_draw", s.slow_issue_draw_commands, f.slow_issue_draw);
  check_opt("deadline_missed", s.frame_deadline_missed, f.deadline_missed);
  check_opt("deadline_missed_legacy", s.frame_deadline_missed_legacy, f.deadline_missed_legacy);
  check_opt("gpu_p50", s.gpu_p50_ms, f.gpu_p50);
  check_opt("gpu_p90", s.gpu_p90_ms, f.gpu_p90);
  check_opt("gpu_p95", s.gpu_p95_ms, f.gpu_p95);
  check_opt("gpu_p99", s.gpu_p99_ms, f.gpu_p99);
  check_opt("stats_since", s.stats_since_ns, f.stats_since);
  check_histogram("HISTOGRAM", s.histogram, f.hist_sum, f.hist_buckets);
  check_histogram("GPU HISTOGRAM", s.gpu_histogram, f.gpu_hist_sum, f.gpu_hist_buckets);
}

// Windows, stats blocks and PROFILEDATA tables in file order: orphans first
// (they precede any header), then each process, its own block before its windows'.
struct Flat {
  std::vector<const GfxWindow*> windows;
  std::vector<const GfxStats*> stats;
  std::vector<std::pair<std::string_view, const FramestatsTable*>> tables;
};
Flat flatten(const GfxinfoDump& d) {
  Flat f;
  if (d.orphan_stats) f.stats.push_back(&*d.orphan_stats);
  for (const auto& t : d.orphan_framestats) f.tables.emplace_back("", &t);
  auto add_windows = [&](const std::vector<GfxWindow>& ws) {
    for (const auto& w : ws) {
      f.windows.push_back(&w);
      if (w.stats) f.stats.push_back(&*w.stats);
      if (w.framestats) f.tables.emplace_back(w.name, &*w.framestats);
    }
  };
  add_windows(d.orphan_windows);
  for (const auto& p : d.processes) {
    if (p.stats) f.stats.push_back(&*p.stats);
    if (p.framestats) f.tables.emplace_back("", &*p.framestats);
    add_windows(p.windows);
  }
  return f;
}

void check_block(const FramestatsTable& t, const BlockFacts& f) {
  INFO("PROFILEDATA block of window '" << f.window << "'");
  CHECK(t.closed == f.closed);
  CHECK(t.columns.size() == 23);  // "columns per header: [23]" (trailing comma dropped)
  CHECK(t.malformed_rows == 0);
  CHECK(static_cast<std::int64_t>(t.rows.size()) == f.rows);
  auto flags = t.column("Flags");
  auto intended = t.column("IntendedVsync");
  auto completed = t.column("FrameCompleted");
  REQUIRE(flags);
  REQUIRE(intended);
  REQUIRE(completed);
  std::int64_t flags0 = 0, slow = 0, garbage = 0, int64_max = 0;
  double max_ms = -1;
  for (const auto& r : t.rows) {
    for (auto v : r) int64_max += v == std::numeric_limits<std::int64_t>::max();
    if (r[*flags] != 0) continue;
    ++flags0;
    double ms = (static_cast<double>(r[*completed]) - static_cast<double>(r[*intended])) / 1e6;
    if (ms < 0 || ms >= 10000) {
      ++garbage;
      continue;
    }
    if (ms > 16.67) ++slow;
    if (ms > max_ms) max_ms = ms;
  }
  CHECK(flags0 == f.flags0);
  CHECK(slow == f.slow);
  if (f.garbage != kAbsent) CHECK(garbage == f.garbage);
  if (f.int64_max != kAbsent) CHECK(int64_max == f.int64_max);
  if (f.max_ms >= 0) CHECK(max_ms == Approx(f.max_ms).margin(0.0005));
}

}  // namespace

TEST_CASE("corpus: gfxinfo and framestats dumps yield the SOURCES.md facts", "[gfxinfo][corpus]") {
  if (corpus_missing()) return;
  for (const auto& file : gfx_files()) {
    SECTION(std::string(file.path)) {
      GfxinfoDump d = parse_gfxinfo(read_decoded(file.path));
      CHECK(d.malformed_lines == 0);
      REQUIRE(static_cast<std::int64_t>(d.processes.size()) == file.sections);
      for (const auto& p : d.processes) {
        CHECK(p.pid == file.pid);
        CHECK(p.package == file.package);
      }
      Flat flat = flatten(d);
      REQUIRE(flat.windows.size() == file.windows.size());
      for (std::size_t i = 0; i < file.windows.size(); ++i) CHECK(flat.windows[i]->name == file.windows[i]);
      REQUIRE(flat.stats.size() == file.stats.size());
      for (std::size_t i = 0; i < file.stats.size(); ++i) {
        INFO("stats block " << i + 1);
        check_stats(*flat.stats[i], file.stats[i]);
      }
      REQUIRE(flat.tables.size() == file.blocks.size());
      for (std::size_t i = 0; i < file.blocks.size(); ++i) {
        CHECK(flat.tables[i].first == file.blocks[i].window);
        check_block(*flat.tables[i].second, file.blocks[i]);
      }
    }
  }
}

TEST_CASE("corpus: all-process framestats dump (47 sections)", "[framestats][corpus]") {
  if (corpus_missing()) return;
  GfxinfoDump d = parse_gfxinfo(read_decoded("framestats/anavmode_allprocs_framestats.txt"));
  CHECK(d.malformed_lines == 0);
  REQUIRE(d.processes.size() == 47);
  CHECK(d.processes[0].pid == 28907);
  CHECK(d.processes[0].package == "de.codevoid.aNavMode");

  std::size_t with_stats = 0;
  for (const auto& p : d.processes) {
    if (!p.stats) continue;
    REQUIRE(with_stats < kAllProcsWithStats.size());
    const ProcFacts& f = kAllProcsWithStats[with_stats++];
    INFO("pid " << f.pid);
    CHECK(p.pid == f.pid);
    CHECK(p.package == f.package);
    check_opt("total", p.stats->total_frames, f.total);
    check_opt("janky", p.stats->janky_frames, f.janky);
    check_opt("janky_legacy", p.stats->janky_frames_legacy, f.janky_legacy);
    check_opt("p50", p.stats->p50_ms, f.p50);
    check_opt("p90", p.stats->p90_ms, f.p90);
    check_opt("p95", p.stats->p95_ms, f.p95);
    check_opt("p99", p.stats->p99_ms, f.p99);
  }
  CHECK(with_stats == kAllProcsWithStats.size());

  Flat flat = flatten(d);
  CHECK(flat.windows.size() == 13);
  CHECK(flat.stats.size() == 23);
  REQUIRE(flat.tables.size() == kAllProcsBlocks.size());
  std::size_t rows = 0, flags0 = 0;
  for (std::size_t i = 0; i < kAllProcsBlocks.size(); ++i) {
    CHECK(flat.tables[i].first == kAllProcsBlocks[i].window);
    check_block(*flat.tables[i].second, kAllProcsBlocks[i]);
    rows += flat.tables[i].second->rows.size();
    for (const auto& r : flat.tables[i].second->rows) flags0 += r[0] == 0;
  }
  CHECK(rows == 1091);
  CHECK(flags0 == 768);
}

TEST_CASE("corpus: profile data tables yield the SOURCES.md row counts", "[gfxinfo][profile][corpus]") {
  if (corpus_missing()) return;
  for (const auto& file : kProfileFiles) {
    SECTION(std::string(file.path)) {
      GfxinfoDump d = parse_gfxinfo(read_decoded(file.path));
      CHECK(d.profile_rows_malformed == 0);
      CHECK(d.profile_rows_discarded == 0);
      Flat flat = flatten(d);
      std::int64_t tables = 0, rows = 0;
      for (const GfxWindow* w : flat.windows) {
        if (!w->has_profile_table) {
          CHECK(w->profile_rows.empty());
          continue;
        }
        ++tables;
        rows += static_cast<std::int64_t>(w->profile_rows.size());
        for (const auto& r : w->profile_rows) {
          CHECK(r.prepare_ms.has_value());  // 4-column tables only
          // Android 6+ clamps each cell to [0, 50] ms (FrameInfoVisualizer).
          for (double v : {r.draw_ms, r.prepare_ms.value_or(0), r.process_ms, r.execute_ms}) {
            CHECK(v >= 0);
            CHECK(v <= 50);
          }
        }
      }
      CHECK(tables == file.tables);
      CHECK(rows == file.rows);
    }
  }
}

TEST_CASE("corpus: SurfaceFlinger --latency captures", "[sf_latency][corpus]") {
  if (corpus_missing()) return;
  for (const auto& file : kSfFiles) {
    SECTION(std::string(file.path)) {
      SfLatency s = parse_sf_latency(read_decoded(file.path));
      REQUIRE(s.refresh_period_ns.has_value());
      CHECK(*s.refresh_period_ns == file.period);
      CHECK(static_cast<std::int64_t>(s.rows.size()) == file.rows);
      CHECK(static_cast<std::int64_t>(s.zero_rows) == file.zero_rows);
      CHECK(static_cast<std::int64_t>(s.pending_rows) == file.pending_rows);
      CHECK(static_cast<std::int64_t>(s.malformed_lines) == file.malformed_lines);
      if (file.col2_span != kAbsent) {
        REQUIRE(!s.rows.empty());
        CHECK(s.rows.back()[1] - s.rows.front()[1] == file.col2_span);
      }
    }
  }
}

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "parsers/gfxinfo.h"

using jank::parsers::GfxinfoDump;
using jank::parsers::GfxStats;
using jank::parsers::HistogramBin;
using jank::parsers::parse_gfxinfo;

namespace {

// Project fixtures, written from the dumpsys formats of each Android release
// (values are made up; only the layout matters).

// Android 4.4 / 5: no stats block at all.
constexpr std::string_view kAndroid5 = R"(Applications Graphics Acceleration Info:
Uptime: 1000 Realtime: 1000

** Graphics info for pid 4242 [com.example.old] **

Recent DisplayList operations
  DrawDisplayList
    DrawColor
Caches:
Current memory usage / total memory usage (bytes):
  TextureCache           1000 / 2000
Total memory usage:
  3000 bytes, 2,93 kB

Profile data in ms:

	com.example.old/com.example.old.Main/android.view.ViewRootImpl@1234abcd
View hierarchy:

  com.example.old/com.example.old.Main/android.view.ViewRootImpl@1234abcd
  12 views, 7,50 kB of display lists, 88 frames rendered


Total ViewRootImpl: 1
Total Views:        12
Total DisplayList:  7,50 kB
)";

// Android 6: no 50th percentile, no histogram, "Slow draw" wording, and the
// block repeated under the view root with (here) different numbers.
constexpr std::string_view kAndroid6 = R"(Applications Graphics Acceleration Info:
Uptime: 9000 Realtime: 9000

** Graphics info for pid 9702 [com.example.m] **

Stats since: 1111ns
Total frames rendered: 30
Janky frames: 20 (66.67%)
90th percentile: 101ms
95th percentile: 102ms
99th percentile: 103ms
Number Missed Vsync: 2
Number High input latency: 3
Number Slow UI thread: 4
Number Slow bitmap uploads: 5
Number Slow draw: 6

Caches:
Total memory usage:
    1926852 bytes, 1.84 MB

Profile data in ms:

        com.example.m/com.example.m.Main/android.view.ViewRootImpl@6b40547 (visibility=0)
Stats since: 2222ns
Total frames rendered: 7
Janky frames: 1 (14.29%)
90th percentile: 11ms
95th percentile: 12ms
99th percentile: 13ms
Number Missed Vsync: 0
Number High input latency: 0
Number Slow UI thread: 1
Number Slow bitmap uploads: 0
Number Slow draw: 1

View hierarchy:

  com.example.m/com.example.m.Main/android.view.ViewRootImpl@6b40547
  21 views, 31.36 kB of display lists

Total ViewRootImpl: 1
)";

// Android 7: 50th percentile and HISTOGRAM; the view root has no own block.
constexpr std::string_view kAndroid7 = R"(Applications Graphics Acceleration Info:
Uptime: 6897124 Realtime: 6897124

** Graphics info for pid 3015 [com.example.n] **

Stats since: 6839009800620ns
Total frames rendered: 24
Janky frames: 14 (58.33%)
50th percentile: 19ms
90th percentile: 65ms
95th percentile: 150ms
99th percentile: 300ms
Number Missed Vsync: 3
Number High input latency: 0
Number Slow UI thread: 5
Number Slow bitmap uploads: 1
Number Slow issue draw commands: 12
HISTOGRAM: 5ms=1 6ms=0 7ms=1 19ms=3 150ms=10 300ms=9 4950ms=0
Caches:
  TextureCache           158760 / 49766400

  Pipeline=FrameBuilder
  Profile data in ms:

    com.example.n/com.example.n.Main/android.view.ViewRootImpl@859603c (visibility=0)
  View hierarchy:

    com.example.n/com.example.n.Main/android.view.ViewRootImpl@859603c
    66 views, 95.10 kB of display lists

  Total ViewRootImpl: 1
)";

// Android 9 with "Frame deadline missed", every line indented by two spaces
// (as when copied out of a heredoc) and CRLF line endings.
std::string android9_indented_crlf() {
  std::string_view body = R"(Applications Graphics Acceleration Info:
Uptime: 1 Realtime: 1

** Graphics info for pid 2720 [com.example.p] **

Stats since: 101382312046230ns
Total frames rendered: 43
Janky frames: 7 (16.28%)
50th percentile: 5ms
90th percentile: 69ms
95th percentile: 150ms
99th percentile: 200ms
Number Missed Vsync: 5
Number High input latency: 14
Number Slow UI thread: 5
Number Slow bitmap uploads: 0
Number Slow issue draw commands: 1
Number Frame deadline missed: 5
HISTOGRAM: 5ms=20 6ms=3 69ms=13 150ms=5 200ms=2
Pipeline=Skia (OpenGL)
Profile data in ms:

	com.example.p/com.example.p.Main/android.view.ViewRootImpl@1 (visibility=0)
View hierarchy:
Total ViewRootImpl: 1)";
  std::string out;
  std::size_t start = 0;
  while (start <= body.size()) {
    std::size_t nl = body.find('\n', start);
    std::string_view line = body.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    if (!line.empty()) out += "  ";
    out += line;
    if (nl == std::string_view::npos) break;
    out += "\r\n";
    start = nl + 1;
  }
  return out;  // no final newline either
}

// Android 12/13: legacy lines, GPU percentiles and histogram, a vendor line,
// decimal commas in kB values.
constexpr std::string_view kAndroid12 = R"(Applications Graphics Acceleration Info:
Uptime: 558810966 Realtime: 1555308405

** Graphics info for pid 2599 [com.example.s] **

Stats since: 558712350232182ns
Total frames rendered: 21
Janky frames: 4 (19.05%)
Janky frames (legacy): 16 (76.19%)
50th percentile: 19ms
90th percentile: 57ms
95th percentile: 57ms
99th percentile: 200ms
Number Missed Vsync: 1
Number High input latency: 35
Number Slow UI thread: 4
Number Slow bitmap uploads: 1
Number Slow issue draw commands: 1
Number Frame deadline missed: 4
Number Frame deadline missed (legacy): 3
HISTOGRAM: 5ms=0 16ms=2 17ms=3 19ms=10 57ms=5 200ms=1
50th gpu percentile: 4ms
90th gpu percentile: 5ms
95th gpu percentile: 9ms
99th gpu percentile: 9ms
GPU HISTOGRAM: 1ms=0 2ms=3 3ms=7 4ms=8 5ms=1 9ms=2 4950ms=0
Pipeline=Skia (OpenGL)
Total GPU memory usage:
  8049152 bytes, 7,68 MB (0,00 bytes is purgeable)

Profile data in ms:

	com.example.s/com.example.s.Main/android.view.ViewRootImpl@76031ac (visibility=0)
View hierarchy:

  com.example.s/com.example.s.Main/android.view.ViewRootImpl@76031ac
  814 views, 1361,08 kB of render nodes

Total ViewRootImpl   : 1
Total attached Views : 814
Total RenderNode     : 1361,08 kB (used) / 4524,60 kB (capacity)

  ProcessConfig(#0)={1.1 208mcc20mnc [en_US,fr_FR] ldltr sw411dp w411dp h811dp}
  threadConfig: {mainThread=1, renderThread=2}
)";

// Android 14: process block, then per-Window blocks each with framestats.
constexpr std::string_view kAndroid14 = R"(Applications Graphics Acceleration Info:
Uptime: 27302046 Realtime: 27303927

** Graphics info for pid 31520 [com.example.u] **

Stats since: 27302369582703ns
Total frames rendered: 5
Janky frames: 2 (40.00%)
Janky frames (legacy): 3 (60.00%)
50th percentile: 150ms
90th percentile: 150ms
95th percentile: 150ms
99th percentile: 150ms
Number Missed Vsync: 2
Number High input latency: 0
Number Slow UI thread: 2
Number Slow bitmap uploads: 0
Number Slow issue draw commands: 0
Number Frame deadline missed: 2
Number Frame deadline missed (legacy): 2
HISTOGRAM: 5ms=3 150ms=2
50th gpu percentile: 5ms
90th gpu percentile: 5ms
95th gpu percentile: 5ms
99th gpu percentile: 5ms
GPU HISTOGRAM: 1ms=0 5ms=5 4950ms=0

Pipeline=Skia (OpenGL)
Memory policy:
  Max surface area: 1024000

Profile data in ms:

	com.example.u/com.example.u.Main/android.view.ViewRootImpl@8d1 (visibility=0)
	Draw	Prepare	Process	Execute
	50.00	1.20	3.40	5.60
	2.00	0.20	0.40	0.60

Window: com.example.u/com.example.u.Main
Stats since: 27302369580857ns
Total frames rendered: 4
Janky frames: 2 (50.00%)
Janky frames (legacy): 2 (50.00%)
50th percentile: 150ms
90th percentile: 150ms
95th percentile: 150ms
99th percentile: 150ms
Number Missed Vsync: 2
Number High input latency: 0
Number Slow UI thread: 2
Number Slow bitmap uploads: 0
Number Slow issue draw commands: 0
Number Frame deadline missed: 2
Number Frame deadline missed (legacy): 2
HISTOGRAM: 5ms=2 150ms=2
50th gpu percentile: 5ms
90th gpu percentile: 5ms
95th gpu percentile: 5ms
99th gpu percentile: 5ms
GPU HISTOGRAM: 1ms=0 5ms=4 4950ms=0

---PROFILEDATA---
Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,FrameCompleted,FrameDeadline,
1,100,1000,1000,2000,9223372036854775807,
0,-1,3000,3000,4000,5000,
0,102,5000,5000,6000,7000,
---PROFILEDATA---


	PopupWindow:2c1/android.view.ViewRootImpl@9f2 (visibility=4)

Window: PopupWindow:2c1
Stats since: 27302369590000ns
Total frames rendered: 0
Janky frames: 0 (0.00%)
50th percentile: 4950ms
90th percentile: 4950ms
95th percentile: 4950ms
99th percentile: 4950ms
Number Missed Vsync: 0

---PROFILEDATA---
Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,FrameCompleted,FrameDeadline,
---PROFILEDATA---

View hierarchy:

  com.example.u/com.example.u.Main/android.view.ViewRootImpl@8d1
  46 views, 104.67 kB of render nodes

Total ViewRootImpl   : 1
)";

// An all-process dump: a section without stats, a system section with zero
// frames, and then the same pid dumped again.
constexpr std::string_view kAllProcesses = R"(Applications Graphics Acceleration Info:
Uptime: 1 Realtime: 1

** Graphics info for pid 100 [com.example.a] **
Profile data in ms:
View hierarchy:
Total ViewRootImpl   : 0

** Graphics info for pid 1415 [system] **

Stats since: 24704277846ns
Total frames rendered: 0
Janky frames: 0 (0.00%)
Janky frames (legacy): 0 (0.00%)
50th percentile: 4950ms
90th percentile: 4950ms
95th percentile: 4950ms
99th percentile: 4950ms
Number Missed Vsync: 0
Profile data in ms:
View hierarchy:

** Graphics info for pid 200 [com.example.b:remote] **
Stats since: 5ns
Total frames rendered: 9
Applications Graphics Acceleration Info:
Uptime: 2 Realtime: 2

** Graphics info for pid 200 [com.example.b:remote] **
Stats since: 5ns
Total frames rendered: 11
)";

// Excerpt: an empty Window: name with zero frames and no section header.
constexpr std::string_view kEmptyWindowExcerpt = R"(Window:
Stats since: 17271434783ns
Total frames rendered: 0
Janky frames: 0 (0.00%)
Janky frames (legacy): 0 (0.00%)
50th percentile: 4950ms
90th percentile: 4950ms
95th percentile: 4950ms
99th percentile: 4950ms
Number Frame deadline missed: 0
)";

// Excerpt: a stats block pasted without its header, then a PROFILEDATA block
// whose closing marker was cut off.
constexpr std::string_view kOrphanExcerpt = R"(Stats since: 152741070392878ns
Total frames rendered: 110
Janky frames: 7 (6.36%)
50th percentile: 9ms

---PROFILEDATA---
Flags,IntendedVsync,Vsync,FrameCompleted,
0,10,10,20,
1,30,30,45,
0,50,50,)";

std::uint64_t sum(const std::vector<HistogramBin>& bins) {
  std::uint64_t s = 0;
  for (const auto& b : bins) s += b.count;
  return s;
}

}  // namespace

TEST_CASE("gfxinfo: Android 4/5 dump has a section but no stats", "[gfxinfo]") {
  GfxinfoDump d = parse_gfxinfo(kAndroid5);
  REQUIRE(d.processes.size() == 1);
  CHECK(d.processes[0].pid == 4242);
  CHECK(d.processes[0].package == "com.example.old");
  CHECK_FALSE(d.processes[0].stats.has_value());
  CHECK(d.processes[0].windows.empty());
  CHECK_FALSE(d.processes[0].framestats.has_value());
  CHECK_FALSE(d.orphan_stats.has_value());
  CHECK(d.malformed_lines == 0);  // decimal commas sit in lines we do not read
  CHECK(d.lines == 26);
}

TEST_CASE("gfxinfo: Android 6 repeated block goes to a view-root window, not the process",
          "[gfxinfo]") {
  GfxinfoDump d = parse_gfxinfo(kAndroid6);
  REQUIRE(d.processes.size() == 1);
  const auto& p = d.processes[0];
  CHECK(p.pid == 9702);
  REQUIRE(p.stats.has_value());
  const GfxStats& s = *p.stats;
  CHECK(s.stats_since_ns == 1111u);
  CHECK(s.total_frames == 30u);
  CHECK(s.janky_frames == 20u);
  CHECK_FALSE(s.janky_frames_legacy.has_value());
  CHECK_FALSE(s.p50_ms.has_value());
  CHECK(s.p90_ms == 101u);
  CHECK(s.p95_ms == 102u);
  CHECK(s.p99_ms == 103u);
  CHECK(s.missed_vsync == 2u);
  CHECK(s.high_input_latency == 3u);
  CHECK(s.slow_ui_thread == 4u);
  CHECK(s.slow_bitmap_uploads == 5u);
  CHECK(s.slow_issue_draw_commands == 6u);  // from "Number Slow draw"
  CHECK_FALSE(s.frame_deadline_missed.has_value());
  CHECK(s.histogram.empty());
  CHECK(s.gpu_histogram.empty());

  REQUIRE(p.windows.size() == 1);
  CHECK(p.windows[0].name == "com.example.m/com.example.m.Main/android.view.ViewRootImpl@6b40547");
  REQUIRE(p.windows[0].stats.has_value());
  CHECK(p.windows[0].stats->stats_since_ns == 2222u);
  CHECK(p.windows[0].stats->total_frames == 7u);
  CHECK(p.windows[0].stats->p99_ms == 13u);
  CHECK(p.windows[0].stats->slow_issue_draw_commands == 1u);
  CHECK(d.malformed_lines == 0);
}

TEST_CASE("gfxinfo: Android 6 block under an unnamed view root gets an empty name",
          "[gfxinfo]") {
  GfxinfoDump d = parse_gfxinfo(
      "** Graphics info for pid 1 [a] **\nTotal frames rendered: 5\n"
      "Profile data in ms:\n\nTotal frames rendered: 3\n");
  REQUIRE(d.processes.size() == 1);
  CHECK(d.processes[0].stats->total_frames == 5u);
  REQUIRE(d.processes[0].windows.size() == 1);
  CHECK(d.processes[0].windows[0].name.empty());
  CHECK(d.processes[0].windows[0].stats->total_frames == 3u);
}

TEST_CASE("gfxinfo: Android 7 percentiles and histogram", "[gfxinfo]") {
  GfxinfoDump d = parse_gfxinfo(kAndroid7);
  REQUIRE(d.processes.size() == 1);
  const auto& p = d.processes[0];
  CHECK(p.package == "com.example.n");
  REQUIRE(p.stats.has_value());
  CHECK(p.stats->p50_ms == 19u);
  CHECK(p.stats->p99_ms == 300u);
  CHECK(p.stats->slow_issue_draw_commands == 12u);
  REQUIRE(p.stats->histogram.size() == 7);
  CHECK(p.stats->histogram[0].label_ms == 5);
  CHECK(p.stats->histogram[0].count == 1);
  CHECK(p.stats->histogram[3].label_ms == 19);
  CHECK(p.stats->histogram[3].count == 3);
  CHECK(p.stats->histogram[6].label_ms == 4950);
  CHECK(sum(p.stats->histogram) == 24);
  CHECK(p.stats->gpu_histogram.empty());
  CHECK(p.windows.empty());  // a view root without its own block is not a window
}

TEST_CASE("gfxinfo: Android 9, indented, CRLF, no final newline", "[gfxinfo]") {
  std::string text = android9_indented_crlf();
  GfxinfoDump d = parse_gfxinfo(text);
  REQUIRE(d.processes.size() == 1);
  const auto& p = d.processes[0];
  CHECK(p.pid == 2720);
  CHECK(p.package == "com.example.p");
  REQUIRE(p.stats.has_value());
  CHECK(p.stats->stats_since_ns == 101382312046230u);
  CHECK(p.stats->total_frames == 43u);
  CHECK(p.stats->frame_deadline_missed == 5u);
  CHECK_FALSE(p.stats->frame_deadline_missed_legacy.has_value());
  CHECK(p.stats->high_input_latency == 14u);
  REQUIRE(p.stats->histogram.size() == 5);
  CHECK(p.stats->histogram[4].label_ms == 200);
  CHECK(sum(p.stats->histogram) == 43);
  CHECK(p.windows.empty());
  CHECK(d.malformed_lines == 0);
  CHECK(d.lines == 25);
}

TEST_CASE("gfxinfo: Android 12+ legacy lines, GPU histogram, vendor lines", "[gfxinfo]") {
  GfxinfoDump d = parse_gfxinfo(kAndroid12);
  REQUIRE(d.processes.size() == 1);
  const GfxStats& s = *d.processes[0].stats;
  CHECK(s.janky_frames == 4u);
  CHECK(s.janky_frames_legacy == 16u);
  CHECK(s.frame_deadline_missed == 4u);
  CHECK(s.frame_deadline_missed_legacy == 3u);
  CHECK(s.gpu_p50_ms == 4u);
  CHECK(s.gpu_p90_ms == 5u);
  CHECK(s.gpu_p95_ms == 9u);
  CHECK(s.gpu_p99_ms == 9u);
  CHECK(sum(s.histogram) == 21);
  REQUIRE(s.gpu_histogram.size() == 7);
  CHECK(s.gpu_histogram[0].label_ms == 1);
  CHECK(s.gpu_histogram[6].label_ms == 4950);
  CHECK(sum(s.gpu_histogram) == 21);
  CHECK(d.malformed_lines == 0);
}

TEST_CASE("gfxinfo: Android 14 windows with their own stats and framestats", "[gfxinfo]") {
  GfxinfoDump d = parse_gfxinfo(kAndroid14);
  REQUIRE(d.processes.size() == 1);
  const auto& p = d.processes[0];
  REQUIRE(p.stats.has_value());
  CHECK(p.stats->stats_since_ns == 27302369582703u);
  CHECK(p.stats->total_frames == 5u);
  CHECK(sum(p.stats->gpu_histogram) == 5);
  CHECK_FALSE(p.framestats.has_value());

  REQUIRE(p.windows.size() == 2);
  const auto& w = p.windows[0];
  CHECK(w.name == "com.example.u/com.example.u.Main");
  REQUIRE(w.stats.has_value());
  CHECK(w.stats->stats_since_ns == 27302369580857u);
  CHECK(w.stats->total_frames == 4u);
  CHECK(sum(w.stats->histogram) == 4);
  REQUIRE(w.framestats.has_value());
  CHECK(w.framestats->closed);
  CHECK(w.framestats->columns.size() == 6);
  CHECK(w.framestats->malformed_rows == 0);
  REQUIRE(w.framestats->rows.size() == 3);
  CHECK(w.framestats->rows[0][5] == INT64_MAX);
  CHECK(w.framestats->rows[1][1] == -1);

  const auto& popup = p.windows[1];
  CHECK(popup.name == "PopupWindow:2c1");
  REQUIRE(popup.stats.has_value());
  CHECK(popup.stats->total_frames == 0u);
  CHECK(popup.stats->p50_ms == 4950u);  // as printed: "no data" is the metric layer's call
  REQUIRE(popup.framestats.has_value());
  CHECK(popup.framestats->closed);
  CHECK(popup.framestats->columns.size() == 6);
  CHECK(popup.framestats->rows.empty());
  CHECK(d.malformed_lines == 0);
}

TEST_CASE("gfxinfo: Android 7-11 PROFILEDATA under a view root becomes that window's",
          "[gfxinfo]") {
  GfxinfoDump d = parse_gfxinfo(R"(** Graphics info for pid 7 [com.example.r] **
Total frames rendered: 3
Profile data in ms:

	com.example.r/com.example.r.Main/android.view.ViewRootImpl@1 (visibility=0)
---PROFILEDATA---
Flags,IntendedVsync,FrameCompleted,
0,1,2,
---PROFILEDATA---

	com.example.r/com.example.r.Other/android.view.ViewRootImpl@2 (visibility=8)
---PROFILEDATA---
Flags,IntendedVsync,FrameCompleted,
0,3,4,
0,5,6,
---PROFILEDATA---

View hierarchy:
)");
  REQUIRE(d.processes.size() == 1);
  const auto& p = d.processes[0];
  CHECK_FALSE(p.framestats.has_value());
  REQUIRE(p.windows.size() == 2);
  CHECK(p.windows[0].name == "com.example.r/com.example.r.Main/android.view.ViewRootImpl@1");
  CHECK_FALSE(p.windows[0].stats.has_value());
  REQUIRE(p.windows[0].framestats.has_value());
  CHECK(p.windows[0].framestats->rows.size() == 1);
  CHECK(p.windows[1].name == "com.example.r/com.example.r.Other/android.view.ViewRootImpl@2");
  REQUIRE(p.windows[1].framestats.has_value());
  CHECK(p.windows[1].framestats->rows.size() == 2);
}

TEST_CASE("gfxinfo: PROFILEDATA outside any window belongs to the process", "[gfxinfo]") {
  GfxinfoDump d = parse_gfxinfo(
      "** Graphics info for pid 8 [x] **\n---PROFILEDATA---\nFlags,IntendedVsync,\n0,5,\n"
      "---PROFILEDATA---\nView hierarchy:\n");
  REQUIRE(d.processes.size() == 1);
  REQUIRE(d.processes[0].framestats.has_value());
  CHECK(d.processes[0].framestats->closed);
  CHECK(d.processes[0].framestats->rows.size() == 1);
  CHECK(d.processes[0].windows.empty());
}

TEST_CASE("gfxinfo: all-process dump and the same pid twice", "[gfxinfo]") {
  GfxinfoDump d = parse_gfxinfo(kAllProcesses);
  REQUIRE(d.processes.size() == 4);
  CHECK(d.processes[0].pid == 100);
  CHECK_FALSE(d.processes[0].stats.has_value());
  CHECK(d.processes[1].pid == 1415);
  CHECK(d.processes[1].package == "system");
  REQUIRE(d.processes[1].stats.has_value());
  CHECK(d.processes[1].stats->total_frames == 0u);
  CHECK(d.processes[1].stats->p99_ms == 4950u);
  CHECK(d.processes[2].pid == 200);
  CHECK(d.processes[2].package == "com.example.b:remote");
  CHECK(d.processes[2].stats->total_frames == 9u);
  CHECK(d.processes[3].pid == 200);
  CHECK(d.processes[3].stats->total_frames == 11u);
  CHECK_FALSE(d.orphan_stats.has_value());
}

TEST_CASE("gfxinfo: excerpt with an empty Window: name and zero frames", "[gfxinfo]") {
  GfxinfoDump d = parse_gfxinfo(kEmptyWindowExcerpt);
  CHECK(d.processes.empty());
  CHECK_FALSE(d.orphan_stats.has_value());
  REQUIRE(d.orphan_windows.size() == 1);
  const auto& w = d.orphan_windows[0];
  CHECK(w.name.empty());
  REQUIRE(w.stats.has_value());
  CHECK(w.stats->stats_since_ns == 17271434783u);
  CHECK(w.stats->total_frames == 0u);
  CHECK(w.stats->janky_frames_legacy == 0u);
  CHECK(w.stats->p50_ms == 4950u);
  CHECK(w.stats->p99_ms == 4950u);
  CHECK(w.stats->frame_deadline_missed == 0u);
  CHECK(w.stats->histogram.empty());
}

TEST_CASE("gfxinfo: truncated excerpt gives orphan stats and an unclosed table", "[gfxinfo]") {
  GfxinfoDump d = parse_gfxinfo(kOrphanExcerpt);
  CHECK(d.processes.empty());
  REQUIRE(d.orphan_stats.has_value());
  CHECK(d.orphan_stats->stats_since_ns == 152741070392878u);
  CHECK(d.orphan_stats->total_frames == 110u);
  CHECK(d.orphan_stats->p50_ms == 9u);
  REQUIRE(d.orphan_framestats.size() == 1);
  const auto& t = d.orphan_framestats[0];
  CHECK_FALSE(t.closed);
  CHECK(t.columns == std::vector<std::string>{"Flags", "IntendedVsync", "Vsync", "FrameCompleted"});
  CHECK(t.rows.size() == 2);
  CHECK(t.malformed_rows == 1);  // the cut-off last row
}

TEST_CASE("gfxinfo: an unclosed PROFILEDATA block ends at the next prose line", "[gfxinfo]") {
  GfxinfoDump d = parse_gfxinfo(R"(** Graphics info for pid 5 [p] **
Window: w1
Total frames rendered: 2
---PROFILEDATA---
Flags,IntendedVsync,
0,1,
View hierarchy:
Total ViewRootImpl   : 1
Window: w2
---PROFILEDATA---
Flags,IntendedVsync,
0,2,
0,3,
---PROFILEDATA---
)");
  REQUIRE(d.processes.size() == 1);
  const auto& ws = d.processes[0].windows;
  REQUIRE(ws.size() == 2);
  REQUIRE(ws[0].framestats.has_value());
  CHECK_FALSE(ws[0].framestats->closed);
  CHECK(ws[0].framestats->rows.size() == 1);
  CHECK(ws[0].framestats->malformed_rows == 0);
  REQUIRE(ws[1].framestats.has_value());
  CHECK(ws[1].framestats->closed);
  CHECK(ws[1].framestats->rows.size() == 2);
}

TEST_CASE("gfxinfo: values that do not parse are counted, not guessed", "[gfxinfo]") {
  GfxinfoDump d = parse_gfxinfo(R"(** Graphics info for pid 3 [q] **
Stats since: 99999999999999999999999ns
Total frames rendered: 12,5
Janky frames: -1 (0%)
50th percentile: 5000000000ms
90th percentile: 17ms
HISTOGRAM: 5ms=1 6ms=x 7ms=2 oops
Number Missed Vsync: 4
Total DisplayList:  51,03 kB
)");
  REQUIRE(d.processes.size() == 1);
  const GfxStats& s = *d.processes[0].stats;
  CHECK_FALSE(s.stats_since_ns.has_value());
  CHECK_FALSE(s.total_frames.has_value());
  CHECK_FALSE(s.janky_frames.has_value());
  CHECK_FALSE(s.p50_ms.has_value());
  CHECK(s.p90_ms == 17u);
  REQUIRE(s.histogram.size() == 2);
  CHECK(s.histogram[1].label_ms == 7);
  CHECK(s.histogram[1].count == 2);
  CHECK(s.missed_vsync == 4u);
  CHECK(d.malformed_lines == 5);
}

TEST_CASE("gfxinfo: malformed section header still opens a section", "[gfxinfo]") {
  GfxinfoDump d = parse_gfxinfo("** Graphics info for pid x **\nTotal frames rendered: 1\n");
  REQUIRE(d.processes.size() == 1);
  CHECK(d.processes[0].pid == -1);
  CHECK(d.processes[0].package.empty());
  CHECK(d.processes[0].stats->total_frames == 1u);
  CHECK(d.malformed_lines == 1);
}

TEST_CASE("gfxinfo: empty and blank input", "[gfxinfo]") {
  CHECK(parse_gfxinfo("").processes.empty());
  GfxinfoDump d = parse_gfxinfo("\r\n\n  \t\n");
  CHECK(d.processes.empty());
  CHECK_FALSE(d.orphan_stats.has_value());
  CHECK(d.lines == 3);
}

TEST_CASE("gfxinfo: random bytes never crash and yield no processes", "[gfxinfo]") {
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int round = 0; round < 200; ++round) {
    std::string junk(4096, '\0');
    for (char& c : junk) c = static_cast<char>(byte(rng));
    GfxinfoDump d = parse_gfxinfo(junk);
    CHECK(d.processes.empty());
  }
}

TEST_CASE("gfxinfo: shuffled and cut fixtures never crash", "[gfxinfo]") {
  // Lines of real layouts in random order and random cut points exercise every
  // state transition with unexpected neighbours.
  std::string all = std::string(kAndroid6) + std::string(kAndroid14) + std::string(kOrphanExcerpt);
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t nl = all.find('\n', start);
    if (nl == std::string::npos) nl = all.size();
    lines.push_back(all.substr(start, nl - start));
    start = nl + 1;
  }
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::shuffle(lines.begin(), lines.end(), rng);
    std::string text;
    for (const auto& l : lines) text += l + "\n";
    std::uniform_int_distribution<std::size_t> cut(0, text.size());
    text.resize(cut(rng));
    GfxinfoDump d = parse_gfxinfo(text);
    CHECK(d.lines <= lines.size());
  }
}

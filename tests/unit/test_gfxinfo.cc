#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
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

// ---- "Profile data in ms:" tables (debug.hwui.profile=true on the device) ----

namespace {

using jank::parsers::GfxProfileRow;
using jank::parsers::GfxWindow;
using jank::parsers::kMaxProfileRowsPerWindow;

// Android 4.4: the view root line has no visibility suffix and Java's printf
// formats the rows in the app's locale (here one with a decimal comma).
constexpr std::string_view kAndroid4Profile = R"(Applications Graphics Acceleration Info:
Uptime: 1 Realtime: 1

** Graphics info for pid 29541 [com.example.kk] **

Profile data in ms:

	com.example.kk/com.example.kk.Main/android.view.ViewRootImpl@41fc59c8
	Draw	Process	Execute
	5.12	3.40	1.05
	20,51	0,49	7,13
	4.00	-1.00	-1.00

View hierarchy:

  com.example.kk/com.example.kk.Main/android.view.ViewRootImpl@41fc59c8
  41 views, 1.36 kB of display lists, 191 frames rendered

Total ViewRootImpl: 1
)";

// Android 5: four columns, no stats block.
constexpr std::string_view kAndroid5Profile = R"(** Graphics info for pid 26834 [com.example.l] **
Profile data in ms:

	com.example.l/com.example.l.Main/android.view.ViewRootImpl@27de7df5 (visibility=0)
	Draw	Prepare	Process	Execute
	2.01	0.35	1.20	0.80
	16.70	0.00	4.05	3.33

View hierarchy:
)";

}  // namespace

TEST_CASE("gfxinfo profile: Android 4.x three-column table with decimal commas",
          "[gfxinfo][profile]") {
  GfxinfoDump d = parse_gfxinfo(kAndroid4Profile);
  REQUIRE(d.processes.size() == 1);
  const auto& p = d.processes[0];
  CHECK_FALSE(p.stats.has_value());
  REQUIRE(p.windows.size() == 1);
  const GfxWindow& w = p.windows[0];
  CHECK(w.name == "com.example.kk/com.example.kk.Main/android.view.ViewRootImpl@41fc59c8");
  CHECK_FALSE(w.stats.has_value());
  CHECK_FALSE(w.framestats.has_value());
  CHECK(w.has_profile_table);
  REQUIRE(w.profile_rows.size() == 3);
  CHECK(w.profile_rows[0].draw_ms == Approx(5.12));
  CHECK_FALSE(w.profile_rows[0].prepare_ms.has_value());
  CHECK(w.profile_rows[0].process_ms == Approx(3.40));
  CHECK(w.profile_rows[0].execute_ms == Approx(1.05));
  CHECK(w.profile_rows[1].draw_ms == Approx(20.51));
  CHECK(w.profile_rows[1].process_ms == Approx(0.49));
  CHECK(w.profile_rows[1].execute_ms == Approx(7.13));
  // -1.00 is the 4.x "stage not run" marker (no swap this frame): kept as 0.
  CHECK(w.profile_rows[2].draw_ms == Approx(4.00));
  CHECK(w.profile_rows[2].process_ms == 0.0);
  CHECK(w.profile_rows[2].execute_ms == 0.0);
  CHECK(d.profile_rows_malformed == 0);
  CHECK(d.profile_rows_discarded == 0);
  CHECK(d.malformed_lines == 0);
}

TEST_CASE("gfxinfo profile: Android 5 four-column table makes a view-root window",
          "[gfxinfo][profile]") {
  GfxinfoDump d = parse_gfxinfo(kAndroid5Profile);
  REQUIRE(d.processes.size() == 1);
  REQUIRE(d.processes[0].windows.size() == 1);
  const GfxWindow& w = d.processes[0].windows[0];
  CHECK(w.name == "com.example.l/com.example.l.Main/android.view.ViewRootImpl@27de7df5");
  CHECK(w.has_profile_table);
  REQUIRE(w.profile_rows.size() == 2);
  CHECK(w.profile_rows[0].draw_ms == Approx(2.01));
  REQUIRE(w.profile_rows[0].prepare_ms.has_value());
  CHECK(*w.profile_rows[0].prepare_ms == Approx(0.35));
  CHECK(w.profile_rows[0].process_ms == Approx(1.20));
  CHECK(w.profile_rows[0].execute_ms == Approx(0.80));
  CHECK(w.profile_rows[1].draw_ms == Approx(16.70));
  CHECK(*w.profile_rows[1].prepare_ms == 0.0);
  CHECK(w.profile_rows[1].execute_ms == Approx(3.33));
  CHECK(d.profile_rows_malformed == 0);
}

TEST_CASE("gfxinfo profile: without a table a view root stays no window", "[gfxinfo][profile]") {
  // debug.hwui.profile off: the section lists only names (Android 5 and 7 fixtures).
  CHECK(parse_gfxinfo(kAndroid5).processes[0].windows.empty());
  CHECK(parse_gfxinfo(kAndroid7).processes[0].windows.empty());
}

TEST_CASE("gfxinfo profile: Android 6 table and the stats block after it share the window",
          "[gfxinfo][profile]") {
  GfxinfoDump d = parse_gfxinfo(R"(** Graphics info for pid 9702 [com.example.m] **
Stats since: 1111ns
Total frames rendered: 30
Profile data in ms:

	com.example.m/com.example.m.Main/android.view.ViewRootImpl@6b40547 (visibility=0)
	Draw	Prepare	Process	Execute
	12.00	1.00	2.00	3.00

Stats since: 2222ns
Total frames rendered: 7
View hierarchy:
)");
  REQUIRE(d.processes.size() == 1);
  const auto& p = d.processes[0];
  CHECK(p.stats->total_frames == 30u);
  REQUIRE(p.windows.size() == 1);
  CHECK(p.windows[0].name == "com.example.m/com.example.m.Main/android.view.ViewRootImpl@6b40547");
  REQUIRE(p.windows[0].stats.has_value());
  CHECK(p.windows[0].stats->total_frames == 7u);
  REQUIRE(p.windows[0].profile_rows.size() == 1);
  CHECK(p.windows[0].profile_rows[0].execute_ms == Approx(3.0));
}

TEST_CASE("gfxinfo profile: Android 7-11 table then PROFILEDATA share the window",
          "[gfxinfo][profile]") {
  GfxinfoDump d = parse_gfxinfo(R"(** Graphics info for pid 7 [com.example.r] **
Profile data in ms:

	com.example.r/com.example.r.Main/android.view.ViewRootImpl@1 (visibility=0)
	Draw	Prepare	Process	Execute
	3.00	0.50	2.00	1.00
	4.00	0.60	2.10	1.10


---PROFILEDATA---
Flags,IntendedVsync,FrameCompleted,
0,1,2,
---PROFILEDATA---

View hierarchy:
)");
  REQUIRE(d.processes.size() == 1);
  const auto& p = d.processes[0];
  CHECK_FALSE(p.framestats.has_value());
  REQUIRE(p.windows.size() == 1);
  CHECK(p.windows[0].name == "com.example.r/com.example.r.Main/android.view.ViewRootImpl@1");
  CHECK(p.windows[0].profile_rows.size() == 2);
  REQUIRE(p.windows[0].framestats.has_value());
  CHECK(p.windows[0].framestats->rows.size() == 1);
}

TEST_CASE("gfxinfo profile: Android 12+ table joins the Window block that follows it",
          "[gfxinfo][profile]") {
  GfxinfoDump d = parse_gfxinfo(kAndroid14);
  REQUIRE(d.processes.size() == 1);
  const auto& ws = d.processes[0].windows;
  REQUIRE(ws.size() == 2);  // no extra window for the view root line
  CHECK(ws[0].name == "com.example.u/com.example.u.Main");
  CHECK(ws[0].has_profile_table);
  REQUIRE(ws[0].profile_rows.size() == 2);
  CHECK(ws[0].profile_rows[0].draw_ms == Approx(50.0));
  CHECK(*ws[0].profile_rows[0].prepare_ms == Approx(1.2));
  CHECK(ws[0].profile_rows[0].process_ms == Approx(3.4));
  CHECK(ws[0].profile_rows[0].execute_ms == Approx(5.6));
  CHECK(ws[0].stats->total_frames == 4u);
  CHECK(ws[0].framestats->rows.size() == 3);
  CHECK(ws[1].name == "PopupWindow:2c1");
  CHECK_FALSE(ws[1].has_profile_table);
  CHECK(ws[1].profile_rows.empty());
}

TEST_CASE("gfxinfo profile: only the first line after a table adopts it as a Window block",
          "[gfxinfo][profile]") {
  GfxinfoDump d = parse_gfxinfo(R"(** Graphics info for pid 5 [a] **
Profile data in ms:

	a/a.Main/android.view.ViewRootImpl@1 (visibility=0)
	Draw	Prepare	Process	Execute
	1.00	1.00	1.00	1.00

	a/a.Other/android.view.ViewRootImpl@2 (visibility=0)

Window: a/a.Other
Total frames rendered: 3
)");
  REQUIRE(d.processes.size() == 1);
  const auto& ws = d.processes[0].windows;
  REQUIRE(ws.size() == 2);
  CHECK(ws[0].name == "a/a.Main/android.view.ViewRootImpl@1");
  CHECK(ws[0].profile_rows.size() == 1);
  CHECK_FALSE(ws[0].stats.has_value());
  CHECK(ws[1].name == "a/a.Other");
  CHECK_FALSE(ws[1].has_profile_table);
  CHECK(ws[1].stats->total_frames == 3u);
}

TEST_CASE("gfxinfo profile: several view roots keep their own tables in order",
          "[gfxinfo][profile]") {
  GfxinfoDump d = parse_gfxinfo(R"(** Graphics info for pid 31185 [com.example.v] **
Total frames rendered: 51
Profile data in ms:

	com.example.v/com.example.v.Main/android.view.ViewRootImpl@a (visibility=0)
	Draw	Prepare	Process	Execute
	1.00	0.10	2.00	3.00
	1.50	0.20	2.50	3.50

	PopupWindow:1/android.view.ViewRootImpl@b (visibility=0)
	Draw	Prepare	Process	Execute
	7.00	0.70	8.00	9.00

	com.example.v/com.example.v.Dialog/android.view.ViewRootImpl@c (visibility=8)
	Draw	Prepare	Process	Execute

	com.example.v/com.example.v.Soft/android.view.ViewRootImpl@d (visibility=0)
View hierarchy:
)");
  REQUIRE(d.processes.size() == 1);
  const auto& p = d.processes[0];
  CHECK(p.stats->total_frames == 51u);
  REQUIRE(p.windows.size() == 3);  // the last view root (no renderer table) is no window
  CHECK(p.windows[0].name == "com.example.v/com.example.v.Main/android.view.ViewRootImpl@a");
  CHECK(p.windows[0].profile_rows.size() == 2);
  CHECK(p.windows[1].name == "PopupWindow:1/android.view.ViewRootImpl@b");
  REQUIRE(p.windows[1].profile_rows.size() == 1);
  CHECK(p.windows[1].profile_rows[0].draw_ms == Approx(7.0));
  // A header with no row: profiling is on and no frame is new since the last dump.
  CHECK(p.windows[2].name == "com.example.v/com.example.v.Dialog/android.view.ViewRootImpl@c");
  CHECK(p.windows[2].has_profile_table);
  CHECK(p.windows[2].profile_rows.empty());
  for (const auto& w : p.windows) CHECK_FALSE(w.stats.has_value());
  CHECK(d.profile_rows_malformed == 0);
}

TEST_CASE("gfxinfo profile: garbage rows are counted and skipped", "[gfxinfo][profile]") {
  GfxinfoDump d = parse_gfxinfo(
      "** Graphics info for pid 3 [g] **\n"
      "Profile data in ms:\n"
      "\tg/g.Main/android.view.ViewRootImpl@1 (visibility=0)\n"
      "\tDraw\tPrepare\tProcess\tExecute\n"
      "\t1.00\t2.00\t3.00\n"               // three cells under four columns
      "\t1.00\t2.00\t3.00\t4.00\t5.00\n"   // five cells
      "\tabc\t2.00\t3.00\t4.00\n"          // not a number
      "\t1.0.0\t2.00\t3.00\t4.00\n"        // two points
      "\tnan\t2.00\t3.00\t4.00\n"          // non-finite
      "\tinf\t2.00\t3.00\t4.00\n"          // non-finite
      "\t1e3\t2.00\t3.00\t4.00\n"          // exponent: never printed by %3.2f
      "\t+1.00\t2.00\t3.00\t4.00\n"        // explicit plus sign
      "\t-2.50\t2.00\t3.00\t4.00\n"        // negative
      "\t1.00\t-1.00\t3.00\t4.00\n"        // -1 is only the 4.x marker
      "\t12.\t2.00\t3.00\t4.00\n"          // point without fraction
      "\t-0.00\t2\t3.5\t4.25\n"            // negative zero and integers: kept
      "\t9.99\t0.01\t0.02\t0.03\n"
      "\n"
      "View hierarchy:\n");
  REQUIRE(d.processes.size() == 1);
  REQUIRE(d.processes[0].windows.size() == 1);
  const auto& rows = d.processes[0].windows[0].profile_rows;
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].draw_ms == 0.0);
  CHECK_FALSE(std::signbit(rows[0].draw_ms));
  CHECK(*rows[0].prepare_ms == 2.0);
  CHECK(rows[0].process_ms == 3.5);
  CHECK(rows[0].execute_ms == 4.25);
  CHECK(rows[1].draw_ms == Approx(9.99));
  CHECK(d.profile_rows_malformed == 11);
  CHECK(d.profile_rows_discarded == 0);
  CHECK(d.malformed_lines == 0);  // rows have their own counter
}

TEST_CASE("gfxinfo profile: a table ends at a blank line or a line the dump needs",
          "[gfxinfo][profile]") {
  GfxinfoDump d = parse_gfxinfo(
      "** Graphics info for pid 4 [e] **\n"
      "Profile data in ms:\n"
      "\te/e.A/android.view.ViewRootImpl@1 (visibility=0)\n"
      "\tDraw\tPrepare\tProcess\tExecute\n"
      "\t1.00\t1.00\t1.00\t1.00\n"
      "\te/e.B/android.view.ViewRootImpl@2 (visibility=0)\n"  // no blank line before it
      "\tDraw\tPrepare\tProcess\tExecute\n"
      "\t2.00\t2.00\t2.00\t2.00\n"
      "Stats since: 5ns\n"                                      // ends the table too
      "Total frames rendered: 1\n"
      "View hierarchy:\n"
      "\t3.00\t3.00\t3.00\t3.00\n");                            // not under a header: ignored
  REQUIRE(d.processes.size() == 1);
  const auto& ws = d.processes[0].windows;
  REQUIRE(ws.size() == 2);
  CHECK(ws[0].name == "e/e.A/android.view.ViewRootImpl@1");
  CHECK(ws[0].profile_rows.size() == 1);
  CHECK(ws[1].name == "e/e.B/android.view.ViewRootImpl@2");
  CHECK(ws[1].profile_rows.size() == 1);
  REQUIRE(ws[1].stats.has_value());
  CHECK(ws[1].stats->total_frames == 1u);
  CHECK(d.profile_rows_malformed == 0);
}

TEST_CASE("gfxinfo profile: indented CRLF dump and a table with no section header",
          "[gfxinfo][profile]") {
  GfxinfoDump d = parse_gfxinfo(
      "  \tDraw\tPrepare\tProcess\tExecute\r\n"
      "  \t1.25\t0.50\t2.75\t3.00\r\n"
      "\r\n"
      "  ** Graphics info for pid 8 [i] **\r\n"
      "  Profile data in ms:\r\n"
      "  \ti/i.Main/android.view.ViewRootImpl@9 (visibility=0)\r\n"
      "  \tDraw\tPrepare\tProcess\tExecute\r\n"
      "  \t4.00\t0.25\t1.00\t2.00");  // no final newline
  REQUIRE(d.orphan_windows.size() == 1);
  CHECK(d.orphan_windows[0].name.empty());
  REQUIRE(d.orphan_windows[0].profile_rows.size() == 1);
  CHECK(d.orphan_windows[0].profile_rows[0].execute_ms == Approx(3.0));
  REQUIRE(d.processes.size() == 1);
  REQUIRE(d.processes[0].windows.size() == 1);
  CHECK(d.processes[0].windows[0].name == "i/i.Main/android.view.ViewRootImpl@9");
  REQUIRE(d.processes[0].windows[0].profile_rows.size() == 1);
  CHECK(d.processes[0].windows[0].profile_rows[0].draw_ms == Approx(4.0));
  CHECK(d.profile_rows_malformed == 0);
}

TEST_CASE("gfxinfo profile: rows past the cap are discarded and counted", "[gfxinfo][profile]") {
  std::string text =
      "** Graphics info for pid 6 [h] **\nProfile data in ms:\n"
      "\th/h.Main/android.view.ViewRootImpl@1 (visibility=0)\n\tDraw\tPrepare\tProcess\tExecute\n";
  const std::size_t extra = 25;
  for (std::size_t i = 0; i < kMaxProfileRowsPerWindow + extra; ++i) text += "\t1.00\t0.10\t2.00\t3.00\n";
  text += "\tjunk\n";  // past the cap: discarded, not parsed
  text += "\n\th/h.Other/android.view.ViewRootImpl@2 (visibility=0)\n\tDraw\tPrepare\tProcess\tExecute\n";
  text += "\t5.00\t0.50\t6.00\t7.00\n";
  GfxinfoDump d = parse_gfxinfo(text);
  REQUIRE(d.processes.size() == 1);
  const auto& ws = d.processes[0].windows;
  REQUIRE(ws.size() == 2);
  CHECK(ws[0].profile_rows.size() == kMaxProfileRowsPerWindow);
  CHECK(ws[1].profile_rows.size() == 1);  // the cap is per window
  CHECK(d.profile_rows_discarded == extra + 1);
  CHECK(d.profile_rows_malformed == 0);
}

TEST_CASE("gfxinfo profile: two polls in one input keep each dump's rows apart",
          "[gfxinfo][profile]") {
  // Each dump prints only frames new since the previous one, so the two
  // sections hold different rows for the same view root.
  std::string text;
  for (const char* row : {"\t1.00\t0.10\t2.00\t3.00\n\t1.10\t0.10\t2.00\t3.00\n", "\t9.00\t0.90\t8.00\t7.00\n"}) {
    text += "Applications Graphics Acceleration Info:\n** Graphics info for pid 2 [t] **\n"
            "Profile data in ms:\n\n\tt/t.Main/android.view.ViewRootImpl@1 (visibility=0)\n"
            "\tDraw\tPrepare\tProcess\tExecute\n";
    text += row;
    text += "\nView hierarchy:\n";
  }
  GfxinfoDump d = parse_gfxinfo(text);
  REQUIRE(d.processes.size() == 2);
  REQUIRE(d.processes[0].windows.size() == 1);
  REQUIRE(d.processes[1].windows.size() == 1);
  CHECK(d.processes[0].windows[0].profile_rows.size() == 2);
  REQUIRE(d.processes[1].windows[0].profile_rows.size() == 1);
  CHECK(d.processes[1].windows[0].profile_rows[0].draw_ms == Approx(9.0));
}

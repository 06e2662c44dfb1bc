// dumpsys SurfaceFlinger --frametimeline on hand-made dumps in the byte
// layout of FrameTimeline.cpp (TAB tables, 4-space SurfaceFrame indent,
// "[*] " markers), with each Android version's jank names.
#include <catch2/catch.hpp>

#include <string>

#include "parsers/frametimeline.h"

using namespace jank::parsers;

namespace {

// Android 13: two display frames, the second with a janky app frame.
const std::string kAndroid13 =
    "Number of display frames : 2\n"
    "Display Frame 0\n"
    "Prediction State : Valid\n"
    "Jank Type : None\n"
    "Present Metadata : On Time Present\n"
    "Finish Metadata: On Time Finish\n"
    "Start Metadata: Unknown Start\n"
    "Vsync Period:  16.666666\n"
    "Present delta:   0.010000\n"
    "Present delta % refreshrate:   0.010000\n"
    "\t\t    Start time\t\t|    End time\t\t|    Present time\n"
    "Expected\t|\t      0.00\t|\t     16.67\t|\t     33.33\n"
    "Actual  \t|\t      0.10\t|\t     10.00\t|\t     33.34\n"
    "----------------------------------------------------------------------------------------\n"
    "\n"
    "    Layer - TX - com.example.feed/com.example.feed.MainActivity#57\n"
    "    Token: 1201\n"
    "    Is Buffer?: 1\n"
    "    Owner Pid : 4321\n"
    "    Scheduled rendering rate: 60 fps\n"
    "    Layer ID : 57\n"
    "    Present State : Presented\n"
    "    Prediction State : Valid\n"
    "    Jank Type : None\n"
    "    Present Metadata : On Time Present\n"
    "    Finish Metadata: On Time Finish\n"
    "    Last latch time:   15.000000\n"
    "    Present delta:   0.010000\n"
    "    \t\t    Start time\t\t|    End time\t\t|    Present time\n"
    "    Expected\t|\t      0.00\t|\t     16.67\t|\t     33.33\n"
    "    Actual  \t|\t      0.20\t|\t      9.00\t|\t     33.34\n"
    "    ----------------------------------------------------------------------------------------\n"
    "\n"
    "Display Frame 1 [*] \n"
    "Prediction State : Valid\n"
    "Jank Type : SurfaceFlinger CPU Deadline Missed\n"
    "Present Metadata : Late Present\n"
    "Finish Metadata: Late Finish\n"
    "Start Metadata: Unknown Start\n"
    "Vsync Period:  16.666666\n"
    "Present delta:  16.700000\n"
    "Present delta % refreshrate:   0.033334\n"
    "\t\t    Start time\t\t|    End time\t\t|    Present time\n"
    "Expected\t|\t     16.67\t|\t     33.33\t|\t     50.00\n"
    "Actual  \t|\t     16.70\t|\t     52.00\t|\t     66.70\n"
    "----------------------------------------------------------------------------------------\n"
    "\n"
    "    Layer - TX - com.example.feed/com.example.feed.MainActivity#57 [*] \n"
    "    Token: 1202\n"
    "    Is Buffer?: 1\n"
    "    Owner Pid : 4321\n"
    "    Scheduled rendering rate: 60 fps\n"
    "    Layer ID : 57\n"
    "    Present State : Presented\n"
    "    Prediction State : Valid\n"
    "    Jank Type : SurfaceFlinger CPU Deadline Missed, App Deadline Missed\n"
    "    Present Metadata : Late Present\n"
    "    Finish Metadata: Late Finish\n"
    "    Last latch time:   40.000000\n"
    "    Present delta:  16.700000\n"
    "    \t\t    Start time\t\t|    End time\t\t|    Present time\n"
    "    Expected\t|\t     16.67\t|\t     33.33\t|\t     50.00\n"
    "    Actual  \t|\t     16.80\t|\t     45.00\t|\t     66.70\n"
    "    ----------------------------------------------------------------------------------------\n"
    "\n";

}  // namespace

TEST_CASE("frametimeline: an Android 13 -all dump", "[frametimeline]") {
  const FrameTimelineDump d = parse_frametimeline(kAndroid13);
  CHECK(d.malformed_lines == 0);
  CHECK(d.unknown_jank_names == 0);
  REQUIRE(d.display_frame_count == 2);
  REQUIRE(d.display_frames.size() == 2);
  CHECK(d.display_frames[0].index == 0);
  CHECK(d.display_frames[0].jank == 0);
  CHECK(d.display_frames[0].present_timing == FtPresentTiming::on_time);
  CHECK(d.display_frames[0].vsync_period_ms == Approx(16.666666));
  REQUIRE(d.display_frames[0].surface_frames.size() == 1);
  const SurfaceFrame& on_time = d.display_frames[0].surface_frames[0];
  CHECK(on_time.layer == "com.example.feed/com.example.feed.MainActivity#57");
  CHECK(on_time.token == 1201);
  CHECK(on_time.layer_id == 57);
  CHECK(on_time.owner_pid == 4321);
  CHECK(on_time.is_buffer);
  CHECK(on_time.render_rate_fps == 60);
  CHECK(on_time.present == FtPresentState::presented);
  CHECK(on_time.prediction == FtPrediction::valid);
  CHECK(on_time.jank == 0);
  CHECK(on_time.jank_known);

  const DisplayFrame& late = d.display_frames[1];
  CHECK(late.index == 1);
  CHECK(late.jank == kJankSfCpuDeadlineMissed);
  REQUIRE(late.surface_frames.size() == 1);
  const SurfaceFrame& janky = late.surface_frames[0];
  CHECK(janky.layer == "com.example.feed/com.example.feed.MainActivity#57");  // marker and TX - removed
  CHECK(janky.token == 1202);
  CHECK(janky.jank == (kJankSfCpuDeadlineMissed | kJankAppDeadlineMissed));
  CHECK(janky.present_timing == FtPresentTiming::late);
  CHECK(janky.present_delta_ms == Approx(16.7));
}

TEST_CASE("frametimeline: jank names of every version map to one set of causes", "[frametimeline]") {
  auto jank_of = [](const std::string& names) {
    const auto d = parse_frametimeline("Display Frame 0\n    Layer - TX - a/a.B#1\n    Jank Type : " + names + "\n");
    REQUIRE(d.display_frames.size() == 1);
    REQUIRE(d.display_frames[0].surface_frames.size() == 1);
    CHECK(d.unknown_jank_names == 0);
    return d.display_frames[0].surface_frames[0].jank;
  };
  // 12/13 and 14+ spellings of SurfaceFlinger's own deadline misses.
  CHECK(jank_of("SurfaceFlinger CPU Deadline Missed") == kJankSfCpuDeadlineMissed);
  CHECK(jank_of("SurfaceFlinger deadline missed (while in HWC)") == kJankSfCpuDeadlineMissed);
  CHECK(jank_of("SurfaceFlinger GPU Deadline Missed") == kJankSfGpuDeadlineMissed);
  CHECK(jank_of("SurfaceFlinger deadline missed (while in GPU comp)") == kJankSfGpuDeadlineMissed);
  // Every name at once, in jankTypeBitmaskToString's order (15+ adds Dropped Frame).
  CHECK(jank_of("Display HAL, SurfaceFlinger deadline missed (while in HWC), SurfaceFlinger deadline missed "
                "(while in GPU comp), App Deadline Missed, Prediction Error, SurfaceFlinger Scheduling, Buffer "
                "Stuffing, Unknown jank, SurfaceFlinger Stuffing, Dropped Frame") == 0x3ff);
  CHECK(jank_of("None") == 0);
  for (std::uint32_t bit = 1; bit < (1u << kJankBitCount); bit <<= 1) CHECK(!jank_bit_name(bit).empty());
  CHECK(jank_bit_name(kJankSfCpuDeadlineMissed) == "sf_cpu_deadline_missed");
  CHECK(jank_bit_name(kJankDropped) == "dropped");
  CHECK(jank_bit_name(0x400).empty());
}

TEST_CASE("frametimeline: dropped frames, -jank dumps and unknown names", "[frametimeline]") {
  const std::string dump =
      "Display Frame 5 [*] \n"
      "Prediction State : Valid\n"
      "Jank Type : Display HAL\n"
      "    Layer - TX - SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)#90 [*] \n"
      "    Token: 77\n"
      "    Is Buffer?: 1\n"
      "    Owner Pid : 999\n"
      "    Scheduled rendering rate: 0 fps\n"
      "    Layer ID : 90\n"
      "    Present State : Dropped\n"
      "    Drop time :  12.500000\n"
      "    Prediction State : Expired\n"
      "    Jank Type : Dropped Frame, Frobnicated\n"
      "    Present Metadata : Unknown Present\n"
      "    Finish Metadata: Unknown Finish\n"
      "    Last latch time:   0.000000\n";
  const auto d = parse_frametimeline(dump);
  CHECK(!d.display_frame_count);  // -jank prints no count
  REQUIRE(d.display_frames.size() == 1);
  CHECK(d.display_frames[0].index == 5);
  CHECK(d.display_frames[0].jank == kJankDisplayHal);
  REQUIRE(d.display_frames[0].surface_frames.size() == 1);
  const auto& sf = d.display_frames[0].surface_frames[0];
  CHECK(sf.layer == "SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)#90");
  CHECK(sf.present == FtPresentState::dropped);
  CHECK(sf.prediction == FtPrediction::expired);
  CHECK(!sf.render_rate_fps);
  CHECK(sf.jank == kJankDropped);  // the known name kept
  CHECK(!sf.jank_known);
  CHECK(d.unknown_jank_names == 1);
  CHECK(d.malformed_lines == 0);
}

TEST_CASE("frametimeline: garbage is counted, never a frame", "[frametimeline]") {
  const auto d = parse_frametimeline(
      "Token: 5\n"                 // before any display frame
      "Display Frame x\n"          // no index
      "    Layer - TX - a/a.B#1\n"  // no display frame to belong to
      "Display Frame 0\n"
      "Vsync Period: fast\n"
      "    Layer - \n"             // no name
      "    Token: 12\n"            // belongs to no surface frame: a display frame key it is not
      "hello world\n");
  CHECK(d.display_frames.size() == 1);
  CHECK(d.display_frames[0].surface_frames.empty());
  CHECK(!d.display_frames[0].vsync_period_ms);
  CHECK(d.malformed_lines == 7);
  CHECK(d.lines == 8);
  CHECK(parse_frametimeline("").display_frames.empty());
}

TEST_CASE("frametimeline: a capture of polls in a row splits into one text per poll", "[frametimeline]") {
  using jank::parsers::split_frametimeline_polls;
  const std::string all = "Number of display frames : 2\nDisplay Frame 0\nJank Type : None\nDisplay Frame 1\n";
  const std::string jank = "Display Frame 1 [*] \nJank Type : Display HAL\nDisplay Frame 5 [*] \n";
  // -all polls: at each count line.
  CHECK(split_frametimeline_polls(all + all + all) == std::vector<std::string_view>{all, all, all});
  // -jank polls: where the index goes back.
  CHECK(split_frametimeline_polls(jank + jank) == std::vector<std::string_view>{jank, jank});
  // -jank then -all in one command: two texts, the same frames in both.
  CHECK(split_frametimeline_polls(jank + all + jank + all) == std::vector<std::string_view>{jank, all, jank, all});
  // A prompt before the first poll stays with it; nothing is lost.
  const std::string prompt = "$ adb shell dumpsys SurfaceFlinger --frametimeline -all\n";
  CHECK(split_frametimeline_polls(prompt + all + all) == std::vector<std::string_view>{prompt + all, all});
  CHECK(split_frametimeline_polls("").empty());
  CHECK(split_frametimeline_polls("no frames\n") == std::vector<std::string_view>{"no frames\n"});
}

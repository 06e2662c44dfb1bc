// FrameTimelineTracker on dumps built frame by frame: each app frame counted
// once with its final verdict, overflows and restarts told apart.
#include <catch2/catch.hpp>

#include <vector>

#include "metrics/frametimeline_tracker.h"

using namespace jank::parsers;
using jank::metrics::FrameTimelineTracker;
using jank::metrics::FtFrame;

namespace {

SurfaceFrame frame(std::int64_t token, std::uint32_t jank = 0, FtPresentState present = FtPresentState::presented,
                   FtPresentTiming timing = FtPresentTiming::on_time) {
  SurfaceFrame sf;
  sf.layer = "com.a/com.a.Main#7";
  sf.token = token;
  sf.layer_id = 7;
  sf.owner_pid = 100;
  sf.present = present;
  sf.prediction = FtPrediction::valid;
  sf.jank = jank;
  sf.present_timing = jank != 0 && timing == FtPresentTiming::on_time ? FtPresentTiming::late : timing;
  return sf;
}

// One display frame per surface frame, as an app drawing every vsync.
FrameTimelineDump dump_of(const std::vector<SurfaceFrame>& frames, bool with_count = true) {
  FrameTimelineDump d;
  for (const auto& sf : frames) {
    auto& df = d.display_frames.emplace_back();
    df.index = static_cast<std::int64_t>(d.display_frames.size()) - 1;
    df.surface_frames.push_back(sf);
  }
  if (with_count) d.display_frame_count = static_cast<std::int64_t>(frames.size());
  return d;
}

std::vector<std::int64_t> tokens(const std::vector<FtFrame>& frames) {
  std::vector<std::int64_t> out;
  for (const auto& f : frames) out.push_back(f.token);
  return out;
}

}  // namespace

TEST_CASE("frametimeline tracker: overlapping dumps count each frame once, when judged", "[frametimeline]") {
  FrameTimelineTracker t;
  // 12 is presented but its present fence has not signalled: no verdict yet.
  auto first = t.observe(dump_of({frame(10), frame(11), frame(12, 0, FtPresentState::presented, FtPresentTiming::unknown)}));
  CHECK(tokens(first) == std::vector<std::int64_t>{10, 11});
  CHECK(t.pending() == 1);
  // The next dump shows 12 judged late by the app, and 13.
  auto second = t.observe(dump_of({frame(11), frame(12, kJankAppDeadlineMissed), frame(13)}));
  REQUIRE(tokens(second) == std::vector<std::int64_t>{12, 13});
  CHECK(second[0].jank == kJankAppDeadlineMissed);
  CHECK(second[0].classified);
  CHECK(second[0].layer == "com.a/com.a.Main#7");
  CHECK(t.pending() == 0);
  // The same dump again adds nothing.
  CHECK(t.observe(dump_of({frame(11), frame(12, kJankAppDeadlineMissed), frame(13)})).empty());
  CHECK(t.overflows() == 0);
}

TEST_CASE("frametimeline tracker: a dropped frame is 'dropped' on every version", "[frametimeline]") {
  FrameTimelineTracker t;
  // Android 13 prints a dropped frame's jank as None, 15+ as Dropped Frame.
  auto out = t.observe(dump_of({frame(1, 0, FtPresentState::dropped, FtPresentTiming::unknown),
                                frame(2, kJankDropped, FtPresentState::dropped, FtPresentTiming::unknown)}));
  REQUIRE(out.size() == 2);
  CHECK(out[0].jank == kJankDropped);
  CHECK(out[1].jank == kJankDropped);
}

TEST_CASE("frametimeline tracker: a window after a pause on purpose is no overflow, once", "[frametimeline]") {
  std::vector<SurfaceFrame> a, b, c;
  for (int i = 0; i < 64; ++i) a.push_back(frame(100 + i));
  for (int i = 0; i < 64; ++i) b.push_back(frame(300 + i));
  for (int i = 0; i < 64; ++i) c.push_back(frame(500 + i));
  FrameTimelineTracker t;
  t.observe(dump_of(a));
  t.expect_gap();
  CHECK(t.observe(dump_of(b)).size() == 64);
  CHECK(t.overflows() == 0);
  CHECK(t.observe(dump_of(c)).size() == 64);
  CHECK(t.overflows() == 1);
}

TEST_CASE("frametimeline tracker: a full window without a frame seen before is an overflow", "[frametimeline]") {
  std::vector<SurfaceFrame> a, b, c;
  for (int i = 0; i < 64; ++i) a.push_back(frame(100 + i));
  for (int i = 0; i < 64; ++i) b.push_back(frame(300 + i));
  for (int i = 0; i < 10; ++i) c.push_back(frame(1000 + i));
  FrameTimelineTracker t;
  CHECK(t.observe(dump_of(a)).size() == 64);
  CHECK(t.observe(dump_of(b)).size() == 64);
  CHECK(t.overflows() == 1);
  // Ten frames after a pause: the window is not full, nothing was missed.
  CHECK(t.observe(dump_of(c)).size() == 10);
  CHECK(t.overflows() == 1);
  // A -jank dump has no count line: the display frames it printed decide.
  FrameTimelineTracker j;
  j.observe(dump_of(a, false));
  j.observe(dump_of(b, false));
  CHECK(j.overflows() == 1);
}

TEST_CASE("frametimeline tracker: unjudged frames leaving the window and restarts", "[frametimeline]") {
  FrameTimelineTracker t;
  t.observe(dump_of({frame(4), frame(5, 0, FtPresentState::unknown, FtPresentTiming::unknown)}));
  CHECK(t.pending() == 1);
  auto out = t.observe(dump_of({frame(6), frame(7)}));
  REQUIRE(tokens(out) == std::vector<std::int64_t>{6, 7, 5});
  CHECK_FALSE(out[2].classified);
  CHECK(t.restarts() == 0);

  // Tokens far below the newest: SurfaceFlinger started again; its frames count.
  out = t.observe(dump_of({frame(1), frame(2)}));
  CHECK(tokens(out) == std::vector<std::int64_t>{1, 2});
  CHECK(t.restarts() == 1);
  CHECK(t.overflows() == 0);

  // Frames without a vsync id are never counted; a dump of only those changes nothing.
  CHECK(t.observe(dump_of({frame(-1)})).empty());
  CHECK(t.observe(dump_of({frame(2), frame(3)})).size() == 1);
}

TEST_CASE("frametimeline tracker: a window without a known frame soon after the last poll is a stall, not an overflow",
          "[frametimeline]") {
  // 64 display frames at 120 Hz span at least 533 ms.
  auto full = [](std::int64_t first_token) {
    std::string s = "Number of display frames : 64\n";
    for (int i = 0; i < 64; ++i) {
      s += "Display Frame " + std::to_string(i) + "\nVsync Period:   8.333333\n";
      s += "    Layer - TX - a/a.Main#3\n    Token: " + std::to_string(first_token + i) +
           "\n    Layer ID : 3\n    Present State : Presented\n    Prediction State : Valid\n    Jank Type : None\n"
           "    Present Metadata : On Time Present\n";
    }
    return jank::parsers::parse_frametimeline(s);
  };
  jank::metrics::FrameTimelineTracker t;
  t.observe(full(1000));
  // 300 ms later: the app stalled, other layers filled the window; nothing was missed.
  t.observe(full(2000), 300'000'000);
  CHECK(t.overflows() == 0);
  // 540 ms is past the shortest span (533 ms): it may have missed frames.
  t.observe(full(3000), 540'000'000);
  CHECK(t.overflows() == 1);
  // Without host time (replay): every such window counts.
  t.observe(full(4000));
  CHECK(t.overflows() == 2);
}

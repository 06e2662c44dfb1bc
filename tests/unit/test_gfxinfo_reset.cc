// gfxinfo.reset_after_poll: each poll reads and then resets the app's
// counters, so each dump is one poll interval standing alone. Frames are
// neither lost nor counted twice across the resets, whether or not the
// release prints "Stats since".
#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>

#include "metrics/store.h"
#include "tests/unit/gfxinfo_state.h"

using namespace jank;
using test::gfx;

namespace {

parsers::GfxStats window_of(std::uint64_t frames, std::uint64_t janky, std::optional<std::uint64_t> since) {
  parsers::GfxStats s;
  s.stats_since_ns = since;
  s.total_frames = frames;
  s.janky_frames = janky;
  s.missed_vsync = janky / 2;
  s.histogram = {{5, frames - janky}, {40, janky}};
  return s;
}

// framestats rows (Flags, IntendedVsync, FrameCompleted) of `n` frames from `first`, 10 ms apart, 5 ms long.
parsers::FramestatsTable rows(std::int64_t first, int n) {
  parsers::FramestatsTable t;
  t.columns = {"Flags", "IntendedVsync", "FrameCompleted"};
  for (int i = 0; i < n; ++i) {
    const std::int64_t v = first + i * 10'000'000;
    t.rows.push_back({0, v, v + 5'000'000});
  }
  return t;
}

parsers::GfxinfoDump dump_of(const parsers::GfxStats& stats, const parsers::FramestatsTable& table) {
  parsers::GfxinfoDump d;
  parsers::GfxProcess p;
  p.pid = 42;
  p.package = "com.example.feed";
  p.stats = stats;
  parsers::GfxWindow w;
  w.name = "com.example.feed/com.example.feed.MainActivity";
  w.framestats = table;
  p.windows.push_back(w);
  d.processes.push_back(p);
  return d;
}

}  // namespace

TEST_CASE("gfxinfo reset after poll: every window of frames counted once without Stats since", "[gfxinfo][reset]") {
  // Three poll windows of 100, 150 (more than the first: without knowing of
  // the reset it would read as the same baseline grown by 50) and 0 frames.
  metrics::GfxinfoTracker t;
  t.apply(window_of(100, 10, std::nullopt));
  t.note_reset();
  t.apply(window_of(150, 30, std::nullopt));
  t.note_reset();
  t.apply(window_of(0, 0, std::nullopt));
  t.note_reset();
  t.apply(window_of(7, 1, std::nullopt));
  CHECK(t.frames_rendered() == 257);
  CHECK(t.janky_frames() == 41);
  CHECK(t.causes()[static_cast<std::size_t>(metrics::JankCause::missed_vsync)] == 5 + 15 + 0 + 0);
  CHECK(t.frame_duration().count() == 257);
  CHECK(t.baseline_resets() == 0);  // our own resets are no surprise

  // The loss the note prevents: the same dumps with nobody told.
  metrics::GfxinfoTracker blind;
  blind.apply(window_of(100, 10, std::nullopt));
  blind.apply(window_of(150, 30, std::nullopt));
  CHECK(blind.frames_rendered() == 150);
}

TEST_CASE("gfxinfo reset after poll: with Stats since and between resets the counts are exact", "[gfxinfo][reset]") {
  metrics::GfxinfoTracker t;
  t.apply(window_of(100, 10, 1000));
  t.note_reset();
  t.apply(window_of(40, 4, 2000));
  // A poll whose reset failed (a timeout): the next dump continues the
  // baseline the device kept and adds only what grew.
  t.apply(window_of(55, 6, 2000));
  CHECK(t.frames_rendered() == 155);
  CHECK(t.janky_frames() == 16);
  // Another tool's reset, unannounced: "Stats since" changes, a new baseline.
  t.apply(window_of(20, 1, 3000));
  CHECK(t.frames_rendered() == 175);
  CHECK(t.baseline_resets() == 1);
}

TEST_CASE("gfxinfo reset after poll: framestats rows after a reset are all new and overflow only when full",
          "[gfxinfo][reset]") {
  metrics::FramestatsTracker f;
  f.apply("w", rows(1'000'000'000, 50), 16'666'667);
  f.note_reset();
  // The next table starts after the reset: no overlap is expected.
  f.apply("w", rows(3'000'000'000, 30), 16'666'667);
  CHECK(f.frames() == 80);
  CHECK(f.overflows() == 0);
  // An ordinary poll after it overlaps as always.
  f.apply("w", rows(3'000'000'000, 40), 16'666'667);
  CHECK(f.frames() == 90);
  CHECK(f.overflows() == 0);
  // A full ring after a reset: frames went by unseen.
  f.note_reset();
  f.apply("w", rows(9'000'000'000, 120), 16'666'667);
  CHECK(f.frames() == 210);
  CHECK(f.overflows() == 1);
  // Without the note, a table after a reset reads as an overflow.
  metrics::FramestatsTracker blind;
  blind.apply("w", rows(1'000'000'000, 50), 16'666'667);
  blind.apply("w", rows(3'000'000'000, 30), 16'666'667);
  CHECK(blind.overflows() == 1);
}

TEST_CASE("gfxinfo reset after poll: the store counts each dump whole when told of the reset", "[gfxinfo][reset]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_gfxinfo(store, d, dump_of(window_of(100, 10, std::nullopt), rows(1'000'000'000, 100)), true);
  metrics::record_gfxinfo(store, d, dump_of(window_of(120, 12, std::nullopt), rows(5'000'000'000, 110)), true);
  metrics::record_gfxinfo(store, d, dump_of(window_of(3, 0, std::nullopt), rows(9'000'000'000, 3)), false);
  const auto& p = d.packages.at("com.example.feed");
  CHECK(gfx(p).gfxinfo.frames_rendered() == 223);
  CHECK(gfx(p).gfxinfo.janky_frames() == 22);
  CHECK(gfx(p).framestats.frames() == 213);
  CHECK(gfx(p).framestats.overflows() == 0);
  // Not told (reset_after false) the next dump is judged as usual.
  metrics::record_gfxinfo(store, d, dump_of(window_of(5, 0, std::nullopt), rows(9'000'000'000, 5)));
  CHECK(gfx(p).gfxinfo.frames_rendered() == 225);
  CHECK(gfx(p).framestats.frames() == 215);
}

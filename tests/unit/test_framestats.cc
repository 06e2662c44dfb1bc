#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "parsers/framestats.h"

using jank::parsers::FramestatsTable;
using jank::parsers::parse_framestats_block;

namespace {

// Android 13/14 layout (23 columns, trailing comma), values made up but with
// the special values real devices print: -1 vsync id, -2 present time,
// INT64_MAX deadline.
constexpr std::string_view kBlock23 =
    "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,"
    "AnimationStart,PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,"
    "FrameStartTime,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,"
    "DequeueBufferDuration,QueueBufferDuration,GpuCompleted,SwapBuffersCompleted,"
    "DisplayPresentTime,CommandSubmissionCompleted,\n"
    "1,64589,100,110,0,120,121,122,130,9223372036854775807,16666667,115,140,141,142,150,160,"
    "5,6,170,171,-2,158,\n"
    "0,-1,200,200,0,210,211,212,220,216,16666667,205,230,231,232,240,250,5,6,260,261,-2,248,\n"
    "0,65082,300,300,0,310,311,312,320,316,16666667,305,330,331,332,340,350,5,6,360,361,370,348,\n";

}  // namespace

TEST_CASE("framestats: 23-column header with trailing comma", "[framestats]") {
  FramestatsTable t = parse_framestats_block(kBlock23);
  REQUIRE(t.columns.size() == 23);
  CHECK(t.columns.front() == "Flags");
  CHECK(t.columns.back() == "CommandSubmissionCompleted");
  CHECK(t.column("Flags") == std::optional<std::size_t>(0));
  CHECK(t.column("IntendedVsync") == std::optional<std::size_t>(2));
  CHECK(t.column("FrameCompleted") == std::optional<std::size_t>(16));
  CHECK_FALSE(t.column("WorkloadTarget").has_value());
  CHECK_FALSE(t.column("").has_value());
  REQUIRE(t.rows.size() == 3);
  CHECK(t.malformed_rows == 0);
  CHECK_FALSE(t.closed);  // markers are the caller's business
  for (const auto& r : t.rows) CHECK(r.size() == 23);
  CHECK(t.rows[0][0] == 1);
  CHECK(t.rows[0][9] == INT64_MAX);
  CHECK(t.rows[0][21] == -2);
  CHECK(t.rows[1][1] == -1);
  CHECK(t.rows[2][16] == 350);
}

TEST_CASE("framestats: Android 6/7 header of 14 columns without trailing comma", "[framestats]") {
  FramestatsTable t = parse_framestats_block(
      "Flags,IntendedVsync,Vsync,OldestInputEvent,NewestInputEvent,HandleInputStart,"
      "AnimationStart,PerformTraversalsStart,DrawStart,SyncQueued,SyncStart,"
      "IssueDrawCommandsStart,SwapBuffers,FrameCompleted\n"
      "0,1,2,3,4,5,6,7,8,9,10,11,12,13\n"
      "0,1,2,3,4,5,6,7,8,9,10,11,12,13,\n");  // a trailing comma on a row is fine too
  CHECK(t.columns.size() == 14);
  CHECK(t.column("FrameCompleted") == std::optional<std::size_t>(13));
  CHECK(t.rows.size() == 2);
  CHECK(t.malformed_rows == 0);
}

TEST_CASE("framestats: rows with the wrong width or a bad cell are dropped and counted",
          "[framestats]") {
  FramestatsTable t = parse_framestats_block(
      "Flags,IntendedVsync,FrameCompleted,\n"
      "0,1,2,\n"
      "0,1,\n"                        // too few
      "0,1,2,3,\n"                    // too many
      "0,1.5,2,\n"                    // not an integer
      "0,,2,\n"                       // empty cell
      "0,9223372036854775808,2,\n"    // overflow
      "0,x,2,\n"                      // text
      "0, 7 ,8,\n");                  // spaces around cells are tolerated
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[1] == std::vector<std::int64_t>{0, 7, 8});
  CHECK(t.malformed_rows == 6);
}

TEST_CASE("framestats: profile-data rows are skipped silently", "[framestats]") {
  FramestatsTable t = parse_framestats_block(
      "\tDraw\tPrepare\tProcess\tExecute\n"
      "\t50.00\t1.20\t3.40\t5.60\n"
      "Flags,IntendedVsync,\n"
      "0,5,\n"
      "\t2.00\t0.20\t0.40\t0.60\n");
  CHECK(t.columns.size() == 2);
  CHECK(t.rows.size() == 1);
  CHECK(t.malformed_rows == 0);
}

TEST_CASE("framestats: CRLF, indentation and blank lines", "[framestats]") {
  FramestatsTable t = parse_framestats_block(
      "\r\n  Flags,IntendedVsync,Vsync,\r\n\r\n  0,10,20,\r\n\t1,30,40,\r\n  ");
  CHECK(t.columns == std::vector<std::string>{"Flags", "IntendedVsync", "Vsync"});
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[1] == std::vector<std::int64_t>{1, 30, 40});
  CHECK(t.malformed_rows == 0);
}

TEST_CASE("framestats: header only and empty blocks", "[framestats]") {
  FramestatsTable header_only = parse_framestats_block("Flags,IntendedVsync,\n");
  CHECK(header_only.columns.size() == 2);
  CHECK(header_only.rows.empty());
  CHECK(header_only.malformed_rows == 0);

  FramestatsTable empty = parse_framestats_block("");
  CHECK(empty.columns.empty());
  CHECK(empty.rows.empty());
  CHECK(empty.malformed_rows == 0);
}

TEST_CASE("framestats: a block without header cannot be mapped, every row counts as malformed",
          "[framestats]") {
  FramestatsTable t = parse_framestats_block("0,1,2,\n0,3,4,\n");
  CHECK(t.columns.empty());
  CHECK(t.rows.empty());
  CHECK(t.malformed_rows == 2);
}

TEST_CASE("framestats: row count is capped and the excess counted", "[framestats]") {
  std::string block = "Flags,IntendedVsync,\n";
  for (int i = 0; i < 5000; ++i) block += "0," + std::to_string(i) + ",\n";
  FramestatsTable t = parse_framestats_block(block);
  CHECK(t.rows.size() == 4096);
  CHECK(t.malformed_rows == 5000 - 4096);
  CHECK(t.rows.back()[1] == 4095);
}

TEST_CASE("framestats: random bytes never crash", "[framestats]") {
  std::mt19937 rng(99);
  std::uniform_int_distribution<int> pick(0, 15);
  // A small alphabet makes header-like and row-like lines likely.
  const char alphabet[] = "0123456789,-\n\tFx";
  for (int round = 0; round < 300; ++round) {
    std::string junk(2048, '\0');
    for (char& c : junk) c = alphabet[pick(rng)];
    FramestatsTable t = parse_framestats_block(junk);
    for (const auto& r : t.rows) CHECK(r.size() == t.columns.size());
  }
}

// Unit tests for the message extractors (skipped frames, Davey, process
// lifecycle). Fixture messages are hand-written from the formats that
// Choreographer, HWUI and ActivityManager print; none is copied from the corpus.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "parsers/logcat_events.h"
#include "parsers/logcat_line.h"

using jank::parsers::DaveyFrame;
using jank::parsers::detect_log_line;
using jank::parsers::parse_davey;
using jank::parsers::parse_process_event;
using jank::parsers::parse_skipped_frames;
using jank::parsers::ProcessEvent;

namespace {
constexpr std::string_view kTail = "The application may be doing too much work on its main thread.";
constexpr std::int64_t kMax = 9223372036854775807;

std::string skipped(std::string_view n, std::string_view gap = "  ") {
  return "Skipped " + std::string(n) + " frames!" + std::string(gap) + std::string(kTail);
}
}  // namespace

TEST_CASE("skipped frames: accepted shapes", "[events]") {
  CHECK(parse_skipped_frames("Choreographer", skipped("42")) == 42u);
  CHECK(parse_skipped_frames("Choreographer   ", skipped("1")) == 1u);  // padded tag
  CHECK(parse_skipped_frames(" Choreographer", skipped("30")) == 30u);
  CHECK(parse_skipped_frames("Choreographer", skipped("7", " ")) == 7u);  // one space
  // final period missing
  CHECK(parse_skipped_frames("Choreographer",
                             "Skipped 613 frames!  The application may be doing too much work on "
                             "its main thread") == 613u);
  CHECK(parse_skipped_frames("Choreographer", skipped("5") + "  ") == 5u);  // trailing blanks
  CHECK(parse_skipped_frames("Choreographer", "Skipped 9 frames!") == 9u);
  CHECK(parse_skipped_frames("Choreographer", skipped("4294967295")) == 4294967295u);
}

TEST_CASE("skipped frames: traps", "[events]") {
  CHECK_FALSE(
      parse_skipped_frames("Choreographer",
                           "Frame time is 0.177288 ms in the future!  Check that graphics HAL "
                           "is generating vsync timestamps using the correct timebase."));
  CHECK_FALSE(parse_skipped_frames(
      "WindowAnimator", "\tat android.view.Choreographer.doFrame(Choreographer.java:606)"));
  CHECK_FALSE(parse_skipped_frames(
      "Choreographer", "\tat android.view.Choreographer.doFrame(Choreographer.java:606)"));
  CHECK_FALSE(parse_skipped_frames(
      "", "c4      1 init: Skipped setting INIT_AVB_VERSION (not in recovery mode)"));
  CHECK_FALSE(parse_skipped_frames("init", "Skipped setting INIT_AVB_VERSION"));
  CHECK_FALSE(parse_skipped_frames(
      "Looper", "Slow dispatch took 343ms h=android.view.Choreographer$FrameHandler"));
  CHECK_FALSE(parse_skipped_frames("MyApp", skipped("42")));
  CHECK_FALSE(parse_skipped_frames("Choreographer2", skipped("42")));
  CHECK_FALSE(parse_skipped_frames("choreographer", skipped("42")));
  CHECK_FALSE(parse_skipped_frames("Choreographer", skipped("0")));
  CHECK_FALSE(parse_skipped_frames("Choreographer", skipped("-3")));
  CHECK_FALSE(parse_skipped_frames("Choreographer", skipped("4294967296")));
  CHECK_FALSE(parse_skipped_frames("Choreographer", skipped("99999999999999999999999")));
  CHECK_FALSE(parse_skipped_frames("Choreographer", "Skipped frames!  x"));
  CHECK_FALSE(parse_skipped_frames("Choreographer", "Skipped 12 frames! Something else entirely"));
  CHECK_FALSE(parse_skipped_frames("Choreographer", "Skipped 12 frames"));
  CHECK_FALSE(parse_skipped_frames("Choreographer", "Skipped 12 frames!x"));
  CHECK_FALSE(parse_skipped_frames("Choreographer", ""));
}

TEST_CASE("skipped frames through line parsing", "[events]") {
  const std::string line = "01-02 03:04:05.678  1338  1357 I Choreographer: " + skipped("31");
  auto l = detect_log_line(line);
  REQUIRE(l);
  CHECK(parse_skipped_frames(l->tag, l->message) == 31u);
  auto w = detect_log_line(
      "01-02 03:04:05.678  1834  1905 W Choreographer: Frame time is 0.1 ms in the future!  Check");
  REQUIRE(w);
  CHECK_FALSE(parse_skipped_frames(w->tag, w->message));
  const std::string studio =
      "2024-01-02 03:04:05.678  1-1  Choreographer   com.x   I  " + skipped("56");
  auto s = detect_log_line(studio);
  REQUIRE(s);
  CHECK(parse_skipped_frames(s->tag, s->message) == 56u);
}

TEST_CASE("Davey: Android 9-11 field set with trailing ', '", "[events]") {
  auto d =
      parse_davey("OpenGLRenderer",
                  "Davey! duration=2218ms; Flags=0, IntendedVsync=1000, Vsync=1100, "
                  "OldestInputEvent=9223372036854775807, NewestInputEvent=0, "
                  "HandleInputStart=1200, AnimationStart=1300, PerformTraversalsStart=1400, "
                  "DrawStart=1500, SyncQueued=1600, SyncStart=1700, IssueDrawCommandsStart=1800, "
                  "SwapBuffers=1900, FrameCompleted=2219001000, DequeueBufferDuration=300, "
                  "QueueBufferDuration=400, ");
  REQUIRE(d);
  CHECK(d->duration_ms == 2218);
  CHECK(d->duration_valid);  // OldestInputEvent=INT64_MAX is normal, not garbage
  CHECK(d->flags == 0);
  CHECK(d->intended_vsync == 1000);
  CHECK(d->frame_completed == 2219001000);
}

TEST_CASE("Davey: Android 12+ HWUI field set with trailing ','", "[events]") {
  auto d = parse_davey("HWUI   ",
                       "Davey! duration=1597ms; Flags=1, FrameTimelineVsyncId=371352, "
                       "IntendedVsync=12836890257900, Vsync=12837890257860, InputEventId=0, "
                       "FrameDeadline=12836906924566, FrameStartTime=16666666, "
                       "FrameInterval=12837893999999, WorkloadTarget=16666666, "
                       "FrameCompleted=12838487901234, GpuCompleted=12838487000000, "
                       "DisplayPresentTime=-1, CommandSubmissionCompleted=12838480000000,");
  REQUIRE(d);
  CHECK(d->duration_ms == 1597);
  CHECK(d->duration_valid);
  CHECK(d->flags == 1);
  CHECK(d->intended_vsync == 12836890257900);
  CHECK(d->frame_completed == 12838487901234);
}

TEST_CASE("Davey: garbage durations", "[events]") {
  auto fc = parse_davey("OpenGLRenderer",
                        "Davey! duration=9223360591227ms; Flags=0, IntendedVsync=11444000000, "
                        "FrameCompleted=9223372036854775807, GpuCompleted=9223372036854775807,");
  REQUIRE(fc);
  CHECK(fc->duration_ms == 9223360591227);
  CHECK_FALSE(fc->duration_valid);
  CHECK(fc->frame_completed == kMax);

  auto gpu = parse_davey(
      "OpenGLRenderer",
      "Davey! duration=800ms; Flags=0, FrameCompleted=5, GpuCompleted=9223372036854775807, ");
  REQUIRE(gpu);
  CHECK(gpu->duration_ms == 800);
  CHECK_FALSE(gpu->duration_valid);

  auto hour = parse_davey("HWUI", "Davey! duration=3600001ms; Flags=0, ");
  REQUIRE(hour);
  CHECK_FALSE(hour->duration_valid);
  auto edge = parse_davey("HWUI", "Davey! duration=3600000ms; Flags=0, ");
  REQUIRE(edge);
  CHECK(edge->duration_valid);
}

TEST_CASE("Davey: partial and malformed", "[events]") {
  auto bare = parse_davey("HWUI", "Davey! duration=750ms;");
  REQUIRE(bare);
  CHECK(bare->duration_ms == 750);
  CHECK(bare->flags == -1);
  CHECK(bare->intended_vsync == -1);
  CHECK(bare->frame_completed == -1);
  CHECK(bare->duration_valid);

  // A bad pair is skipped, the rest still read.
  auto bad = parse_davey("HWUI",
                         "Davey! duration=750ms; Flags=x, IntendedVsync=99999999999999999999, "
                         "Junk, =3, FrameCompleted=-5,");
  REQUIRE(bad);
  CHECK(bad->flags == -1);
  CHECK(bad->intended_vsync == -1);
  CHECK(bad->frame_completed == -5);

  CHECK_FALSE(parse_davey("MyApp", "Davey! duration=750ms; Flags=0, "));
  CHECK_FALSE(parse_davey("OpenGLRenderer", "Davey! duration=ms; Flags=0, "));
  CHECK_FALSE(parse_davey("OpenGLRenderer", "Davey! duration=750; Flags=0, "));
  CHECK_FALSE(parse_davey("OpenGLRenderer", "Davey! duration=-750ms; Flags=0, "));
  CHECK_FALSE(parse_davey("OpenGLRenderer", "Davey! duration=99999999999999999999ms;"));
  CHECK_FALSE(parse_davey("OpenGLRenderer", "Davey!"));
  CHECK_FALSE(parse_davey("OpenGLRenderer", "Not a Davey! duration=750ms;"));
}

TEST_CASE("process events: ActivityManager text", "[events]") {
  using K = ProcessEvent::Kind;
  auto s = parse_process_event(
      "ActivityManager",
      "Start proc 17790:com.example.app/u0a47 for activity com.example.app/.Main");
  REQUIRE(s);
  CHECK(s->kind == K::start);
  CHECK(s->pid == 17790);
  CHECK(s->process == "com.example.app");

  auto r = parse_process_event(
      "ActivityManager",
      "Start proc 392:com.example.app:remote/1000 for service {com.example.app/x.Y}");
  REQUIRE(r);
  CHECK(r->process == "com.example.app:remote");
  CHECK(r->pid == 392);

  auto w = parse_process_event("ActivityManager",
                               "Start proc 487:WebViewLoader-x86/1037 "
                               "[android.webkit.WebViewLibraryLoader$RelroFileCreator] for null");
  REQUIRE(w);
  CHECK(w->process == "WebViewLoader-x86");

  auto old =
      parse_process_event("ActivityManager",
                          "Start proc com.example.app for activity com.example.app/.Main: pid=1234 "
                          "uid=10045 gids={50045, 3003}");
  REQUIRE(old);
  CHECK(old->kind == K::start);
  CHECK(old->pid == 1234);
  CHECK(old->process == "com.example.app");

  auto d = parse_process_event("ActivityManager", "Process com.example.app (pid 17790) has died");
  REQUIRE(d);
  CHECK(d->kind == K::death);
  CHECK(d->pid == 17790);
  CHECK(d->process == "com.example.app");
  auto ds = parse_process_event("ActivityManager ",
                                "Process .ImsService (pid 3249) has died: cch+99 CEM ");
  REQUIRE(ds);
  CHECK(ds->process == ".ImsService");
  CHECK(ds->pid == 3249);
  CHECK(parse_process_event("ActivityManager", "Process a.b (pid 2) has died: cch+4CEM "));
  CHECK(parse_process_event("ActivityManager", "Process a.b (pid 2) has died."));

  auto k = parse_process_event("ActivityManager",
                               "Killing 1064:com.android.systemui/u0a19 (adj -12): bg anr");
  REQUIRE(k);
  CHECK(k->kind == K::death);
  CHECK(k->pid == 1064);
  CHECK(k->process == "com.android.systemui");
  auto k9 = parse_process_event("ActivityManager", "Killing 3543:com.x/u0a26 (adj 906): empty #17");
  REQUIRE(k9);
  CHECK(k9->pid == 3543);
}

TEST_CASE("process events: event-log tags", "[events]") {
  using K = ProcessEvent::Kind;
  auto s = parse_process_event(
      "am_proc_start", "[0,2420,10086,com.android.systemui,service,{com.android.systemui/x.Y}]");
  REQUIRE(s);
  CHECK(s->kind == K::start);
  CHECK(s->pid == 2420);
  CHECK(s->process == "com.android.systemui");
  auto e = parse_process_event("am_proc_start", "[0,2625,1037,WebViewLoader-armeabi-v7a,,]");
  REQUIRE(e);
  CHECK(e->pid == 2625);
  CHECK(e->process == "WebViewLoader-armeabi-v7a");
  auto sp = parse_process_event("am_proc_start",
                                "[0,2674,1068,com.android.se,added application,com.android.se]");
  REQUIRE(sp);
  CHECK(sp->process == "com.android.se");
  // Pre-4.2 payload without the user field.
  auto o = parse_process_event("am_proc_start", "[4869,10057,com.x,broadcast,com.x/.R]");
  REQUIRE(o);
  CHECK(o->pid == 4869);
  CHECK(o->process == "com.x");

  auto d3 = parse_process_event("am_proc_died", "[0,4562,com.google.android.marvin.talkback]");
  REQUIRE(d3);
  CHECK(d3->kind == K::death);
  CHECK(d3->pid == 4562);
  CHECK(d3->process == "com.google.android.marvin.talkback");
  auto d5 = parse_process_event("am_proc_died ", "[0,2625,WebViewLoader-armeabi-v7a,-700,0]");
  REQUIRE(d5);
  CHECK(d5->pid == 2625);
  auto kill =
      parse_process_event("am_kill ", "[0,3469,com.android.providers.calendar,905,empty #1]");
  REQUIRE(kill);
  CHECK(kill->kind == K::death);
  CHECK(kill->pid == 3469);
  CHECK(kill->process == "com.android.providers.calendar");
  auto oldkill = parse_process_event("am_kill", "[4562,com.x,15,empty #17]");
  REQUIRE(oldkill);
  CHECK(oldkill->pid == 4562);
  CHECK(oldkill->process == "com.x");

  CHECK_FALSE(parse_process_event("am_proc_bound", "[0,2420,com.android.systemui]"));
  CHECK_FALSE(parse_process_event("am_on_paused_called", "[0,com.x.Main,handlePauseActivity]"));
  CHECK_FALSE(parse_process_event("am_proc_start", "0,2420,10086,com.x,service,y"));
  CHECK_FALSE(parse_process_event("am_proc_start", "[0,x,10086,com.x,service,y]"));
  CHECK_FALSE(parse_process_event("am_proc_died", "[0,99999999999,com.x]"));
  CHECK_FALSE(parse_process_event("am_proc_died", "[0,12,]"));
  CHECK_FALSE(parse_process_event("am_kill", "[]"));
}

TEST_CASE("process events: traps", "[events]") {
  CHECK_FALSE(parse_process_event("MountService", "An IMountServiceListener has died!"));
  CHECK_FALSE(parse_process_event("MyService", "Process com.x (pid 12) has died"));
  CHECK_FALSE(parse_process_event("MyService", "Start proc 1:com.x/u0a1 for activity"));
  CHECK_FALSE(parse_process_event("ActivityManager", "Displayed com.x/.Main: +1s147ms"));
  CHECK_FALSE(parse_process_event("ActivityManager", "Process com.x (pid 12) is alive"));
  CHECK_FALSE(parse_process_event("ActivityManager", "Process com.x (pid -12) has died"));
  CHECK_FALSE(parse_process_event("ActivityManager", "Process com.x (pid 2147483648) has died"));
  CHECK_FALSE(parse_process_event("ActivityManager", "Process  (pid 12) has died"));
  CHECK_FALSE(parse_process_event("ActivityManager", "Start proc 12:com.x for activity"));
  CHECK_FALSE(parse_process_event("ActivityManager", "Start proc com.x for activity com.x/.M"));
  CHECK_FALSE(parse_process_event("ActivityManager", "Start proc :com.x/1000 for activity"));
  CHECK_FALSE(parse_process_event("ActivityManager", "Killing com.x (adj 5): reason"));
  CHECK_FALSE(parse_process_event("ActivityManager", "Unable to start service Intent { act=x }"));
  CHECK_FALSE(parse_process_event("chatty", "uid=1000(system) ActivityManager expire 4 lines"));
  CHECK_FALSE(parse_process_event("", ""));
}

TEST_CASE("process events through line parsing with -v uid", "[events]") {
  auto l = detect_log_line(
      "12-09 17:03:13.042  1000   832  2407 I ActivityManager: Killing "
      "5980:android.process.media/u0a25 "
      "(adj 905): empty #1");
  REQUIRE(l);
  CHECK(l->uid == 1000);
  CHECK(l->pid == 832);
  auto e = parse_process_event(l->tag, l->message);
  REQUIRE(e);
  CHECK(e->pid == 5980);
  CHECK(e->process == "android.process.media");

  auto a = detect_log_line(
      "12-09 16:07:59.716  1000   832   832 I am_kill : [0,3469,com.x,905,empty #1]");
  REQUIRE(a);
  auto ae = parse_process_event(a->tag, a->message);
  REQUIRE(ae);
  CHECK(ae->pid == 3469);
}

// Device commands named by kind for their cost series: the commands the
// session parts build, each to its kind.
#include <catch2/catch.hpp>

#include "app/session/command_kind.h"
#include "app/session/perfetto_commands.h"
#include "app/session/gfxinfo_poller.h"
#include "config/config.h"
#include "ingest/protocol.h"
#include "parsers/resource_files.h"

using jank::app::command_kind;

TEST_CASE("command kinds: every command a session builds has its kind") {
  jank::config::Config c;
  CHECK(command_kind(jank::parsers::resource_command({{42}, jank::parsers::CpufreqLayout::policy, true})) == "resources");
  CHECK(command_kind(jank::app::gfxinfo_command(c, "com.example.feed")) == "gfxinfo");
  CHECK(command_kind(jank::ingest::quote_args({"dumpsys", "SurfaceFlinger", "--latency", "SurfaceView - a#0"})) ==
        "sf_latency");
  CHECK(command_kind("dumpsys SurfaceFlinger --list") == "sf_list");
  CHECK(command_kind("dumpsys SurfaceFlinger --frametimeline -all | grep -e 'Layer - '") == "frametimeline");
  CHECK(command_kind("dumpsys SurfaceFlinger --timestats -dump -enable") == "timestats");
  CHECK(command_kind("dumpsys SurfaceFlinger") == "surfaceflinger");
  CHECK(command_kind("dumpsys power | grep -e mWakefulness=") == "power");
  CHECK(command_kind("dumpsys thermalservice") == "thermal");
  CHECK(command_kind("dumpsys battery") == "battery");
  CHECK(command_kind("dumpsys window displays") == "window");
  CHECK(command_kind("dumpsys display") == "display");
  CHECK(command_kind(jank::ingest::quote_args({"dumpsys", "package", "com.a"}) + " | grep -F -e x") == "package");
  CHECK(command_kind("getprop") == "getprop");
  CHECK(command_kind(jank::ingest::quote_args({"setprop", "debug.choreographer.skipwarning", "1"})) == "setprop");
  CHECK(command_kind("ps -A") == "ps");
  CHECK(command_kind("ps") == "ps");
  CHECK(command_kind("psych") == "other");
  CHECK(command_kind("export ANDROID_LOG_TAGS=\"''\"; exec logcat '-v' 'threadtime' '-d' '-t' '1'") == "logcat");
  CHECK(command_kind(jank::app::perfetto::list_command()) == "perfetto");
  CHECK(command_kind(jank::app::perfetto::trigger_command()) == "perfetto");
  CHECK(command_kind(jank::app::perfetto::pull_command()) == "perfetto");
  CHECK(command_kind(jank::app::perfetto::alive_command(77)) == "perfetto");
  CHECK(command_kind(jank::app::perfetto::kill_command(77)) == "perfetto");
  CHECK(command_kind("echo alive") == "probe");
  CHECK(command_kind("") == "other");
}

TEST_CASE("command kinds: the frame-by-frame ones are those reading windows that move on") {
  jank::config::Config c;
  CHECK(jank::app::is_frame_by_frame(jank::app::gfxinfo_command(c, "com.example.feed", true)));
  CHECK_FALSE(jank::app::is_frame_by_frame(jank::app::gfxinfo_command(c, "com.example.feed", false)));
  CHECK(jank::app::is_frame_by_frame(jank::ingest::quote_args({"dumpsys", "SurfaceFlinger", "--latency", "a#0"})));
  CHECK(jank::app::is_frame_by_frame("dumpsys SurfaceFlinger --frametimeline -all | grep -e 'Layer - '"));
  CHECK_FALSE(jank::app::is_frame_by_frame("dumpsys SurfaceFlinger --timestats -dump -enable"));
  CHECK_FALSE(jank::app::is_frame_by_frame("dumpsys graphicsstats"));
  CHECK_FALSE(jank::app::is_frame_by_frame("dumpsys SurfaceFlinger --list"));
}

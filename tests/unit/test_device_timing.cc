// A command's time on the device, by the device's shell (app/session/
// device_timing.h): the stamps wrapped around it, taken back out of stderr,
// the command's exit status carried by the closing stamp, and every answer
// that is not two readable stamps within the host's bound counted as such.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "app/session/device_timing.h"

using jank::app::DeviceTimeResult;
using jank::app::take_device_time;
using jank::app::timed_command;
using namespace std::chrono_literals;

namespace {

jank::ingest::ShellResult answer(std::string err, std::string out = "rows\n") {
  jank::ingest::ShellResult r;
  r.output = std::move(out);
  r.exit_code = 0;  // the closing echo's, never the command's
  r.error_output = err.substr(0, jank::ingest::kMaxErrorOutput);
  r.error_tail = err.size() > jank::ingest::kErrorTail ? err.substr(err.size() - jank::ingest::kErrorTail) : err;
  return r;
}

}  // namespace

TEST_CASE("device timing: the command runs between two mksh stamps on stderr", "[device_timing]") {
  CHECK(timed_command("dumpsys gfxinfo 'com.a' framestats") ==
        "echo \"@jank_exporter_time $EPOCHREALTIME\" >&2; dumpsys gfxinfo 'com.a' framestats; "
        "echo \"@jank_exporter_time $? $EPOCHREALTIME\" >&2");
}

TEST_CASE("device timing: the stamps come out, the time and the exit status are the command's", "[device_timing]") {
  auto r = answer("@jank_exporter_time 1700000000.250000\nwarning: slow\n@jank_exporter_time 3 1700000000.262500\n");
  const auto t = take_device_time(r, 100ms);
  CHECK(t.result == DeviceTimeResult::timed);
  CHECK(t.took == 12500us);
  CHECK(r.exit_code == 3);
  CHECK(r.error_output == "warning: slow\n");
  CHECK(r.output == "rows\n");

  // Across a second boundary, and a command whose stderr had no line end.
  r = answer("@jank_exporter_time 1700000000.999990\nno newline@jank_exporter_time 0 1700000001.000010\n");
  const auto t2 = take_device_time(r, 1s);
  CHECK(t2.result == DeviceTimeResult::timed);
  CHECK(t2.took == 20us);
  CHECK(r.exit_code == 0);
  CHECK(r.error_output == "no newline");
}

TEST_CASE("device timing: a flood of stderr keeps the closing stamp in the tail", "[device_timing]") {
  const std::string flood(5000, 'x'), opening = "@jank_exporter_time 1700000000.000000\n";
  auto r = answer(opening + flood + "\n@jank_exporter_time 1 1700000000.004000\n");
  const auto t = take_device_time(r, 1s);
  CHECK(t.result == DeviceTimeResult::timed);
  CHECK(t.took == 4ms);
  CHECK(r.exit_code == 1);
  CHECK(r.error_output == std::string(jank::ingest::kMaxErrorOutput - opening.size(), 'x'));  // the command's own, cut
}

TEST_CASE("device timing: answers without two readable stamps or beyond the host's wait are not timed",
          "[device_timing]") {
  SECTION("no closing stamp: the script never got there, the shell's status stands") {
    auto r = answer("@jank_exporter_time 1700000000.000000\n");
    r.exit_code = 137;
    CHECK(take_device_time(r, 1s).result == DeviceTimeResult::unstamped);
    CHECK(r.exit_code == 137);
    CHECK(r.error_output.empty());
  }
  SECTION("a shell that could not run the script at all") {
    auto r = answer("/system/bin/sh: echo: can't execute: I/O error\n");
    r.exit_code = 126;
    CHECK(take_device_time(r, 1s).result == DeviceTimeResult::unstamped);
    CHECK(r.exit_code == 126);
    CHECK(r.error_output == "/system/bin/sh: echo: can't execute: I/O error\n");
  }
  SECTION("a shell without EPOCHREALTIME: the status still comes through") {
    auto r = answer("@jank_exporter_time \n@jank_exporter_time 2 \n");
    CHECK(take_device_time(r, 1s).result == DeviceTimeResult::unstamped);
    CHECK(r.exit_code == 2);
  }
  SECTION("values that are no time") {
    for (const char* bad : {"1700000000.5", "-1.000000", "x.000000", "99999999999999999999.000000", "1.0000001"}) {
      auto r = answer(std::string("@jank_exporter_time ") + bad + "\n@jank_exporter_time 0 1700000000.000000\n");
      INFO(bad);
      CHECK(take_device_time(r, 1s).result == DeviceTimeResult::unstamped);
    }
    auto r = answer("@jank_exporter_time 1700000000.000000\n@jank_exporter_time 999 1700000000.000001\n");
    take_device_time(r, 1s);
    CHECK_FALSE(r.exit_code);  // no such exit status
  }
  SECTION("the device's clock stepped back, or forward past what the host waited") {
    auto back = answer("@jank_exporter_time 1700000000.000000\n@jank_exporter_time 0 1699999990.000000\n");
    CHECK(take_device_time(back, 1s).result == DeviceTimeResult::implausible);
    auto ahead = answer("@jank_exporter_time 1700000000.000000\n@jank_exporter_time 0 1700000002.000000\n");
    CHECK(take_device_time(ahead, 1s).result == DeviceTimeResult::implausible);
  }
}

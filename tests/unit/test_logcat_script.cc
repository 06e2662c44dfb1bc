#include <catch2/catch.hpp>

#include "app/session/logcat_script.h"

using namespace jank::app;

TEST_CASE("the follow script declares the cursor, then the preamble, then logcat over main and system without -T",
          "[app][logcat_script]") {
  jank::parsers::LogCursor cursor;
  CHECK(cursor_declaration(cursor).empty());  // never read: nothing to declare
  cursor.valid = true;
  cursor.boot_id = "6c71b90f-9a16-4a04-96af-03384c204a9d";
  cursor.logd_pid = 4203;
  cursor.buffers["main"].index = 321;
  cursor.buffers["system"].index = 152;
  CHECK(cursor_declaration(cursor) ==
        "echo jank_exporter:cursor boot=6c71b90f-9a16-4a04-96af-03384c204a9d logd=4203 main=321 system=152; ");
  // The last counted entry's hash names it, in 16 hex digits, when known.
  cursor.buffers["main"].last_hash = 0xabc;
  CHECK(cursor_declaration(cursor) ==
        "echo jank_exporter:cursor boot=6c71b90f-9a16-4a04-96af-03384c204a9d logd=4203 main=321:0000000000000abc "
        "system=152; ");
  const std::string follow = follow_script(cursor, android_release(34));
  CHECK(follow.rfind(cursor_declaration(cursor), 0) == 0);
  const auto boot = follow.find("cat /proc/sys/kernel/random/boot_id");
  const auto stats = follow.find("logcat -S -b main -b system");
  const auto marker = follow.find("echo " + std::string(kPreambleEnd));
  const auto stream = follow.find("exec logcat '-v' 'threadtime' '-v' 'epoch' '-v' 'usec' '-b' 'main' '-b' 'system' '-D'");
  REQUIRE(boot != std::string::npos);
  REQUIRE(stream != std::string::npos);
  CHECK(boot < stats);
  CHECK(stats < marker);
  CHECK(marker < stream);
  CHECK(follow.find("'-T'") == std::string::npos);
  CHECK(follow.find("'-d'") == std::string::npos);  // follows: no dump-and-exit

  const std::string dump = ring_dump_script(android_release(34));
  CHECK(dump.find("jank_exporter:cursor") == std::string::npos);
  CHECK(dump.find("'system' '-D' '-d'") != std::string::npos);
  // A one-shot: logcat does not replace the shell, so the command's closing
  // time stamp runs after it (app/session/device_timing.h).
  CHECK(dump.find("exec") == std::string::npos);
  CHECK(logcat_buffers() == std::vector<std::string>{"main", "system"});
}

TEST_CASE("Android 6.0's stream asks for usec stamps without epoch, which 6.0 refuses", "[app][logcat_script][releases]") {
  jank::parsers::LogCursor cursor;
  const std::string marshmallow = follow_script(cursor, android_release(23));
  CHECK(marshmallow.find("exec logcat '-v' 'threadtime' '-v' 'usec' '-b' 'main' '-b' 'system' '-D'") !=
        std::string::npos);
  CHECK(marshmallow.find("epoch") == std::string::npos);
  CHECK(ring_dump_script(android_release(23)).find("'-v' 'usec' '-b' 'main' '-b' 'system' '-D' '-d'") !=
        std::string::npos);
  // 7.0 has epoch; a release getprop did not tell is taken as a current one.
  CHECK(follow_script(cursor, android_release(24)).find("'-v' 'epoch'") != std::string::npos);
  CHECK(follow_script(cursor, android_release(std::nullopt)).find("'-v' 'epoch'") != std::string::npos);
}

// The command line's overrides win over the configuration file, each only
// when given.
#include <catch2/catch.hpp>

#include "app/daemon/daemon_options.h"

TEST_CASE("daemon options: each override given replaces the file's value and the others stay", "[cli][config]") {
  jank::config::Config c;
  c.per_frame_mode = "needed";
  c.log_level = "warning";
  c.listen_address = ":1234";
  jank::app::DaemonOptions o;
  o.per_frame_override = "always";
  o.adb_override = {"127.0.0.1:5038"};
  jank::app::apply_overrides(o, c);
  CHECK(c.per_frame_mode == "always");
  CHECK(c.adb_servers == std::vector<std::string>{"127.0.0.1:5038"});
  CHECK(c.log_level == "warning");
  CHECK(c.listen_address == ":1234");
  o = {};
  o.log_level_override = "debug";
  jank::app::apply_overrides(o, c);
  CHECK(c.log_level == "debug");
  CHECK(c.per_frame_mode == "always");
}

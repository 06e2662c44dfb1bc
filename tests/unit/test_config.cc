#include <catch2/catch.hpp>

#include <fstream>

#include "config/config.h"
#include "parsers/names.h"
#include "tests/unit/test_support.h"

using jank::config::parse_config;

TEST_CASE("no config means defaults", "[config]") {
  auto r = parse_config("", "empty.yaml");
  REQUIRE(r.ok());
  CHECK(r.config.listen_address == ":9789");
  CHECK(r.config.skipwarning_frames == 1);
  CHECK_FALSE(r.config.restart_zygote);
  CHECK(r.config.include_serials == std::vector<std::string>{"*"});
}

TEST_CASE("a full config is read", "[config]") {
  auto r = parse_config(R"(
listen_address: "127.0.0.1:9999"
adb_servers: ["127.0.0.1:5037", "10.0.0.2:5037"]
state_dir: /tmp/state
log_level: debug
devices:
  include: ["emulator-*", "R5*"]
  exclude: ["*:5555"]
  max_packages: 50
choreographer:
  skipwarning_frames: 5
  restart_zygote: true
  sm_window_seconds: 30
display:
  default_refresh_rate_hertz: 120
gfxinfo:
  packages: [com.example.app, "com.example.app:remote"]
  poll_interval_seconds: 15
  fast_poll_interval_seconds: 3
http:
  basic_auth:
    username: prom
    password_file: /etc/jank_exporter/password
)",
                        "farm.yaml");
  REQUIRE(r.ok());
  const auto& c = r.config;
  CHECK(c.listen_address == "127.0.0.1:9999");
  CHECK(c.adb_servers.size() == 2);
  CHECK(c.exclude_serials == std::vector<std::string>{"*:5555"});
  CHECK(c.max_packages_per_device == 50);
  CHECK(c.skipwarning_frames == 5);
  CHECK(c.restart_zygote);
  CHECK(c.sm_window_seconds == std::chrono::seconds(30));
  CHECK(c.default_refresh_rate_hertz == 120);
  CHECK(c.gfxinfo_packages == std::vector<std::string>{"com.example.app", "com.example.app:remote"});
  REQUIRE(c.basic_auth.has_value());
  CHECK(c.basic_auth->username == "prom");
}

TEST_CASE("every error is reported at once with file:line:col", "[config]") {
  auto r = parse_config(R"(listen_address: 9789
devices:
  include: ["*"]
  colour: blue
choreographer:
  skipwarning_frames: 0
gfxinfo:
  packages: ["com.ok", "bad; rm -rf /"]
  poll_interval_seconds: many
)",
                        "bad.yaml");
  REQUIRE(r.errors.size() == 5);
  CHECK(r.errors[0].to_string() == "bad.yaml:1:17: listen_address: '9789' is not HOST:PORT");
  CHECK(r.errors[1].to_string() ==
        "bad.yaml:4:3: unknown key 'devices.colour' (allowed in devices: include, exclude, max_packages, grace_seconds)");
  CHECK(r.errors[2].to_string() == "bad.yaml:6:23: choreographer.skipwarning_frames: 0 is out of range [1, 1000]");
  CHECK(r.errors[3].line == 8);
  CHECK_THAT(r.errors[3].message, Catch::Contains("not a valid package name"));
  CHECK(r.errors[4].to_string() == "bad.yaml:9:26: gfxinfo.poll_interval_seconds: expected a number");
}

TEST_CASE("unknown top-level keys list the allowed ones", "[config]") {
  auto r = parse_config("listen: :9000\n", "x.yaml");
  REQUIRE(r.errors.size() == 1);
  CHECK_THAT(r.errors[0].to_string(), Catch::StartsWith("x.yaml:1:1: unknown key 'listen' (allowed: listen_address,"));
}

TEST_CASE("YAML syntax errors carry their position", "[config]") {
  auto r = parse_config("devices:\n  include: [a, b\n", "broken.yaml");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].file == "broken.yaml");
  CHECK(r.errors[0].line >= 2);
}

TEST_CASE("package names are validated before they can reach a shell", "[config]") {
  using jank::parsers::valid_package_name;
  CHECK(valid_package_name("com.example.app"));
  CHECK(valid_package_name("com.example.app:remote"));
  CHECK(valid_package_name("system_server"));
  CHECK_FALSE(valid_package_name(""));
  CHECK_FALSE(valid_package_name("a b"));
  CHECK_FALSE(valid_package_name("a'b"));
  CHECK_FALSE(valid_package_name("a;reboot"));
  CHECK_FALSE(valid_package_name("a\nb"));
  CHECK_FALSE(valid_package_name(std::string(256, 'a')));
}

TEST_CASE("a trace config file is read relative to the configuration and refused when it sets the exporter's keys",
          "[config][traces]") {
  jank::test::TempDir dir;
  const std::string conf = dir.path() + "/c.yaml";
  std::ofstream(dir.path() + "/mine.pbtxt") << "buffers { size_kb: 4096 }\ndata_sources { config { name: \"linux.ftrace\" } }\n";
  std::ofstream(dir.path() + "/bad.pbtxt") << "data_sources { config { name: \"x\" } }\nduration_ms: 10000\n";
  std::ofstream(conf) << "traces:\n  enabled: true\n  config_file: mine.pbtxt\n";
  auto ok = jank::config::load_config_file(conf);
  REQUIRE(ok.ok());
  CHECK(ok.config.traces_config_text.find("size_kb: 4096") != std::string::npos);
  std::ofstream(conf) << "traces:\n  config_file: bad.pbtxt\n";
  auto bad = jank::config::load_config_file(conf);
  REQUIRE(bad.errors.size() == 1);
  CHECK(bad.errors[0].line == 2);
  CHECK(bad.errors[0].message.find("sets duration_ms, which the exporter adds itself") != std::string::npos);
  std::ofstream(conf) << "traces:\n  config_file: missing.pbtxt\n";
  auto missing = jank::config::load_config_file(conf);
  REQUIRE(missing.errors.size() == 1);
  CHECK(missing.errors[0].message.find("traces.config_file: cannot read") != std::string::npos);
}

TEST_CASE("series.detailed takes the detailed groups by name or all, and nothing else", "[config][budget]") {
  auto r = parse_config("series:\n  detailed: [windows, stages]\n  max_per_device: 500\n", "s.yaml");
  REQUIRE(r.ok());
  CHECK(r.config.series_detailed == std::vector<std::string>{"windows", "stages"});
  CHECK(r.config.series_max_per_device == 500);
  CHECK(parse_config("series:\n  detailed: [all]\n  max_per_device: 0\n", "s.yaml").ok());
  CHECK(parse_config("", "s.yaml").config.series_max_per_device == 2000);
  r = parse_config("series:\n  detailed: [windows, core, layers]\n", "s.yaml");
  REQUIRE(r.errors.size() == 2);  // core is the default profile, not a group to add; layers is no group
  CHECK(r.errors[0].to_string() ==
        "s.yaml:2:23: series.detailed: not a detailed series group: one of stages, windows, distributions, "
        "jank_types, or all");
  CHECK_THAT(r.errors[1].message, Catch::Contains("not a detailed series group"));
  r = parse_config("series:\n  max_per_device: -1\n", "s.yaml");
  REQUIRE(r.errors.size() == 1);
  CHECK_THAT(r.errors[0].message, Catch::Contains("out of range"));
}

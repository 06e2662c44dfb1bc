#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "config/config.h"
#include "config/files.h"
#include "config/schema.h"
#include "tests/support/names.h"
#include "tests/unit/test_support.h"

using namespace jank::config;
namespace fs = std::filesystem;
using jank::test::read_file;
using jank::test::TempDir;

namespace {
bool run_quiet(const std::string& command) { return std::system((command + " >/dev/null 2>&1").c_str()) == 0; }
}  // namespace

TEST_CASE("every key is declared once, with a type, a help text and a default the file accepts", "[config][schema]") {
  std::set<std::string> keys;
  for (const auto& s : schema()) {
    INFO(s.key);
    CHECK(keys.insert(s.key).second);
    CHECK_FALSE(s.help.empty());
    CHECK(static_cast<bool>(s.apply));
    if (s.type == ValueType::number || s.type == ValueType::integer) {
      CHECK(s.min <= s.max);
      CHECK_FALSE(s.range_text().empty());
    }
  }
  CHECK(keys.size() == jank::test::known_keys().size());
  CHECK(find_setting("timeouts.command_max_seconds") != nullptr);
  CHECK(find_setting("gfxinfo") == nullptr);
}

TEST_CASE("the example configuration holds every default", "[config][schema][docs]") {
  const std::string path = std::string(JANK_SOURCE_DIR) + "/config/jank_exporter.yaml";
  auto r = load_config_file(path);
  for (const auto& e : r.errors) FAIL(e.to_string());
  const Config defaults;
  for (const auto& s : schema()) {
    INFO(s.key);
    CHECK(s.show(r.config) == s.show(defaults));
  }
}

TEST_CASE("docs/config.md gives every key with the schema's default", "[config][schema][docs]") {
  const std::string doc = read_file(std::string(JANK_SOURCE_DIR) + "/docs/config.md");
  for (const auto& s : schema()) {
    INFO(s.key);
    const std::string d = s.default_text();
    const std::string row = "| `" + s.key + "` | " + (d == "—" ? d : "`" + d + "`") + " |";
    CHECK(doc.find(row) != std::string::npos);
  }
}

TEST_CASE("the help text lists every key with its default and range", "[config][schema]") {
  const std::string help = describe_schema();
  for (const auto& s : schema()) {
    INFO(s.key);
    CHECK(help.find("  " + s.key + " (") != std::string::npos);
  }
  CHECK(help.find("timeouts.command_seconds (number, default 20, [0.1, 3600] seconds)") != std::string::npos);
  CHECK(help.find("logcat.max_line_bytes (integer, default 16384, [1024, 1048576] bytes)") != std::string::npos);
}

TEST_CASE("adb_servers are checked by the rule the daemon uses: each bad entry named, none dropped silently",
          "[config][schema]") {
  auto r = parse_config("adb_servers: [\"127.0.0.1:5037\", \"::1:5037\", \"host:0\", \"[::1]:5038\", \"tcp:5039\"]\n",
                        "a.yaml");
  REQUIRE(r.errors.size() == 2);
  CHECK(r.errors[0].to_string() ==
        "a.yaml:1:33: adb_servers: '::1:5037' is not HOST:PORT, [IPv6]:PORT or tcp:PORT with a port of 1-65535");
  CHECK(r.errors[1].column == 45);
  CHECK(parse_config("adb_servers: [\"127.0.0.1:5037\", \"[::1]:5038\", \"tcp:5039\"]\n", "b.yaml").ok());
}

TEST_CASE("listen addresses: an IPv6 host needs brackets, port 0 picks a free port", "[config][schema]") {
  CHECK(parse_config("listen_address: \":0\"\n", "x").ok());
  CHECK(parse_config("listen_address: \"[::1]:9789\"\n", "x").ok());
  CHECK(parse_config("listen_address: \"127.0.0.1:9789\"\n", "x").ok());
  auto r = parse_config("listen_address: \"::1:9789\"\n", "x");
  REQUIRE(r.errors.size() == 1);
  CHECK_THAT(r.errors[0].message, Catch::Contains("ambiguous"));
  CHECK_FALSE(parse_config("listen_address: \":65536\"\n", "x").ok());
}

TEST_CASE("groups: a mapping where a value belongs, a value where a mapping belongs, and half a group",
          "[config][schema]") {
  auto r = parse_config("gfxinfo: 3\ntimeouts:\n  connect_seconds: [1]\nhttp:\n  tls:\n    key_file: k.pem\n", "g.yaml");
  REQUIRE(r.errors.size() == 3);
  CHECK(r.errors[0].to_string() == "g.yaml:1:10: gfxinfo: expected a mapping");
  CHECK(r.errors[1].message == "timeouts.connect_seconds: expected a number");
  CHECK(r.errors[2].to_string() == "g.yaml:6:5: http.tls: needs both certificate_file and key_file");
  auto u = parse_config("http:\n  tls:\n    keyfile: k\n", "u.yaml");
  REQUIRE(u.errors.size() == 1);  // nothing of the group set: no half group
  CHECK(u.errors[0].message == "unknown key 'http.tls.keyfile' (allowed in http.tls: certificate_file, key_file)");
}

TEST_CASE("check-config reads the password file and checks that the key belongs to the certificate",
          "[config][files]") {
  TempDir dir;
  const std::string d = dir.path();
  Config c;
  c.state_dir = d + "/state";
  CHECK(check_named_files(c).empty());  // not there yet: created at start

  c.basic_auth = BasicAuth{"prom", d + "/missing"};
  auto p = check_named_files(c);
  REQUIRE(p.size() == 1);
  CHECK(p[0] == "cannot read http.basic_auth.password_file " + d + "/missing");
  std::ofstream(d + "/empty") << "\n";
  c.basic_auth->password_file = d + "/empty";
  CHECK(check_named_files(c) == std::vector<std::string>{"http.basic_auth.password_file " + d + "/empty is empty"});
  std::ofstream(d + "/pw") << "s3cret\r\n";
  std::string error;
  CHECK(read_password_file(d + "/pw", error) == std::optional<std::string>("s3cret"));
  c.basic_auth->password_file = d + "/pw";
  CHECK(check_named_files(c).empty());

  if (!run_quiet("command -v openssl")) return;
  auto make = [&](const std::string& name) {
    REQUIRE(run_quiet("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=" + name + " -keyout " + d + "/" +
                      name + ".key -out " + d + "/" + name + ".crt"));
  };
  make("a");
  make("b");
  c.tls = TlsFiles{d + "/a.crt", d + "/a.key"};
  CHECK(check_named_files(c).empty());
  c.tls->key_file = d + "/b.key";
  p = check_named_files(c);
  REQUIRE(p.size() == 1);
  CHECK(p[0] == "http.tls.key_file " + d + "/b.key does not belong to the certificate in " + d + "/a.crt");
  c.tls = TlsFiles{d + "/pw", d + "/a.key"};
  p = check_named_files(c);
  REQUIRE(p.size() == 1);
  CHECK(p[0].find("http.tls.certificate_file " + d + "/pw: ") == 0);

  c.tls.reset();
  std::ofstream(d + "/file") << "x";
  c.state_dir = d + "/file/state";
  CHECK(check_named_files(c) == std::vector<std::string>{"state_dir: " + d + "/file is not a directory"});
}

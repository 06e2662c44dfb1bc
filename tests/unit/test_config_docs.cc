#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "config/config.h"
#include "tests/support/names.h"
#include "tests/unit/test_support.h"

using jank::test::read_file;

TEST_CASE("every configuration key is documented in the example and in docs/config.md", "[config][docs]") {
  const std::string example = read_file(std::string(JANK_SOURCE_DIR) + "/config/jank_exporter.yaml");
  const std::string doc = read_file(std::string(JANK_SOURCE_DIR) + "/docs/config.md");
  for (const auto& key : jank::test::known_keys()) {
    const std::string leaf = key.substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
    INFO(key);
    CHECK(example.find(leaf + ":") != std::string::npos);
    CHECK(doc.find("`" + key + "`") != std::string::npos);
  }
}

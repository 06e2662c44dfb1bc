// Every file of ../shared/corpus, whatever it is, goes through `replay`
// cleanly: exit 0, nothing on stderr, an exposition, no line discarded.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>

#include "app/replay.h"

namespace fs = std::filesystem;

TEST_CASE("every corpus file replays cleanly", "[corpus][replay]") {
  const fs::path corpus = JANK_CORPUS_DIR;
  if (!fs::exists(corpus / "SOURCES.md")) {
    WARN("corpus not found at " << corpus << ": skipped");
    return;
  }
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(corpus)) {
    if (!entry.is_regular_file() || entry.path().filename() == "SOURCES.md") continue;
    ++files;
    INFO(entry.path().string());
    std::ostringstream out, err;
    const int rc = jank::app::run_replay({"--serial", "c", "--year", "2024", entry.path().string()}, stdin, out, err);
    REQUIRE(rc == 0);
    REQUIRE(err.str().empty());
    const std::string text = out.str();
    REQUIRE_THAT(text, Catch::Contains("android_display_refresh_rate_hertz{serial=\"c\"}"));
    // Real captures are never garbage enough to be discarded as binary or over-long.
    CHECK_THAT(text, Catch::Contains("reason=\"binary\"} 0"));
    CHECK_THAT(text, Catch::Contains("reason=\"too_long\"} 0"));
  }
  CHECK(files > 100);
}

// Every file of ../shared/corpus, whatever it is, goes through `replay`
// cleanly: exit 0, nothing on stderr (but the one notice a container layer
// gets), an exposition, no line discarded.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "app/cli/replay.h"
#include "parsers/input_kind.h"
#include "parsers/text_input.h"
#include "tests/support/names.h"

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
    if (entry.path().filename() == "solox249_nonblast_zero_rows_latency_excerpt.txt") {
      // A SurfaceView's container layer, which never presents (its BLAST child
      // does): the daemon does not follow it, replay says so.
      CHECK_THAT(err.str(), Catch::Contains("is not an app window or SurfaceView layer; its 12 rows are not counted"));
    } else {
      REQUIRE(err.str().empty());
    }
    const std::string text = out.str();
    REQUIRE_THAT(text, Catch::Contains("android_display_refresh_rate_hertz{serial=\"c\"}"));
    // Real captures are never garbage enough to be discarded as binary or over-long.
    CHECK_THAT(text, Catch::Contains("reason=\"binary\"} 0"));
    CHECK_THAT(text, Catch::Contains("reason=\"too_long\"} 0"));
  }
  CHECK(files > 100);
}

TEST_CASE("a real --latency capture replays into the layer's frames", "[corpus][replay][sf_latency]") {
  const fs::path file = fs::path(JANK_CORPUS_DIR) / "surfaceflinger/solox249_blast_surfaceview_latency_excerpt.txt";
  if (!fs::exists(file)) {
    WARN(file << " not found: skipped");
    return;
  }
  std::ostringstream out, err;
  REQUIRE(jank::app::run_replay({"--serial", "c", file.string()}, stdin, out, err) == 0);
  // SOURCES.md: 25 non-zero rows, actualPresent spanning 993472000 ns; the
  // layer is named by the command line the capture starts with.
  const std::string labels =
      "{serial=\"c\",package=\"com.KST.CS4Like_development\",layer=\"SurfaceView[com.KST.CS4Like_development/"
      "com.easy.game.GamePlayerActivity](BLAST)\",kind=\"surface_view\"}";
  const std::string text = out.str();
  CHECK_THAT(text, Catch::Contains("android_layer_frames_presented_total" + labels + " 25\n"));
  CHECK_THAT(text, Catch::Contains("android_layer_frame_time_seconds_count" + labels + " 24\n"));
  CHECK_THAT(text, Catch::Contains("android_layer_frame_time_seconds_sum" + labels + " 0.99347"));
  CHECK_THAT(text, Catch::Contains(
                       "jank_exporter_surfaceflinger_lines_total{serial=\"c\",source=\"latency\",result=\"parsed\"} 26\n"));
}

TEST_CASE("every corpus file is recognised as the input it is", "[corpus][replay][input_kind]") {
  using jank::parsers::InputKind;
  const fs::path corpus = JANK_CORPUS_DIR;
  if (!fs::exists(corpus / "SOURCES.md")) {
    WARN("corpus not found at " << corpus << ": skipped");
    return;
  }
  std::map<InputKind, int> kinds;
  for (const auto& entry : fs::recursive_directory_iterator(corpus)) {
    if (!entry.is_regular_file() || entry.path().filename() == "SOURCES.md") continue;
    const std::string rel = fs::relative(entry.path(), corpus).string();
    std::ifstream in(entry.path(), std::ios::binary);
    std::string head(64 * 1024, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    const InputKind kind = jank::parsers::detect_input_kind(jank::parsers::decode_to_utf8(head));
    ++kinds[kind];
    // What replay should take each for: dumps by their folder, the one --list
    // excerpt, and logcat for the rest (other device outputs have no replay
    // kind and read as logcat without a metric line).
    InputKind expected = InputKind::logcat;
    if (rel.starts_with("gfxinfo/") || rel.starts_with("framestats/")) expected = InputKind::gfxinfo;
    if (rel.starts_with("surfaceflinger/")) expected = InputKind::sf_latency;
    if (rel.find("_sf_list_") != std::string::npos) expected = InputKind::sf_layer_list;
    INFO(rel);
    CHECK(jank::test::input_kind_name(kind) == jank::test::input_kind_name(expected));
  }
  CHECK(kinds[InputKind::sf_layer_list] == 1);
  CHECK(kinds[InputKind::sf_latency] == 3);
}

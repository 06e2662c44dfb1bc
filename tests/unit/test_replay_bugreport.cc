// `replay` of a bug report: dumpstate's sections split as dumpstate writes
// them, the usable ones recorded, the rest named; the zip `adb bugreport`
// writes gives what its text gives.
#include <catch2/catch.hpp>

#include <zip.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/replay.h"
#include "parsers/bugreport.h"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string fixture() { return read_file(std::string(JANK_SOURCE_DIR) + "/tests/golden/bugreport_android13.input"); }

std::string temp_path(const char* suffix) {
  std::string path = std::string("/tmp/jank-bugreport-XXXXXX") + suffix;
  const int fd = ::mkstemps(path.data(), static_cast<int>(std::string_view(suffix).size()));
  REQUIRE(fd >= 0);
  ::close(fd);
  return path;
}

// A zip as `adb bugreport` writes it: the text, main_entry.txt naming it,
// and other files beside.
std::string write_zip(const std::map<std::string, std::string>& entries) {
  const std::string path = temp_path(".zip");
  int error = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  REQUIRE(z != nullptr);
  for (const auto& [name, content] : entries) {
    zip_source_t* s = zip_source_buffer(z, content.data(), content.size(), 0);
    REQUIRE(s != nullptr);
    REQUIRE(zip_file_add(z, name.c_str(), s, ZIP_FL_OVERWRITE) >= 0);
  }
  REQUIRE(zip_close(z) == 0);
  return path;
}

struct Replayed {
  int status;
  std::string out, err;
};

Replayed replay(const std::string& file) {
  std::ostringstream out, err;
  const int status = jank::app::run_replay({"--serial", "br", file}, stdin, out, err);
  return {status, out.str(), err.str()};
}

double sample(const std::string& exposition, const std::string& series) {
  const auto at = exposition.find("\n" + series + " ");
  REQUIRE(at != std::string::npos);
  return std::stod(exposition.substr(at + series.size() + 2));
}

}  // namespace

TEST_CASE("bug report: dumpstate's sections and dumpsys blocks split by their markers", "[replay][bugreport]") {
  const std::string text =
      "========================================================\n== dumpstate: 2025-03-01 12:00:05\n"
      "========================================================\nBuild: X\n"
      "------ DUMPSYS CRITICAL (/system/bin/dumpsys) ------\n"
      "-------------------------------------------------------------------------------\n"
      "DUMP OF SERVICE CRITICAL SurfaceFlinger:\nsf line\n"
      "--------- 0.01s was the duration of dumpsys SurfaceFlinger, ending at: 2025-03-01 12:00:06\n"
      "------ 0.3s was the duration of 'DUMPSYS CRITICAL' ------\n"
      "------ SYSTEM LOG (logcat -v threadtime -v printable -v uid -d *:v) ------\nline 1\nline 2\n"
      "------ 0.1s was the duration of 'SYSTEM LOG' ------\n"
      "------ DUMPSYS (/system/bin/dumpsys) ------\n"
      "DUMP OF SERVICE gfxinfo:\ng1\r\ng2\n"
      "DUMP OF SERVICE HIGH power:\np1\n"
      "------ UPTIME (uptime) ------\nup 3 days\n";
  CHECK(jank::parsers::looks_like_bugreport(text.substr(0, 1024)));
  CHECK_FALSE(jank::parsers::looks_like_bugreport("11-21 10:00:00.010  8012  8012 I Choreographer: x\n"));
  const auto r = jank::parsers::split_bugreport(text);
  REQUIRE(r.sections.size() == 5);
  CHECK(r.sections[0].name == "dumpsys SurfaceFlinger");
  CHECK(r.sections[0].service == "SurfaceFlinger");
  CHECK(r.sections[0].text == "sf line\n");
  CHECK(r.sections[1].name == "SYSTEM LOG");
  CHECK(r.sections[1].text == "line 1\nline 2\n");
  // A block without its duration line ends at the next block.
  CHECK(r.sections[2].name == "dumpsys gfxinfo");
  CHECK(r.sections[2].text == "g1\r\ng2\n");
  CHECK(r.sections[3].name == "dumpsys power");
  CHECK(r.sections[3].text == "p1\n");
  // A section left open at the end runs to it.
  CHECK(r.sections[4].name == "UPTIME");
  CHECK(r.sections[4].text == "up 3 days\n");
}

TEST_CASE("bug report replay: the log, gfxinfo, graphicsstats, power, thermal and battery in one go, the rest named",
          "[replay][bugreport]") {
  const std::string path = temp_path(".txt");
  std::ofstream(path, std::ios::binary) << fixture();
  const Replayed text = replay(path);
  INFO(text.err);
  REQUIRE(text.status == 0);
  CHECK(text.err.find("bug report: used 6 sections: SYSTEM LOG, dumpsys battery, dumpsys gfxinfo, dumpsys "
                      "graphicsstats, dumpsys power, dumpsys thermalservice") != std::string::npos);
  CHECK(text.err.find("bug report: skipped 5 sections: dumpsys SurfaceFlinger, dumpsys cpuinfo, EVENT LOG, KERNEL LOG, "
                      "dumpsys activity") != std::string::npos);
  const std::string& m = text.out;
  // The system log: two skips of the feed (34 and 3 frames) and its Davey.
  CHECK(sample(m, "android_choreographer_skipped_frames_total{serial=\"br\",package=\"com.example.feed\"}") == 37);
  CHECK(sample(m, "android_hwui_davey_frames_total{serial=\"br\",package=\"com.example.feed\"}") == 1);
  // gfxinfo's dump of the feed, graphicsstats' block of version 41.
  CHECK(sample(m, "android_gfxinfo_frames_rendered_total{serial=\"br\",package=\"com.example.feed\"}") == 40);
  CHECK(sample(m, "android_graphicsstats_frames_total{serial=\"br\",package=\"com.example.feed\",version_code=\"41\"}") ==
        1200);
  CHECK(sample(m, "android_graphicsstats_frozen_frames_total{serial=\"br\",package=\"com.example.feed\","
                  "version_code=\"41\"}") == 2);
  CHECK(sample(m, "android_battery_level_ratio{serial=\"br\"}") == Approx(0.63));
  CHECK(sample(m, "android_thermal_status{serial=\"br\"}") == 3);

  // The same report as `adb bugreport` zips it: the same exposition.
  const std::string zip = write_zip({{"main_entry.txt", "bugreport-sim-TQ3A-2025-03-01-12-00-05.txt"},
                                     {"bugreport-sim-TQ3A-2025-03-01-12-00-05.txt", fixture()},
                                     {"version.txt", "2.0"},
                                     {"FS/data/misc/logd/logcat", "not the report"}});
  const Replayed zipped = replay(zip);
  INFO(zipped.err);
  REQUIRE(zipped.status == 0);
  CHECK(zipped.out == text.out);
  // Without main_entry.txt the bugreport*.txt is taken.
  const Replayed unnamed = replay(write_zip({{"bugreport-sim.txt", fixture()}, {"dumpstate_log.txt", "x"}}));
  REQUIRE(unnamed.status == 0);
  CHECK(unnamed.out == text.out);
}

TEST_CASE("bug report replay: a zip without a report or a damaged one is refused with 66", "[replay][bugreport]") {
  const Replayed none = replay(write_zip({{"notes.txt", "hello"}}));
  CHECK(none.status == 66);
  CHECK(none.err.find("no bug report text in the zip") != std::string::npos);
  // The first 100 bytes of a real zip: its central directory is gone.
  const std::string whole = read_file(write_zip({{"bugreport-x.txt", fixture()}}));
  const std::string path = temp_path(".zip");
  std::ofstream(path, std::ios::binary) << whole.substr(0, 100);
  const Replayed cut = replay(path);
  CHECK(cut.status == 66);
  CHECK(cut.err.find("zip") != std::string::npos);
  CHECK(cut.out.empty());
}

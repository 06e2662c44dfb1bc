// Data flows one way: ingest → parsers → metrics → exporters, with app/
// composing them. A pipeline folder may include only itself and the folders
// listed for it here; a new dependency is a design decision made in this table.
// ingest/ and config/ use parsers/names.h (names that may enter a device
// command), config/ the endpoint rule of ingest/endpoint.h: each rule once.
//
// app/ is in rooms (docs/architecture.md, "app/"), each a folder and a
// library: cli → daemon → {session, api} → core, and cli → session (the
// observer test runs a session's commands itself). Every room may use the
// pipeline folders; session and api never include each other.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

namespace fs = std::filesystem;

namespace {

std::set<std::string> with_pipeline(std::set<std::string> rooms) {
  rooms.insert({"parsers", "metrics", "ingest", "exporters", "config"});
  return rooms;
}

const std::map<std::string, std::set<std::string>> kAllowed = {
    {"parsers", {"parsers"}},
    {"metrics", {"metrics", "parsers"}},
    {"ingest", {"ingest", "parsers"}},
    {"exporters", {"exporters", "metrics", "parsers"}},
    {"config", {"config", "ingest", "parsers", "metrics"}},  // metrics: the series groups' names
    {"devsim", {"devsim"}},
    {"app/core", with_pipeline({"app/core"})},
    {"app/session", with_pipeline({"app/session", "app/core"})},
    {"app/api", with_pipeline({"app/api", "app/core"})},
    {"app/daemon", with_pipeline({"app/daemon", "app/session", "app/api", "app/core"})},
    {"app/cli", with_pipeline({"app/cli", "app/daemon", "app/session", "app/core"})},
};

// The project folder an `#include "folder/…"` line names, or "". Under app/
// the room ("app/session"); a file of app/ itself, outside every room, "app".
std::string included_folder(const std::string& line) {
  std::size_t p = line.find_first_not_of(" \t");
  if (p == std::string::npos || line.compare(p, 8, "#include") != 0) return "";
  p = line.find('"', p);
  if (p == std::string::npos) return "";
  const std::size_t end = line.find('"', p + 1);
  std::size_t slash = line.find('/', p + 1);
  if (slash == std::string::npos || end == std::string::npos || slash > end) return "";
  const std::string folder = line.substr(p + 1, slash - p - 1);
  if (folder != "app") return folder;
  const std::size_t room_end = line.find('/', slash + 1);
  if (room_end == std::string::npos || room_end > end) return "app";
  return line.substr(p + 1, room_end - p - 1);
}

bool source_file(const fs::path& path) { return path.extension() == ".h" || path.extension() == ".cc"; }

}  // namespace

TEST_CASE("the include graph runs one way: parsers and metrics never include ingest, exporters or app",
          "[architecture]") {
  const fs::path root = JANK_SOURCE_DIR;
  std::size_t files = 0;
  for (const auto& [folder, allowed] : kAllowed) {
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      if (!source_file(entry.path())) continue;
      ++files;
      std::ifstream in(entry.path());
      std::string line;
      int number = 0;
      while (std::getline(in, line)) {
        ++number;
        const std::string target = included_folder(line);
        const bool project_folder = kAllowed.contains(target) || target == "app";
        if (!project_folder) continue;
        INFO(entry.path().string() << ":" << number << ": " << line);
        CHECK(allowed.contains(target));
      }
    }
  }
  CHECK(files > 120);
}

TEST_CASE("every file of app/ lives in one of its rooms", "[architecture]") {
  const fs::path app = fs::path(JANK_SOURCE_DIR) / "app";
  std::size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(app)) {
    if (!source_file(entry.path())) continue;
    ++files;
    const std::string room = "app/" + fs::relative(entry.path().parent_path(), app).string();
    INFO(entry.path().string());
    CHECK(kAllowed.contains(room));
  }
  CHECK(files > 60);
}

// The store reaches the source modules only through metrics/source.h and the
// registration list: naming one would put the source's code back into it.
TEST_CASE("the store and the exposition name no source module", "[architecture]") {
  const fs::path root = JANK_SOURCE_DIR;
  for (const char* file : {"metrics/store.h", "metrics/store.cc", "exporters/prometheus_collector.cc",
                           "exporters/metric_catalogue.cc", "app/session/device_controller.cc"}) {
    std::ifstream in(root / file);
    REQUIRE(in);
    std::string line;
    while (std::getline(in, line)) {
      INFO(file << ": " << line);
      CHECK(line.find("#include \"metrics/sources/") == std::string::npos);
    }
  }
}

TEST_CASE("the include check reads include lines as written", "[architecture]") {
  CHECK(included_folder("#include \"metrics/store.h\"") == "metrics");
  CHECK(included_folder("  #include \"app/core/log.h\"  // why") == "app/core");
  CHECK(included_folder("#include \"app/log.h\"") == "app");
  CHECK(included_folder("#include <boost/asio.hpp>").empty());
  CHECK(included_folder("// #include \"app/core/log.h\"").empty());
  CHECK(included_folder("#include \"local.h\"").empty());
}

TEST_CASE("the rooms of app/ run one way: session and api never meet and no room but cli includes cli",
          "[architecture]") {
  CHECK_FALSE(kAllowed.at("app/session").contains("app/api"));
  CHECK_FALSE(kAllowed.at("app/api").contains("app/session"));
  for (const auto& [room, allowed] : kAllowed) {
    INFO(room);
    if (room != "app/cli") CHECK_FALSE(allowed.contains("app/cli"));
    if (room.starts_with("app/")) continue;
    for (const auto& target : allowed) CHECK_FALSE(target.starts_with("app"));  // the pipeline never includes app/
  }
}

// Data flows one way: ingest → parsers → metrics → exporters, with app/
// composing them. A pipeline folder may include only itself and the folders
// listed for it here; a new dependency is a design decision made in this table.
// ingest/ and config/ use parsers/names.h (names that may enter a device
// command), config/ the endpoint rule of ingest/endpoint.h: each rule once.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

namespace fs = std::filesystem;

namespace {

const std::map<std::string, std::set<std::string>> kAllowed = {
    {"parsers", {"parsers"}},
    {"metrics", {"metrics", "parsers"}},
    {"ingest", {"ingest", "parsers"}},
    {"exporters", {"exporters", "metrics", "parsers"}},
    {"config", {"config", "ingest", "parsers"}},
    {"devsim", {"devsim"}},
};

// The project folder an `#include "folder/…"` line names, or "".
std::string included_folder(const std::string& line) {
  std::size_t p = line.find_first_not_of(" \t");
  if (p == std::string::npos || line.compare(p, 8, "#include") != 0) return "";
  p = line.find('"', p);
  if (p == std::string::npos) return "";
  const std::size_t slash = line.find('/', p + 1);
  const std::size_t end = line.find('"', p + 1);
  if (slash == std::string::npos || end == std::string::npos || slash > end) return "";
  return line.substr(p + 1, slash - p - 1);
}

}  // namespace

TEST_CASE("the include graph runs one way: parsers and metrics never include ingest, exporters or app",
          "[architecture]") {
  const fs::path root = JANK_SOURCE_DIR;
  std::size_t files = 0;
  for (const auto& [folder, allowed] : kAllowed) {
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      const auto ext = entry.path().extension();
      if (ext != ".h" && ext != ".cc") continue;
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
  CHECK(files > 50);
}

// The store reaches the source modules only through metrics/source.h and the
// registration list: naming one would put the source's code back into it.
TEST_CASE("the store and the exposition name no source module", "[architecture]") {
  const fs::path root = JANK_SOURCE_DIR;
  for (const char* file : {"metrics/store.h", "metrics/store.cc", "exporters/prometheus_collector.cc",
                           "exporters/metric_catalogue.cc", "app/device_controller.cc"}) {
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
  CHECK(included_folder("  #include \"app/log.h\"  // why") == "app");
  CHECK(included_folder("#include <boost/asio.hpp>").empty());
  CHECK(included_folder("// #include \"app/log.h\"").empty());
  CHECK(included_folder("#include \"local.h\"").empty());
}

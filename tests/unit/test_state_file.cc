#include <catch2/catch.hpp>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "app/core/atomic_file.h"
#include "app/daemon/state_file.h"
#include "tests/unit/test_support.h"
#include "metrics/sources/skips.h"

namespace fs = std::filesystem;
using jank::app::SharedState;
using jank::app::StateFile;
using jank::test::read_file;
using jank::test::TempDir;

namespace {

std::size_t open_fds() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

}  // namespace

TEST_CASE("a checkpoint replaces the file whole, a failed one leaves the old file, no temporary file and no open descriptor",
          "[app][state_file]") {
  TempDir dir;
  const std::string path = dir.path() + "/state";
  std::string error;
  REQUIRE(jank::app::write_atomically(path, "first\n", error));
  CHECK(read_file(path) == "first\n");
  REQUIRE(jank::app::write_atomically(path, "second\n", error));
  CHECK(read_file(path) == "second\n");

  const std::size_t fds = open_fds();
  // The rename fails: the target is a non-empty directory.
  const std::string blocked = dir.path() + "/blocked";
  fs::create_directories(blocked + "/inside");
  CHECK_FALSE(jank::app::write_atomically(blocked, "x", error));
  CHECK(error.find("cannot replace " + blocked) == 0);
  CHECK_FALSE(fs::exists(blocked + ".tmp"));
  // The temporary file cannot be created.
  CHECK_FALSE(jank::app::write_atomically(dir.path() + "/missing/state", "x", error));
  CHECK(error.find("cannot create") == 0);
  CHECK(open_fds() == fds);
  CHECK(read_file(path) == "second\n");
}

TEST_CASE("an unreadable state file is set aside and counted, a good one restores devices as disconnected",
          "[app][state_file]") {
  TempDir dir;
  StateFile file(dir.path() + "/sub");
  std::string error;
  REQUIRE(file.prepare(error));
  {
    std::ofstream(file.path()) << "not a state file\n";
    SharedState shared(jank::metrics::StoreOptions{});
    file.restore(shared, 1'700'000'000'000'000'000);
    CHECK(shared.daemon.state_load_failures == 1);
    CHECK_FALSE(fs::exists(file.path()));
    CHECK(fs::exists(file.path() + ".bad-1700000000"));
  }
  SharedState before(jank::metrics::StoreOptions{});
  {
    auto& d = before.store.device("emulator-5554");
    jank::metrics::record_skip(before.store, d, "com.example.feed", 0, false, 7);
  }
  REQUIRE(file.write(before));
  CHECK(before.daemon.checkpoints_written == 1);
  SharedState after(jank::metrics::StoreOptions{});
  file.restore(after, 42);
  CHECK(after.daemon.state_load_failures == 0);
  const auto& d = *after.store.devices().at("emulator-5554");
  CHECK(jank::metrics::skips_of(d.packages.at("com.example.feed"))->skipped_frames == 7);
  CHECK(d.live.live);
  CHECK_FALSE(d.live.up);
  CHECK(d.live.state == jank::metrics::DeviceState::disconnected);
  CHECK(d.live.down_since_ns == 42);
  CHECK(d.packages.at("com.example.feed").last_alive_ns == 42);
}

TEST_CASE("a state directory that is a file is a clear error", "[app][state_file]") {
  TempDir dir;
  std::ofstream(dir.path() + "/file") << "x";
  std::string error;
  CHECK_FALSE(StateFile(dir.path() + "/file").prepare(error));
  CHECK(error.find("cannot use state directory " + dir.path() + "/file") == 0);
}

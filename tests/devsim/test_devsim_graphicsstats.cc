// The simulator's `dumpsys graphicsstats` (devsim/graphicsstats.cc, from
// GraphicsStatsService.java and .cpp): which releases print what, and the
// exporter's parser reading, block by block, the frames the service holds
// (the truth) across process restarts, a new version, midnight UTC and a
// reboot, which loses the buffer of a process never saved.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "devsim/model.h"
#include "parsers/graphicsstats.h"
#include "tests/devsim/quiet_device.h"
#include "tests/rig/json.h"

using namespace jank::devsim;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kDayNs = 86'400 * kSec;
const std::string kPkg = "com.example.feed";

void run_for(Device& dev, ManualClock& clock, int seconds) {
  for (int s = 0; s < seconds; ++s) {
    clock.advance_ns(kSec);
    dev.advance();
  }
}

// Frames per version code in the dump, summed over its blocks.
std::map<std::int64_t, std::uint64_t> dumped(Device& dev, std::size_t* blocks = nullptr) {
  const auto d = jank::parsers::parse_graphicsstats(dev.dumpsys_graphicsstats());
  REQUIRE(d.malformed_lines == 0);
  REQUIRE(d.discarded_blocks == 0);
  std::map<std::int64_t, std::uint64_t> out;
  for (const auto& b : d.blocks) {
    if (b.package == kPkg) out[*b.version_code] += *b.stats.total_frames;
  }
  if (blocks != nullptr) *blocks = d.blocks.size();
  return out;
}

// The truth of the service: frames per version code it was given and kept.
std::map<std::int64_t, std::uint64_t> truth(const Device& dev) {
  const auto t = jank::rig::parse_json(dev.truth_json());
  REQUIRE(t);
  std::map<std::int64_t, std::uint64_t> out;
  for (const auto& a : (*t)["apps"].arr) {
    if (a["package"].str != kPkg) continue;
    for (const auto& v : a["graphicsstats"].arr) out[v["version_code"].integer()] = v["frames"].u64();
  }
  return out;
}

}  // namespace

TEST_CASE("devsim graphicsstats: absent before Android 7, GPU lines from 10, deadline misses from 12",
          "[devsim][graphicsstats]") {
  for (const int sdk : {23, 26, 29, 31}) {
    INFO("sdk " << sdk);
    ManualClock clock;
    Device dev(test::quiet_device(sdk), clock);
    run_for(dev, clock, 2);
    const std::string out = dev.dumpsys_graphicsstats();
    if (sdk < 24) {
      CHECK(out == "Can't find service: graphicsstats\n");
      continue;
    }
    CHECK(out.rfind("\nPackage: com.example.feed\nVersion: 1\nStats since: ", 0) == 0);
    CHECK((out.find("\nGPU HISTOGRAM:") != std::string::npos) == (sdk >= 29));
    CHECK((out.find("\nNumber Frame deadline missed:") != std::string::npos) == (sdk >= 31));
  }
}

TEST_CASE("devsim graphicsstats: the blocks hold the service's truth across restarts, a new version, midnight and a reboot",
          "[devsim][graphicsstats]") {
  // A clock 30 s before midnight UTC.
  const std::int64_t wall = 1'732'924'800LL * kSec - 30 * kSec;
  ManualClock clock(wall);
  Device dev(test::quiet_device(34), clock);
  run_for(dev, clock, 5);
  CHECK(dumped(dev) == truth(dev));
  CHECK(truth(dev).at(1) > 0);
  // A restart: the process's buffer goes to the day's file; the new one is
  // printed merged with it, as one block.
  REQUIRE(dev.restart_app(kPkg));
  run_for(dev, clock, 5);
  std::size_t blocks = 0;
  CHECK(dumped(dev, &blocks) == truth(dev));
  CHECK(blocks == 1);
  // Midnight: yesterday's file and today's buffer.
  run_for(dev, clock, 25);
  CHECK(dumped(dev, &blocks) == truth(dev));
  CHECK(blocks == 2);
  // A new version: its own block.
  REQUIRE(dev.install_app(kPkg, "2.0", 2, 1));
  run_for(dev, clock, 5);
  const auto before_reboot = truth(dev);
  CHECK(dumped(dev) == before_reboot);
  CHECK(before_reboot.at(2) > 0);
  // A reboot: the running process's buffer was never saved. What a dump
  // printed of it stays in the truth (a reader counted it); what it drew
  // since is lost.
  run_for(dev, clock, 1);
  CHECK(truth(dev).at(2) > before_reboot.at(2));
  dev.reboot(0);
  CHECK(truth(dev).at(2) == before_reboot.at(2));
  CHECK(dumped(dev).at(2) == 0);  // only the new process's empty buffer: nothing of version 2 was ever saved
  // Four more days (the wall clock set a day on each time, as NTP may): only
  // the three newest days' files are kept.
  for (int day = 0; day < 4; ++day) {
    dev.clock_step(kDayNs);
    run_for(dev, clock, 1);
    REQUIRE(dev.restart_app(kPkg));
    run_for(dev, clock, 1);
  }
  dumped(dev, &blocks);
  CHECK(blocks <= 4);  // three days of files, one of them merged with the running buffer, and today's
}

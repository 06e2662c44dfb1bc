// The simulator's cost of being measured (devsim/observer_cost.cc): free by
// default; with `command-cost`, a gfxinfo dump holds the app's RenderThread
// and a SurfaceFlinger dump its main thread, and exactly the frames that
// waited turn janky. Each case compares a dumped device with its undumped
// twin (same seed): the model's draws do not depend on the dumps.
#include <catch2/catch.hpp>

#include <string>

#include "app/session/device_timing.h"
#include "devsim/model.h"
#include "devsim/shell.h"
#include "tests/devsim/quiet_device.h"
#include "tests/rig/json.h"

using namespace jank::devsim;

namespace {

constexpr std::int64_t kMs = 1'000'000;
const std::string kPkg = "com.example.feed";

struct Twins {
  ManualClock clock;
  Device dumped, quiet;
  explicit Twins(DeviceConfig c) : dumped(c, clock), quiet(c, clock) {}
  // `seconds` of frames; the dumped device runs `command` every `every_ms`.
  int run(int seconds, int every_ms, const std::string& command) {
    int dumps = 0;
    for (std::int64_t t = 0; t < seconds * 1000; t += every_ms) {
      clock.advance_ns(every_ms * kMs);
      quiet.advance();
      dumped.advance();
      int exit_code = 0;
      if (command == "gfxinfo") {
        dumped.dumpsys_gfxinfo({kPkg, "framestats"}, &exit_code);
      } else {
        dumped.surfaceflinger_dumped();
        dumped.surfaceflinger_latency(dumped.layer_name(*dumped.app(kPkg), false));
      }
      ++dumps;
    }
    // The compositions after the last dump.
    clock.advance_ns(100 * kMs);
    quiet.advance();
    dumped.advance();
    return dumps;
  }
};

jank::rig::Json app_truth(const Device& d) {
  const auto t = jank::rig::parse_json(d.truth_json());
  REQUIRE(t);
  return (*t)["apps"].arr.at(0);
}

std::uint64_t observer(const Device& d, const char* key) {
  const auto t = jank::rig::parse_json(d.truth_json());
  REQUIRE(t);
  return (*t)["observer"][key].u64();
}

double observer_work_ms(const Device& d) {
  const auto t = jank::rig::parse_json(d.truth_json());
  REQUIRE(t);
  return (*t)["observer"]["command_work_ms"].num;
}

DeviceConfig device() {
  DeviceConfig c = test::quiet_device(33);
  c.sf_miss_prob = 0;  // every SurfaceFlinger miss is the observer's
  c.refresh_hz = 60;
  return c;
}

}  // namespace

TEST_CASE("devsim observer cost: free by default, a dump changes no frame", "[devsim][observer]") {
  Twins twins(device());
  twins.run(10, 50, "gfxinfo");
  twins.run(10, 50, "sf");
  const auto dumped = app_truth(twins.dumped), quiet = app_truth(twins.quiet);
  CHECK(dumped["gfx_total_frames"].u64() == quiet["gfx_total_frames"].u64());
  CHECK(dumped["gfx_janky_frames"].u64() == quiet["gfx_janky_frames"].u64());
  CHECK(dumped["observer_janky_frames"].u64() == 0);
  CHECK(observer(twins.dumped, "sf_missed_compositions") == 0);
  CHECK(twins.dumped.app(kPkg)->ft_truth.janky == twins.quiet.app(kPkg)->ft_truth.janky);
}

TEST_CASE("devsim observer cost: a gfxinfo dump holding the RenderThread makes the frames that waited janky",
          "[devsim][observer]") {
  Twins twins(device());
  twins.dumped.set_command_cost(40 * kMs, std::nullopt);
  const int dumps = twins.run(20, 500, "gfxinfo");
  const auto dumped = app_truth(twins.dumped), quiet = app_truth(twins.quiet);
  const std::uint64_t caused = dumped["observer_janky_frames"].u64();
  // 40 ms at 60 Hz: two or three frames start while it runs; those that
  // start late in it wait too little to miss.
  CHECK(caused >= static_cast<std::uint64_t>(dumps));
  CHECK(caused <= 3u * static_cast<std::uint64_t>(dumps));
  CHECK(dumped["gfx_total_frames"].u64() == quiet["gfx_total_frames"].u64());
  CHECK(dumped["gfx_janky_frames"].u64() == quiet["gfx_janky_frames"].u64() + caused);
  // SurfaceFlinger's verdict hardly does: a queue of buffers (the app draws
  // every vsync, one buffer ahead) absorbs a frame late by under a period.
  CHECK(twins.dumped.app(kPkg)->ft_truth.janky >= twins.quiet.app(kPkg)->ft_truth.janky);
  CHECK(twins.dumped.app(kPkg)->ft_truth.janky <= twins.quiet.app(kPkg)->ft_truth.janky + caused / 10);
  CHECK(observer(twins.dumped, "sf_missed_compositions") == 0);
}

TEST_CASE("devsim observer cost: a SurfaceFlinger dump longer than the composition's slack misses compositions",
          "[devsim][observer]") {
  SECTION("20 ms at 60 Hz: one composition per dump") {
    Twins twins(device());
    twins.dumped.set_command_cost(std::nullopt, 20 * kMs);
    const int dumps = twins.run(20, 500, "sf");
    const std::uint64_t missed = observer(twins.dumped, "sf_missed_compositions");
    CHECK(missed == static_cast<std::uint64_t>(dumps));
    // HWUI never sees SurfaceFlinger's misses; FrameTimeline does.
    CHECK(app_truth(twins.dumped)["gfx_janky_frames"].u64() == app_truth(twins.quiet)["gfx_janky_frames"].u64());
    CHECK(twins.dumped.app(kPkg)->ft_truth.janky == twins.quiet.app(kPkg)->ft_truth.janky + missed);
  }
  SECTION("10 ms at 60 Hz: within the slack, nothing misses") {
    Twins twins(device());
    twins.dumped.set_command_cost(std::nullopt, 10 * kMs);
    twins.run(20, 500, "sf");
    CHECK(observer(twins.dumped, "sf_missed_compositions") == 0);
    CHECK(twins.dumped.app(kPkg)->ft_truth.janky == twins.quiet.app(kPkg)->ft_truth.janky);
  }
}

TEST_CASE("devsim observer cost: the shell's $EPOCHREALTIME moves by the work a command did on the device",
          "[devsim][observer]") {
  ManualClock clock;
  Device dev(device(), clock);
  dev.set_command_cost(7 * kMs, 3 * kMs);
  clock.advance_ns(1000 * kMs);
  const auto gfx = run_shell(dev, jank::app::timed_command("dumpsys gfxinfo com.example.feed framestats"), false);
  jank::ingest::ShellResult r;
  r.output = gfx.out;
  r.error_output = r.error_tail = gfx.err;
  const auto t = jank::app::take_device_time(r, std::chrono::seconds(1));
  CHECK(t.result == jank::app::DeviceTimeResult::timed);
  CHECK(t.took == std::chrono::milliseconds(7));
  CHECK(r.exit_code == 0);
  CHECK(gfx.out.find("** Graphics info for pid") != std::string::npos);  // stdout is the command's

  const auto sf = run_shell(dev, jank::app::timed_command("dumpsys SurfaceFlinger --list | grep nothing"), false);
  r = {};
  r.error_output = r.error_tail = sf.err;
  const auto t2 = jank::app::take_device_time(r, std::chrono::seconds(1));
  CHECK(t2.took == std::chrono::milliseconds(3));
  CHECK(r.exit_code == 1);  // grep found nothing: the pipeline's status
  CHECK(observer_work_ms(dev) == Approx(10));

  // Single quotes keep the text as written; other parameters are not simulated.
  const auto quoted = run_shell(dev, "echo '$?' \"$?\" $EPOCHREALTIMEX", false);
  CHECK(quoted.out == "$? 0 $EPOCHREALTIMEX\n");
}

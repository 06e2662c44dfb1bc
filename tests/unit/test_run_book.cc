// Runs in the metric model (metrics/run_book.h, run_results.h): when the
// baseline and the final counts are taken, what a run counts, and what it
// keeps across a checkpoint.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "exporters/run_json.h"
#include "metrics/run_book.h"
#include "metrics/run_results.h"
#include "metrics/sources/clocks.h"
#include "metrics/sources/cpu.h"
#include "metrics/sources/gfxinfo.h"
#include "metrics/sources/memory.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/skips.h"
#include "metrics/sources/versions.h"
#include "metrics/state_io.h"
#include "parsers/resource_files.h"
#include "parsers/sf_latency.h"
#include "parsers/sf_layers.h"

using namespace jank;
using metrics::RunState;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

metrics::DeviceMetrics& following(metrics::Store& store, const std::string& serial) {
  auto& d = store.device(serial);
  d.live.live = true;
  d.live.state = metrics::DeviceState::following;
  return d;
}

parsers::GfxinfoDump gfx_dump(const std::string& package, std::uint64_t total, std::uint64_t janky) {
  const std::string text = "Applications Graphics Acceleration Info:\nUptime: 1 Realtime: 1\n\n** Graphics info for pid 42 [" +
                           package + "] **\n\nStats since: 1000ns\nTotal frames rendered: " + std::to_string(total) +
                           "\nJanky frames: " + std::to_string(janky) + " (1.00%)\n";
  return parsers::parse_gfxinfo(text);
}

metrics::RunSpec spec(const std::string& id, const std::string& package, std::vector<std::string> serials = {}) {
  metrics::RunSpec s;
  s.id = id;
  s.name = "scroll";
  s.package = package;
  s.serials = std::move(serials);
  return s;
}

const metrics::RunDevice& device_of(const metrics::Run& run, const std::string& serial) {
  for (const auto& d : run.devices) {
    if (d.serial == serial) return d;
  }
  FAIL("no device " << serial);
  return run.devices.front();
}

}  // namespace

TEST_CASE("a run takes its baseline only after a gfxinfo round that began after the start") {
  metrics::Store store;
  auto& d = following(store, "s1");
  metrics::record_gfxinfo(store, d, gfx_dump("com.a", 100, 5));
  metrics::RunBook book;
  const auto started = book.start(spec("r", "com.a"), 10 * kSecond, store);
  REQUIRE(started.run != nullptr);
  CHECK(started.run->spec.serials == std::vector<std::string>{"s1"});  // every followed device
  CHECK(d.pinned_packages.contains("com.a"));

  // A round that began before the start does not settle it.
  d.live.gfxinfo_round_begun_ns = 9 * kSecond;
  book.advance(12 * kSecond, store);
  CHECK(book.find("r")->state == RunState::starting);
  // Frames drawn before the start, polled now, stay out of the run.
  metrics::record_gfxinfo(store, d, gfx_dump("com.a", 130, 6));
  d.live.gfxinfo_round_begun_ns = 10 * kSecond + 1;
  book.advance(13 * kSecond, store);
  REQUIRE(book.find("r")->state == RunState::running);
  CHECK(device_of(*book.find("r"), "s1").settled_start);

  metrics::record_gfxinfo(store, d, gfx_dump("com.a", 190, 10));
  jank::metrics::record_skip(store, d, "com.a", 0, false, 40);
  jank::metrics::record_skip(store, d, "com.a", 0, false, 7);
  book.advance(14 * kSecond, store);

  int status = 0;
  std::string error;
  REQUIRE(book.stop("r", 15 * kSecond, status, error));
  CHECK(status == 202);
  CHECK(book.find("r")->state == RunState::stopping);
  // Drawn before the stop, polled after it: in the run.
  metrics::record_gfxinfo(store, d, gfx_dump("com.a", 200, 11));
  book.advance(15 * kSecond + kSecond / 2, store);  // no round since the stop yet
  CHECK(book.find("r")->state == RunState::stopping);
  d.live.gfxinfo_round_begun_ns = 15 * kSecond + 1;
  book.advance(16 * kSecond, store);
  const metrics::Run& run = *book.find("r");
  REQUIRE(run.state == RunState::finished);
  CHECK(!d.pinned_packages.contains("com.a"));

  const auto results = metrics::run_results(run, device_of(run, "s1"), 16 * kSecond);
  CHECK(results.duration_seconds == 3.0);  // baseline at 13 s, final counts at 16 s (the stop asked at 15 s)
  CHECK(*results.metrics.at("frames") == 70);  // 200 − 130
  CHECK(*results.metrics.at("janky_frames") == 5);
  CHECK(*results.metrics.at("janky_percent") == Approx(100.0 * 5 / 70));
  CHECK(*results.metrics.at("skipped_frames") == 47);
  CHECK(*results.metrics.at("skip_events") == 2);
  CHECK(*results.metrics.at("max_skipped_frames") == 40);
  CHECK(*results.metrics.at("sm") == Approx(60 - 47 / 3.0));
  // No SurfaceFlinger or FrameTimeline source: absent, not 0.
  CHECK(!results.metrics.at("fps").has_value());
  CHECK(!results.metrics.at("ft_frames").has_value());
}

TEST_CASE("a source that restarts from 0 during a run adds its new counts and is counted") {
  metrics::Store store;
  auto& d = following(store, "s1");
  metrics::RunBook book;
  book.start(spec("r", "com.a", {"s1"}), kSecond, store);
  d.live.gfxinfo_round_begun_ns = 2 * kSecond;
  jank::metrics::record_skip(store, d, "com.a", 0, false, 10);
  book.advance(3 * kSecond, store);  // baseline: 10 skipped before
  jank::metrics::record_skip(store, d, "com.a", 0, false, 5);
  book.advance(4 * kSecond, store);
  // The process series goes (as if expired) and comes back from 0.
  d.packages.erase("com.a");
  jank::metrics::record_skip(store, d, "com.a", 0, false, 3);
  book.advance(5 * kSecond, store);
  const auto& dev = device_of(*book.find("r"), "s1");
  CHECK(dev.counted.total("skipped_frames") == 8u);
  CHECK(dev.restarts == 1);
}

TEST_CASE("runs refuse bad specs and overlaps and bound how many stay open and kept") {
  metrics::Store store;
  following(store, "s1");
  following(store, "s2");
  metrics::RunBookOptions options;
  options.max_open = 2;
  options.max_kept = 1;
  metrics::RunBook book(options);
  CHECK(book.start(spec("bad id!", "com.a"), kSecond, store).status == 400);
  CHECK(book.start(spec("r", "not a package"), kSecond, store).status == 400);
  auto long_name = spec("r", "com.a");
  long_name.name = std::string(129, 'x');
  CHECK(book.start(long_name, kSecond, store).status == 400);
  REQUIRE(book.start(spec("r1", "com.a", {"s1"}), kSecond, store).run != nullptr);
  // The same app on the same device: a conflict; another device or app is fine.
  CHECK(book.start(spec("r2", "com.a", {"s1", "s2"}), kSecond, store).status == 409);
  CHECK(book.start(spec("r1", "com.b", {"s2"}), kSecond, store).status == 409);  // the id is taken
  REQUIRE(book.start(spec("r2", "com.a", {"s2"}), kSecond, store).run != nullptr);
  CHECK(book.start(spec("r3", "com.b", {"s2"}), kSecond, store).status == 429);

  // Two finish; only the newer is kept.
  int status = 0;
  std::string error;
  for (const char* id : {"r1", "r2"}) REQUIRE(book.stop(id, 2 * kSecond, status, error));
  book.advance(10 * kSecond, store);
  book.advance(40 * kSecond, store);  // past the settle timeout: finished, unsettled
  CHECK(book.runs().size() == 1);
  CHECK(book.find("r2") != nullptr);
  CHECK(book.counts().dropped.at("count") == 1);
  CHECK(!book.stop("r2", 50 * kSecond, status, error));
  CHECK(status == 409);
  CHECK(!book.stop("r9", 50 * kSecond, status, error));
  CHECK(status == 404);
}

TEST_CASE("a run's steps merge in pairs past the step cap and keep their sums") {
  metrics::Store store;
  auto& d = following(store, "s1");
  metrics::RunBookOptions options;
  options.step = std::chrono::seconds(1);
  options.max_steps = 4;
  metrics::RunBook book(options);
  book.start(spec("r", "com.a", {"s1"}), 0, store);
  d.live.gfxinfo_round_begun_ns = 1;
  book.advance(kSecond, store);  // baseline
  for (int s = 2; s <= 6; ++s) {
    jank::metrics::record_skip(store, d, "com.a", 0, false, static_cast<std::uint32_t>(s));
    book.advance(s * kSecond, store);
  }
  const auto& run = *book.find("r");
  const auto& dev = device_of(run, "s1");
  REQUIRE(dev.steps.size() == 3);  // 5 one-second steps: 4 kept, the fifth merged them to 2+1
  CHECK(run.step_ns == 2 * kSecond);
  std::uint64_t sum = 0;
  for (const auto& step : dev.steps) sum += step.skipped_frames;
  CHECK(sum == 2 + 3 + 4 + 5 + 6);
  CHECK(dev.steps[0].span_ns == 2 * kSecond);
}

TEST_CASE("runs survive a checkpoint round trip and refuse a damaged one") {
  metrics::Store store;
  auto& d = following(store, "s1");
  metrics::RunBook book;
  auto s = spec("r", "com.a", {"s1"});
  s.tags = {{"build", "1.2"}};
  book.start(s, kSecond, store);
  d.live.gfxinfo_round_begun_ns = 2 * kSecond;
  metrics::versions_source().state(d).by_package["com.a"] = {"1.2", 12};
  book.advance(3 * kSecond, store);
  jank::metrics::record_skip(store, d, "com.a", 0, false, 9);
  book.advance(4 * kSecond, store);
  const std::string text = book.save();

  metrics::Store other;
  following(other, "s1");
  metrics::RunBook restored;
  std::string error;
  REQUIRE(restored.load(text, error, other));
  CHECK(restored.save() == text);
  const auto& run = *restored.find("r");
  CHECK(run.state == RunState::running);
  CHECK(run.spec.tags.at("build") == "1.2");
  CHECK(device_of(run, "s1").versions.at(0).version.code == 12);
  CHECK(other.device("s1").pinned_packages.contains("com.a"));  // pins come back with the runs

  for (const auto& bad : {text.substr(0, text.size() / 2), std::string("jank_exporter_runs 9 1 0 0 0 0\nend\n"),
                          std::string("garbage")}) {
    metrics::RunBook broken;
    std::string why;
    CHECK(!broken.load(bad, why, other));
    CHECK(!why.empty());
  }
}

TEST_CASE("bucket quantiles give the upper bound of the bucket holding the rank") {
  const std::vector<double> bounds = {0.01, 0.02, 0.05};
  CHECK(!metrics::bucket_quantile(bounds, {0, 0, 0, 0}, 0.5));
  // 10 observations: 6 ≤ 10 ms, 3 ≤ 20 ms, 1 ≤ 50 ms.
  const std::vector<std::uint64_t> counts = {6, 3, 1, 0};
  CHECK(*metrics::bucket_quantile(bounds, counts, 0.5) == 0.01);  // rank 5
  CHECK(*metrics::bucket_quantile(bounds, counts, 0.9) == 0.02);  // rank 9
  CHECK(*metrics::bucket_quantile(bounds, counts, 0.99) == 0.05);  // rank 10
  // Beyond the last bound: that bound (a floor).
  CHECK(*metrics::bucket_quantile(bounds, {0, 0, 0, 2}, 0.5) == 0.05);
}

TEST_CASE("a version change during a run is recorded and flagged in its results") {
  metrics::Store store;
  auto& d = following(store, "s1");
  metrics::versions_source().state(d).by_package["com.a"] = {"1.0", 1};
  metrics::RunBook book;
  book.start(spec("r", "com.a", {"s1"}), kSecond, store);
  d.live.gfxinfo_round_begun_ns = 2 * kSecond;
  book.advance(3 * kSecond, store);  // baseline: 1.0
  book.advance(4 * kSecond, store);
  metrics::versions_source().state(d).by_package["com.a"] = {"1.1", 2};  // reinstalled mid-run
  book.advance(5 * kSecond, store);
  const auto& dev = device_of(*book.find("r"), "s1");
  REQUIRE(dev.versions.size() == 2);
  CHECK(dev.versions[0].version.name == "1.0");
  CHECK(dev.versions[1].version.code == 2);
  CHECK(dev.versions[1].at_ns == 5 * kSecond);
  const std::string json = exporters::run_json(*book.find("r"), 5 * kSecond, exporters::RunDetail::summary);
  CHECK_THAT(json, Catch::Contains("\"version_changed\": true"));
  CHECK_THAT(json, Catch::Contains("\"at_seconds\": 2.0"));
}

TEST_CASE("a run's FPS is frame intervals over active time, in its results and its series", "[runs][fps]") {
  metrics::Store store;
  auto& d = following(store, "s1");
  const auto layer = *parsers::classify_layer("com.a/com.a.Main#7");
  // Bursts of 0.5 s at 60 Hz (30 periods: 31 presents, 30 intervals), a 2 s rest before each.
  std::int64_t next = kSecond;
  auto burst = [&] {
    parsers::SfLatency latency;
    latency.refresh_period_ns = 16'666'667;
    for (int i = 0; i <= 30; ++i) {
      const std::int64_t at = next + i * 16'666'667LL;
      latency.rows.push_back({at, at, at});
    }
    next += 30 * 16'666'667LL + 2 * kSecond;
    metrics::record_layer_latency(store, d, layer, latency);
  };
  burst();  // before the run: its baseline
  metrics::RunBook book;
  book.start(spec("r", "com.a", {"s1"}), kSecond, store);
  d.live.gfxinfo_round_begun_ns = 2 * kSecond;
  book.advance(3 * kSecond, store);
  REQUIRE(book.find("r")->state == RunState::running);
  for (int b = 0; b < 3; ++b) burst();
  book.advance(9 * kSecond, store);
  int status = 0;
  std::string error;
  REQUIRE(book.stop("r", 10 * kSecond, status, error));
  d.live.gfxinfo_round_begun_ns = 10 * kSecond + 1;
  book.advance(11 * kSecond, store);
  const metrics::Run& run = *book.find("r");
  REQUIRE(run.state == RunState::finished);
  const auto results = metrics::run_results(run, device_of(run, "s1"), 11 * kSecond);
  // 93 presents, 90 intervals in 3 × 0.5 s: 60, where presents read 62.
  CHECK(results.metrics.at("sf_frames") == 93);
  CHECK(*results.metrics.at("active_seconds") == Approx(1.5).epsilon(1e-6));
  CHECK(*results.metrics.at("fps") == Approx(60).epsilon(1e-6));
  const std::string json = exporters::run_json(run, 11 * kSecond, exporters::RunDetail::full);
  const auto series = nlohmann::json::parse(json)["devices"][0]["series"];
  CHECK(series["sf_frames"][0] == 93);
  CHECK(series["fps"][0] == 60.0);

  // A step saved by a version without the interval count has no FPS, not the old figure.
  std::string text = book.save();
  for (std::size_t at; (at = text.find(" iv ")) != std::string::npos;) {
    const std::size_t end = text.find(' ', at + 4);
    text.erase(at, end - at);
  }
  metrics::Store other;
  following(other, "s1");
  metrics::RunBook old;
  REQUIRE(old.load(text, error, other));
  const std::string old_json = exporters::run_json(*old.find("r"), 11 * kSecond, exporters::RunDetail::full);
  const auto old_series = nlohmann::json::parse(old_json)["devices"][0]["series"];
  CHECK(old_series["sf_frames"][0] == 93);
  CHECK(old_series["fps"][0].is_null());
}

TEST_CASE("a run counts the app's slow and frozen frames over the run, from HWUI and from its layers", "[runs][vitals]") {
  metrics::Store store;
  auto& d = following(store, "s1");
  auto dump = [](std::uint64_t total, const std::string& histogram) {
    return parsers::parse_gfxinfo(
        "Applications Graphics Acceleration Info:\nUptime: 1 Realtime: 1\n\n** Graphics info for pid 42 [com.a] **\n\n"
        "Stats since: 1000ns\nTotal frames rendered: " +
        std::to_string(total) + "\nJanky frames: 0 (0.00%)\nHISTOGRAM: " + histogram + "\n");
  };
  const auto layer = *parsers::classify_layer("com.a/com.a.Main#7");
  std::int64_t next = kSecond;
  // 20 frames at 60 Hz, then a gap of `gap_ns` (0: none) and 10 more.
  auto present = [&](std::int64_t gap_ns) {
    parsers::SfLatency latency;
    latency.refresh_period_ns = 16'666'667;
    for (int i = 0; i < 30; ++i) {
      if (i == 20) next += gap_ns;
      latency.rows.push_back({next, next, next});
      next += 16'666'667;
    }
    metrics::record_layer_latency(store, d, layer, latency);
  };
  // Before the run: 6 slow frames of which 1 frozen; the layer presents steadily.
  metrics::record_gfxinfo(store, d, dump(56, "5ms=50 17ms=5 700ms=1"));
  present(0);
  metrics::RunBook book;
  book.start(spec("r", "com.a", {"s1"}), kSecond, store);
  d.live.gfxinfo_round_begun_ns = 2 * kSecond;
  book.advance(3 * kSecond, store);
  REQUIRE(book.find("r")->state == RunState::running);
  // During it: 42 more frames, 12 more slow (17, 19, 700 and 1000 ms), 2 more frozen;
  // the layer stalls once for 0.8 s (a frame over 700 ms: slow and frozen).
  metrics::record_gfxinfo(store, d, dump(98, "5ms=80 17ms=12 19ms=3 700ms=2 1000ms=1"));
  present(800'000'000);
  book.advance(9 * kSecond, store);
  int status = 0;
  std::string error;
  REQUIRE(book.stop("r", 10 * kSecond, status, error));
  d.live.gfxinfo_round_begun_ns = 10 * kSecond + 1;
  book.advance(11 * kSecond, store);
  const metrics::Run& run = *book.find("r");
  REQUIRE(run.state == RunState::finished);
  const auto results = metrics::run_results(run, device_of(run, "s1"), 11 * kSecond);
  CHECK(results.metrics.at("frames") == 42);
  CHECK(results.metrics.at("slow_frames") == 12);
  CHECK(results.metrics.at("frozen_frames") == 2);
  CHECK(*results.metrics.at("slow_percent") == Approx(100.0 * 12 / 42));
  CHECK(*results.metrics.at("frozen_percent") == Approx(100.0 * 2 / 42));
  CHECK(results.metrics.at("sf_slow_frames") == 1);
  CHECK(results.metrics.at("sf_frozen_frames") == 1);
  const auto json = nlohmann::json::parse(exporters::run_json(run, 11 * kSecond, exporters::RunDetail::summary));
  CHECK(json["devices"][0]["metrics"]["frozen_frames"] == 2);
  CHECK(json["devices"][0]["metrics"]["sf_frozen_frames"] == 1);
}

TEST_CASE("a run of an app whose gfxinfo prints no HISTOGRAM has no vitals counts rather than 0", "[runs][vitals]") {
  metrics::Store store;
  auto& d = following(store, "s1");
  metrics::record_gfxinfo(store, d, gfx_dump("com.a", 100, 5));
  metrics::RunBook book;
  book.start(spec("r", "com.a", {"s1"}), kSecond, store);
  d.live.gfxinfo_round_begun_ns = 2 * kSecond;
  book.advance(3 * kSecond, store);
  metrics::record_gfxinfo(store, d, gfx_dump("com.a", 160, 9));
  book.advance(4 * kSecond, store);
  const auto results = metrics::run_results(*book.find("r"), device_of(*book.find("r"), "s1"), 4 * kSecond);
  CHECK(results.metrics.at("frames") == 60);
  CHECK(!results.metrics.at("slow_frames").has_value());
  CHECK(!results.metrics.at("frozen_percent").has_value());
}

TEST_CASE("a count a baseline from an older exporter lacks is counted from the next step, not over its lifetime") {
  metrics::AppCounters before, now, sum;
  // The baseline knew the layer but not its frame intervals or vitals.
  before.values["sf_frames@layer:L"] = 1000;
  now.values["sf_frames@layer:L"] = 1060;
  now.values["sf_intervals@layer:L"] = 5000;
  now.values["sf_frozen_frames@layer:L"] = 7;
  // A layer that appeared during the run counts from 0, as before.
  now.values["sf_intervals@layer:M"] = 40;
  // A cause first seen during the run went from none to 3.
  before.values["skipped_frames@com.a"] = 10;
  now.values["skipped_frames@com.a"] = 10;
  now.values["cause:slow_ui_thread@com.a"] = 3;
  metrics::add_growth(sum, before, now);
  CHECK(sum.values.at("sf_frames@layer:L") == 60);
  CHECK(sum.values.at("sf_intervals@layer:L") == 0);
  CHECK(sum.values.at("sf_frozen_frames@layer:L") == 0);
  CHECK(sum.values.at("sf_intervals@layer:M") == 40);
  CHECK(sum.values.at("cause:slow_ui_thread@com.a") == 3);
  // The step after: growth as usual.
  metrics::AppCounters later = now, sum2;
  later.values["sf_intervals@layer:L"] = 5059;
  metrics::add_growth(sum2, now, later);
  CHECK(sum2.values.at("sf_intervals@layer:L") == 59);
}

namespace {

// A resource poll of app com.a (pid 42, process ticks `user` + `system`,
// the main thread `main_ticks`, `rss_kb`) with policy 4 capped or not.
void resource_poll(metrics::Store& store, metrics::DeviceMetrics& d, std::int64_t at_ns, int user, int system,
                   int main_ticks, int rss_kb, bool capped) {
  auto stat = [](int id, const std::string& name, int u, int s) {
    return std::to_string(id) + " (" + name + ") S 1 1 0 0 -1 0 0 0 0 0 " + std::to_string(u) + " " +
           std::to_string(s) + " 0 0 10 -10 30 0 777 1 512";
  };
  store.set_host_time(at_ns);
  const auto answer = parsers::parse_resource_answer(
      "/proc/sys/kernel/random/boot_id:b\n/proc/42/stat:" + stat(42, "com.a", user, system) + "\n" +
      "/proc/42/task/42/stat:" + stat(42, "com.a", main_ticks, 0) + "\n" + "/proc/42/status:VmRSS:\t " +
      std::to_string(rss_kb) + " kB\n" + "/sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq:" +
      (capped ? "1500000" : "2400000") + "\n/sys/devices/system/cpu/cpufreq/policy4/cpuinfo_max_freq:2400000\n");
  REQUIRE(answer.malformed_lines == 0);
  metrics::record_cpu(store, d, answer, {});
  metrics::record_clocks(store, d, answer, 20 * kSecond);
  metrics::record_memory(store, d, answer, 20 * kSecond);
}

}  // namespace

TEST_CASE("a run's CPU, main thread, peak memory and throttled time come from the resource poll") {
  metrics::Store store;
  auto& d = following(store, "s1");
  d.pid_names.started(42, "com.a");
  metrics::record_gfxinfo(store, d, gfx_dump("com.a", 100, 5));
  resource_poll(store, d, 9 * kSecond, 1000, 200, 800, 200'000, false);  // before the run: not the run's
  metrics::RunBook book;
  REQUIRE(book.start(spec("r", "com.a"), 10 * kSecond, store).run != nullptr);
  d.live.gfxinfo_round_begun_ns = 10 * kSecond + 1;
  book.advance(11 * kSecond, store);
  REQUIRE(book.find("r")->state == RunState::running);

  // Step 1 (5 s): 150 + 50 ticks = 2 s of CPU, 40 % of a core; the main thread 1 s.
  resource_poll(store, d, 16 * kSecond, 1150, 250, 900, 250'000, true);
  book.advance(16 * kSecond + 1, store);
  // Step 2 (5 s): 400 ticks = 4 s, 80 %; the main thread 3 s; capped since 16 s: +5 s throttled.
  resource_poll(store, d, 21 * kSecond, 1450, 350, 1200, 300'000, true);
  book.advance(21 * kSecond + 1, store);
  // Step 3: 100 ticks = 1 s, 20 %; the cap lifted.
  resource_poll(store, d, 26 * kSecond, 1530, 370, 1250, 220'000, false);
  book.advance(26 * kSecond + 1, store);

  const metrics::Run& run = *book.find("r");
  const auto results = metrics::run_results(run, device_of(run, "s1"), 26 * kSecond + 1);
  const double seconds = results.duration_seconds;
  REQUIRE(seconds == Approx(15));
  CHECK(*results.metrics.at("cpu_percent") == Approx(100.0 * 7 / seconds));
  CHECK(*results.metrics.at("main_thread_cpu_percent") == Approx(100.0 * 4.5 / seconds));
  // The steps' shares are 40, 80 and 20 %: the nearest-rank 95th percentile is the largest.
  CHECK(*results.metrics.at("cpu_p95_percent") == Approx(80).epsilon(1e-6));
  CHECK(*results.metrics.at("peak_rss_bytes") == 300'000.0 * 1024);
  CHECK(*results.metrics.at("throttled_seconds") == Approx(5));
  CHECK(*results.metrics.at("throttled_percent") == Approx(100.0 * 5 / seconds));

  // The series carries each step's CPU share.
  const nlohmann::json j = nlohmann::json::parse(exporters::run_json(run, 26 * kSecond + 1, exporters::RunDetail::full));
  const auto& cpu = j["devices"][0]["series"]["cpu_percent"];
  REQUIRE(cpu.size() == 3);
  CHECK(cpu[0].get<double>() == Approx(40).epsilon(1e-3));
  CHECK(cpu[1].get<double>() == Approx(80).epsilon(1e-3));
  CHECK(cpu[2].get<double>() == Approx(20).epsilon(1e-3));

  // The run book's file keeps the steps' CPU and the peak memory.
  metrics::RunBook restored;
  std::string error;
  metrics::Store other;
  REQUIRE(restored.load(book.save(), error, other));
  const auto again = metrics::run_results(*restored.find("r"), device_of(*restored.find("r"), "s1"), 26 * kSecond + 1);
  CHECK(again.metrics.at("cpu_p95_percent") == results.metrics.at("cpu_p95_percent"));
  CHECK(again.metrics.at("peak_rss_bytes") == results.metrics.at("peak_rss_bytes"));
}

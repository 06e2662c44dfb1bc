// The flight recorder's rules and limits (metrics/spike_rules.h,
// metrics/trace_budget.h) on hand-made counts whose spikes are worked out here.
#include <catch2/catch.hpp>

#include "metrics/sources/layers.h"
#include "metrics/sources/skips.h"
#include "metrics/spike_rules.h"
#include "metrics/store.h"
#include "metrics/trace_budget.h"
#include "metrics/sources/traces.h"

using jank::metrics::DeviceMetrics;
using jank::metrics::ExemplarCounter;
using jank::metrics::Spike;
using jank::metrics::SpikeDetector;
using jank::metrics::SpikeRule;
using jank::metrics::SpikeRuleLimits;
using jank::metrics::Store;
using jank::metrics::StoreOptions;
using jank::metrics::TraceBudget;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kT0 = 1'700'000'000 * kSec;

jank::parsers::AppLayer app_layer() { return {"com.game/com.game.Main#12", "com.game", {}, "com.game/com.game.Main"}; }

// A --latency table with frames presented `gaps_ms` apart from `start_ms`.
jank::parsers::SfLatency frames(double start_ms, const std::vector<double>& gaps_ms) {
  jank::parsers::SfLatency t;
  t.refresh_period_ns = 16'666'667;
  double at = start_ms;
  const auto row = [&](double ms) {
    const auto p = static_cast<std::int64_t>(ms * static_cast<double>(kMs));
    t.rows.push_back({p - 2 * kMs, p, p - 4 * kMs});
  };
  row(at);
  for (const double g : gaps_ms) row(at += g);
  return t;
}

}  // namespace

TEST_CASE("a skip at the rule's size fires once with its frames and a smaller one does not", "[traces][rules]") {
  Store store;
  DeviceMetrics& d = store.device("s1");
  SpikeDetector rules({.skip_frames = 60});
  rules.configure(d);
  store.set_host_time(kT0);
  jank::metrics::record_skip(store, d, "com.early", 0, false, 500);  // before the first look: not this detector's
  CHECK(rules.examine(d, kT0).empty());
  jank::metrics::record_skip(store, d, "com.app", 0, false, 59);
  jank::metrics::record_skip(store, d, "com.app", 0, false, 60);
  const auto spikes = rules.examine(d, kT0 + kSec);
  REQUIRE(spikes.size() == 1);
  CHECK(spikes[0].rule == SpikeRule::skip);
  CHECK(spikes[0].value == 60);
  CHECK(spikes[0].series.counter == ExemplarCounter::skipped_frames);
  CHECK(spikes[0].series.package == "com.app");
  CHECK(spikes[0].host_ns == kT0);
  CHECK(rules.examine(d, kT0 + 2 * kSec).empty());  // read once
}

TEST_CASE("a skip line read long after it was logged fires nothing", "[traces][rules]") {
  Store store;
  DeviceMetrics& d = store.device("s1");
  SpikeDetector rules({.skip_frames = 10});
  rules.configure(d);
  rules.examine(d, kT0);
  store.set_host_time(kT0);
  jank::metrics::record_skip(store, d, "com.app", 0, false, 100);
  CHECK(rules.examine(d, kT0 + 11 * kSec).empty());
}

TEST_CASE("a Davey over the rule fires on the Davey counter and the store keeps no lines with rules off", "[traces][rules]") {
  Store store;
  DeviceMetrics& d = store.device("s1");
  store.set_host_time(kT0);
  jank::metrics::record_skip(store, d, "com.app", 0, false, 300);
  CHECK(jank::metrics::trace_state(d).spike_lines.lines.empty());  // nobody asked
  SpikeDetector rules({.davey_ms = 800});
  rules.configure(d);
  rules.examine(d, kT0);
  jank::parsers::DaveyFrame davey;
  davey.duration_ms = 799;
  davey.duration_valid = true;
  jank::metrics::record_davey(store, d, "com.app", davey);
  davey.duration_ms = 1200;
  jank::metrics::record_davey(store, d, "com.app", davey);
  jank::metrics::record_skip(store, d, "com.app", 0, false, 300);  // the skip rule is off
  const auto spikes = rules.examine(d, kT0 + kSec);
  REQUIRE(spikes.size() == 1);
  CHECK(spikes[0].rule == SpikeRule::davey);
  CHECK(spikes[0].value == 1200);
  CHECK(spikes[0].series.counter == ExemplarCounter::davey_frames);
}

TEST_CASE("a skip of an app beyond the package cap fires on the overflow series", "[traces][rules]") {
  Store store(StoreOptions{.max_packages_per_device = 1});
  DeviceMetrics& d = store.device("s1");
  SpikeDetector rules({.skip_frames = 5});
  rules.configure(d);
  rules.examine(d, kT0);
  store.set_host_time(kT0);
  jank::metrics::record_skip(store, d, "com.first", 0, false, 1);
  jank::metrics::record_skip(store, d, "com.second", 0, false, 9);
  const auto spikes = rules.examine(d, kT0);
  REQUIRE(spikes.size() == 1);
  CHECK(spikes[0].series.package == "_other_");
}

TEST_CASE("SM below the rule for a whole window fires once and then needs a new window", "[traces][rules]") {
  Store store;
  DeviceMetrics& d = store.device("s1");
  d.refresh_hz = 60;
  SpikeDetector rules({.sm_below = 30, .sm_window = std::chrono::seconds(5)});
  std::vector<Spike> fired;
  // 40 skipped frames a second: SM 20 once a whole window is seen. The app's
  // series appears with its first skips (second 1), so its window is whole at 6.
  for (int s = 0; s <= 12; ++s) {
    if (s > 0) jank::metrics::record_skip(store, d, "com.app", 0, false, 40);
    for (const auto& spike : rules.examine(d, kT0 + s * kSec)) {
      fired.push_back(spike);
      INFO("second " << s);
      CHECK((s == 6 || s == 11));
    }
  }
  REQUIRE(fired.size() == 2);
  CHECK(fired[0].rule == SpikeRule::sm);
  CHECK(fired[0].value == Approx(20));
  CHECK(fired[0].series.counter == ExemplarCounter::skipped_frames);
  // 20 a second: SM 40, never below 30.
  SpikeDetector calm({.sm_below = 30, .sm_window = std::chrono::seconds(5)});
  Store other;
  DeviceMetrics& e = other.device("s2");
  for (int s = 0; s <= 12; ++s) {
    if (s > 0) jank::metrics::record_skip(other, e, "com.app", 0, false, 20);
    CHECK(calm.examine(e, kT0 + s * kSec).empty());
  }
}

TEST_CASE("a BigJank burst fires when the window holds the rule's count", "[traces][rules]") {
  Store store;
  DeviceMetrics& d = store.device("s1");
  SpikeDetector rules({.big_jank_count = 3, .big_jank_window = std::chrono::seconds(10)});
  const auto layer = app_layer();
  // Smooth frames, then BigJank frames (over 125 ms and twice the mean of the three before).
  std::vector<double> smooth(30, 16.7);
  jank::metrics::record_layer_latency(store, d, layer, frames(1000, smooth));
  CHECK(rules.examine(d, kT0).empty());  // the baseline
  jank::metrics::record_layer_latency(store, d, layer, frames(1501, {16.7, 16.7, 16.7, 200, 16.7, 16.7, 16.7, 200}));
  const auto two = jank::metrics::layers_of(d).begin()->second.presents.big_jank();
  REQUIRE(two == 2);
  CHECK(rules.examine(d, kT0 + kSec).empty());
  jank::metrics::record_layer_latency(store, d, layer, frames(2100, {16.7, 16.7, 16.7, 16.7, 16.7, 16.7, 16.7, 200}));
  REQUIRE(jank::metrics::layers_of(d).begin()->second.presents.big_jank() == 3);
  const auto spikes = rules.examine(d, kT0 + 2 * kSec);
  REQUIRE(spikes.size() == 1);
  CHECK(spikes[0].rule == SpikeRule::big_jank);
  CHECK(spikes[0].value == 3);
  CHECK(spikes[0].series.counter == ExemplarCounter::layer_big_jank);
  CHECK(spikes[0].series.layer == jank::metrics::layers_of(d).begin()->first);
  CHECK(spikes[0].series.package == "com.game");
}

TEST_CASE("one freeze the app reported fires the frozen-frame rule once and a rest of the same length does not",
          "[traces][rules]") {
  Store store;
  store.set_host_time(kT0);
  DeviceMetrics& d = store.device("s1");
  d.refresh_hz = 60;
  SpikeDetector rules({.frozen_frames = 1});
  const auto layer = app_layer();
  jank::metrics::record_layer_latency(store, d, layer, frames(1000, std::vector<double>(30, 16.7)));
  CHECK(rules.examine(d, kT0).empty());  // the baseline
  // A 2 s gap nobody reported: a rest, no spike.
  jank::metrics::record_layer_latency(store, d, layer, frames(1501, {16.7, 2000, 16.7}));
  CHECK(rules.examine(d, kT0 + kSec).empty());
  // The app logs a 118-frame skip (1.97 s), then the 2 s gap shows: a freeze.
  jank::metrics::record_skip(store, d, "com.game", 0, false, 118);
  const auto anchor = jank::metrics::layers_of(d).begin()->second.presents.last_present();
  REQUIRE(anchor);
  jank::parsers::SfLatency next;
  next.refresh_period_ns = 16'666'667;
  std::int64_t at = *anchor;
  for (const double g : {0.0, 16.7, 16.7, 16.7, 2000.0, 16.7}) {
    at += static_cast<std::int64_t>(g * static_cast<double>(kMs));
    next.rows.push_back({at - 2 * kMs, at, at - 4 * kMs});
  }
  jank::metrics::record_layer_latency(store, d, layer, next);
  const auto spikes = rules.examine(d, kT0 + 2 * kSec);
  REQUIRE(spikes.size() == 1);
  CHECK(spikes[0].rule == SpikeRule::frozen);
  CHECK(spikes[0].value == 1);
  CHECK(spikes[0].series.counter == ExemplarCounter::layer_frozen_frames);
  CHECK(spikes[0].series.layer == jank::metrics::layers_of(d).begin()->first);
  CHECK(jank::metrics::layers_of(d).begin()->second.presents.freezes() == 1);
  CHECK(rules.examine(d, kT0 + 3 * kSec).empty());  // fired once
}

TEST_CASE("a layer presenting at 20 FPS over the rule's active time fires the FPS rule", "[traces][rules]") {
  Store store;
  DeviceMetrics& d = store.device("s1");
  SpikeDetector rules({.fps_below = 30, .fps_active = std::chrono::seconds(5)});
  const auto layer = app_layer();
  std::vector<Spike> fired;
  double start = 1000;
  for (int s = 0; s < 8; ++s) {
    jank::metrics::record_layer_latency(store, d, layer, frames(start, std::vector<double>(20, 50)));  // 1 s at 20 FPS
    start += 1050;
    for (const auto& spike : rules.examine(d, kT0 + s * kSec)) fired.push_back(spike);
  }
  REQUIRE(fired.size() == 1);
  CHECK(fired[0].rule == SpikeRule::fps);
  CHECK(fired[0].value == Approx(20).epsilon(0.05));
  CHECK(fired[0].series.counter == ExemplarCounter::layer_frames_presented);
}

TEST_CASE("the trace budget limits each device and every device together per rolling hour", "[traces][budget]") {
  TraceBudget budget(300 * kSec, 3);
  CHECK(budget.refuse("a", kT0).empty());
  budget.spend("a", kT0);
  CHECK(budget.refuse("a", kT0 + 299 * kSec) == "rate_limit");
  CHECK(budget.refuse("a", kT0 + 300 * kSec).empty());
  budget.spend("b", kT0 + kSec);
  budget.spend("c", kT0 + 2 * kSec);
  CHECK(budget.refuse("d", kT0 + 3 * kSec) == "hourly_cap");
  CHECK(budget.refuse("d", kT0 + 3600 * kSec) == "");  // the first trigger left the hour
}

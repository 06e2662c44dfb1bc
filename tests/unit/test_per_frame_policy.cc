// Which apps are polled frame by frame (per_frame.*): the modes, named apps,
// open runs and spikes, on a store filled by the same record calls the log
// session makes. Time is the test's: nothing sleeps.
#include <catch2/catch.hpp>

#include <memory>

#include "app/session/per_frame_policy.h"
#include "metrics/sources/skips.h"

using namespace jank;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::int64_t kT0 = 1000 * kSecond;

struct Rig {
  std::shared_ptr<config::Config> config = std::make_shared<config::Config>();
  metrics::Store store;
  metrics::DeviceMetrics& device = store.device("s");
  std::unique_ptr<app::PerFramePolicy> policy;

  Rig() { policy = std::make_unique<app::PerFramePolicy>(config); }
  void update(std::int64_t now) { policy->update(device, now); }
};

}  // namespace

TEST_CASE("per-frame policy: always polls every app and needed polls none by default", "[per_frame][app]") {
  Rig rig;
  rig.config->per_frame_mode = "always";
  rig.update(kT0);
  CHECK(rig.policy->polls("com.example.feed"));
  CHECK(rig.policy->polls_any());
  CHECK(rig.device.live.per_frame_polling == true);

  Rig needed;
  needed.update(kT0);
  CHECK_FALSE(needed.policy->polls("com.example.feed"));
  CHECK_FALSE(needed.policy->polls_any());
  CHECK(needed.device.live.per_frame_polling == false);
}

TEST_CASE("per-frame policy: named apps are polled, FrameTimeline while one is in front", "[per_frame][app]") {
  Rig rig;
  rig.config->per_frame_apps = {"com.example.game"};
  rig.update(kT0);
  CHECK(rig.policy->polls("com.example.game"));
  CHECK_FALSE(rig.policy->polls("com.example.feed"));
  CHECK_FALSE(rig.policy->polls_any());
  rig.device.live.foreground = "com.example.game";
  rig.update(kT0);
  CHECK(rig.policy->polls_any());
  CHECK_FALSE(rig.policy->whole_device());
  CHECK(rig.device.live.per_frame_polling == false);
}

TEST_CASE("per-frame policy: an open run polls the whole device", "[per_frame][app]") {
  Rig rig;
  rig.device.pinned_packages.insert("com.example.feed");
  rig.update(kT0);
  CHECK(rig.policy->polls("com.example.other"));
  CHECK(rig.policy->polls_any());
  rig.device.pinned_packages.clear();
  rig.update(kT0 + kSecond);
  CHECK_FALSE(rig.policy->polls_any());
}

TEST_CASE("per-frame policy: a large skip polls the whole device while in the SM window and the time after",
          "[per_frame][app]") {
  Rig rig;  // SM window 60 s, spike at 30 frames, 60 s after
  metrics::record_skip(rig.store, rig.device, "com.example.feed", kT0, true, 29);
  rig.update(kT0 + kSecond);
  CHECK_FALSE(rig.policy->polls_any());
  metrics::record_skip(rig.store, rig.device, "com.example.feed", kT0 + 2 * kSecond, true, 30);
  rig.update(kT0 + 3 * kSecond);
  CHECK(rig.policy->polls("com.example.feed"));
  CHECK(rig.policy->polls("com.example.other"));
  CHECK(rig.device.live.per_frame_polling == true);
  // Still in the window at 61 s; then 60 s more.
  rig.update(kT0 + 61 * kSecond);
  CHECK(rig.policy->polls_any());
  rig.update(kT0 + 63 * kSecond);
  CHECK(rig.policy->polls_any());
  rig.update(kT0 + 120 * kSecond);
  CHECK(rig.policy->polls_any());
  rig.update(kT0 + 123 * kSecond);
  CHECK_FALSE(rig.policy->polls_any());
}

TEST_CASE("per-frame policy: a new Davey line is a spike, those seen at the start are not", "[per_frame][app]") {
  Rig rig;
  parsers::DaveyFrame davey;
  davey.duration_ms = 900;
  metrics::record_davey(rig.store, rig.device, "com.example.feed", davey);
  rig.update(kT0);
  CHECK_FALSE(rig.policy->polls_any());
  rig.update(kT0 + kSecond);
  CHECK_FALSE(rig.policy->polls_any());
  metrics::record_davey(rig.store, rig.device, "com.example.feed", davey);
  rig.update(kT0 + 2 * kSecond);
  CHECK(rig.policy->polls_any());
  rig.update(kT0 + 63 * kSecond);
  CHECK_FALSE(rig.policy->polls_any());
}

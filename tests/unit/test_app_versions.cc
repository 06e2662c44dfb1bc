// App versions (android_app_info): the pure rule that decides when a
// package's version is read, the poller on a fake session, the store's map
// and its expiry, and the exposition.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "app/session/gfxinfo_poller.h"
#include "app/session/version_poller.h"
#include "exporters/prometheus_collector.h"
#include "metrics/sources/skips.h"
#include "metrics/sources/versions.h"

using namespace jank;
using namespace std::chrono_literals;

namespace {

// The version the store holds for `package` on device `serial`, or null.
const metrics::AppVersion* find_app_version(const metrics::Store& store, std::string_view serial,
                                            std::string_view package) {
  const auto d = store.devices().find(serial);
  return d == store.devices().end() ? nullptr : metrics::app_version_of(*d->second, package);
}

constexpr std::int64_t kSecond = 1'000'000'000;

std::vector<std::string> names(std::initializer_list<const char*> list) { return {list.begin(), list.end()}; }

// One command and one wait at a time, answered and fired by the test.
struct FakeSession {
  std::vector<std::string> commands;
  std::function<void(ingest::ShellResult)> pending;
  std::function<void()> due;
  std::int64_t host_ns = 1000 * kSecond;

  app::RunCommand runner() {
    return [this](const std::string& command, std::size_t, std::function<void(ingest::ShellResult)> done) {
      commands.push_back(command);
      pending = std::move(done);
    };
  }
  app::RunAfter timer() {
    return [this](std::chrono::milliseconds, std::function<void()> then) { due = std::move(then); };
  }
  void fire() {
    REQUIRE(due);
    std::exchange(due, nullptr)();
  }
  void answer(std::string output, ingest::AdbErrorKind error = ingest::AdbErrorKind::none) {
    REQUIRE(pending);
    ingest::ShellResult r;
    r.output = std::move(output);
    r.error.kind = error;
    std::exchange(pending, nullptr)(std::move(r));
  }
};

std::string gfxinfo(int pid) {
  return "Applications Graphics Acceleration Info:\n\n** Graphics info for pid " + std::to_string(pid) +
         " [com.example.feed] **\n\nStats since: 5ns\nTotal frames rendered: 10\nJanky frames: 1 (10.00%)\n";
}

std::string package_lines(const std::string& name, int code) {
  return "  Package [com.example.feed] (1dc7f3):\n    versionCode=" + std::to_string(code) +
         " minSdk=24 targetSdk=33\n    versionName=" + name + "\n";
}

}  // namespace

TEST_CASE("version schedule: first sight then a restart then the interval", "[versions][app]") {
  app::VersionSchedule s(300 * kSecond);
  CHECK(s.due(0).empty());
  s.seen("com.example.feed", 100);
  s.seen("com.example.feed:remote", 200);
  s.seen("com.example.chat", 300);
  // Asked once per base package when first seen.
  CHECK(s.due(0) == names({"com.example.chat", "com.example.feed"}));
  s.asked("com.example.feed", 10 * kSecond, true);
  s.asked("com.example.chat", 10 * kSecond, true);
  CHECK(s.due(11 * kSecond).empty());
  // The same pids again: nothing. A second process of the package appearing
  // is no restart of it.
  s.seen("com.example.feed", 100);
  s.seen("com.example.feed:sync", 250);
  CHECK(s.due(20 * kSecond).empty());
  // A new pid of any of its processes: a restart (a reinstall restarts the app).
  s.seen("com.example.feed:remote", 201);
  CHECK(s.due(20 * kSecond) == names({"com.example.feed"}));
  s.asked("com.example.feed:remote", 21 * kSecond, true);  // a process name counts for its package
  CHECK(s.due(22 * kSecond).empty());
  // The interval, counted from each one's last ask.
  CHECK(s.due(310 * kSecond) == names({"com.example.chat"}));
  CHECK(s.due(321 * kSecond) == names({"com.example.chat", "com.example.feed"}));
}

TEST_CASE("version schedule: a failed ask is retried within a minute and the capacity bounds it", "[versions][app]") {
  app::VersionSchedule s(300 * kSecond, 2);
  s.seen("a.b", 1);
  s.seen("c.d", 2);
  s.seen("e.f", 3);  // beyond the capacity: not followed
  CHECK(s.size() == 2);
  CHECK(s.due(0) == names({"a.b", "c.d"}));
  s.asked("a.b", 0, false);
  s.asked("c.d", 0, true);
  CHECK(s.due(59 * kSecond).empty());
  CHECK(s.due(app::VersionSchedule::kRetryNs) == names({"a.b"}));
  // A pid 0 or below, or an empty name, is nothing to follow.
  s.seen("", 5);
  s.seen("a.b", 0);
  CHECK(s.size() == 2);
  // An interval shorter than the retry is kept for failures too.
  app::VersionSchedule fast(10 * kSecond);
  fast.seen("a.b", 1);
  fast.asked("a.b", 0, false);
  CHECK(fast.due(10 * kSecond) == names({"a.b"}));
}

TEST_CASE("package poll results and the command", "[versions][app]") {
  ingest::ShellResult r;
  r.output = package_lines("2.0", 2);
  auto info = parsers::parse_package_info(r.output, "com.example.feed");
  CHECK(app::package_poll_result(r, info) == "ok");
  r.truncated = true;
  CHECK(app::package_poll_result(r, info) == "truncated");
  r.truncated = false;
  r.output = "Unable to find package: com.example.feed\n";
  info = parsers::parse_package_info(r.output, "com.example.feed");
  CHECK(app::package_poll_result(r, info) == "not_found");
  r.output = "Can't find service: package\n";
  info = parsers::parse_package_info(r.output, "com.example.feed");
  CHECK(app::package_poll_result(r, info) == "unrecognised");
  r.output = "  Package [com.example.feed] (1):\n    userId=10001\n";  // a block without a version
  info = parsers::parse_package_info(r.output, "com.example.feed");
  CHECK(app::package_poll_result(r, info) == "unrecognised");
  r.error.kind = ingest::AdbErrorKind::timeout;
  CHECK(app::package_poll_result(r, std::nullopt) == "timeout");
  CHECK(app::package_command("com.example.feed") ==
        "'dumpsys' 'package' 'com.example.feed' | grep -F -e 'Package [' -e 'Hidden system packages:' -e versionCode= "
        "-e versionName= -e 'Unable to find package'");
}

TEST_CASE("gfxinfo poller asks versions when an app is first found then at a new pid then at the interval",
          "[versions][app]") {
  auto config = std::make_shared<config::Config>();
  config->gfxinfo_discover = false;
  config->gfxinfo_packages = {"com.example.feed"};
  config->per_frame_mode = "always";
  config->packages_version_poll_interval_seconds = config::Seconds(300);
  app::SharedState shared{metrics::StoreOptions{}};
  FakeSession session;
  app::GfxinfoPoller poller(
      app::PollerContext{config, "s", shared, session.runner(), session.timer(), [&] { return session.host_ns; }},
      std::make_shared<app::PerFramePolicy>(config));
  poller.start(2000ms);
  const auto& d = shared.store.device("s");
  const std::string gfx = "'dumpsys' 'gfxinfo' 'com.example.feed' 'framestats'";
  const std::string pkg = app::package_command("com.example.feed");

  session.fire();
  session.answer(gfxinfo(100));
  session.answer(package_lines("1.0", 1));
  REQUIRE(session.commands == std::vector<std::string>{gfx, pkg});
  REQUIRE(find_app_version(shared.store, "s", "com.example.feed") != nullptr);
  CHECK(*find_app_version(shared.store, "s", "com.example.feed:remote") == metrics::AppVersion{"1.0", 1});
  CHECK(d.live.package_polls.at("ok") == 1);

  // The same process ten seconds later: gfxinfo only.
  session.host_ns += 10 * kSecond;
  session.fire();
  session.answer(gfxinfo(100));
  CHECK(session.commands.size() == 3);
  CHECK(session.due != nullptr);

  // Reinstalled: a new pid, and the new version read in the same round.
  session.host_ns += 10 * kSecond;
  session.fire();
  session.answer(gfxinfo(177));
  session.answer(package_lines("2.0", 2));
  CHECK(session.commands.back() == pkg);
  CHECK(*find_app_version(shared.store, "s", "com.example.feed") == metrics::AppVersion{"2.0", 2});

  // A failed ask changes nothing, is counted and is retried within a minute.
  session.host_ns += 300 * kSecond;
  session.fire();
  session.answer(gfxinfo(177));
  session.answer("", ingest::AdbErrorKind::timeout);
  CHECK(d.live.package_polls.at("timeout") == 1);
  CHECK(*find_app_version(shared.store, "s", "com.example.feed") == metrics::AppVersion{"2.0", 2});
  session.host_ns += 61 * kSecond;
  session.fire();
  session.answer(gfxinfo(177));
  CHECK(session.commands.back() == pkg);
  // Uninstalled: the version goes.
  session.answer("Unable to find package: com.example.feed\n");
  CHECK(d.live.package_polls.at("not_found") == 1);
  CHECK(find_app_version(shared.store, "s", "com.example.feed") == nullptr);
  CHECK(session.due != nullptr);  // the next round is scheduled whatever the answers
}

TEST_CASE("gfxinfo poller with reset_after_poll asks gfxinfo to reset after its dump", "[versions][app]") {
  config::Config config;
  CHECK(app::gfxinfo_command(config, "com.example.feed") == "'dumpsys' 'gfxinfo' 'com.example.feed' 'framestats'");
  config.gfxinfo_reset_after_poll = true;
  CHECK(app::gfxinfo_command(config, "com.example.feed") ==
        "'dumpsys' 'gfxinfo' 'com.example.feed' 'framestats' 'reset'");
}

TEST_CASE("app versions live with their package's series and are exported as android_app_info",
          "[versions][exporter]") {
  metrics::StoreOptions options;
  options.max_packages_per_device = 3;
  metrics::Store store(options);
  auto& d = store.device("s");
  // No series of the package: not kept.
  CHECK_FALSE(metrics::record_app_version(store, d, "com.example.feed", {"1.0", 1}));
  store.set_host_time(100 * kSecond);
  jank::metrics::record_skip(store, d, "com.example.feed:remote", 1, true, 3);
  jank::metrics::record_skip(store, d, "com.example.feedback", 1, true, 3);
  CHECK(metrics::has_package_series(d, "com.example.feed"));
  CHECK_FALSE(metrics::has_package_series(d, "com.example.fee"));
  CHECK(metrics::record_app_version(store, d, "com.example.feed:remote", {"1.0 beta", std::nullopt}));
  CHECK(metrics::record_app_version(store, d, "com.example.feedback", {"3", 3}));
  REQUIRE(metrics::app_versions_of(d).size() == 2);
  CHECK(metrics::app_versions_of(d).count("com.example.feed") == 1);
  CHECK(find_app_version(store, "other", "com.example.feed") == nullptr);

  exporters::StoreCollector collector(store, exporters::input_time_now());
  const std::string text = collector.Text().str();
  CHECK_THAT(text, Catch::Contains("android_app_info{serial=\"s\",package=\"com.example.feed\",version_name=\"1.0 "
                                   "beta\",version_code=\"\"} 1"));
  CHECK_THAT(text, Catch::Contains("android_app_info{serial=\"s\",package=\"com.example.feedback\",version_name=\"3\","
                                   "version_code=\"3\"} 1"));

  // At most max_packages_per_device versions.
  jank::metrics::record_skip(store, d, "a.b", 1, true, 1);
  jank::metrics::record_skip(store, d, "c.d", 1, true, 1);
  CHECK(metrics::record_app_version(store, d, "a.b", {"1", 1}));
  CHECK_FALSE(metrics::record_app_version(store, d, "c.d", {"1", 1}));
  CHECK(metrics::record_app_version(store, d, "a.b", {"2", 2}));  // an update takes no room

  // The package's series expire: so does its version; the others stay.
  store.set_host_time(200 * kSecond);
  jank::metrics::record_skip(store, d, "com.example.feedback", 2, true, 3);
  jank::metrics::record_skip(store, d, "a.b", 2, true, 1);
  store.expire_packages(d, 50 * kSecond);
  CHECK(metrics::app_versions_of(d).count("com.example.feed") == 0);
  CHECK(metrics::app_versions_of(d).count("com.example.feedback") == 1);
  CHECK(metrics::app_versions_of(d).count("a.b") == 1);
}

TEST_CASE("app versions are not checkpointed: a restored store holds none and asks again", "[versions][state]") {
  metrics::Store store;
  auto& d = store.device("s");
  store.set_host_time(100 * kSecond);
  jank::metrics::record_skip(store, d, "com.example.feed", 1, true, 3);
  REQUIRE(metrics::record_app_version(store, d, "com.example.feed", {"1.0", 1}));
  const std::string text = store.save();
  CHECK(text.find("versions") == std::string::npos);

  metrics::Store restored;
  std::string error;
  REQUIRE(restored.load(text, error));
  CHECK(find_app_version(restored, "s", "com.example.feed") == nullptr);
  CHECK(metrics::app_versions_of(restored.device("s")).empty());
  // The package's counters came back, so a version read now is kept.
  CHECK(metrics::record_app_version(restored, restored.device("s"), "com.example.feed", {"1.1", 2}));
  CHECK(*find_app_version(restored, "s", "com.example.feed") == metrics::AppVersion{"1.1", 2});
}

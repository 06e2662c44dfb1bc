// The thermal poller on a fake session: what it runs, when it asks again,
// what it counts and records. Time is the fake timer's: nothing sleeps.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "app/session/thermal_poller.h"
#include "metrics/sources/thermal.h"

using namespace jank;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

// The session as the poller sees it: one command and one wait at a time,
// answered and fired by the test.
struct FakeSession {
  std::vector<std::string> commands;
  std::function<void(ingest::ShellResult)> pending;
  std::vector<std::chrono::milliseconds> waits;
  std::function<void()> due;
  std::int64_t host_ns = 1000 * kSecond;

  app::RunCommand runner() {
    return [this](const std::string& command, std::size_t, std::function<void(ingest::ShellResult)> done) {
      commands.push_back(command);
      pending = std::move(done);
    };
  }
  app::RunAfter timer() {
    return [this](std::chrono::milliseconds delay, std::function<void()> then) {
      waits.push_back(delay);
      due = std::move(then);
    };
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

const std::string kDump =
    "IsStatusOverride: false\nThermal Status: 4\nCached temperatures:\nHAL Ready: true\n"
    "Current temperatures from HAL:\n\tTemperature{mValue=45.5, mType=3, mName=skin, mStatus=4}\n"
    "\tTemperature{mValue=80.0, mType=0, mName=cpu, mStatus=0}\nCurrent cooling devices from HAL:\n";

struct Rig {
  std::shared_ptr<config::Config> config = std::make_shared<config::Config>();
  app::SharedState shared{metrics::StoreOptions{}};
  FakeSession session;
  std::unique_ptr<app::CommandPoller> poller;

  void start() {
    poller = std::make_unique<app::CommandPoller>(
        app::PollerContext{config, "s", shared, session.runner(), session.timer(), [this] { return session.host_ns; }},
        app::thermal_command_source());
    poller->start();
  }
  metrics::DeviceMetrics& device() { return shared.store.device("s"); }
};

}  // namespace

TEST_CASE("thermal poller: dumpsys thermalservice every poll interval and the reading stored fresh for two of them",
          "[thermal][app]") {
  Rig rig;
  rig.config->thermal_poll_interval_seconds = config::Seconds(20);
  rig.device().live.command_deadline_seconds = 5;
  rig.start();
  REQUIRE(rig.session.waits == std::vector<std::chrono::milliseconds>{3000ms});
  CHECK(rig.session.commands.empty());
  rig.session.fire();
  REQUIRE(rig.session.commands == std::vector<std::string>{"dumpsys thermalservice"});
  rig.session.answer(kDump);
  const auto& t = *metrics::thermal_of(rig.device());
  CHECK(t.status == 4);
  REQUIRE(t.temperatures.size() == 2);
  CHECK(t.temperatures[1].value == 80.0);
  // Two intervals and the device's command deadline.
  CHECK(t.fresh_until_ns == 1000 * kSecond + 45 * kSecond);
  CHECK(metrics::thermal_of(rig.device())->polls.by_result().at("ok") == 1);
  CHECK(rig.session.waits.back() == 20000ms);

  // A command that times out keeps the reading (it goes stale by itself)
  // and asks again at the usual interval.
  rig.session.host_ns += 20 * kSecond;
  rig.session.fire();
  rig.session.answer("", ingest::AdbErrorKind::timeout);
  CHECK(metrics::thermal_of(rig.device())->polls.by_result().at("timeout") == 1);
  CHECK(t.status == 4);
  CHECK(t.fresh_until_ns == 1045 * kSecond);
  CHECK(rig.session.waits.back() == 20000ms);
  CHECK(rig.session.commands.size() == 2);
}

TEST_CASE("thermal poller: a device without the service is asked again only every 30 minutes", "[thermal][app]") {
  Rig rig;
  rig.start();
  rig.session.fire();
  rig.session.answer(kDump);
  CHECK(rig.session.waits.back() == 30000ms);  // the default interval
  // Android 9 and older: no thermal service (the legacy shell merges stderr).
  rig.session.fire();
  rig.session.answer("Can't find service: thermalservice\n");
  CHECK(metrics::thermal_of(rig.device())->polls.by_result().at("unsupported") == 1);
  CHECK_FALSE(metrics::thermal_of(rig.device())->status.has_value());  // the old reading is gone
  CHECK(rig.session.waits.back() == std::chrono::milliseconds(app::CommandPoller::kUnsupportedRetry));
  // shell v2 keeps stderr apart: an empty answer is the same.
  rig.session.fire();
  rig.session.answer("");
  CHECK(metrics::thermal_of(rig.device())->polls.by_result().at("unsupported") == 2);
  CHECK(rig.session.waits.back() == std::chrono::milliseconds(app::CommandPoller::kUnsupportedRetry));
  // A refusal is counted as such.
  rig.session.fire();
  rig.session.answer("Permission Denial: can't dump ThermalManagerService from from pid=1, uid=2000 due to missing "
                     "android.permission.DUMP permission\n");
  CHECK(metrics::thermal_of(rig.device())->polls.by_result().at("denied") == 1);
  // An interval longer than the retry wins.
  rig.config->thermal_poll_interval_seconds = config::Seconds(7200);
  rig.session.fire();
  rig.session.answer("");
  CHECK(rig.session.waits.back() == 7200000ms);
  // When the service answers again, polling is back to the interval.
  rig.session.fire();
  rig.session.answer(kDump);
  CHECK(metrics::thermal_of(rig.device())->status == 4);
  CHECK(rig.session.waits.back() == 7200000ms);
  CHECK(metrics::thermal_of(rig.device())->polls.by_result().at("ok") == 2);
}

TEST_CASE("thermal poller: result labels", "[thermal][app]") {
  ingest::ShellResult r;
  const auto dump = parsers::parse_thermalservice(kDump);
  CHECK(app::thermal_poll_result(r, dump) == "ok");
  r.truncated = true;
  CHECK(app::thermal_poll_result(r, dump) == "truncated");
  CHECK(app::thermal_poll_result(r, parsers::ThermalDump{}) == "unsupported");
  r.error.kind = ingest::AdbErrorKind::eof;
  CHECK(app::thermal_poll_result(r, parsers::ThermalDump{}) == "error");
}

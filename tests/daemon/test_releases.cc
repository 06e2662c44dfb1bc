// Older Android releases on the real binary (docs/ingest.md, "Device
// sessions"; docs/devsim.md, "Releases"): a 7.0 phone, whose logcat takes one
// buffer per -b, is followed exactly; a 6.0 phone, whose logcat refuses
// `-v epoch`, is asked again at growing intervals, never in a loop (its
// legacy shell gives no exit status and no separate stderr to quote).
#include <catch2/catch.hpp>

#include <string>

#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

const std::string kApp = "com.example.feed";

}  // namespace

TEST_CASE("a 7.0 phone is followed exactly and a 6.0 phone that refuses the stream backs off") {
  AdbServer adb;
  DevSim sim({"--devices", "2", "--sdk", "24,23", "--packages", kApp, "--stall-prob", "0", "--log-rate", "1"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  const auto& nougat = sim.devices()[0];
  const auto& marshmallow = sim.devices()[1];
  const std::string n_serial = emulator_serial(nougat), m_serial = emulator_serial(marshmallow);

  TempDir state;
  const auto started = std::chrono::steady_clock::now();
  Exporter ex({adb.port()}, state.path());
  INFO(ex.log());
  REQUIRE(wait_until([&] {
    return ex.value("jank_exporter_device_state{serial=\"" + n_serial + "\",state=\"following\"}") == 1;
  }, 30000ms, 250ms));
  // Counted exactly: one scripted skip, nothing else (no stalls).
  REQUIRE(sim.control("skip " + nougat.name + " " + kApp + " 80").rfind("OK", 0) == 0);
  const std::string skipped = series("android_choreographer_skipped_frames_total", n_serial, kApp);
  REQUIRE(wait_until([&] { return ex.value(skipped) == 80; }, 15000ms, 250ms));

  // 12 s or more since the start: the 6.0 phone's sessions backed off (0.5,
  // 1, 2, 4, 8 s …) instead of restarting every 250 to 500 ms (some 20 to 30
  // sessions in that time). Its state is not judged: each session reads its
  // preamble (6.0 prints the statistics) and says "following" for the moment
  // before logcat refuses -v epoch.
  std::this_thread::sleep_until(started + 12s);
  const double sessions = ex.value("jank_exporter_device_sessions_total{serial=\"" + m_serial + "\"}");
  CHECK(sessions >= 2);
  CHECK(sessions <= 7);
  // A 6.0 phone has no shell v2 (docs/devsim.md, "Releases"): logcat's
  // refusal comes in the PTY's merged stream and the stream ends without an
  // exit status, so all the exporter can say is that it ended.
  CHECK(ex.log().find("device " + m_serial + ": logcat stream ended; new session in") != std::string::npos);
  // The 7.0 phone kept its count.
  CHECK(ex.value(skipped) == 80);
  CHECK(ex.terminate() == 0);
}

// The live view's JSON on the real exporter (docs/live-view.md): simulated
// devices through the real adb server; /api/devices agrees with /metrics
// and a device's history grows one sample per live_view.sample_seconds.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "tests/daemon/exporter_process.h"
#include "tests/daemon/run_cli.h"

using namespace jank::daemon_test;

namespace {

void write_config(const std::string& path) {
  std::ofstream(path) << "live_view:\n  sample_seconds: 1\n  history_minutes: 5\n";
}

// The sum of a device's series of `family` (NaN when it has none).
double sum(const std::map<std::string, double>& samples, const std::string& family, const std::string& serial) {
  const std::string head = family + "{serial=\"" + serial + "\"";
  double total = 0;
  bool any = false;
  for (auto it = samples.lower_bound(head); it != samples.end() && it->first.rfind(head, 0) == 0; ++it) {
    const char next = it->first[head.size()];
    if (next != ',' && next != '}') continue;
    total += it->second;
    any = true;
  }
  return any ? total : std::nan("");
}

// What /api/devices must agree with, per device.
struct Expected {
  double skipped = 0, davey = 0, sm = 0, refresh = 0;
  bool operator==(const Expected& o) const {
    return skipped == o.skipped && davey == o.davey && sm == o.sm && refresh == o.refresh;
  }
};
std::map<std::string, Expected> expected(const std::map<std::string, double>& samples, const DevSim& sim) {
  std::map<std::string, Expected> out;
  for (const auto& d : sim.devices()) {
    const std::string serial = emulator_serial(d);
    const double skipped = sum(samples, "android_choreographer_skipped_frames_total", serial);
    const double davey = sum(samples, "android_hwui_davey_frames_total", serial);
    out[serial] = {std::isnan(skipped) ? 0 : skipped, std::isnan(davey) ? 0 : davey,
                   sum(samples, "android_choreographer_device_sm", serial),
                   sum(samples, "android_display_refresh_rate_hertz", serial)};
  }
  return out;
}

}  // namespace

TEST_CASE("/api/devices agrees with /metrics on every device and a history grows one sample per second") {
  AdbServer adb;
  DevSim sim({"--devices", "3", "--stall-prob", "0.05", "--skip-bands", "3-20:1,30-90:1", "--log-rate", "20"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/c.yaml";
  write_config(conf);
  Exporter ex({adb.port()}, state.path(), {"--config", conf});
  for (const auto& d : sim.devices()) wait_following(ex, emulator_serial(d));
  // Every device has counted skips (and the apps' Davey lines, when any).
  REQUIRE(wait_until([&] {
    for (const auto& [serial, e] : expected(ex.samples(), sim)) {
      if (!(e.skipped > 0)) return false;
    }
    return true;
  }, 30000ms, 250ms));

  // /metrics right before and right after: when both agree, /api/devices,
  // read in between, must show the same numbers. Paused, so that only a live
  // sample (once a second) can come between the three reads.
  REQUIRE(sim.control("pause").rfind("OK", 0) == 0);
  bool compared = false;
  for (int attempt = 0; attempt < 20 && !compared; ++attempt) {
    const auto before = expected(ex.samples(), sim);
    const auto api = get_json(ex, "/api/devices");
    const auto after = expected(ex.samples(), sim);
    REQUIRE(api);
    if (!(before == after)) continue;
    compared = true;
    const Json& devices = (*api)["devices"];
    REQUIRE(devices.size() == sim.devices().size());
    for (const Json& d : devices.arr) {
      const std::string serial = d["serial"].str;
      INFO(serial);
      REQUIRE(before.count(serial) == 1);
      const Expected& e = before.at(serial);
      CHECK(d["totals"]["skipped_frames"].num == e.skipped);
      CHECK(d["totals"]["davey_frames"].num == e.davey);
      CHECK(d["sm"].num == e.sm);
      CHECK(d["refresh_hz"].num == e.refresh);
      CHECK(d["status"].type == Json::Type::string);
    }
  }
  CHECK(compared);

  // The history: one sample per second (sample_seconds: 1), each a second apart.
  const std::string serial = emulator_serial(sim.devices().front());
  const std::string path = "/api/devices/" + serial;
  const auto asked = std::chrono::steady_clock::now();
  const auto first = get_json(ex, path);
  REQUIRE(first);
  const std::size_t n0 = (*first)["history"]["t"].size();
  REQUIRE(n0 >= 1);
  std::this_thread::sleep_for(4500ms);
  const auto later = get_json(ex, path);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  REQUIRE(later);
  const Json& t = (*later)["history"]["t"];
  const std::size_t n1 = t.size();
  INFO("samples " << n0 << " then " << n1 << " in " << elapsed << " s");
  // One sample per second between the two reads (a sample late on a loaded
  // machine may move across either read), a second apart on average; a
  // sampler that fell behind skips the samples it missed, never bunches them.
  CHECK(static_cast<double>(n1 - n0) >= std::floor(elapsed) - 1);
  CHECK(static_cast<double>(n1 - n0) <= std::ceil(elapsed) + 1);
  REQUIRE(n1 >= n0 + 2);
  const double mean_gap = (t[n1 - 1].num - t[n0 - 1].num) / static_cast<double>(n1 - n0);
  CHECK(mean_gap > 0.8);
  CHECK(mean_gap < 1.25);
  for (std::size_t i = 1; i < n1; ++i) {
    const double gap = t[i].num - t[i - 1].num;
    INFO("gap " << i << ": " << gap);
    CHECK(gap > 0);
    CHECK(gap < 2.5);
  }
  const Json& h = (*later)["history"];
  for (const char* column : {"sm", "fps", "jank_percent", "skipped_frames", "davey_frames", "big_jank", "status",
                             "thermal_status"}) {
    INFO(column);
    CHECK(h[column].size() == n1);
  }
  CHECK((*later)["sample_seconds"].num == 1);
  CHECK((*later)["history_seconds"].num == 300);

  // An unknown serial: 404 with an error.
  const std::string missing = http_get(ex.port(), "/api/devices/no-such-device");
  CHECK(missing.rfind("HTTP/1.1 404", 0) == 0);
  const auto error = parse_json(missing.substr(missing.find("\r\n\r\n") + 4));
  REQUIRE(error);
  CHECK(!(*error)["error"].str.empty());
}

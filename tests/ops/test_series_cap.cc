// The per-device series cap against a real Prometheus (docs/metrics.md,
// "Series budget"): phones that flood the exporter with apps stay under
// series.max_per_device, say what they dropped, and their host's scrape
// stays within a sample_limit sized for devices × the cap, where without the
// cap it would not (Prometheus then refuses the whole scrape: every device
// of the host goes blank).
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/daemon/exporter_process.h"
#include "tests/ops/prometheus_process.h"

using namespace jank::daemon_test;
using jank::ops_test::Prometheus;
using jank::ops_test::PrometheusSetup;

namespace {

double value_of(const std::optional<jank::rig::Json>& r) {
  REQUIRE(r);
  REQUIRE(r->size() == 1);
  return std::stod((*r)[0]["value"][1].str);
}

// Sample lines of a /metrics answer without a serial label: the daemon's own.
std::size_t daemon_lines(const std::string& scrape) {
  std::istringstream in(scrape.substr(scrape.find("\r\n\r\n") == std::string::npos ? 0 : scrape.find("\r\n\r\n")));
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#' && line.find('{') != std::string::npos &&
        line.find("serial=\"") == std::string::npos) {
      ++n;
    }
  }
  return n;
}

}  // namespace

TEST_CASE("phones flooding apps stay under their series cap and the host's scrape within its sample_limit") {
  constexpr std::size_t kCap = 400;
  std::string packages;
  for (int i = 1; i <= 16; ++i) packages += std::string(packages.empty() ? "" : ",") + "com.example.app" + std::to_string(i);
  AdbServer adb;
  DevSim sim({"--devices", "2", "--packages", packages, "--stall-prob", "0.05", "--skip-bands", "3-20:1",
              "--log-rate", "20"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/jank_exporter.yaml";
  std::ofstream(conf) << "series:\n  detailed: [all]\n  max_per_device: " << kCap
                      << "\ngfxinfo:\n  poll_interval_seconds: 1\n  fast_poll_interval_seconds: 1\n";
  Exporter ex({adb.port()}, state.path(), {"--config", conf});

  // Both phones over their cap: apps beyond it withheld, counted.
  std::vector<std::string> serials;
  for (const auto& d : sim.devices()) serials.push_back(emulator_serial(d));
  REQUIRE(wait_until([&] {
    const auto s = ex.samples();
    for (const auto& serial : serials) {
      const auto dropped = s.find(series("jank_exporter_device_series_dropped", serial));
      if (dropped == s.end() || dropped->second < static_cast<double>(kCap) / 2) return false;
    }
    return true;
  }, 60000ms, 500ms));
  const std::string scrape = ex.scrape();
  const auto s = parse_samples(scrape);
  double uncapped = 0;
  for (const auto& serial : serials) {
    INFO(serial);
    const double written = s.at(series("jank_exporter_device_series", serial));
    CHECK(written <= static_cast<double>(kCap));
    CHECK(written > static_cast<double>(kCap) / 2);  // its own series and some apps whole
    CHECK(s.at(series("android_device_up", serial)) == 1);
    uncapped += written + s.at(series("jank_exporter_device_series_dropped", serial));
  }
  // A limit for the daemon's own series and two devices at the cap (each
  // with its two budget series), which the devices' uncapped series pass.
  const std::size_t limit = daemon_lines(scrape) + 20 + 2 * (kCap + 2);
  CHECK(uncapped > static_cast<double>(limit));

  PrometheusSetup setup{{ex.port()}, {}, {}, 0, "1s", {}, limit, false, "", {}};
  Prometheus prom(setup);
  INFO(prom.log());
  REQUIRE(prom.ready());
  REQUIRE(prom.scraped(5, 1, 30000ms));  // up == 1 for five scrapes in a row: none refused
  CHECK(value_of(prom.query("max_over_time(scrape_samples_scraped[1m])")) <= static_cast<double>(limit));
  CHECK(value_of(prom.query("min_over_time(up[1m])")) == 1);
  for (const auto& serial : serials) {
    INFO(serial);
    CHECK(value_of(prom.query("count({serial=\"" + serial + "\"})")) <= static_cast<double>(kCap + 2));
    CHECK(value_of(prom.query("jank_exporter_device_series_dropped{serial=\"" + serial + "\"}")) > 0);
  }
}

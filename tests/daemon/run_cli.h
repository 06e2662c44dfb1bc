// Daemon-test helpers around a running exporter: its run CLI, and waiting
// until it follows a device.
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "tests/daemon/exporter_process.h"

namespace jank::daemon_test {

// `jank_exporter run ARGS… --url` of `ex`.
inline RunResult run_cli(const Exporter& ex, std::vector<std::string> args) {
  std::vector<std::string> argv = {JANK_EXPORTER_PROGRAM, "run"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--url");
  argv.push_back("http://127.0.0.1:" + std::to_string(ex.port()));
  return run(argv, {}, std::chrono::milliseconds(90000));
}

// A CLI's one-line answer (a run id) without its line end.
inline std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// Waits until the exporter follows the device (its log stream runs).
inline void wait_following(const Exporter& ex, const std::string& serial,
                           std::chrono::milliseconds timeout = std::chrono::milliseconds(30000)) {
  const std::string following = "jank_exporter_device_state{serial=\"" + serial + "\",state=\"following\"}";
  INFO(serial);
  REQUIRE(wait_until([&] { return ex.value(following) == 1; }, timeout, std::chrono::milliseconds(250)));
}

}  // namespace jank::daemon_test

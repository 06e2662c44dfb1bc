// The phases of `jank_exporter observer-test` on one device: readings of
// the counters polling cannot fake at each boundary (graphicsstats from
// Android 7, TimeStats from 12), nothing else during a low phase, and the
// daemon's per-frame polling at full rate during a high phase (per_frame.mode
// always: `--latency` of the app's layers, `--frametimeline`, gfxinfo
// framestats, `--list` for the layers, at the configuration's intervals).
// Pairs alternate their order (low-high, high-low, …) so that a workload
// drifting steadily weighs on both kinds alike.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "app/cli/device_shell.h"
#include "config/config.h"
#include "metrics/observer_counters.h"

namespace jank::app {

struct ObserverPlan {
  std::string package;
  int sdk = 0;
  std::size_t pairs = 6;
  std::chrono::milliseconds phase{30'000};
};

struct ObserverPhase {
  bool high = false;
  double seconds = 0;
  std::map<std::string, std::uint64_t> commands;  // by kind (app/session/command_kind.h)
  std::uint64_t failed_commands = 0;
  metrics::PhaseCounts graphicsstats, timestats;
};

// Which counters a release has.
bool has_graphicsstats(int sdk);
bool has_timestats(int sdk);

class ObserverPhases {
 public:
  using Clock = std::chrono::steady_clock;
  // `sleep_until` waits (a test's may just move its clock); `now` reads the time.
  ObserverPhases(DeviceShell& shell, const config::Config& config, ObserverPlan plan,
                 std::function<Clock::time_point()> now, std::function<void(Clock::time_point)> sleep_until);

  // Runs every phase; `done` hears of each as it ends. An empty string, or
  // why the device could not be measured (no counter readable at the start).
  std::string run(const std::function<void(const ObserverPhase&)>& done);
  const std::vector<ObserverPhase>& phases() const { return phases_; }

 private:
  struct Readings {
    metrics::CounterReading graphicsstats, timestats;
  };
  Readings read_counters();
  void poll_until(Clock::time_point end, ObserverPhase& phase);
  void run_counted(const std::string& command, std::size_t max_output, ObserverPhase& phase,
                   const std::function<void(const ingest::ShellResult&)>& use = {});

  DeviceShell& shell_;
  const config::Config& config_;
  ObserverPlan plan_;
  std::function<Clock::time_point()> now_;
  std::function<void(Clock::time_point)> sleep_until_;
  std::vector<std::string> layers_;
  std::chrono::nanoseconds period_{16'666'667};  // the display's, from --latency
  std::vector<ObserverPhase> phases_;
};

}  // namespace jank::app

// The flight recorder of one device session (docs/traces.md): keeps one
// Perfetto ring-buffer session armed on the device, checks the rules
// (metrics/spike_rules.h) twice a second, triggers within the limits
// (metrics/trace_budget.h), waits for Perfetto to finish the file, pulls
// it, hands it to the trace sink and arms again. One step at a time: at most
// one of its commands is in flight.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "app/session/session_io.h"
#include "app/core/shared_state.h"
#include "metrics/spike_rules.h"

namespace jank::app {

// Runs a command with its own deadline (a trace takes longer than a dump).
using RunCommandWithin = std::function<void(const std::string& command, std::size_t max_output,
                                            std::chrono::milliseconds deadline,
                                            std::function<void(ingest::ShellResult)> done)>;

// The rule limits the configuration asks for.
metrics::SpikeRuleLimits spike_rule_limits(const config::Config& config);
// Whether the configuration traces this device (enabled, serial glob, API level).
bool traces_device(const config::Config& config, std::string_view serial, std::optional<int> sdk);

class TraceRecorder {
 public:
  static constexpr std::chrono::milliseconds kTick{500};
  static constexpr std::chrono::minutes kUnsupportedRetry{30};

  TraceRecorder(PollerContext context, RunCommandWithin run_long);
  ~TraceRecorder();
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;
  void start(std::chrono::milliseconds first);

 private:
  enum class Phase : std::uint8_t { adopt, arm, armed, triggered, pull };
  void tick();
  void step(std::int64_t now);
  void check_rules(std::int64_t now);
  void adopt();
  void adopt_next(std::vector<std::int32_t> pids, std::size_t i);
  void arm();      // after checking that the release's traced runs
  void arm_now();
  void check_alive();
  void trigger(const metrics::Spike& spike, std::int64_t now);
  void wait_finished();
  void pull();
  void save(std::string bytes);
  void saved(const SavedTrace& result, const metrics::StoredTrace& meta);
  void release_slot();
  void confirm(std::string_view how);
  void rearm_after(std::chrono::milliseconds delay);
  using Counts = std::map<std::string, std::uint64_t> metrics::DeviceTraceStatus::*;
  void count(Counts counts, std::string_view key);
  bool due(std::int64_t now) const { return !busy_ && now >= next_due_ns_; }

  PollerContext ctx_;
  RunCommandWithin run_long_;
  metrics::SpikeDetector rules_;
  Phase phase_ = Phase::adopt;
  bool busy_ = false;           // a command is in flight
  std::int64_t next_due_ns_ = 0;  // host time of the phase's next step
  std::int32_t pid_ = 0;        // our session's background perfetto
  bool confirmed_ = false;      // its process was seen running
  std::chrono::milliseconds arm_retry_{30'000};
  // The spike being collected.
  std::optional<metrics::Spike> spike_;
  std::int64_t triggered_ns_ = 0;
  std::int64_t finish_by_ns_ = 0;
  bool pulling_slot_ = false;  // this recorder holds one of SharedState::trace_pulls
  // Lets a save finishing after the session ended see that it did.
  std::shared_ptr<char> alive_ = std::make_shared<char>();
};

}  // namespace jank::app

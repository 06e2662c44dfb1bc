// Takes every device's live-view sample (metrics/live_history.h) every
// live_view.sample_seconds: a steady pace on the io thread, the shared lock
// held while it reads the devices.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "app/core/host_clock.h"
#include "app/session/session_io.h"
#include "app/core/shared_state.h"
#include "config/config.h"

namespace jank::app {

class LiveSampler {
 public:
  // The daemon's: waits on a steady timer of `io`. The clock's wall time is
  // the samples' time and the end of the SM window as /metrics reads it; its
  // steady time paces the samples.
  LiveSampler(boost::asio::io_context& io, SharedState& shared, HostClock clock);
  // Waits through `after` (a test fires them): a wait made stale by stop()
  // or a new interval does nothing when it fires.
  LiveSampler(SharedState& shared, HostClock clock, RunAfter after);

  // Starts sampling, or takes a reloaded configuration: a new interval
  // applies from now; a new interval or ring size empties every device's
  // history at its next sample (samples of another spacing would not chart
  // alike); neither keeps the history.
  void configure(const config::Config& config);
  void stop();

  // One sample of every device now (the timer's work).
  void sample();

 private:
  void schedule();

  std::unique_ptr<boost::asio::steady_timer> timer_;  // the daemon's only
  SharedState& shared_;
  HostClock clock_;
  RunAfter after_;
  std::uint64_t generation_ = 0;  // bumped by stop() and a new interval
  std::chrono::seconds interval_{0};
  std::size_t capacity_ = 0;
  std::chrono::steady_clock::time_point next_;
};

}  // namespace jank::app

// Takes every device's live-view sample (metrics/live_history.h) every
// live_view.sample_seconds: a steady timer on the io thread, the shared
// lock held while it reads the devices.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "app/shared_state.h"
#include "config/config.h"

namespace jank::app {

class LiveSampler {
 public:
  // `now_ns` is the host's wall time: the samples' time, and the end of the
  // SM window as /metrics reads it.
  LiveSampler(boost::asio::io_context& io, SharedState& shared, std::function<std::int64_t()> now_ns);

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

  boost::asio::steady_timer timer_;
  SharedState& shared_;
  std::function<std::int64_t()> now_ns_;
  std::chrono::seconds interval_{0};
  std::size_t capacity_ = 0;
  std::chrono::steady_clock::time_point next_;
};

}  // namespace jank::app

#include "app/daemon/live_sampler.h"

#include <algorithm>

#include "metrics/device_view.h"
#include "metrics/live_history.h"

namespace jank::app {

LiveSampler::LiveSampler(boost::asio::io_context& io, SharedState& shared, HostClock clock)
    : timer_(std::make_unique<boost::asio::steady_timer>(io)), shared_(shared), clock_(std::move(clock)) {
  after_ = [timer = timer_.get()](std::chrono::milliseconds delay, std::function<void()> then) {
    timer->expires_after(delay);
    timer->async_wait([then = std::move(then)](boost::system::error_code ec) {
      if (!ec) then();
    });
  };
}

LiveSampler::LiveSampler(SharedState& shared, HostClock clock, RunAfter after)
    : shared_(shared), clock_(std::move(clock)), after_(std::move(after)) {}

void LiveSampler::configure(const config::Config& config) {
  const std::chrono::seconds interval = config.live_view_sample_seconds;
  capacity_ = metrics::live_capacity(std::chrono::seconds(config.live_view_history_minutes).count(), interval.count());
  if (interval == interval_) return;
  interval_ = interval;
  ++generation_;
  next_ = clock_.steady_now() + interval_;
  schedule();
}

void LiveSampler::stop() {
  ++generation_;
  interval_ = std::chrono::seconds(0);
  if (timer_) timer_->cancel();
}

void LiveSampler::schedule() {
  const auto delay = std::chrono::ceil<std::chrono::milliseconds>(next_ - clock_.steady_now());
  after_(std::max(delay, std::chrono::milliseconds(0)), [this, generation = generation_] {
    if (generation != generation_) return;
    sample();
    // A steady pace: a loop that fell behind skips the samples it missed
    // rather than bunching them, and keeps to the grid.
    next_ += interval_;
    if (const auto now = clock_.steady_now(); next_ <= now) next_ += ((now - next_) / interval_ + 1) * interval_;
    schedule();
  });
}

void LiveSampler::sample() {
  const std::int64_t now = clock_.wall_ns();
  const std::int64_t sample_ms = std::chrono::milliseconds(interval_).count();
  std::lock_guard<std::mutex> lock(shared_.mutex);
  const std::chrono::seconds sm_window = shared_.store.options().sm_window;
  for (const auto& [serial, d] : shared_.store.devices()) {
    d->history.configure(capacity_, sample_ms);
    d->history.record(now, metrics::live_reading(*d, now, sm_window));
  }
}

}  // namespace jank::app

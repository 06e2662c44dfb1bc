#include "app/live_sampler.h"

#include <algorithm>

#include "metrics/device_view.h"
#include "metrics/live_history.h"

namespace jank::app {

LiveSampler::LiveSampler(boost::asio::io_context& io, SharedState& shared, std::function<std::int64_t()> now_ns)
    : timer_(io), shared_(shared), now_ns_(std::move(now_ns)) {}

void LiveSampler::configure(const config::Config& config) {
  const std::chrono::seconds interval(config.live_view_sample_seconds);
  capacity_ = metrics::live_capacity(config.live_view_history_minutes * 60, config.live_view_sample_seconds);
  if (interval == interval_) return;
  interval_ = interval;
  timer_.cancel();
  next_ = std::chrono::steady_clock::now() + interval_;
  schedule();
}

void LiveSampler::stop() {
  timer_.cancel();
  interval_ = std::chrono::seconds(0);
}

void LiveSampler::schedule() {
  timer_.expires_at(next_);
  timer_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    sample();
    // A steady pace; a loop that fell behind skips the samples it missed rather than bunching them.
    next_ = std::max(next_ + interval_, std::chrono::steady_clock::now());
    schedule();
  });
}

void LiveSampler::sample() {
  const std::int64_t now = now_ns_();
  const std::int64_t sample_ms = std::chrono::milliseconds(interval_).count();
  std::lock_guard<std::mutex> lock(shared_.mutex);
  const std::int64_t window_s = shared_.store.options().window_seconds;
  for (const auto& [serial, d] : shared_.store.devices()) {
    d->history.configure(capacity_, sample_ms);
    d->history.record(now, metrics::live_reading(*d, now, window_s));
  }
}

}  // namespace jank::app

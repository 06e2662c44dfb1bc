#include "app/session/per_frame_policy.h"

#include <algorithm>
#include <chrono>

#include "metrics/app_version.h"
#include "metrics/sources/skips.h"

namespace jank::app {

PerFramePolicy::PerFramePolicy(std::shared_ptr<const config::Config> config) : config_(std::move(config)) {}

void PerFramePolicy::update(metrics::DeviceMetrics& device, std::int64_t now_ns) {
  const config::Config& c = *config_;
  bool spike = false;
  std::size_t known = 0;
  for (const auto& [name, p] : device.packages) {
    const metrics::AppSkipState* s = metrics::skips_of(p);
    if (s == nullptr) continue;
    ++known;
    spike = spike || s->window.max_skip(now_ns) >= c.per_frame_spike_skipped_frames;
    const auto [seen, first] = daveys_.try_emplace(name, s->davey_frames);
    spike = spike || (!first && s->davey_frames > seen->second);
    seen->second = s->davey_frames;
  }
  // A package gone (expired) is forgotten.
  if (daveys_.size() != known) {
    std::erase_if(daveys_, [&](const auto& entry) { return !device.packages.contains(entry.first); });
  }
  if (spike) {
    spike_until_ns_ = now_ns + std::chrono::duration_cast<std::chrono::nanoseconds>(c.per_frame_after_spike_seconds).count();
  }
  whole_device_ = c.per_frame_mode == "always" || !device.pinned_packages.empty() ||
                  (spike_until_ns_ && now_ns < *spike_until_ns_);
  const auto& front = device.live.foreground;
  named_in_front_ = front && std::find(c.per_frame_apps.begin(), c.per_frame_apps.end(),
                                       metrics::base_package(*front)) != c.per_frame_apps.end();
  device.live.per_frame_polling = whole_device_;
}

bool PerFramePolicy::polls(std::string_view package) const {
  return whole_device_ ||
         std::find(config_->per_frame_apps.begin(), config_->per_frame_apps.end(), package) != config_->per_frame_apps.end();
}

}  // namespace jank::app

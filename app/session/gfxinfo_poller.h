// gfxinfo/framestats polling for one device session: a round every
// gfxinfo.poll_interval_seconds (sooner while framestats windows overflow
// between polls) over the packages worth polling, one command at a time,
// then the app versions that are due (app/session/version_poller.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/session/session_io.h"
#include "app/core/shared_state.h"
#include "app/session/per_frame_policy.h"
#include "app/session/version_poller.h"
#include "config/config.h"

namespace jank::app {

// The packages a round polls: the configured ones and, with discovery, the
// foreground app and every package that skipped frames or answered gfxinfo
// before, and the apps open runs measure. Only names safe in a shell command; never the "pid:N", overflow or
// unknown labels.
std::vector<std::string> packages_to_poll(const config::Config& config, const metrics::DeviceMetrics& device,
                                          const std::optional<std::string>& foreground);
// The poll's command: the aggregate, with its frames one by one when
// `framestats`; with gfxinfo.reset_after_poll, HWUI dumps and then resets
// the stats in the one command (`reset` last).
std::string gfxinfo_command(const config::Config& config, const std::string& package, bool framestats = true);
inline constexpr std::size_t kGfxinfoOutput = 8 << 20;  // a framestats dump is a few hundred KiB

class GfxinfoPoller {
 public:
  GfxinfoPoller(PollerContext context, std::shared_ptr<PerFramePolicy> per_frame);
  void start(std::chrono::milliseconds first_round);
  // A round now (after the one in progress, if any): a run waits for one.
  void poll_soon();

 private:
  void round();
  void poll_next();

  PollerContext ctx_;
  std::shared_ptr<PerFramePolicy> per_frame_;
  VersionPoller versions_{ctx_};  // after ctx_, which it refers to
  std::vector<std::string> queue_;
  bool overflow_seen_ = false;
  bool in_round_ = false;
  bool again_ = false;  // poll_soon came during a round
  std::int64_t round_began_ns_ = 0;
};

}  // namespace jank::app

// The device session's probes: the facts getprop tells (model, release,
// the skip-warning property), the skip-warning threshold set (and zygote
// restarted when configured and rooted), then the display's refresh rate and
// the process listing, both refreshed every display.poll_interval_seconds.
// The decisions are pure functions below; the class only sequences commands.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/session_io.h"
#include "app/shared_state.h"
#include "config/config.h"
#include "parsers/display_info.h"
#include "parsers/properties.h"

namespace jank::app {

// Android's own default for debug.choreographer.skipwarning (frames).
constexpr int kAndroidDefaultSkipwarning = 30;

// What to do about debug.choreographer.skipwarning. Choreographer reads the
// property once, when zygote initialises the class; apps forked from it keep
// that value. So a value set now only takes effect after zygote restarts.
struct SkipwarningPlan {
  int threshold_frames;  // the threshold believed in effect now
  bool set_property;     // setprop is needed
  bool restart_zygote;   // and then a zygote restart (needs root)
};
// `current`: the property's value now. Already at `desired`: an earlier run
// of ours set it, and with restart_zygote that run restarted zygote after
// setting it, so never restart it again.
SkipwarningPlan plan_skipwarning(std::optional<int> current, int desired, bool restart_zygote);

// The device's identity as exported in android_device_info (values capped at 256 bytes).
void record_facts(metrics::DeviceMetrics& device, const parsers::DeviceFacts& facts);
// The measured refresh rate, or the configured default flagged as such.
void record_refresh(metrics::DeviceMetrics& device, const std::optional<parsers::RefreshRate>& rate,
                    double default_hz);

// The user processes of a process listing; nullopt when the listing is too
// short to trust.
std::optional<metrics::ProcessListing> running_processes(std::string_view ps_output);

// The command that lists every process on a release: toybox `ps` (8.0 on)
// needs -A, without it only the caller's session is listed; toolbox `ps`
// (until 7.1) lists every process plainly and takes -A as a name filter
// (5.x, 6.0: only the header) or a bad pid (7.x). An unknown release is
// taken to be a current one.
std::string_view process_list_command(std::optional<int> sdk);

class DeviceProbes {
 public:
  using Listed = std::function<void(metrics::ProcessListing)>;

  DeviceProbes(std::shared_ptr<const config::Config> config, std::string serial, SharedState& shared, RunCommand run,
               RunAfter after, Listed listed);
  // getprop, then the skip-warning; `ready` runs once both are settled (a
  // failed setprop is logged, not fatal), `failed` when getprop fails. The
  // display and process refreshes start just before `ready`.
  void start(std::function<void()> ready, std::function<void(const std::string&)> failed);

 private:
  void skipwarning(std::optional<int> current, std::function<void()> ready);
  void restart_zygote(std::function<void()> ready);
  void refresh();  // display, then processes; again after the poll interval
  void display();
  void processes();
  void set_threshold(int frames);

  std::shared_ptr<const config::Config> config_;
  std::string serial_;
  SharedState& shared_;
  RunCommand run_;
  RunAfter after_;
  Listed listed_;
  std::optional<int> sdk_;  // ro.build.version.sdk, once getprop answered
};

}  // namespace jank::app

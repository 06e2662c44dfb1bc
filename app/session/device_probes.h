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

#include "app/session/android_release.h"
#include "app/session/session_io.h"
#include "app/core/shared_state.h"
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

// Whether `id -u` answered root: toybox prints the uid ("0"), toolbox `id`
// (Android 5.x) ignores -u and prints "uid=0(root) gid=0(root) …".
bool answers_root(std::string_view id_output);

// The user processes of a process listing; nullopt when the listing is too
// short to trust.
std::optional<metrics::ProcessListing> running_processes(std::string_view ps_output);

class DeviceProbes {
 public:
  using Listed = std::function<void(metrics::ProcessListing)>;

  DeviceProbes(std::shared_ptr<const config::Config> config, std::string serial, SharedState& shared, RunCommand run,
               RunAfter after, Listed listed);
  // getprop, then the skip-warning; `ready` runs once both are settled (a
  // failed setprop is logged, not fatal), `failed` when getprop fails. The
  // display and process refreshes start just before `ready`. A release that
  // cannot be followed calls `unsupported` with the reason right after
  // getprop, and nothing is set on the device.
  using Failed = std::function<void(const std::string&)>;
  void start(std::function<void()> ready, Failed failed, Failed unsupported);
  // Known once getprop answered.
  const AndroidRelease& release() const { return release_; }

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
  AndroidRelease release_;
};

}  // namespace jank::app

#include "app/session/device_probes.h"

#include "app/core/log.h"
#include "ingest/protocol.h"
#include "metrics/sources/display.h"
#include "parsers/process_list.h"
#include "parsers/utf8.h"

namespace jank::app {
namespace {

constexpr std::size_t kSmallOutput = 1 << 20;  // getprop, ps, dumpsys display
constexpr std::size_t kTinyOutput = 4096;      // setprop, id

bool succeeded(const ingest::ShellResult& r) { return !r.error && (!r.exit_code || *r.exit_code == 0); }

}  // namespace

SkipwarningPlan plan_skipwarning(std::optional<int> current, int desired, bool restart_zygote) {
  if (current == desired) return {restart_zygote ? desired : kAndroidDefaultSkipwarning, false, false};
  return {kAndroidDefaultSkipwarning, true, restart_zygote};
}

void record_facts(metrics::DeviceMetrics& device, const parsers::DeviceFacts& facts) {
  auto put = [&](const char* key, const std::optional<std::string>& v) {
    if (v) device.live.info[key] = std::string(parsers::utf8_prefix(*v, 256));
  };
  put("model", facts.model);
  put("manufacturer", facts.manufacturer);
  put("release", facts.release);
  put("fingerprint", facts.fingerprint);
  if (facts.sdk) device.live.info["sdk"] = std::to_string(*facts.sdk);
}

std::optional<metrics::ProcessListing> running_processes(std::string_view ps_output) {
  const parsers::ProcessList list = parsers::parse_process_list(ps_output);
  if (list.processes.size() < 3 && !ps_output.empty()) return std::nullopt;
  metrics::ProcessListing running;
  for (const auto& p : list.processes) {
    if (!p.kernel_thread && p.pid >= 0) running.emplace_back(p.pid, p.name);
  }
  return running;
}

bool answers_root(std::string_view id_output) {
  const std::string_view first = id_output.substr(0, id_output.find_first_of("\r\n"));
  return first == "0" || first.rfind("uid=0(", 0) == 0;
}

DeviceProbes::DeviceProbes(std::shared_ptr<const config::Config> config, std::string serial, SharedState& shared,
                           RunCommand run, RunAfter after, Listed listed)
    : config_(std::move(config)),
      serial_(std::move(serial)),
      shared_(shared),
      run_(std::move(run)),
      after_(std::move(after)),
      listed_(std::move(listed)) {}

void DeviceProbes::start(std::function<void()> ready, Failed failed, Failed unsupported) {
  run_("getprop", kSmallOutput, [this, ready = std::move(ready), failed = std::move(failed),
                                 unsupported = std::move(unsupported)](ingest::ShellResult r) {
    // Without its facts the session knows neither the release nor the
    // threshold: a device that answers getprop with an error goes no further.
    if (!succeeded(r)) return failed("getprop: " + ingest::failure_text(r));
    const parsers::DeviceFacts facts = parsers::device_facts(parsers::parse_properties(r.output));
    release_ = android_release(facts.sdk);
    shared_.with_device(serial_, [&](metrics::DeviceMetrics& d) { record_facts(d, facts); });
    if (const std::string why = release_.unsupported_reason(); !why.empty()) {
      return unsupported(release_text(release_, facts.release.value_or("")) + ": " + why);
    }
    skipwarning(facts.choreographer_skipwarning, [this, ready] {
      refresh();
      ready();
    });
  });
}

void DeviceProbes::set_threshold(int frames) {
  shared_.with_device(serial_, [frames](metrics::DeviceMetrics& d) { d.live.skip_threshold_frames = frames; });
}

void DeviceProbes::skipwarning(std::optional<int> current, std::function<void()> ready) {
  const int desired = config_->skipwarning_frames;
  const SkipwarningPlan plan = plan_skipwarning(current, desired, config_->restart_zygote);
  set_threshold(plan.threshold_frames);
  if (!plan.set_property) return ready();
  run_(ingest::quote_args({"setprop", "debug.choreographer.skipwarning", std::to_string(desired)}), kTinyOutput,
       [this, plan, ready = std::move(ready)](ingest::ShellResult r) {
         if (!succeeded(r)) {
           log_warning("device " + serial_ + ": setprop debug.choreographer.skipwarning failed");
           return ready();
         }
         if (!plan.restart_zygote) return ready();
         restart_zygote(ready);
       });
}

void DeviceProbes::restart_zygote(std::function<void()> ready) {
  run_("id -u", 64, [this, ready = std::move(ready)](ingest::ShellResult id) {
    if (id.error || !answers_root(id.output)) {
      log_warning("device " + serial_ + ": choreographer.restart_zygote needs root (adb root); not restarted");
      return ready();
    }
    run_(ingest::quote_args({"setprop", "ctl.restart", "zygote"}), kTinyOutput,
         [this, ready](ingest::ShellResult z) {
           if (succeeded(z)) {
             const int desired = config_->skipwarning_frames;
             log_info("device " + serial_ + ": zygote restarted, every app now logs skips of " +
                      std::to_string(desired) + "+ frames");
             set_threshold(desired);
           }
           ready();
         });
  });
}

// display(), once answered, schedules the next round.
void DeviceProbes::refresh() {
  display();
  processes();
}

void DeviceProbes::display() {
  run_("dumpsys display", kSmallOutput, [this](ingest::ShellResult r) {
    auto apply = [this](const std::optional<parsers::RefreshRate>& rate) {
      shared_.with_device(serial_, [&](metrics::DeviceMetrics& d) {
        metrics::record_refresh_rate(d, rate ? std::optional<double>(rate->hz) : std::nullopt,
                                     config_->default_refresh_rate_hertz);
      });
    };
    std::optional<parsers::RefreshRate> rate;
    if (!r.error) rate = parsers::parse_display_refresh_rate(r.output);
    if (rate) {
      apply(rate);
    } else {
      // Older releases and some vendors only say it in SurfaceFlinger's dump.
      run_("dumpsys SurfaceFlinger", 4 * kSmallOutput, [apply](ingest::ShellResult sf) {
        apply(sf.error ? std::nullopt : parsers::parse_surfaceflinger_refresh_rate(sf.output));
      });
    }
    // The next round counts from this answer, so a slow device never has two out.
    after_(std::chrono::duration_cast<std::chrono::milliseconds>(config_->display_poll_interval_seconds),
           [this] { refresh(); });
  });
}

void DeviceProbes::processes() {
  run_(std::string(release_.process_list_command()), kSmallOutput, [this](ingest::ShellResult r) {
    if (r.error) return;
    if (auto running = running_processes(r.output)) listed_(std::move(*running));
  });
}

}  // namespace jank::app

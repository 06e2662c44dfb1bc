#include "app/session/trace_recorder.h"

#include <fnmatch.h>

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "app/core/log.h"
#include "app/session/perfetto_commands.h"
#include "metrics/sources/traces.h"
#include "parsers/time_units.h"

namespace jank::app {
namespace {

constexpr std::size_t kSmallOutput = 4096;
constexpr std::size_t kMaxAtraceApps = 16;
constexpr std::chrono::minutes kMaxArmRetry{30};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

using parsers::units::to_ns;

std::optional<int> sdk_of(const metrics::DeviceMetrics& d) {
  const auto it = d.live.info.find("sdk");
  if (it == d.live.info.end()) return std::nullopt;
  int v = 0;
  const auto [p, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  if (ec != std::errc() || p != it->second.data() + it->second.size()) return std::nullopt;
  return v;
}

}  // namespace

metrics::SpikeRuleLimits spike_rule_limits(const config::Config& c) {
  using std::chrono::duration_cast, std::chrono::nanoseconds;
  metrics::SpikeRuleLimits l;
  l.skip_frames = c.traces_rule_skip_frames;
  l.davey_ms = c.traces_rule_davey_ms.count();
  l.sm_below = c.traces_rule_sm_below;
  l.sm_window = duration_cast<nanoseconds>(c.traces_rule_sm_seconds);
  l.fps_below = c.traces_rule_fps_below;
  l.fps_active = duration_cast<nanoseconds>(c.traces_rule_fps_seconds);
  l.big_jank_count = c.traces_rule_big_jank_count;
  l.big_jank_window = duration_cast<nanoseconds>(c.traces_rule_big_jank_window_seconds);
  l.frozen_frames = c.traces_rule_frozen_frames;
  return l;
}

bool traces_device(const config::Config& c, std::string_view serial, std::optional<int> sdk) {
  if (!c.traces_enabled || !sdk || *sdk < c.traces_min_sdk) return false;
  const std::string s(serial);
  return std::any_of(c.traces_devices.begin(), c.traces_devices.end(),
                     [&](const std::string& g) { return ::fnmatch(g.c_str(), s.c_str(), 0) == 0; });
}

TraceRecorder::TraceRecorder(PollerContext context, RunCommandWithin run_long)
    : ctx_(std::move(context)), run_long_(std::move(run_long)), rules_(spike_rule_limits(*ctx_.config)) {}

TraceRecorder::~TraceRecorder() {
  // A pull cut short by the session's end gives its place back.
  release_slot();
  ctx_.shared.with_device(ctx_.serial, [](metrics::DeviceMetrics& d) { metrics::trace_state(d).status.armed = false; });
}

void TraceRecorder::start(std::chrono::milliseconds first) {
  ctx_.shared.with_device(ctx_.serial, [this](metrics::DeviceMetrics& d) { rules_.configure(d); });
  next_due_ns_ = ctx_.host_now() + to_ns(first);
  ctx_.after(kTick, [this] { tick(); });
}

void TraceRecorder::tick() {
  const std::int64_t now = ctx_.host_now();
  check_rules(now);
  if (due(now)) step(now);
  ctx_.after(kTick, [this] { tick(); });
}

void TraceRecorder::count(Counts counts, std::string_view key) {
  ctx_.shared.with_device(ctx_.serial, [&](metrics::DeviceMetrics& d) { ++(metrics::trace_state(d).status.*counts)[std::string(key)]; });
}

void TraceRecorder::check_rules(std::int64_t now) {
  std::vector<metrics::Spike> spikes;
  ctx_.shared.with_device(ctx_.serial, [&](metrics::DeviceMetrics& d) { spikes = rules_.examine(d, now); });
  bool fired = false;
  for (const auto& spike : spikes) {
    std::string_view refused;
    if (fired || phase_ == Phase::triggered || phase_ == Phase::pull || (phase_ == Phase::armed && busy_)) {
      refused = "busy";
    } else if (phase_ != Phase::armed || !confirmed_) {
      refused = "not_armed";
    } else {
      refused = ctx_.shared.trace_budget.refuse(ctx_.serial, now);
    }
    if (!refused.empty()) {
      count(&metrics::DeviceTraceStatus::suppressed, refused);
      continue;
    }
    fired = true;
    trigger(spike, now);
  }
}

void TraceRecorder::step(std::int64_t now) {
  switch (phase_) {
    case Phase::adopt: return adopt();
    case Phase::arm: return arm();
    case Phase::armed: return check_alive();
    case Phase::triggered: return wait_finished();
    case Phase::pull:
      if (ctx_.shared.trace_pulls >= SharedState::kMaxTracePulls) {
        next_due_ns_ = now + to_ns(kTick);  // another device's trace is in transit
        return;
      }
      return pull();
  }
}

void TraceRecorder::rearm_after(std::chrono::milliseconds delay) {
  phase_ = Phase::arm;
  confirmed_ = false;
  next_due_ns_ = ctx_.host_now() + to_ns(delay);
}

// A session left running by an earlier device session (or exporter) is ours
// to keep: arming a second one would fail on its unique name.
void TraceRecorder::adopt() {
  busy_ = true;
  ctx_.run(perfetto::list_command(), kSmallOutput, [this](ingest::ShellResult r) {
    busy_ = false;
    if (r.error) {
      // Never arm blind: arming removes the file a running session writes to.
      next_due_ns_ = ctx_.host_now() + to_ns(arm_retry_);
      return;
    }
    adopt_next(perfetto::parse_pids(r.output), 0);
  });
}

void TraceRecorder::adopt_next(std::vector<std::int32_t> pids, std::size_t i) {
  if (i >= pids.size()) return rearm_after(std::chrono::milliseconds(0));
  busy_ = true;
  const std::int32_t pid = pids[i];
  ctx_.run(perfetto::alive_command(pid), kSmallOutput, [this, pids = std::move(pids), i, pid](ingest::ShellResult r) {
    busy_ = false;
    if (!r.error && r.exit_code == 0 && perfetto::is_our_session(r.output)) {
      pid_ = pid;
      phase_ = Phase::armed;
      confirm("adopted");
      next_due_ns_ = ctx_.host_now() + to_ns(ctx_.config->traces_check_interval_seconds);
      return;
    }
    if (r.error) {  // unknown: look again later rather than arm beside it
      phase_ = Phase::adopt;
      next_due_ns_ = ctx_.host_now() + to_ns(arm_retry_);
      return;
    }
    adopt_next(std::move(pids), i + 1);
  });
}

// Android 10 runs traced only with persist.traced.enable=1 (perfetto.rc);
// without it perfetto cannot even create its output file.
void TraceRecorder::arm() {
  if (!ctx_.release.traced_needs_property()) return arm_now();
  busy_ = true;
  ctx_.run("getprop persist.traced.enable", kSmallOutput, [this](ingest::ShellResult r) {
    busy_ = false;
    if (r.error) return rearm_after(arm_retry_);
    if (r.output.substr(0, r.output.find_first_of("\r\n")) == "1") return arm_now();
    count(&metrics::DeviceTraceStatus::sessions, "unsupported");
    log_info("device " + ctx_.serial +
             ": traced is off on this Android 10 device (adb shell setprop persist.traced.enable 1 turns it on); "
             "traces asked again in 30 minutes");
    rearm_after(std::chrono::milliseconds(kUnsupportedRetry));
  });
}

void TraceRecorder::arm_now() {
  perfetto::SessionOptions o;
  o.user_config = ctx_.config->traces_config_text;
  o.buffer_kb = ctx_.config->traces_buffer_kb;
  o.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(ctx_.config->traces_session_timeout_seconds);
  o.stop_delay = ctx_.config->traces_stop_delay_ms;
  o.apps = ctx_.config->gfxinfo_packages;
  ctx_.shared.with_device(ctx_.serial, [&](metrics::DeviceMetrics& d) {
    o.sdk = sdk_of(d).value_or(0);
    for (const auto& [name, pkg] : d.packages) {
      const bool app = name.find(':') == std::string::npos && name != metrics::kOverflowPackage &&
                       name != metrics::kUnknownPackage;
      if (app && std::find(o.apps.begin(), o.apps.end(), name) == o.apps.end()) o.apps.push_back(name);
    }
  });
  if (o.apps.size() > kMaxAtraceApps) o.apps.resize(kMaxAtraceApps);
  busy_ = true;
  ctx_.run(perfetto::arm_command(o), kSmallOutput, [this](ingest::ShellResult r) {
    busy_ = false;
    const auto pid = r.error ? std::nullopt : perfetto::parse_pid(r.output);
    if (!pid) {
      const bool unsupported = !r.error && perfetto::is_unsupported(r.exit_code, r.output);
      count(&metrics::DeviceTraceStatus::sessions, unsupported ? "unsupported" : "arm_failed");
      if (unsupported) {
        log_info("device " + ctx_.serial + ": no Perfetto to trace with; asked again in 30 minutes");
      } else {
        log_warning("device " + ctx_.serial + ": perfetto did not start a trace session (" + ingest::failure_text(r) +
                    "); asked again in " +
                    std::to_string(std::chrono::duration_cast<std::chrono::seconds>(arm_retry_).count()) + " s");
      }
      const auto retry = unsupported ? std::chrono::milliseconds(kUnsupportedRetry) : arm_retry_;
      if (!unsupported) arm_retry_ = std::min<std::chrono::milliseconds>(arm_retry_ * 2, kMaxArmRetry);
      return rearm_after(retry);
    }
    pid_ = *pid;
    phase_ = Phase::armed;
    confirmed_ = false;
    // The service may still refuse the session (a second one of its name):
    // it counts as armed once its process is seen running.
    next_due_ns_ = ctx_.host_now() + to_ns(std::chrono::milliseconds(1000));
  });
}

void TraceRecorder::confirm(std::string_view how) {
  confirmed_ = true;
  arm_retry_ = std::chrono::milliseconds(30'000);
  count(&metrics::DeviceTraceStatus::sessions, how);
  ctx_.shared.with_device(ctx_.serial, [](metrics::DeviceMetrics& d) { metrics::trace_state(d).status.armed = true; });
}

void TraceRecorder::check_alive() {
  busy_ = true;
  ctx_.run(perfetto::alive_command(pid_), kSmallOutput, [this](ingest::ShellResult r) {
    busy_ = false;
    const auto interval = to_ns(ctx_.config->traces_check_interval_seconds);
    if (r.error) {
      next_due_ns_ = ctx_.host_now() + interval;  // unknown: asked again
      return;
    }
    const bool alive = r.exit_code == 0 && perfetto::is_our_session(r.output);
    if (alive) {
      if (!confirmed_) confirm("armed");
      next_due_ns_ = ctx_.host_now() + interval;
      return;
    }
    ctx_.shared.with_device(ctx_.serial, [](metrics::DeviceMetrics& d) { metrics::trace_state(d).status.armed = false; });
    if (confirmed_) {
      count(&metrics::DeviceTraceStatus::sessions, "expired");  // its trigger timeout, or ended on the device
      return rearm_after(std::chrono::milliseconds(0));
    }
    count(&metrics::DeviceTraceStatus::sessions, "arm_failed");
    const auto retry = arm_retry_;
    arm_retry_ = std::min<std::chrono::milliseconds>(arm_retry_ * 2, kMaxArmRetry);
    rearm_after(retry);
  });
}

void TraceRecorder::trigger(const metrics::Spike& spike, std::int64_t now) {
  ctx_.shared.trace_budget.spend(ctx_.serial, now);
  spike_ = spike;
  triggered_ns_ = now;
  phase_ = Phase::triggered;
  busy_ = true;
  log_info("device " + ctx_.serial + ": " + std::string(metrics::spike_rule_name(spike.rule)) + " spike in " +
           spike.series.package + " (" + number(spike.value) + "): taking a trace");
  ctx_.run(perfetto::trigger_command(), kSmallOutput, [this](ingest::ShellResult r) {
    busy_ = false;
    if (r.error || r.exit_code != 0) {
      count(&metrics::DeviceTraceStatus::failed, "trigger_failed");
      phase_ = Phase::armed;  // is the session still there? the next check tells
      next_due_ns_ = ctx_.host_now();
      return;
    }
    ctx_.shared.with_device(ctx_.serial, [](metrics::DeviceMetrics& d) { metrics::trace_state(d).status.armed = false; });
    next_due_ns_ = ctx_.host_now() + to_ns(ctx_.config->traces_stop_delay_ms);
    finish_by_ns_ = next_due_ns_ + to_ns(ctx_.config->traces_finish_timeout_seconds);
  });
}

// Perfetto writes the file when tracing stops and exits once it is whole.
void TraceRecorder::wait_finished() {
  busy_ = true;
  ctx_.run(perfetto::alive_command(pid_), kSmallOutput, [this](ingest::ShellResult r) {
    busy_ = false;
    const std::int64_t now = ctx_.host_now();
    const bool gone = !r.error && !(r.exit_code == 0 && perfetto::is_our_session(r.output));
    if (gone) {
      phase_ = Phase::pull;
      next_due_ns_ = now;
      return;
    }
    if (now < finish_by_ns_) {
      next_due_ns_ = now + to_ns(kTick);
      return;
    }
    count(&metrics::DeviceTraceStatus::failed, "not_finished");
    log_warning("device " + ctx_.serial + ": Perfetto did not finish its trace in time; ending it");
    busy_ = true;
    ctx_.run(perfetto::kill_command(pid_), kSmallOutput, [this](ingest::ShellResult) {
      busy_ = false;
      rearm_after(std::chrono::milliseconds(1000));
    });
  });
}

void TraceRecorder::pull() {
  ++ctx_.shared.trace_pulls;
  pulling_slot_ = true;
  busy_ = true;
  const auto deadline = std::chrono::duration_cast<std::chrono::milliseconds>(ctx_.config->traces_pull_timeout_seconds);
  run_long_(perfetto::pull_command(), static_cast<std::size_t>(ctx_.config->traces_max_trace_bytes), deadline,
            [this](ingest::ShellResult r) {
              std::string_view failure;
              if (r.truncated) failure = "too_large";
              else if (r.error || r.exit_code != 0) failure = "pull_failed";
              else if (r.output.empty()) failure = "empty";
              if (failure.empty()) return save(std::move(r.output));
              busy_ = false;
              release_slot();
              count(&metrics::DeviceTraceStatus::failed, failure);
              log_warning("device " + ctx_.serial + ": trace not kept (" + std::string(failure) + ": " +
                          (r.error ? r.error.to_string()
                                   : "exit " + std::to_string(r.exit_code.value_or(-1)) + ", " +
                                         std::to_string(r.output.size()) + " bytes") +
                          ")");
              rearm_after(std::chrono::milliseconds(0));
            });
}

void TraceRecorder::release_slot() {
  if (pulling_slot_ && ctx_.shared.trace_pulls > 0) --ctx_.shared.trace_pulls;
  pulling_slot_ = false;
}

// The bytes go to the sink's writer with the pull slot: the slot is given
// back when the save is done, even when this session has ended by then, so
// traces waiting for the disk count against the memory bound too.
void TraceRecorder::save(std::string bytes) {
  metrics::StoredTrace meta;
  meta.serial = ctx_.serial;
  meta.package = spike_->series.package;
  meta.rule = std::string(metrics::spike_rule_name(spike_->rule));
  meta.value = spike_->value;
  meta.triggered_at_ns = triggered_ns_;
  meta.bytes = bytes.size();
  ctx_.shared.with_device(ctx_.serial, [&](metrics::DeviceMetrics& d) {
    meta.sdk = sdk_of(d).value_or(0);
    if (const auto it = d.live.info.find("model"); it != d.live.info.end()) meta.model = it->second;
  });
  if (!ctx_.shared.trace_sink) return saved(SavedTrace{"", "write_failed", "traces are off"}, meta);
  pulling_slot_ = false;  // the save holds it now
  ctx_.shared.trace_sink->save(
      std::move(bytes), meta,
      [&shared = ctx_.shared, alive = std::weak_ptr<char>(alive_), this, meta](SavedTrace result) {
        if (shared.trace_pulls > 0) --shared.trace_pulls;
        if (alive.lock()) saved(result, meta);
      });
}

void TraceRecorder::saved(const SavedTrace& result, const metrics::StoredTrace& meta) {
  busy_ = false;
  release_slot();
  if (result.id.empty()) {
    count(&metrics::DeviceTraceStatus::failed, result.reason.empty() ? "write_failed" : result.reason);
    log_warning("device " + ctx_.serial + ": trace not kept: " + result.error);
  } else {
    count(&metrics::DeviceTraceStatus::taken, meta.rule);
    ctx_.shared.with_device(ctx_.serial, [&](metrics::DeviceMetrics& d) {
      metrics::trace_state(d).exemplars[spike_->series] = {result.id, spike_->value, triggered_ns_};
    });
    log_info("device " + ctx_.serial + ": trace " + result.id + " kept (" + std::to_string(meta.bytes) + " bytes)");
  }
  rearm_after(std::chrono::milliseconds(0));
}

}  // namespace jank::app

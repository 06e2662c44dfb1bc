#include "app/device_controller.h"

#include <algorithm>
#include <cmath>

#include "app/log.h"
#include "parsers/display_info.h"
#include "parsers/names.h"
#include "parsers/process_list.h"
#include "parsers/properties.h"

namespace jank::app {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

constexpr std::size_t kSmallOutput = 1 << 20;       // getprop, ps, dumpsys display
constexpr auto kLivenessInterval = 30s;
constexpr int kAndroidDefaultSkipwarning = 30;

std::int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}


}  // namespace

DeviceController::DeviceController(asio::io_context& io, std::shared_ptr<const config::Config> config,
                                   ingest::AdbEndpoint endpoint, std::string serial, SharedState& shared)
    : io_(io),
      config_(std::move(config)),
      endpoint_(std::move(endpoint)),
      serial_(std::move(serial)),
      shared_(shared),
      rng_(std::hash<std::string>{}(serial_) ^ static_cast<std::uint64_t>(wall_ns())),
      deadline_(std::chrono::milliseconds(static_cast<long>(config_->command_timeout_seconds * 1000)),
                std::chrono::milliseconds(static_cast<long>(config_->command_timeout_max_seconds * 1000))),
      restart_timer_(io),
      gfxinfo_timer_(io),
      display_timer_(io),
      liveness_timer_(io) {}

DeviceController::~DeviceController() { stop(); }

template <typename F>
void DeviceController::with_device(F&& f) {
  std::lock_guard<std::mutex> lock(shared_.mutex);
  f(shared_.store, shared_.store.device(serial_));
}

void DeviceController::start() {
  running_ = true;
  with_device([this](metrics::Store&, metrics::DeviceMetrics& d) {
    d.live.live = true;
    d.live.up = true;
    d.live.down_since_ns = 0;
    d.live.state = metrics::DeviceState::starting;
    d.live.command_deadline_seconds = static_cast<double>(deadline_.current().count()) / 1000;
  });
  begin_session();
}

void DeviceController::set_state(metrics::DeviceState state) {
  with_device([state](metrics::Store&, metrics::DeviceMetrics& d) { d.live.state = state; });
}

std::chrono::milliseconds DeviceController::command_deadline() const { return deadline_.current(); }

void DeviceController::stop() {
  if (!running_) return;
  running_ = false;
  end_streams();
  restart_timer_.cancel();
  with_device([](metrics::Store&, metrics::DeviceMetrics& d) {
    d.live.up = false;
    d.live.down_since_ns = wall_ns();
  });
}

// Ends what the session runs: no callback of it runs afterwards.
void DeviceController::end_streams() {
  ++generation_;
  if (logcat_) logcat_->close();
  logcat_.reset();
  for (auto& c : commands_) c->close();
  commands_.clear();
  gfxinfo_timer_.cancel();
  display_timer_.cancel();
  liveness_timer_.cancel();
  log_.reset();
  gfxinfo_.reset();
}

void DeviceController::begin_session() {
  if (!running_) return;
  ++generation_;
  with_device([](metrics::Store&, metrics::DeviceMetrics& d) {
    ++d.live.sessions;
    d.live.state = metrics::DeviceState::starting;
  });
  step_features();
}

// Something failed that the session cannot go on without: drop streams and
// start over after a backoff; the log position makes the restart seamless.
void DeviceController::restart_session(const std::string& reason) {
  if (!running_) return;
  const auto delay = backoff_.next(std::uniform_real_distribution<double>(0, 1)(rng_));
  log_warning("device " + serial_ + ": " + reason + "; new session in " + std::to_string(delay.count()) + " ms");
  end_streams();
  set_state(metrics::DeviceState::stalled);
  restart_timer_.expires_after(delay);
  auto weak = weak_from_this();
  restart_timer_.async_wait([weak](boost::system::error_code ec) {
    if (auto self = weak.lock(); self && !ec) self->begin_session();
  });
}

void DeviceController::run(const std::string& command, std::size_t max_output,
                           std::function<void(ingest::ShellResult)> done) {
  const auto started = Clock::now();
  const auto deadline = started + command_deadline();
  auto stream = ingest::run_shell(io_, endpoint_, serial_, protocol_, command, deadline, max_output,
                                  guarded([this, started, done = std::move(done)](ingest::ShellResult result) {
                                    count_command(result, Clock::now() - started);
                                    done(std::move(result));
                                  }));
  // Keep handles only for cancellation; finished ones are pruned here.
  commands_.erase(std::remove_if(commands_.begin(), commands_.end(),
                                 [](const auto& c) { return c.use_count() == 1; }),
                  commands_.end());
  commands_.push_back(std::move(stream));
}

void DeviceController::count_command(const ingest::ShellResult& result, Clock::duration took) {
  if (result.error.kind == ingest::AdbErrorKind::timeout) {
    deadline_.on_timeout();
  } else if (!result.error) {
    deadline_.on_answer(std::chrono::duration_cast<std::chrono::milliseconds>(took));
  }
  with_device([&](metrics::Store&, metrics::DeviceMetrics& d) {
    ++d.live.commands[std::string(ingest::shell_result_name(result))];
    d.live.command_deadline_seconds = static_cast<double>(deadline_.current().count()) / 1000;
  });
}

void DeviceController::step_features() {
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(config_->connect_timeout_seconds * 1000));
  ingest::query(io_, endpoint_, ingest::features_request(serial_), deadline,
                guarded([this](ingest::AdbError error, std::string payload) {
                  if (error) return restart_session("features: " + error.to_string());
                  protocol_ = ingest::shell_protocol_for(ingest::parse_features(payload));
                  step_properties();
                }));
}

void DeviceController::step_properties() {
  run("getprop", kSmallOutput, [this](ingest::ShellResult r) {
    if (r.error) return restart_session("getprop: " + r.error.to_string());
    const parsers::DeviceFacts facts = parsers::device_facts(parsers::parse_properties(r.output));
    with_device([&](metrics::Store&, metrics::DeviceMetrics& d) {
      auto put = [&](const char* key, const std::optional<std::string>& v) {
        if (v) d.live.info[key] = v->substr(0, 256);
      };
      put("model", facts.model);
      put("manufacturer", facts.manufacturer);
      put("release", facts.release);
      put("fingerprint", facts.fingerprint);
      if (facts.sdk) d.live.info["sdk"] = std::to_string(*facts.sdk);
    });
    step_skipwarning(facts.choreographer_skipwarning);
  });
}

// Choreographer reads debug.choreographer.skipwarning once, when the class is
// initialised in zygote; apps forked from it keep that value. So the value set
// here only takes effect once zygote restarts (root, opt-in) or the property
// was set before zygote started. The gauge reports what is known, not hoped.
void DeviceController::step_skipwarning(const std::optional<int>& current) {
  const int desired = config_->skipwarning_frames;
  auto set_threshold = [this](int frames) {
    with_device([&](metrics::Store&, metrics::DeviceMetrics& d) { d.live.skip_threshold_frames = frames; });
  };
  auto next = [this] {
    step_display();
    step_processes();
    open_logcat();
    // Soon after the start: by then the first skips name the apps worth polling.
    gfxinfo_ = std::make_unique<GfxinfoPoller>(
        config_, serial_, shared_,
        [this](const std::string& command, std::size_t max_output, std::function<void(ingest::ShellResult)> done) {
          run(command, max_output, std::move(done));
        },
        [this](std::chrono::milliseconds delay, std::function<void()> then) {
          gfxinfo_timer_.expires_after(delay);
          gfxinfo_timer_.async_wait(guarded_timer(std::move(then)));
        });
    gfxinfo_->start(std::chrono::milliseconds(2000));
    schedule_liveness();
  };
  if (current == desired) {
    // Already set, by an earlier run of ours: with restart_zygote that run
    // restarted zygote after setting it; never restart it again.
    set_threshold(config_->restart_zygote ? desired : kAndroidDefaultSkipwarning);
    return next();
  }
  set_threshold(kAndroidDefaultSkipwarning);
  run(ingest::quote_args({"setprop", "debug.choreographer.skipwarning", std::to_string(desired)}), 4096,
      [this, desired, set_threshold, next](ingest::ShellResult r) {
        if (r.error || (r.exit_code && *r.exit_code != 0)) {
          log_warning("device " + serial_ + ": setprop debug.choreographer.skipwarning failed");
          return next();
        }
        if (!config_->restart_zygote) return next();
        run("id -u", 64, [this, desired, set_threshold, next](ingest::ShellResult id) {
          if (id.error || id.output.substr(0, 1) != "0") {
            log_warning("device " + serial_ + ": choreographer.restart_zygote needs root (adb root); not restarted");
            return next();
          }
          run(ingest::quote_args({"setprop", "ctl.restart", "zygote"}), 4096,
              [this, desired, set_threshold, next](ingest::ShellResult z) {
                if (!z.error && (!z.exit_code || *z.exit_code == 0)) {
                  log_info("device " + serial_ + ": zygote restarted, every app now logs skips of " +
                           std::to_string(desired) + "+ frames");
                  set_threshold(desired);
                }
                next();
              });
        });
      });
}

void DeviceController::step_processes() {
  run("ps -A", kSmallOutput, [this](ingest::ShellResult r) {
    if (r.error) return;
    const parsers::ProcessList list = parsers::parse_process_list(r.output);
    if (list.processes.size() < 3 && !r.output.empty()) return;  // pre-O "ps -A" lists nothing useful
    LogSession::Processes running;
    for (const auto& p : list.processes) {
      if (!p.kernel_thread && p.pid >= 0) running.emplace_back(p.pid, p.name);
    }
    if (log_) log_->processes_listed(std::move(running));
  });
}

void DeviceController::step_display() {
  run("dumpsys display", kSmallOutput, [this](ingest::ShellResult r) {
    std::optional<parsers::RefreshRate> rate;
    if (!r.error) rate = parsers::parse_display_refresh_rate(r.output);
    auto apply = [this](std::optional<parsers::RefreshRate> found) {
      with_device([&](metrics::Store&, metrics::DeviceMetrics& d) {
        if (found) {
          d.refresh_hz = found->hz;
          d.refresh_is_fallback = false;
        } else {
          d.refresh_hz = config_->default_refresh_rate_hertz;
          d.refresh_is_fallback = true;
        }
      });
    };
    if (rate) {
      apply(rate);
    } else {
      // Older releases and some vendors only say it in SurfaceFlinger's dump.
      run("dumpsys SurfaceFlinger", 4 * kSmallOutput, [apply](ingest::ShellResult sf) {
        apply(sf.error ? std::nullopt : parsers::parse_surfaceflinger_refresh_rate(sf.output));
      });
    }
    display_timer_.expires_after(
        std::chrono::milliseconds(static_cast<long>(config_->display_poll_interval_seconds * 1000)));
    display_timer_.async_wait(guarded_timer([this] {
      step_display();
      step_processes();
    }));
  });
}

void DeviceController::open_logcat() {
  log_ = std::make_unique<LogSession>(
      config_, serial_, shared_,
      [this](const std::string& command, std::size_t max_output, std::function<void(ingest::ShellResult)> done) {
        run(command, max_output, std::move(done));
      },
      wall_ns);
  ingest::StreamCallbacks callbacks;
  callbacks.on_data = guarded([this](std::string_view bytes) {
    backoff_.reset();  // data flows: the device is healthy
    stream_delivered_ = true;
    if (!log_->feed(bytes)) restart_session("logcat stream: " + log_->error());
  });
  callbacks.on_end = guarded([this](const ingest::StreamEnd& end) {
    restart_session("logcat stream ended" + (end.error ? ": " + end.error.to_string() : std::string()));
  });
  // Opening the service on a slow device takes as long as its commands do.
  const auto open_within = std::max(std::chrono::milliseconds(static_cast<long>(config_->connect_timeout_seconds * 1000)),
                                    command_deadline());
  ingest::StreamOptions stream_options;
  stream_options.read_batch = std::chrono::milliseconds(config_->logcat_read_batch_ms);
  logcat_ = ingest::DeviceStream::open(io_, endpoint_, serial_, protocol_, log_->open_script(),
                                       Clock::now() + open_within, std::move(callbacks), stream_options);
}

void DeviceController::schedule_liveness() {
  liveness_timer_.expires_after(kLivenessInterval);
  liveness_timer_.async_wait(guarded_timer([this] {
    if (log_) log_->settle_if_undecided();  // a probe interval is long enough to wait
    // A wedged device keeps its TCP connection but answers nothing; logcat
    // would just look quiet. A trivial command with a deadline tells. A
    // device whose stream still delivers is slow, not wedged: the timeout
    // only lengthens its deadline.
    stream_delivered_ = false;
    run("echo alive", 64, [this](ingest::ShellResult r) {
      const bool timed_out = r.error.kind == ingest::AdbErrorKind::timeout;
      if ((r.error && !(timed_out && stream_delivered_)) || (!r.error && r.output.find("alive") == std::string::npos)) {
        restart_session("device does not answer (" + (r.error ? r.error.to_string() : "no echo") + ")");
        return;
      }
      if (timed_out) log_warning("device " + serial_ + ": slow to answer; its stream still delivers, deadline now " +
                                 std::to_string(command_deadline().count()) + " ms");
      schedule_liveness();
    });
  }));
}

}  // namespace jank::app

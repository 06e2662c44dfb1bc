#include "app/session/device_controller.h"

#include <algorithm>

#include "app/core/log.h"
#include "app/session/command_kind.h"
#include "app/session/device_timing.h"
#include "parsers/time_units.h"
#include "parsers/utf8.h"

namespace jank::app {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

constexpr auto kLivenessInterval = 30s;
// A device whose release cannot be followed is asked again this rarely (an
// update may have come); a reason is at most this long, as a label too.
constexpr std::chrono::milliseconds kUnsupportedRetry = 30min;
constexpr std::size_t kMaxReasonBytes = 256;

}  // namespace

DeviceController::DeviceController(asio::io_context& io, std::shared_ptr<const config::Config> config,
                                   ingest::AdbEndpoint endpoint, std::string serial, SharedState& shared,
                                   HostClock clock)
    : io_(io),
      config_(std::move(config)),
      endpoint_(std::move(endpoint)),
      serial_(std::move(serial)),
      shared_(shared),
      clock_(std::move(clock)),
      rng_(std::hash<std::string>{}(serial_) ^ static_cast<std::uint64_t>(clock_.wall_ns())),
      deadline_(std::chrono::duration_cast<std::chrono::milliseconds>(config_->command_timeout_seconds),
                std::chrono::duration_cast<std::chrono::milliseconds>(config_->command_timeout_max_seconds)),
      restart_timer_(io),
      gfxinfo_timer_(io),
      surface_timer_(io),
      display_timer_(io),
      liveness_timer_(io),
      trace_timer_(io),
      budget_(config_->budget_max_commands_per_second) {}

DeviceController::~DeviceController() { stop(); }

void DeviceController::start() {
  running_ = true;
  shared_.with_device(serial_, [this](metrics::DeviceMetrics& d) {
    d.live.live = true;
    d.live.up = true;
    d.live.down_since_ns = 0;
    d.live.state = metrics::DeviceState::starting;
    d.live.command_deadline_seconds = parsers::units::Seconds(deadline_.current()).count();
  });
  begin_session();
}

std::chrono::milliseconds DeviceController::command_deadline() const { return deadline_.current(); }

void DeviceController::stop() {
  if (!running_) return;
  running_ = false;
  end_streams();
  restart_timer_.cancel();
  shared_.with_device(serial_, [now = clock_.wall_ns()](metrics::DeviceMetrics& d) {
    d.live.up = false;
    d.live.down_since_ns = now;
  });
}

// Ends what the session runs: no callback of it runs afterwards.
void DeviceController::end_streams() {
  ++generation_;
  if (logcat_) logcat_->close();
  logcat_.reset();
  for (auto& c : commands_) c->close();
  commands_.clear();
  for (auto& t : waiting_) t->cancel();
  waiting_.clear();
  gfxinfo_timer_.cancel();
  surface_timer_.cancel();
  display_timer_.cancel();
  liveness_timer_.cancel();
  for (auto& t : source_timers_) t.cancel();
  trace_timer_.cancel();
  traces_.reset();
  probes_.reset();
  log_.reset();
  gfxinfo_.reset();
  surface_.reset();
  source_pollers_.clear();
}

void DeviceController::begin_session() {
  if (!running_) return;
  ++generation_;
  shared_.with_device(serial_, [](metrics::DeviceMetrics& d) {
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
  stop_for(metrics::DeviceState::stalled, reason, delay);
}

void DeviceController::set_aside(const std::string& reason) {
  if (!running_) return;
  log_warning("device " + serial_ + ": " + reason + "; not followed, asked again in " +
              std::to_string(std::chrono::duration_cast<std::chrono::minutes>(kUnsupportedRetry).count()) +
              " minutes (docs/troubleshooting.md)");
  stop_for(metrics::DeviceState::unsupported, reason, kUnsupportedRetry);
}

void DeviceController::stop_for(metrics::DeviceState state, const std::string& reason,
                                std::chrono::milliseconds delay) {
  end_streams();
  shared_.with_device(serial_, [&](metrics::DeviceMetrics& d) {
    d.live.state = state;
    d.live.state_reason = parsers::utf8_replaced(parsers::utf8_prefix(reason, kMaxReasonBytes));
  });
  restart_timer_.expires_after(delay);
  auto weak = weak_from_this();
  restart_timer_.async_wait([weak](boost::system::error_code ec) {
    if (auto self = weak.lock(); self && !ec) self->begin_session();
  });
}

void DeviceController::run(const std::string& command, std::size_t max_output,
                           std::function<void(ingest::ShellResult)> done) {
  run_within(command, max_output, command_deadline(), std::move(done));
}

void DeviceController::run_within(const std::string& command, std::size_t max_output,
                                  std::chrono::milliseconds within, std::function<void(ingest::ShellResult)> done) {
  const auto now = clock_.steady_now();
  budget_turn(now, command, max_output, within, std::move(done));
}

void DeviceController::budget_turn(std::chrono::steady_clock::time_point asked, const std::string& command,
                                   std::size_t max_output, std::chrono::milliseconds within,
                                   std::function<void(ingest::ShellResult)> done) {
  const auto now = clock_.steady_now();
  const auto turn = budget_.request(now, is_frame_by_frame(command), asked);
  if (turn.booked && turn.at <= now) {
    if (now > asked) note_budget_wait(now - asked);
    return start_command(command, max_output, within, std::move(done));
  }
  // Over the device's budget: the command waits its turn (its deadline runs
  // from its start), or asks again when a slot may be free for it.
  waiting_.erase(std::remove_if(waiting_.begin(), waiting_.end(), [](const auto& t) { return t.use_count() == 1; }),
                 waiting_.end());
  auto timer = std::make_shared<asio::steady_timer>(io_, turn.at - now);
  waiting_.push_back(timer);
  timer->async_wait(guarded_timer([this, timer, asked, booked = turn.booked, command, max_output, within,
                                   done = std::move(done)]() mutable {
    if (!booked) return budget_turn(asked, command, max_output, within, std::move(done));
    note_budget_wait(clock_.steady_now() - asked);
    start_command(command, max_output, within, std::move(done));
  }));
}

void DeviceController::note_budget_wait(std::chrono::steady_clock::duration waited) {
  shared_.with_device(serial_, [&](metrics::DeviceMetrics& d) {
    ++d.live.budget_waits;
    d.live.budget_wait_seconds += parsers::units::Seconds(waited).count();
  });
}

void DeviceController::start_command(const std::string& command, std::size_t max_output,
                                     std::chrono::milliseconds within, std::function<void(ingest::ShellResult)> done) {
  const auto started = clock_.steady_now();
  const auto deadline = started + within;
  // Over shell v2 the device's shell times each command (its stamps go to stderr).
  const bool timed = protocol_ == ingest::ShellProtocol::v2;
  auto stream = ingest::run_shell(io_, endpoint_, serial_, protocol_, timed ? timed_command(command) : command,
                                  deadline, max_output,
                                  guarded([this, started, timed, kind = command_kind(command),
                                           done = std::move(done)](ingest::ShellResult result) {
                                    const auto took = clock_.steady_now() - started;
                                    const std::size_t bytes = result.output.size() + result.error_output.size();
                                    std::optional<DeviceTime> device;
                                    if (timed) device = take_device_time(result, took);
                                    count_command(kind, result, took, bytes, device);
                                    done(std::move(result));
                                  }));
  // Keep handles only for cancellation; finished ones are pruned here.
  commands_.erase(std::remove_if(commands_.begin(), commands_.end(),
                                 [](const auto& c) { return c.use_count() == 1; }),
                  commands_.end());
  commands_.push_back(std::move(stream));
}

void DeviceController::count_command(std::string_view kind, const ingest::ShellResult& result,
                                     std::chrono::steady_clock::duration took, std::size_t bytes,
                                     const std::optional<DeviceTime>& device) {
  if (result.error.kind == ingest::AdbErrorKind::timeout) {
    deadline_.on_timeout();
  } else if (!result.error) {
    deadline_.on_answer(std::chrono::duration_cast<std::chrono::milliseconds>(took));
  }
  shared_.with_device(serial_, [&](metrics::DeviceMetrics& d) {
    ++d.live.commands[std::string(ingest::shell_result_name(result))];
    auto& cost = d.live.command_costs[std::string(kind)];
    ++cost.runs;
    cost.seconds += parsers::units::Seconds(took).count();
    cost.output_bytes += bytes;
    if (device && device->result == DeviceTimeResult::timed) {
      ++cost.timed;
      cost.device_seconds += parsers::units::Seconds(device->took).count();
    } else if (device && !result.error) {
      ++d.live.untimed_commands[device->result == DeviceTimeResult::implausible ? "implausible" : "unstamped"];
    }
    d.live.command_deadline_seconds = parsers::units::Seconds(deadline_.current()).count();
  });
}

void DeviceController::step_features() {
  const auto deadline =
      clock_.steady_now() + std::chrono::duration_cast<std::chrono::milliseconds>(config_->connect_timeout_seconds);
  ingest::query(io_, endpoint_, ingest::features_request(serial_), deadline,
                guarded([this](ingest::AdbError error, std::string payload) {
                  if (error) return restart_session("features: " + error.to_string());
                  protocol_ = ingest::shell_protocol_for(ingest::parse_features(payload));
                  start_probes();
                }));
}

RunCommand DeviceController::runner() {
  return [this](const std::string& command, std::size_t max_output, std::function<void(ingest::ShellResult)> done) {
    run(command, max_output, std::move(done));
  };
}

void DeviceController::poll_gfxinfo_soon() {
  if (running_ && gfxinfo_) gfxinfo_->poll_soon();
}

RunAfter DeviceController::timer(asio::steady_timer& t) {
  return [this, &t](std::chrono::milliseconds delay, std::function<void()> then) {
    t.expires_after(delay);
    t.async_wait(guarded_timer(std::move(then)));
  };
}

void DeviceController::start_probes() {
  probes_ = std::make_unique<DeviceProbes>(config_, serial_, shared_, runner(), timer(display_timer_),
                                           [this](metrics::ProcessListing running) {
                                             if (log_) log_->processes_listed(std::move(running));
                                           });
  probes_->start([this] { follow(); }, [this](const std::string& reason) { restart_session(reason); },
                 [this](const std::string& reason) { set_aside(reason); });
}

AndroidRelease DeviceController::release() const { return probes_ ? probes_->release() : AndroidRelease{}; }

void DeviceController::follow() {
  open_logcat();
  // Soon after the start: by then the first skips name the apps worth polling.
  // One decision per session on what is polled frame by frame, shared by the pollers that do.
  const auto per_frame = std::make_shared<PerFramePolicy>(config_);
  gfxinfo_ = std::make_unique<GfxinfoPoller>(
      PollerContext{config_, serial_, shared_, runner(), timer(gfxinfo_timer_), clock_.wall_ns, release()}, per_frame);
  gfxinfo_->start(std::chrono::milliseconds(2000));
  // Framestats rows wait for FrameTimeline's verdicts only where they come.
  shared_.with_device(serial_, [&](metrics::DeviceMetrics& d) {
    expect_frametimeline(*config_, d);
  });
  if (config_->surfaceflinger_enabled) {
    // After the first gfxinfo round has named the foreground app.
    surface_ = std::make_unique<SurfacePoller>(config_, serial_, shared_, runner(), timer(surface_timer_), clock_,
                                               per_frame);
    surface_->start(std::chrono::milliseconds(2500));
  }
  const auto sources = command_sources();
  while (source_timers_.size() < sources.size()) source_timers_.emplace_back(restart_timer_.get_executor());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (!sources[i]->enabled(*config_)) continue;
    source_pollers_.push_back(std::make_unique<CommandPoller>(
        PollerContext{config_, serial_, shared_, runner(), timer(source_timers_[i]), clock_.wall_ns, release()},
        *sources[i]));
    source_pollers_.back()->start();
  }
  start_traces();
  schedule_liveness();
}

void DeviceController::start_traces() {
  bool sink = false;
  shared_.with_device(serial_, [&](metrics::DeviceMetrics&) { sink = shared_.trace_sink != nullptr; });
  if (!sink || !traces_device(*config_, serial_, release().sdk)) return;
  traces_ = std::make_unique<TraceRecorder>(
      PollerContext{config_, serial_, shared_, runner(), timer(trace_timer_), clock_.wall_ns, release()},
      [this](const std::string& command, std::size_t max_output, std::chrono::milliseconds within,
             std::function<void(ingest::ShellResult)> done) { run_within(command, max_output, within, std::move(done)); });
  // After the log stream settled: the rules start from the counts as they are.
  traces_->start(std::chrono::milliseconds(1000));
}

void DeviceController::open_logcat() {
  log_ = std::make_unique<LogSession>(config_, serial_, shared_, runner(), clock_.wall_ns, release());
  ingest::StreamCallbacks callbacks;
  callbacks.on_data = guarded([this](std::string_view bytes) {
    stream_delivered_ = true;
    if (!log_->feed(bytes)) {
      // What logcat said on stderr is the reason ("Unable to open log device …").
      const std::string said = ingest::failure_text({}, std::nullopt, logcat_ ? logcat_->error_output() : "");
      return restart_session("logcat stream: " + log_->error() + (said.empty() ? "" : " (device: " + said + ")"));
    }
    // Only lines read while following prove the session healthy: a stream
    // that fails in its preamble or before its first new line every time (a
    // release that refuses an option) is asked again at growing intervals.
    if (log_->delivering()) backoff_.reset();
  });
  callbacks.on_end = guarded([this](const ingest::StreamEnd& end) {
    const std::string why = ingest::failure_text(end);
    restart_session("logcat stream ended" + (why.empty() ? std::string() : ": " + why));
  });
  // Opening the service on a slow device takes as long as its commands do.
  const auto open_within =
      std::max(std::chrono::duration_cast<std::chrono::milliseconds>(config_->connect_timeout_seconds), command_deadline());
  ingest::StreamOptions stream_options;
  stream_options.read_batch = config_->logcat_read_batch_ms;
  logcat_ = ingest::DeviceStream::open(io_, endpoint_, serial_, protocol_, log_->open_script(),
                                       clock_.steady_now() + open_within, std::move(callbacks), stream_options);
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

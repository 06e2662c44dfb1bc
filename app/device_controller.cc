#include "app/device_controller.h"

#include <algorithm>
#include <cmath>

#include "app/log.h"
#include "parsers/display_info.h"
#include "parsers/logd_statistics.h"
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
  ++generation_;
  if (logcat_) logcat_->close();
  logcat_.reset();
  for (auto& c : commands_) c->close();
  commands_.clear();
  restart_timer_.cancel();
  gfxinfo_timer_.cancel();
  display_timer_.cancel();
  liveness_timer_.cancel();
  std::lock_guard<std::mutex> lock(shared_.mutex);
  auto& d = shared_.store.device(serial_);
  d.live.up = false;
  d.live.down_since_ns = wall_ns();
  follower_.reset();
  stream_.reset();
  sink_.reset();
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
  ++generation_;
  if (logcat_) logcat_->close();
  logcat_.reset();
  for (auto& c : commands_) c->close();
  commands_.clear();
  gfxinfo_timer_.cancel();
  display_timer_.cancel();
  liveness_timer_.cancel();
  {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    shared_.store.device(serial_).live.state = metrics::DeviceState::stalled;
    follower_.reset();
    stream_.reset();
    sink_.reset();
  }
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
    parsers::ProcessList list = parsers::parse_process_list(r.output);
    if (list.processes.size() < 3 && !r.output.empty()) return;  // pre-O "ps -A" lists nothing useful
    // The stream may still be reading lines older than this list: a pid
    // reused since then would name the old process's lines wrongly, and a
    // process that died meanwhile would lose its name. Apply it once the
    // stream has passed what the ring held at its start.
    if (catching_up_) {
      pending_processes_ = std::move(list);
      return;
    }
    std::lock_guard<std::mutex> lock(shared_.mutex);
    apply_processes(list);
  });
}

void DeviceController::apply_processes(const parsers::ProcessList& list) {
  std::vector<std::pair<std::int32_t, std::string>> running;
  running.reserve(list.processes.size());
  for (const auto& p : list.processes) {
    if (!p.kernel_thread && p.pid >= 0) running.emplace_back(p.pid, p.name);
  }
  auto& store = shared_.store;
  store.set_host_time(wall_ns());
  store.record_process_list(store.device(serial_), running);
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

namespace {
const std::vector<std::string> kLogcatBuffers = {"main", "system"};
// Ends the preamble (boot id, logd's pid and statistics) that precedes the
// log lines in the stream's output.
constexpr std::string_view kPreambleEnd = "jank_exporter:logcat-snapshot-end";

// The whole ring is at most a few MiB on a device set to large buffers.
constexpr std::size_t kRingDumpOutput = 64 << 20;

// One script, so that the statistics describe the ring the stream then
// prints whole (no -T: the position comes from the statistics and the last
// counted line, never from a time). `dump`: the ring only, then exit.
// A follow stream's script starts with where the cursor stands, for whoever
// reads the device's shell history (and the simulator's truth): numbers and a
// checked boot id only. Printed, it is one more preamble line, ignored.
std::string cursor_declaration(const parsers::LogCursor& c) {
  if (!c.valid) return "";
  std::string out = "echo jank_exporter:cursor boot=" + (c.boot_id.empty() ? "-" : c.boot_id) +
                    " logd=" + std::to_string(c.logd_pid);
  for (const auto& [buffer, b] : c.buffers) out += " " + buffer + "=" + std::to_string(b.index);
  return out + "; ";
}

std::string stream_command(bool dump, const parsers::LogCursor& cursor) {
  std::vector<std::string> args = {"-v", "threadtime", "-v", "epoch", "-v", "usec", "-b", "main,system", "-D"};
  if (dump) args.push_back("-d");
  return (dump ? "" : cursor_declaration(cursor)) +
         "cat /proc/sys/kernel/random/boot_id; pidof logd; logcat -S -b main,system; echo " +
         std::string(kPreambleEnd) + "; " + ingest::logcat_command(args);
}
}  // namespace

void DeviceController::open_logcat() {
  parsers::LogcatStreamOptions options;
  options.max_line_bytes = config_->logcat_max_line_bytes;
  options.track_last_time = false;  // the follower hands over each entry's time
  {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    auto& d = shared_.store.device(serial_);
    sink_ = std::make_unique<metrics::DeviceLogcatRecorder>(shared_.store, d);
    lines_base_ = d.lines;
    ++d.live.logcat_streams;
    stream_ = std::make_unique<parsers::LogcatStream>(*sink_, options);
    stream_->assume_utf8();  // logcat prints UTF-8: nothing is held back, so counts and cursor agree
    follower_ = std::make_unique<parsers::LogcatFollower>(
        d.log_cursor, kLogcatBuffers, kPreambleEnd, config_->logcat_max_line_bytes,
        [this](const parsers::LogcatFollower::Line& line) { on_logcat_line(line); });
  }
  plan_applied_ = false;
  check_running_ = false;
  pending_processes_.reset();
  catching_up_ = true;
  ingest::StreamCallbacks callbacks;
  callbacks.on_data = guarded([this](std::string_view bytes) { on_logcat_data(bytes); });
  callbacks.on_end = guarded([this](const ingest::StreamEnd& end) {
    restart_session("logcat stream ended" + (end.error ? ": " + end.error.to_string() : std::string()));
  });
  // Opening the service on a slow device takes as long as its commands do.
  const auto open_within = std::max(std::chrono::milliseconds(static_cast<long>(config_->connect_timeout_seconds * 1000)),
                                    command_deadline());
  ingest::StreamOptions stream_options;
  stream_options.read_batch = std::chrono::milliseconds(config_->logcat_read_batch_ms);
  logcat_ = ingest::DeviceStream::open(io_, endpoint_, serial_, protocol_, stream_command(false, follower_->cursor()),
                                       Clock::now() + open_within,
                                       std::move(callbacks), stream_options);
}

void DeviceController::on_logcat_data(std::string_view bytes) {
  backoff_.reset();  // data flows: the device is healthy
  stream_delivered_ = true;
  bool check = false, failed = false;
  parsers::LogCursor snapshot;
  {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    host_now_ns_ = wall_ns();
    shared_.store.set_host_time(host_now_ns_);
    const std::uint64_t entries_before = follower_->entries();
    follower_->feed(bytes);
    after_feed();
    // One read that brings a quarter ring's worth of entries is a burst the
    // ring may not have held whole: logd may have skipped the stream ahead.
    check = follower_->state() == parsers::LogcatFollower::State::following && !check_running_ &&
            follower_->entries() - entries_before >= std::max<std::uint64_t>(64, follower_->plan()->held_entries / 4);
    if (check) snapshot = follower_->cursor();
    failed = follower_->state() == parsers::LogcatFollower::State::failed;
  }
  if (failed) return restart_session("logcat stream: " + follower_->error());
  if (check) check_continuity(std::move(snapshot));  // not under the lock: run() may answer at once
}

// logd skips a live reader ahead when it prunes what the reader has not
// read yet (a burst larger than the ring); the stream never says so and its
// cursor then lags the true index. After a read that brought a quarter
// ring's worth of entries, a dump of the ring measures it like a resume
// would: the last entry counted
// at the check's start is looked for by content and its true index tells how
// many were skipped. Measured now, not at the next stream start, so that a
// reboot or logd restart before then cannot turn it into unknown lines.
void DeviceController::check_continuity(parsers::LogCursor snapshot) {
  check_running_ = true;
  const std::string command = stream_command(true, snapshot);
  run(command, kRingDumpOutput, [this, snapshot = std::move(snapshot)](ingest::ShellResult r) {
    check_running_ = false;
    if (r.error || r.truncated) return;
    parsers::LogcatFollower check(snapshot, kLogcatBuffers, kPreambleEnd, config_->logcat_max_line_bytes,
                                  [](const parsers::LogcatFollower::Line&) {});
    check.feed(r.output);
    check.settle();
    if (!check.settled() || check.plan()->kind != parsers::ResumeKind::resume) return;
    std::lock_guard<std::mutex> lock(shared_.mutex);
    if (!follower_) return;
    auto& d = shared_.store.device(serial_);
    for (const auto& b : kLogcatBuffers) {
      const auto it = check.lost().find(b);
      if (it == check.lost().end() || !check.anchor_found(b)) continue;
      follower_->skip_ahead(b, it->second);
      d.continuity.lost_lines += it->second;
      log_warning("device " + serial_ + ": logd skipped " + std::to_string(it->second) + " lines of " + b +
                  " under the live stream (a burst larger than its ring)");
    }
    d.log_cursor = follower_->cursor();
  });
}

// The store follows the follower: counts, cursor and what the stream found
// change together, under one lock, so a checkpoint sees all or none.
void DeviceController::after_feed() {
  auto& d = shared_.store.device(serial_);
  if (follower_->settled() && !plan_applied_) apply_plan();
  d.lines = lines_base_;
  d.lines += stream_->counts();
  d.lines.duplicates += follower_->dropped_lines();
  d.log_cursor = follower_->cursor();
  if (catching_up_ && follower_->state() == parsers::LogcatFollower::State::following &&
      follower_->entries() >= follower_->plan()->held_entries) {
    catching_up_ = false;
    if (pending_processes_) apply_processes(*pending_processes_);
    pending_processes_.reset();
  }
}

// What the new stream found, applied in the same breath as the cursor moves:
// a checkpoint never holds one without the other.
void DeviceController::apply_plan() {
  plan_applied_ = true;
  const parsers::ResumePlan& plan = *follower_->plan();
  auto& d = shared_.store.device(serial_);
  auto& c = d.continuity;
  const std::uint64_t lost = follower_->lost_total();
  if (plan.kind == parsers::ResumeKind::reboot) {
    ++c.reboots;
    d.pid_names.clear();  // the old boot's pids name nothing now
  }
  if (plan.kind == parsers::ResumeKind::logd_restart) ++c.logd_restarts;
  c.lost_lines += lost;
  if (lost > 0) ++c.resumes_with_loss;
  c.unconfirmed_resumes += follower_->unconfirmed();
  d.live.state = metrics::DeviceState::following;
  log_info("device " + serial_ + ": log stream " + std::string(parsers::resume_kind_name(plan.kind)) +
           (follower_->dropped_lines() ? ", " + std::to_string(follower_->dropped_lines()) + " lines counted before" : "") +
           (lost ? ", " + std::to_string(lost) + " lines lost" : "") +
           (follower_->unconfirmed() ? ", position not confirmed by content" : ""));
}

// Runs for every line the follower passes on, in order, under the mutex.
void DeviceController::on_logcat_line(const parsers::LogcatFollower::Line& line) {
  // Before the first line of a new boot names a pid.
  if (!plan_applied_ && follower_->settled()) apply_plan();
  auto& d = shared_.store.device(serial_);
  if (line.new_entry && line.device_ns) {
    const std::int64_t at = d.clock.observe(*line.device_ns, host_now_ns_);
    d.live.last_line_time_ns = *line.device_ns;
    d.live.ingest_lag_seconds = static_cast<double>(host_now_ns_ - at) / 1e9;
  }
  stream_->feed(line.text);
}

void DeviceController::schedule_liveness() {
  liveness_timer_.expires_after(kLivenessInterval);
  liveness_timer_.async_wait(guarded_timer([this] {
    {
      // A ring that printed less than its statistics promised (logd pruned
      // in between) leaves the stream undecided until that buffer logs
      // again: a probe interval is long enough to wait.
      std::lock_guard<std::mutex> lock(shared_.mutex);
      if (follower_ && follower_->state() == parsers::LogcatFollower::State::catching_up && !follower_->settled() &&
          follower_->entries() > 0) {
        follower_->settle();
        after_feed();
      }
    }
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

#include "app/device_controller.h"

#include <algorithm>
#include <cmath>

#include "app/log.h"
#include "parsers/display_info.h"
#include "parsers/foreground_app.h"
#include "parsers/gfxinfo.h"
#include "parsers/logd_statistics.h"
#include "parsers/process_list.h"
#include "parsers/properties.h"

namespace jank::app {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

constexpr std::size_t kSmallOutput = 1 << 20;       // getprop, ps, dumpsys display
constexpr std::size_t kGfxinfoOutput = 8 << 20;     // a framestats dump is a few hundred KiB
constexpr auto kLivenessInterval = 30s;
constexpr int kAndroidDefaultSkipwarning = 30;

std::int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string result_name(const ingest::ShellResult& r) {
  if (r.error.kind == ingest::AdbErrorKind::timeout) return "timeout";
  if (r.error) return "error";
  if (r.truncated) return "truncated";
  return "ok";
}

// "-T" argument for logcat: seconds.milliseconds since the epoch, which logcat
// accepts as a time (a bare integer would be read as a line count).
std::string logcat_time_argument(std::int64_t ns) {
  const std::int64_t ms = ns / 1'000'000;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ms / 1000), static_cast<long long>(ms % 1000));
  return buf;
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
  with_device([](metrics::Store&, metrics::DeviceMetrics& d) {
    d.live.live = true;
    d.live.up = true;
    d.live.down_since_ns = 0;
  });
  begin_session();
}

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
  if (stream_) d.log_position = stream_->position();
  d.live.up = false;
  d.live.down_since_ns = wall_ns();
  stream_.reset();
  sink_.reset();
}

void DeviceController::begin_session() {
  if (!running_) return;
  ++generation_;
  with_device([](metrics::Store&, metrics::DeviceMetrics& d) { ++d.live.sessions; });
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
    if (stream_) shared_.store.device(serial_).log_position = stream_->position();
  }
  stream_.reset();
  sink_.reset();
  restart_timer_.expires_after(delay);
  auto weak = weak_from_this();
  restart_timer_.async_wait([weak](boost::system::error_code ec) {
    if (auto self = weak.lock(); self && !ec) self->begin_session();
  });
}

void DeviceController::run(const std::string& command, std::size_t max_output,
                           std::function<void(ingest::ShellResult)> done) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(config_->command_timeout_seconds * 1000));
  auto weak = weak_from_this();
  const std::uint64_t generation = generation_;
  auto stream = ingest::run_shell(io_, endpoint_, serial_, protocol_, command, deadline, max_output,
                                  [weak, generation, done = std::move(done)](ingest::ShellResult result) {
                                    auto self = weak.lock();
                                    if (!self || !self->running_ || self->generation_ != generation) return;
                                    self->count_command(result);
                                    done(std::move(result));
                                  });
  // Keep handles only for cancellation; finished ones are pruned here.
  commands_.erase(std::remove_if(commands_.begin(), commands_.end(),
                                 [](const auto& c) { return c.use_count() == 1; }),
                  commands_.end());
  commands_.push_back(std::move(stream));
}

void DeviceController::count_command(const ingest::ShellResult& result) {
  with_device([&](metrics::Store&, metrics::DeviceMetrics& d) { ++d.live.commands[result_name(result)]; });
}

void DeviceController::step_features() {
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(config_->connect_timeout_seconds * 1000));
  auto weak = weak_from_this();
  const std::uint64_t generation = generation_;
  ingest::query(io_, endpoint_, ingest::features_request(serial_), deadline,
                [weak, generation](ingest::AdbError error, std::string payload) {
                  auto self = weak.lock();
                  if (!self || !self->running_ || self->generation_ != generation) return;
                  if (error) return self->restart_session("features: " + error.to_string());
                  self->protocol_ = ingest::shell_protocol_for(ingest::parse_features(payload));
                  self->step_properties();
                });
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
    schedule_gfxinfo(std::chrono::milliseconds(2000));
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
    // stream has caught up with its snapshot.
    if (catching_up_) {
      pending_processes_ = std::move(list);
      return;
    }
    std::lock_guard<std::mutex> lock(shared_.mutex);
    apply_processes(list);
  });
}

void DeviceController::apply_processes(const parsers::ProcessList& list) {
  auto& store = shared_.store;
  auto& d = store.device(serial_);
  d.pid_names.clear();
  for (const auto& p : list.processes) {
    if (p.kernel_thread || p.pid < 0) continue;
    if (d.pid_names.size() >= store.options().max_pids_per_device) break;
    d.pid_names[p.pid] = p.name.substr(0, 256);
  }
  store.set_host_time(wall_ns());
  store.mark_running_packages_alive(d);
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
    auto weak = weak_from_this();
    const std::uint64_t generation = generation_;
    display_timer_.async_wait([weak, generation](boost::system::error_code ec) {
      if (auto self = weak.lock(); self && !ec && self->running_ && self->generation_ == generation) {
        self->step_display();
        self->step_processes();
      }
    });
  });
}

namespace {
const std::vector<std::string> kLogcatFormat = {"-v", "threadtime", "-v", "epoch", "-v", "usec", "-b", "main,system"};
const std::vector<std::string> kLogcatBuffers = {"main", "system"};
// Ends the snapshot (newest line, then logd's statistics) that precedes the
// log lines in one command's output.
constexpr std::string_view kSnapshotEnd = "jank_exporter:logcat-snapshot-end";
constexpr std::size_t kMaxPreamble = 1 << 20;

// The newest buffered line and logd's per-buffer line counts, taken in one
// script so that the counts are those of the lines up to that newest one.
std::string snapshot_command() {
  std::vector<std::string> newest = kLogcatFormat;
  newest.insert(newest.end(), {"-d", "-t", "1"});
  return "export ANDROID_LOG_TAGS=\"''\"; logcat " + ingest::quote_args(newest) +
         "; logcat -S -b main,system; echo " + std::string(kSnapshotEnd);
}

struct Snapshot {
  parsers::LogPosition newest;
  std::map<std::string, std::uint64_t, std::less<>> totals;  // lines ever written, per followed buffer
};

Snapshot parse_snapshot(std::string_view text) {
  struct Ignore : parsers::LogcatSink {
    void on_skipped_frames(const parsers::LogLine&, std::uint32_t) override {}
    void on_davey(const parsers::LogLine&, const parsers::DaveyFrame&) override {}
    void on_process_event(const parsers::LogLine&, const parsers::ProcessEvent&) override {}
  } ignore;
  parsers::LogcatStreamOptions options;
  options.every_line = true;
  parsers::LogcatStream newest(ignore, options);
  newest.feed(text);
  newest.finish();
  Snapshot s;
  s.newest = newest.position();
  const auto stats = parsers::parse_logd_statistics(text);
  for (const auto& b : kLogcatBuffers) {
    const auto it = stats.find(b);
    if (it == stats.end()) return {s.newest, {}};
    s.totals[b] = it->second.total;
  }
  return s;
}
}  // namespace

void DeviceController::open_logcat() {
  parsers::LogPosition position;
  {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    position = shared_.store.device(serial_).log_position;
  }
  if (position.valid) return open_logcat_at(position, true);
  // First sight of this device: count from now on. The newest line in the
  // buffer marks "now"; the stream then resumes after it like after a
  // reconnect. logd's counts at that line anchor the lost-lines figure.
  run(snapshot_command(), kSmallOutput, [this](ingest::ShellResult r) {
    if (r.error) return restart_session("logcat -d: " + r.error.to_string());
    const Snapshot snapshot = parse_snapshot(r.output);
    {
      std::lock_guard<std::mutex> lock(shared_.mutex);
      auto& index = shared_.store.device(serial_).log_index;
      index = {};
      index.anchored = !snapshot.totals.empty();
      index.lines = snapshot.totals;
    }
    // An empty buffer: everything that comes is new.
    open_logcat_at(snapshot.newest, false);
  });
}

void DeviceController::open_logcat_at(const parsers::LogPosition& position, bool is_resume) {
  parsers::LogcatStreamOptions options;
  options.every_line = true;
  options.max_line_bytes = config_->logcat_max_line_bytes;
  std::vector<std::string> args = kLogcatFormat;
  {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    auto& d = shared_.store.device(serial_);
    sink_ = std::make_unique<metrics::DeviceLogcatRecorder>(shared_.store, d);
    lines_base_ = d.lines;
    ++d.live.logcat_streams;
    // First sight: the next checkpoint makes it durable, lines or not.
    if (!is_resume) d.log_position = position;
  }
  stream_ = std::make_unique<parsers::LogcatStream>(*sink_, options);
  resume_checked_ = !is_resume;
  in_preamble_ = true;
  preamble_.clear();
  snapshot_totals_.clear();
  pending_processes_.reset();
  catching_up_ = true;
  args.push_back("-D");  // buffer dividers: each line's buffer is known
  if (position.valid) {
    args.push_back("-T");
    args.push_back(logcat_time_argument(position.ns));
    stream_->resume_after(position);
  }
  ingest::StreamCallbacks callbacks;
  auto weak = weak_from_this();
  const std::uint64_t generation = generation_;
  callbacks.on_data = [weak, generation](std::string_view bytes) {
    auto self = weak.lock();
    if (!self || !self->running_ || self->generation_ != generation) return;
    self->on_logcat_data(bytes);
  };
  callbacks.on_end = [weak, generation](const ingest::StreamEnd& end) {
    auto self = weak.lock();
    if (!self || !self->running_ || self->generation_ != generation) return;
    self->restart_session("logcat stream ended" + (end.error ? ": " + end.error.to_string() : std::string()));
  };
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(config_->connect_timeout_seconds * 1000));
  ingest::StreamOptions stream_options;
  stream_options.read_batch = std::chrono::milliseconds(config_->logcat_read_batch_ms);
  logcat_ = ingest::DeviceStream::open(io_, endpoint_, serial_, protocol_,
                                       snapshot_command() + "; " + ingest::logcat_command(args), deadline,
                                       std::move(callbacks), stream_options);
}

void DeviceController::on_logcat_data(std::string_view bytes) {
  backoff_.reset();  // data flows: the device is healthy
  if (!in_preamble_) return feed_logcat(bytes);
  preamble_.append(bytes);
  const auto end = preamble_.find(kSnapshotEnd);
  const auto nl = end == std::string::npos ? end : preamble_.find('\n', end);
  if (nl == std::string::npos) {
    if (preamble_.size() <= kMaxPreamble) return;
    // No marker: whatever this shell printed, read it as log lines.
    in_preamble_ = false;
    {
      std::lock_guard<std::mutex> lock(shared_.mutex);
      caught_up();
    }
    const std::string all = std::move(preamble_);
    preamble_.clear();
    return feed_logcat(all);
  }
  in_preamble_ = false;
  apply_snapshot(std::string_view(preamble_).substr(0, end));
  const std::string rest = preamble_.substr(nl + 1);
  preamble_.clear();
  if (!rest.empty()) feed_logcat(rest);
}

// Once the stream passes the snapshot's newest line, the lines of buffer b
// counted up to there must number logd's Total for b: any shortfall left the
// ring unread (while away, or under a slow stream). The index is then set to
// that Total, so errors never accumulate.
void DeviceController::apply_snapshot(std::string_view text) {
  const Snapshot snapshot = parse_snapshot(text);
  if (snapshot.newest.valid && !snapshot.totals.empty()) {
    snapshot_totals_ = snapshot.totals;
    stream_->set_mark(snapshot.newest);
  }
  std::lock_guard<std::mutex> lock(shared_.mutex);
  index_base_ = shared_.store.device(serial_).log_index.lines;
  if (snapshot_totals_.empty()) caught_up();  // no mark to wait for
}

void DeviceController::caught_up() {
  catching_up_ = false;
  if (pending_processes_) {
    apply_processes(*pending_processes_);
    pending_processes_.reset();
  }
}

void DeviceController::feed_logcat(std::string_view bytes) {
  std::lock_guard<std::mutex> lock(shared_.mutex);
  auto& d = shared_.store.device(serial_);
  shared_.store.set_host_time(wall_ns());
  stream_->feed(bytes);
  d.lines = lines_base_;
  d.lines += stream_->counts();
  d.log_position = stream_->position();
  auto& index = d.log_index;
  if (!snapshot_totals_.empty() && stream_->entries_at_mark()) {
    const auto& at_mark = *stream_->entries_at_mark();
    for (const auto& b : kLogcatBuffers) {
      const auto it = at_mark.find(b);
      const std::uint64_t read = it == at_mark.end() ? 0 : it->second;
      const std::uint64_t total = snapshot_totals_[b];
      if (index.anchored && total > index_base_[b] + read) index.lost += total - (index_base_[b] + read);
      index_base_[b] = total > read ? total - read : 0;
    }
    index.anchored = true;  // an old state file: measured from here on
    snapshot_totals_.clear();
    caught_up();
  }
  if (index.anchored) {
    const auto& read = stream_->entries_by_buffer();
    for (const auto& b : kLogcatBuffers) {
      const auto it = read.find(b);
      index.lines[b] = index_base_[b] + (it == read.end() ? 0 : it->second);
    }
  }
  if (!resume_checked_ && !stream_->resuming()) {
    resume_checked_ = true;
    // Resuming re-reads the last counted line; if none came back, the log
    // buffer wrapped while we were away and lines were lost.
    if (stream_->counts().duplicates == 0) ++d.live.resume_gaps;
  }
  if (stream_->last_time().base == parsers::TimeBase::wall) {
    const std::int64_t t = stream_->last_time().ns;
    d.live.last_line_time_ns = t;
    d.live.ingest_lag_seconds = static_cast<double>(wall_ns() - t) / 1e9;
    shared_.store.note_time(d, t);
  }
}

std::vector<std::string> DeviceController::packages_to_poll() {
  std::set<std::string> names(config_->gfxinfo_packages.begin(), config_->gfxinfo_packages.end());
  if (config_->gfxinfo_discover) {
    if (foreground_) names.insert(*foreground_);
    std::lock_guard<std::mutex> lock(shared_.mutex);
    for (const auto& [name, p] : shared_.store.device(serial_).packages) {
      if (p.skip_events > 0 || p.has_gfxinfo) names.insert(name);
    }
  }
  std::vector<std::string> out;
  for (const auto& n : names) {
    // Only names that are safe inside a shell command; "pid:N" labels are not packages.
    if (ingest::is_valid_package_name(n) && n.rfind("pid:", 0) != 0 && n != metrics::kOverflowPackage &&
        n != metrics::kUnknownPackage) {
      out.push_back(n);
    }
  }
  return out;
}

void DeviceController::schedule_gfxinfo(std::chrono::milliseconds delay) {
  gfxinfo_timer_.expires_after(delay);
  auto weak = weak_from_this();
  const std::uint64_t generation = generation_;
  gfxinfo_timer_.async_wait([weak, generation](boost::system::error_code ec) {
    auto self = weak.lock();
    if (!self || ec || !self->running_ || self->generation_ != generation) return;
    auto start_polls = [self] {
      self->poll_queue_ = self->packages_to_poll();
      self->overflow_seen_ = false;
      self->poll_next_package();
    };
    if (!self->config_->gfxinfo_discover) return start_polls();
    self->run("dumpsys window displays", 4 * kSmallOutput, [self, start_polls](ingest::ShellResult r) {
      if (!r.error) {
        auto app = parsers::parse_foreground_app(r.output);
        if (app && !app->focus_on_system_window) self->foreground_ = app->package;
      }
      start_polls();
    });
  });
}

void DeviceController::poll_next_package() {
  if (poll_queue_.empty()) {
    // The ~120-frame window overflowed somewhere: come back sooner.
    const double seconds =
        overflow_seen_ ? config_->gfxinfo_fast_poll_interval_seconds : config_->gfxinfo_poll_interval_seconds;
    schedule_gfxinfo(std::chrono::milliseconds(static_cast<long>(seconds * 1000)));
    return;
  }
  const std::string package = poll_queue_.back();
  poll_queue_.pop_back();
  run(ingest::quote_args({"dumpsys", "gfxinfo", package, "framestats"}), kGfxinfoOutput,
      [this, package](ingest::ShellResult r) {
        std::string result = result_name(r);
        if (!r.error) {
          const parsers::GfxinfoDump dump = parsers::parse_gfxinfo(r.output);
          if (dump.processes.empty()) {
            result = "no_process";  // not running now
          } else {
            std::lock_guard<std::mutex> lock(shared_.mutex);
            auto& d = shared_.store.device(serial_);
            std::uint64_t overflows_before = 0, overflows_after = 0;
            if (auto it = d.packages.find(package); it != d.packages.end()) overflows_before = it->second.framestats.overflows();
            shared_.store.set_host_time(wall_ns());
            shared_.store.record_gfxinfo(d, dump);
            if (auto it = d.packages.find(package); it != d.packages.end()) overflows_after = it->second.framestats.overflows();
            if (overflows_after > overflows_before) overflow_seen_ = true;
          }
        }
        with_device([&](metrics::Store&, metrics::DeviceMetrics& d) { ++d.live.gfxinfo_polls[result]; });
        poll_next_package();
      });
}

void DeviceController::schedule_liveness() {
  liveness_timer_.expires_after(kLivenessInterval);
  auto weak = weak_from_this();
  const std::uint64_t generation = generation_;
  liveness_timer_.async_wait([weak, generation](boost::system::error_code ec) {
    auto self = weak.lock();
    if (!self || ec || !self->running_ || self->generation_ != generation) return;
    // A wedged device keeps its TCP connection but answers nothing; logcat
    // would just look quiet. A trivial command with a deadline tells.
    self->run("echo alive", 64, [weak](ingest::ShellResult r) {
      auto s = weak.lock();
      if (!s) return;
      if (r.error || r.output.find("alive") == std::string::npos) {
        s->restart_session("device does not answer (" + (r.error ? r.error.to_string() : "no echo") + ")");
        return;
      }
      s->schedule_liveness();
    });
  });
}

}  // namespace jank::app

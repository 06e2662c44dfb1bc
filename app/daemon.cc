#include "app/daemon.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "app/device_controller.h"
#include "app/log.h"
#include "app/sd_notify.h"
#include "app/shared_state.h"
#include "exporters/http_server.h"
#include "exporters/prometheus_collector.h"
#include "ingest/device_tracker.h"

#ifndef JANK_VERSION
#define JANK_VERSION "dev"
#endif

namespace jank::app {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool serial_selected(const config::Config& c, const std::string& serial) {
  auto matches = [&](const std::vector<std::string>& globs) {
    for (const auto& g : globs) {
      if (::fnmatch(g.c_str(), serial.c_str(), 0) == 0) return true;
    }
    return false;
  };
  return matches(c.include_serials) && !matches(c.exclude_serials);
}

std::string read_text_file(const std::string& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  ok = static_cast<bool>(in);
  std::ostringstream s;
  if (ok) s << in.rdbuf();
  return s.str();
}

// Writes `text` to `path` so that a crash at any moment leaves either the old
// or the new file: temporary file, fsync, rename, fsync of the directory.
bool write_atomically(const std::string& path, const std::string& text, std::string& error) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  if (fd < 0) {
    error = "cannot create " + tmp + ": " + std::strerror(errno);
    return false;
  }
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = "cannot write " + tmp + ": " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    error = "cannot flush " + tmp + ": " + std::strerror(errno);
    return false;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot replace " + path + ": " + std::strerror(errno);
    return false;
  }
  const std::string dir = fs::path(path).parent_path().string();
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

std::optional<std::pair<std::string, std::string>> read_basic_auth(const config::Config& c, std::string& error) {
  if (!c.basic_auth) return std::nullopt;
  bool ok = false;
  std::string password = read_text_file(c.basic_auth->password_file, ok);
  if (!ok) {
    error = "cannot read http.basic_auth.password_file " + c.basic_auth->password_file;
    return std::nullopt;
  }
  while (!password.empty() && (password.back() == '\n' || password.back() == '\r')) password.pop_back();
  if (password.empty()) {
    error = "http.basic_auth.password_file " + c.basic_auth->password_file + " is empty";
    return std::nullopt;
  }
  return std::make_pair(c.basic_auth->username, password);
}

metrics::StoreOptions store_options(const config::Config& c) {
  metrics::StoreOptions o;
  o.default_refresh_hz = c.default_refresh_rate_hertz;
  o.window_seconds = c.sm_window_seconds;
  o.max_packages_per_device = c.max_packages_per_device;
  return o;
}

class Daemon {
 public:
  explicit Daemon(DaemonOptions options)
      : options_(std::move(options)),
        config_(std::make_shared<const config::Config>(options_.config)),
        shared_(store_options(*config_)),
        signals_(io_, SIGTERM, SIGINT, SIGHUP),
        checkpoint_timer_(io_),
        expiry_timer_(io_),
        watchdog_timer_(io_),
        notifier_(SystemdNotifier::from_environment()) {
    shared_.daemon.version = JANK_VERSION;
  }

  int run() {
    if (!prepare_state_dir()) return 1;
    load_state();
    if (!start_http()) return 1;
    start_trackers();
    wait_signal();
    schedule_checkpoint();
    schedule_expiry();
    schedule_watchdog();
    ready_ = true;
    notifier_.ready();
    log_info("jank_exporter " JANK_VERSION " listening on " + config_->listen_address);
    run_loop();
    return 0;  // every failure returns earlier, before the loop runs
  }

 private:
  std::string state_path() const { return config_->state_dir + "/state"; }

  // With batched logcat reads the loop wakes on a tick and handles whatever
  // is ready, instead of waking for every packet of every device: with
  // hundreds of devices the wake-ups, not the parsing, are the cost. A tick
  // is a quarter of the read batch (at most 25 ms); 0 runs the plain loop.
  void run_loop() {
    using namespace std::chrono;
    auto next = steady_clock::now();
    while (!io_.stopped()) {
      const milliseconds tick(std::clamp(config_->logcat_read_batch_ms / 4, 0, 25));
      if (tick.count() == 0) {
        io_.run_for(milliseconds(200));  // comes back to see a reloaded config
        continue;
      }
      io_.poll();
      next = std::max(next + tick, steady_clock::now());
      std::this_thread::sleep_until(next);
    }
  }

  bool prepare_state_dir() {
    std::error_code ec;
    fs::create_directories(config_->state_dir, ec);
    if (ec || !fs::is_directory(config_->state_dir)) {
      log_error("cannot use state directory " + config_->state_dir + ": " + ec.message());
      return false;
    }
    return true;
  }

  // An unreadable state file is set aside and reported, never silently reset.
  void load_state() {
    bool ok = false;
    const std::string text = read_text_file(state_path(), ok);
    std::lock_guard<std::mutex> lock(shared_.mutex);
    if (ok) {
      std::string error;
      metrics::Store::LoadReport report;
      if (shared_.store.load(text, error, &report)) {
        log_info("restored state of " + std::to_string(shared_.store.devices().size()) + " devices from " +
                 state_path() + (report.version < 2 ? " (an older format: logs resume by line count)" : ""));
        // A value that cannot be true drops its record, not the file.
        for (const auto& why : report.rejected) log_warning("state file " + state_path() + ": " + why);
        for (const auto& [record, n] : report.rejected_by_record) shared_.daemon.state_rejected_records[record] += n;
      } else {
        const std::string aside = state_path() + ".bad-" + std::to_string(wall_ns() / 1'000'000'000);
        std::error_code ec;
        fs::rename(state_path(), aside, ec);
        ++shared_.daemon.state_load_failures;
        log_error("state file " + state_path() + " is unreadable (" + error + "); moved to " + aside +
                  ", counting starts afresh");
      }
    }
    // Devices from the checkpoint are down until their adb server lists them.
    const std::int64_t now = wall_ns();
    for (const auto& [serial, device] : shared_.store.devices()) {
      device->live.live = true;
      device->live.up = false;
      device->live.state = metrics::DeviceState::disconnected;
      device->live.down_since_ns = now;
      for (auto& [name, p] : device->packages) p.last_alive_ns = now;  // dead ones expire after the grace period
    }
  }

  bool start_http() {
    std::string error;
    exporters::HttpOptions http;
    http.listen_address = config_->listen_address;
    http.basic_auth = read_basic_auth(*config_, error);
    if (config_->tls) http.tls = exporters::TlsOptions{config_->tls->certificate_file, config_->tls->key_file};
    if (!error.empty()) {
      log_error(error);
      return false;
    }
    auto collector = std::make_shared<exporters::StoreCollector>(
        shared_.store,
        // Windows are kept on the host's timeline (metrics/device_clock.h): they end now.
        [](const metrics::DeviceMetrics&) { return wall_ns(); },
        &shared_.mutex, &shared_.daemon);
    try {
      http_ = std::make_unique<exporters::HttpServer>(
          http, exporters::text_source(collector), [this] { return ready_.load(); });
    } catch (const std::exception& e) {
      log_error(e.what());
      return false;
    }
    return true;
  }

  std::vector<ingest::AdbEndpoint> endpoints(std::string& error) const {
    std::vector<ingest::AdbEndpoint> out;
    if (config_->adb_servers.empty()) {
      auto choice = ingest::default_endpoint_from_environment();
      if (!choice.endpoint) {
        error = choice.error;
        return {};
      }
      out.push_back(*choice.endpoint);
    }
    for (const auto& text : config_->adb_servers) {
      auto e = ingest::parse_endpoint(text);
      if (!e) {
        error = "bad adb server address " + text;
        return {};
      }
      out.push_back(*e);
    }
    return out;
  }

  void start_trackers() {
    std::string error;
    auto list = endpoints(error);
    if (!error.empty()) log_error(error);
    for (const auto& endpoint : list) {
      ingest::DeviceTrackerOptions o;
      o.endpoint = endpoint;
      o.request_timeout = std::chrono::milliseconds(static_cast<long>(config_->connect_timeout_seconds * 1000));
      const std::string name = endpoint.to_string();
      {
        std::lock_guard<std::mutex> lock(shared_.mutex);
        shared_.daemon.adb_servers[name];
      }
      ingest::DeviceTrackerCallbacks callbacks;
      callbacks.on_device = [this, endpoint](const ingest::DeviceEvent& e) { on_device_event(endpoint, e); };
      callbacks.on_server = [this, name](const ingest::ServerEvent& e) {
        std::lock_guard<std::mutex> lock(shared_.mutex);
        auto& server = shared_.daemon.adb_servers[name];
        if (!e.up && server.up) log_warning("adb server " + name + " lost: " + e.error.to_string());
        if (!e.up && e.error) ++server.errors[std::string(ingest::error_kind_name(e.error.kind))];
        server.up = e.up;
      };
      auto tracker = std::make_unique<ingest::DeviceTracker>(io_, o, std::move(callbacks));
      tracker->start();
      trackers_.push_back(std::move(tracker));
      log_info("following devices of the adb server at " + name);
    }
  }

  void stop_trackers() {
    for (auto& t : trackers_) t->stop();
    trackers_.clear();
    for (auto& [serial, c] : controllers_) c->stop();
    controllers_.clear();
  }

  void on_device_event(const ingest::AdbEndpoint& endpoint, const ingest::DeviceEvent& e) {
    const bool online = e.new_state == "device";
    auto it = controllers_.find(e.serial);
    if (online && serial_selected(*config_, e.serial)) {
      if (it != controllers_.end() && !(it->second->endpoint() == endpoint)) {
        log_warning("device " + e.serial + " is listed by two adb servers; following the first");
        return;
      }
      if (it != controllers_.end() && e.change == ingest::DeviceChange::changed) {
        // A new transport (fast replug): the old streams are dead.
        it->second->stop();
        controllers_.erase(it);
        it = controllers_.end();
      }
      if (it == controllers_.end()) {
        auto c = std::make_shared<DeviceController>(io_, config_, endpoint, e.serial, shared_);
        controllers_.emplace(e.serial, c);
        log_info("device " + e.serial + " online (" + e.info.model + ")");
        c->start();
      }
      return;
    }
    const bool ours = it == controllers_.end() || it->second->endpoint() == endpoint;
    if (it != controllers_.end() && ours) {
      log_info("device " + e.serial + " " + (e.new_state.empty() ? std::string("removed") : e.new_state));
      it->second->stop();
      controllers_.erase(it);
    }
    if (ours) note_absent_state(e);
  }

  // A selected device the exporter cannot follow says why (unauthorized,
  // offline, gone), never "up".
  void note_absent_state(const ingest::DeviceEvent& e) {
    if (!serial_selected(*config_, e.serial)) return;
    std::lock_guard<std::mutex> lock(shared_.mutex);
    const bool known = shared_.store.devices().contains(e.serial);
    if (!known && e.new_state.empty()) return;  // never seen, now gone: nothing to say
    auto& d = shared_.store.device(e.serial);
    d.live.live = true;
    if (d.live.up) return;
    if (e.new_state.empty()) {
      d.live.state = metrics::DeviceState::disconnected;
    } else if (e.new_state == "unauthorized") {
      d.live.state = metrics::DeviceState::unauthorized;
    } else {
      d.live.state = metrics::DeviceState::offline;
    }
    if (d.live.down_since_ns == 0) d.live.down_since_ns = wall_ns();
  }

  void wait_signal() {
    signals_.async_wait([this](boost::system::error_code ec, int signal) {
      if (ec) return;
      if (signal == SIGHUP) {
        reload();
        wait_signal();
        return;
      }
      shutdown(signal);
    });
  }

  void reload() {
    if (options_.config_path.empty()) {
      log_info("SIGHUP: no configuration file to reload");
      return;
    }
    auto result = config::load_config_file(options_.config_path);
    if (!result.ok()) {
      for (const auto& e : result.errors) log_error(e.to_string());
      log_error("SIGHUP: configuration not reloaded, the running one stays");
      std::lock_guard<std::mutex> lock(shared_.mutex);
      ++shared_.daemon.config_reload_failures;
      return;
    }
    apply_overrides(options_, result.config);
    const bool http_changed = result.config.listen_address != config_->listen_address ||
                              result.config.tls != config_->tls ||
                              result.config.basic_auth.has_value() != config_->basic_auth.has_value() ||
                              (result.config.basic_auth && config_->basic_auth &&
                               (result.config.basic_auth->username != config_->basic_auth->username ||
                                result.config.basic_auth->password_file != config_->basic_auth->password_file));
    LogLevel level;
    if (parse_log_level(result.config.log_level, level)) set_log_level(level);
    // Sessions restart on the new settings; they resume from their log
    // positions, so nothing is lost or counted twice.
    stop_trackers();
    write_checkpoint();
    config_ = std::make_shared<const config::Config>(result.config);
    if (http_changed) {
      http_.reset();
      if (!start_http()) log_error("SIGHUP: the new HTTP settings failed; /metrics is down until fixed");
    }
    start_trackers();
    std::lock_guard<std::mutex> lock(shared_.mutex);
    ++shared_.daemon.config_reloads;
    log_info("SIGHUP: configuration reloaded from " + options_.config_path);
  }

  void shutdown(int signal) {
    log_info(std::string("received ") + (signal == SIGINT ? "SIGINT" : "SIGTERM") + ", stopping");
    notifier_.stopping();
    ready_ = false;
    stop_trackers();
    write_checkpoint();
    checkpoint_timer_.cancel();
    expiry_timer_.cancel();
    watchdog_timer_.cancel();
    signals_.cancel();
    http_.reset();
    io_.stop();
  }

  void write_checkpoint() {
    std::string text;
    {
      std::lock_guard<std::mutex> lock(shared_.mutex);
      text = shared_.store.save();
    }
    std::string error;
    const bool ok = write_atomically(state_path(), text, error);
    std::lock_guard<std::mutex> lock(shared_.mutex);
    if (ok) {
      ++shared_.daemon.checkpoints_written;
    } else {
      ++shared_.daemon.checkpoint_failures;
      log_error("checkpoint failed: " + error);
    }
  }

  void schedule_checkpoint() {
    checkpoint_timer_.expires_after(std::chrono::milliseconds(static_cast<long>(config_->checkpoint_interval_seconds * 1000)));
    checkpoint_timer_.async_wait([this](boost::system::error_code ec) {
      if (ec) return;
      write_checkpoint();
      schedule_checkpoint();
    });
  }

  // Series of devices that stayed away longer than the grace period go.
  void schedule_expiry() {
    expiry_timer_.expires_after(5s);
    expiry_timer_.async_wait([this](boost::system::error_code ec) {
      if (ec) return;
      const std::int64_t now = wall_ns();
      const auto grace = static_cast<std::int64_t>(config_->device_grace_seconds * 1e9);
      std::lock_guard<std::mutex> lock(shared_.mutex);
      std::vector<std::string> gone;
      for (const auto& [serial, d] : shared_.store.devices()) {
        if (d->live.live && !d->live.up && d->live.down_since_ns != 0 && now - d->live.down_since_ns > grace) {
          gone.push_back(serial);
        }
      }
      for (const auto& serial : gone) {
        shared_.store.erase_device(serial);
        log_info("device " + serial + " away longer than devices.grace_seconds: its series are removed");
      }
      // Processes that died (and did not come back under the same name).
      shared_.store.set_host_time(now);
      const auto process_grace = static_cast<std::int64_t>(config_->process_grace_seconds * 1e9);
      for (const auto& [serial, d] : shared_.store.devices()) {
        if (d->live.up) shared_.store.expire_packages(*d, process_grace);
      }
      schedule_expiry();
    });
  }

  // Pings from the event loop itself, so a stuck loop stops the pings.
  void schedule_watchdog() {
    auto interval = notifier_.watchdog_ping_interval();
    if (!interval) return;
    notifier_.watchdog();
    watchdog_timer_.expires_after(*interval);
    watchdog_timer_.async_wait([this](boost::system::error_code ec) {
      if (!ec) schedule_watchdog();
    });
  }

  asio::io_context io_;
  DaemonOptions options_;
  std::shared_ptr<const config::Config> config_;
  SharedState shared_;
  std::unique_ptr<exporters::HttpServer> http_;
  std::vector<std::unique_ptr<ingest::DeviceTracker>> trackers_;
  std::map<std::string, std::shared_ptr<DeviceController>> controllers_;
  asio::signal_set signals_;
  asio::steady_timer checkpoint_timer_, expiry_timer_, watchdog_timer_;
  SystemdNotifier notifier_;
  std::atomic<bool> ready_{false};
};

}  // namespace

void apply_overrides(const DaemonOptions& options, config::Config& config) {
  if (!options.adb_override.empty()) config.adb_servers = options.adb_override;
  if (!options.listen_override.empty()) config.listen_address = options.listen_override;
  if (!options.state_dir_override.empty()) config.state_dir = options.state_dir_override;
  if (!options.log_level_override.empty()) config.log_level = options.log_level_override;
}

int run_daemon(DaemonOptions options) {
  LogLevel level;
  if (parse_log_level(options.config.log_level, level)) set_log_level(level);
  Daemon daemon(std::move(options));
  return daemon.run();
}

}  // namespace jank::app

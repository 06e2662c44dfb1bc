#include "app/daemon/daemon.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "app/core/exit_codes.h"
#include "app/daemon/device_registry.h"
#include "app/api/http_routes.h"
#include "app/daemon/live_sampler.h"
#include "app/api/runs_api.h"
#include "app/core/host_clock.h"
#include "app/core/log.h"
#include "app/daemon/thread_barrier.h"
#include "app/daemon/sd_notify.h"
#include "app/core/shared_state.h"
#include "app/daemon/state_file.h"
#include "app/daemon/trace_service.h"
#include "config/files.h"
#include "exporters/http_server.h"
#include "exporters/prometheus_collector.h"
#include "ingest/device_tracker.h"

#ifndef JANK_VERSION
#define JANK_VERSION "dev"
#endif

namespace jank::app {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

// The password file is read by the same code --check-config uses.
std::optional<std::pair<std::string, std::string>> read_basic_auth(const config::Config& c, std::string& error) {
  if (!c.basic_auth) return std::nullopt;
  auto password = config::read_password_file(c.basic_auth->password_file, error);
  if (!password) return std::nullopt;
  return std::make_pair(c.basic_auth->username, std::move(*password));
}

metrics::RunBookOptions run_options(const config::Config& c) {
  metrics::RunBookOptions o;
  o.max_open = c.runs_max_open;
  o.max_kept = c.runs_max_kept;
  o.max_age = std::chrono::duration_cast<std::chrono::nanoseconds>(c.runs_max_age_days);
  o.step = std::chrono::duration_cast<std::chrono::nanoseconds>(c.runs_step_seconds);
  o.settle_timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(c.runs_settle_timeout_seconds);
  return o;
}

metrics::StoreOptions store_options(const config::Config& c) {
  metrics::StoreOptions o;
  o.default_refresh_hz = c.default_refresh_rate_hertz;
  o.sm_window = c.sm_window_seconds;
  o.max_packages_per_device = c.max_packages_per_device;
  o.max_layers_per_device = c.surfaceflinger_max_layers;
  o.max_windows_per_package = c.gfxinfo_max_windows;
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
        runs_timer_(io_),
        notifier_(SystemdNotifier::from_environment()),
        runs_api_(shared_, clock_.wall_ns, [this](std::vector<std::string> serials) {
          // From the HTTP thread: the sessions live on the io thread.
          asio::post(io_, [this, serials = std::move(serials)] { devices_.poll_gfxinfo_soon(serials); });
        }) {
    shared_.daemon.version = JANK_VERSION;
    shared_.runs.set_options(run_options(*config_));
  }

  int run() {
    std::string error;
    if (!state_file().prepare(error)) {
      log_error(error);
      return kExitFailure;
    }
    state_file().restore(shared_, clock_.wall_ns());
    traces_.configure(*config_);
    if (!start_http()) return kExitFailure;
    start_trackers();
    wait_signal();
    schedule_checkpoint();
    schedule_expiry();
    schedule_watchdog();
    schedule_runs();
    live_.configure(*config_);
    ready_ = true;
    notifier_.ready();
    log_info("jank_exporter " JANK_VERSION " listening on " + config_->listen_address);
    run_loop();
    return kExitOk;  // every failure returns earlier, before the loop runs
  }

 private:
  StateFile state_file() const { return StateFile(config_->state_dir); }
  void write_checkpoint() { state_file().write(shared_); }

  // With batched logcat reads the loop wakes on a tick and handles whatever
  // is ready, instead of waking for every packet of every device: with
  // hundreds of devices the wake-ups, not the parsing, are the cost. A tick
  // is a quarter of the read batch (at most 25 ms); 0 runs the plain loop.
  void run_loop() {
    using namespace std::chrono;
    auto next = steady_clock::now();
    while (!io_.stopped()) {
      const milliseconds tick = std::clamp(config_->logcat_read_batch_ms / 4, milliseconds(0), milliseconds(25));
      const bool plain = tick.count() == 0;  // run_for comes back to see a reloaded config
      // The io thread's barrier: an exception abandons its task alone, never
      // the loop (asio lets run/poll be called again after a throw).
      const auto escaped = escaped_from([&] { plain ? io_.run_for(milliseconds(200)) : io_.poll(); });
      if (escaped) report_internal_error(shared_, "io", *escaped);
      if (plain || escaped) continue;
      next = std::max(next + tick, steady_clock::now());
      std::this_thread::sleep_until(next);
    }
  }

  bool start_http() {
    http_ = make_http(*config_);
    return http_ != nullptr;
  }

  // An HTTP server for `config`, the password and certificate files read
  // now; nullptr (the reason logged) when it cannot start. While http_ runs
  // on the same listen address, the new server shares its listening socket
  // (exporters/http_server.h), so a reload needs no second bind.
  std::unique_ptr<exporters::HttpServer> make_http(const config::Config& config) {
    std::string error;
    exporters::HttpOptions http;
    http.listen_address = config.listen_address;
    http.basic_auth = read_basic_auth(config, error);
    if (config.tls) http.tls = exporters::TlsOptions{config.tls->certificate_file, config.tls->key_file};
    // A handler that threw was answered 500 and the server goes on; the
    // daemon's state survives it too (the lock is released by then).
    http.on_handler_error = [this](std::string_view path, std::string_view what) {
      report_internal_error(shared_, "http", (path.empty() ? std::string("the server") : std::string(path)) + ": " + std::string(what));
    };
    if (!error.empty()) {
      log_error(error);
      return nullptr;
    }
    auto collector = std::make_shared<exporters::StoreCollector>(
        shared_.store,
        // Windows are kept on the host's timeline (metrics/device_clock.h): they end now.
        [clock = clock_.wall_ns](const metrics::DeviceMetrics&) { return clock(); },
        &shared_.mutex, &shared_.daemon, &shared_.runs);
    collector->set_series_budget(exporters::series_budget(config.series_detailed, config.series_max_per_device));
    auto routes = http_routes(config, shared_, runs_api_, clock_.wall_ns, traces_.store());
    try {
      return std::make_unique<exporters::HttpServer>(http, exporters::text_source(collector),
                                                     [this] { return ready_.load(); }, http_.get(),
                                                     std::move(routes.api), std::move(routes.files));
    } catch (const std::exception& e) {
      log_error(e.what());
      return nullptr;
    }
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
    // The configuration was checked by the same rule (config/schema.cc): a
    // bad entry here is named and skipped, never the good ones with it.
    for (const auto& text : config_->adb_servers) {
      if (auto e = ingest::parse_endpoint(text)) {
        out.push_back(*e);
      } else {
        error += (error.empty() ? "" : "; ") + std::string("bad adb server address ") + text;
      }
    }
    return out;
  }

  void start_trackers() {
    std::string error;
    auto list = endpoints(error);
    if (!error.empty()) log_error(error);
    {
      // The series of an adb server a reload removed go with it.
      std::lock_guard<std::mutex> lock(shared_.mutex);
      std::erase_if(shared_.daemon.adb_servers, [&](const auto& server) {
        return std::none_of(list.begin(), list.end(), [&](const auto& e) { return e.to_string() == server.first; });
      });
    }
    for (const auto& endpoint : list) {
      ingest::DeviceTrackerOptions o;
      o.endpoint = endpoint;
      o.request_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(config_->connect_timeout_seconds);
      const std::string name = endpoint.to_string();
      {
        std::lock_guard<std::mutex> lock(shared_.mutex);
        shared_.daemon.adb_servers[name];
      }
      ingest::DeviceTrackerCallbacks callbacks;
      callbacks.on_device = [this, endpoint](const ingest::DeviceEvent& e) {
        devices_.on_device_event(config_, endpoint, e);
      };
      callbacks.on_server = [this, name](const ingest::ServerEvent& e) {
        std::lock_guard<std::mutex> lock(shared_.mutex);
        auto& server = shared_.daemon.adb_servers[name];
        if (!e.up && server.up) log_warning("adb server " + name + " lost: " + e.error.to_string());
        if (!e.up && e.error) ++server.errors[std::string(ingest::error_kind_name(e.error.kind))];
        server.up = e.up;
      };
      // A reload starts new trackers from zero: add what changed, so the
      // exported counts never go down.
      callbacks.on_stats = [this, name, last = ingest::DeviceTrackerStats{}](
                               const ingest::DeviceTrackerStats& s) mutable {
        std::lock_guard<std::mutex> lock(shared_.mutex);
        auto& t = shared_.daemon.adb_servers[name].tracker;
        t.list_lines += s.lines - last.lines;
        t.list_malformed_lines += s.malformed_lines - last.malformed_lines;
        t.polls_ok += s.polls_ok - last.polls_ok;
        t.polls_discarded += s.polls_discarded - last.polls_discarded;
        t.polls_failed += s.polls_failed - last.polls_failed;
        last = s;
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
    devices_.stop_all();
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
    traces_.configure(result.config);  // before the HTTP server, which serves its traces
    // The HTTP server is always rebuilt, so that a password or certificate
    // renewed in place (same path) takes effect, and it starts before the
    // running one stops: when it cannot (bad file, address in use), the
    // running server and configuration stay.
    auto http = make_http(result.config);
    if (!http) {
      log_error("SIGHUP: configuration not reloaded, the running one stays");
      std::lock_guard<std::mutex> lock(shared_.mutex);
      ++shared_.daemon.config_reload_failures;
      return;
    }
    LogLevel level;
    if (parse_log_level(result.config.log_level, level)) set_log_level(level);
    // Sessions restart on the new settings; they resume from their log
    // positions, so nothing is lost or counted twice.
    stop_trackers();
    write_checkpoint();
    config_ = std::make_shared<const config::Config>(result.config);
    http_ = std::move(http);  // the old server stops; the new one already listens
    start_trackers();
    live_.configure(*config_);
    std::lock_guard<std::mutex> lock(shared_.mutex);
    shared_.runs.set_options(run_options(*config_));
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
    runs_timer_.cancel();
    live_.stop();
    watchdog_timer_.cancel();
    signals_.cancel();
    http_.reset();
    io_.stop();
  }

  void schedule_checkpoint() {
    checkpoint_timer_.expires_after(std::chrono::duration_cast<std::chrono::milliseconds>(config_->checkpoint_interval_seconds));
    checkpoint_timer_.async_wait([this](boost::system::error_code ec) {
      if (ec) return;
      write_checkpoint();
      schedule_checkpoint();
    });
  }

  void schedule_expiry() {
    expiry_timer_.expires_after(5s);
    expiry_timer_.async_wait([this](boost::system::error_code ec) {
      if (ec) return;
      devices_.expire(*config_, clock_.wall_ns());
      traces_.enforce();
      schedule_expiry();
    });
  }

  // Open runs take their baselines, growth and final counts once a second.
  void schedule_runs() {
    runs_timer_.expires_after(1s);
    runs_timer_.async_wait([this](boost::system::error_code ec) {
      if (ec) return;
      {
        std::lock_guard<std::mutex> lock(shared_.mutex);
        shared_.runs.advance(clock_.wall_ns(), shared_.store);
      }
      schedule_runs();
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
  const HostClock clock_ = HostClock::system();
  DaemonOptions options_;
  std::shared_ptr<const config::Config> config_;
  SharedState shared_;
  TraceHost traces_{io_, shared_, clock_.wall_ns};  // docs/traces.md
  std::unique_ptr<exporters::HttpServer> http_;
  std::vector<std::unique_ptr<ingest::DeviceTracker>> trackers_;
  DeviceRegistry devices_{io_, shared_, clock_};
  asio::signal_set signals_;
  asio::steady_timer checkpoint_timer_, expiry_timer_, watchdog_timer_, runs_timer_;
  SystemdNotifier notifier_;
  RunsApi runs_api_;
  LiveSampler live_{io_, shared_, clock_};  // docs/live-view.md
  std::atomic<bool> ready_{false};
};

}  // namespace

int run_daemon(DaemonOptions options) {
  LogLevel level;
  if (parse_log_level(options.config.log_level, level)) set_log_level(level);
  Daemon daemon(std::move(options));
  return daemon.run();
}

}  // namespace jank::app

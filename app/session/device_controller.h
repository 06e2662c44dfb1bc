// One followed device's session lifecycle: it composes the probes (facts,
// skip-warning, refresh rate, processes: app/session/device_probes.h), the log stream
// (app/session/log_session.h), the gfxinfo poller (app/session/gfxinfo_poller.h) and the
// SurfaceFlinger and screen poller (app/session/surface_poller.h) and the thermal
// poller (app/session/thermal_poller.h), runs
// their commands with deadlines that adapt to a slow device, checks the
// device is alive, and starts over after a backoff when the session fails.
// Everything runs on the io_context, so a wedged device only stalls itself.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "app/core/host_clock.h"
#include "app/core/shared_state.h"
#include "app/session/command_budget.h"
#include "app/session/command_poller.h"
#include "app/session/device_probes.h"
#include "app/session/device_timing.h"
#include "app/session/gfxinfo_poller.h"
#include "app/session/log_session.h"
#include "app/session/surface_poller.h"
#include "app/session/trace_recorder.h"
#include "config/config.h"
#include "ingest/adaptive_deadline.h"
#include "ingest/backoff.h"
#include "ingest/device_stream.h"
#include "ingest/endpoint.h"
#include "ingest/protocol.h"

namespace jank::app {

class DeviceController : public std::enable_shared_from_this<DeviceController> {
 public:
  DeviceController(boost::asio::io_context& io, std::shared_ptr<const config::Config> config,
                   ingest::AdbEndpoint endpoint, std::string serial, SharedState& shared, HostClock clock);
  ~DeviceController();

  void start();
  // Ends the session; the device is reported down. No callback runs afterwards.
  void stop();
  // A gfxinfo round now, when the session polls (a run waits for one).
  void poll_gfxinfo_soon();
  const std::string& serial() const { return serial_; }
  const ingest::AdbEndpoint& endpoint() const { return endpoint_; }

 private:
  void begin_session();
  void restart_session(const std::string& reason);
  // The release cannot be followed: no session until kUnsupportedRetry passed.
  void set_aside(const std::string& reason);
  void stop_for(metrics::DeviceState state, const std::string& reason, std::chrono::milliseconds delay);
  void run(const std::string& command, std::size_t max_output, std::function<void(ingest::ShellResult)> done);
  // Within the device's command budget: at once, or when its turn comes.
  void run_within(const std::string& command, std::size_t max_output, std::chrono::milliseconds deadline,
                  std::function<void(ingest::ShellResult)> done);
  void start_command(const std::string& command, std::size_t max_output, std::chrono::milliseconds deadline,
                     std::function<void(ingest::ShellResult)> done);
  // Asks the budget for the command's turn, first asked at `asked`.
  void budget_turn(std::chrono::steady_clock::time_point asked, const std::string& command, std::size_t max_output,
                   std::chrono::milliseconds deadline, std::function<void(ingest::ShellResult)> done);
  void note_budget_wait(std::chrono::steady_clock::duration waited);
  void step_features();
  void start_probes();
  void follow();  // the log stream, the gfxinfo poller, the liveness probe
  void open_logcat();
  void start_traces();
  void end_streams();
  AndroidRelease release() const;
  std::chrono::milliseconds command_deadline() const;
  void schedule_liveness();
  // `bytes`: what came back, the device's time stamps included; `device`:
  // the device's own time for the command (shell v2), if it was asked.
  void count_command(std::string_view kind, const ingest::ShellResult& result, std::chrono::steady_clock::duration took,
                     std::size_t bytes, const std::optional<DeviceTime>& device);
  RunCommand runner();
  RunAfter timer(boost::asio::steady_timer& t);
  // `f`, made to run only while this session lives: not once the controller
  // is gone, stopped or restarted (a new generation); the controller stays
  // alive through the call. Timer handlers also skip cancelled waits.
  template <typename F>
  auto guarded(F f) {
    return [weak = weak_from_this(), generation = generation_, f = std::move(f)](auto&&... args) mutable {
      const auto self = weak.lock();
      if (!self || !self->running_ || self->generation_ != generation) return;
      f(std::forward<decltype(args)>(args)...);
    };
  }
  template <typename F>
  auto guarded_timer(F f) {
    return guarded([f = std::move(f)](boost::system::error_code ec) mutable {
      if (!ec) f();
    });
  }

  boost::asio::io_context& io_;
  std::shared_ptr<const config::Config> config_;
  ingest::AdbEndpoint endpoint_;
  std::string serial_;
  SharedState& shared_;
  HostClock clock_;

  bool running_ = false;
  std::uint64_t generation_ = 0;  // bumps on every session; stale callbacks compare it
  ingest::ShellProtocol protocol_ = ingest::ShellProtocol::legacy;
  ingest::Backoff backoff_;
  std::mt19937_64 rng_;

  ingest::AdaptiveDeadline deadline_;

  std::shared_ptr<ingest::DeviceStream> logcat_;
  std::vector<std::shared_ptr<ingest::DeviceStream>> commands_;
  std::unique_ptr<DeviceProbes> probes_;     // one per session
  std::unique_ptr<LogSession> log_;          // one per session
  bool stream_delivered_ = false;            // data since the last liveness probe

  boost::asio::steady_timer restart_timer_;
  boost::asio::steady_timer gfxinfo_timer_;
  boost::asio::steady_timer surface_timer_;
  boost::asio::steady_timer display_timer_;
  boost::asio::steady_timer liveness_timer_;
  std::deque<boost::asio::steady_timer> source_timers_;  // one per command source
  boost::asio::steady_timer trace_timer_;
  CommandBudget budget_;  // across sessions: a reconnect gets no fresh burst
  std::vector<std::shared_ptr<boost::asio::steady_timer>> waiting_;  // commands waiting for their turn

  std::unique_ptr<GfxinfoPoller> gfxinfo_;  // one per session
  std::unique_ptr<SurfacePoller> surface_;  // one per session, when surfaceflinger.enabled
  std::vector<std::unique_ptr<CommandPoller>> source_pollers_;  // per session, the enabled command sources
  std::unique_ptr<TraceRecorder> traces_;   // one per session, when traces.enabled covers the device
};

}  // namespace jank::app

// The device side of the adb transport over TCP: one acceptor per simulated
// device, CNXN/AUTH/OPEN/OKAY/WRTE/CLSE with one WRTE in flight per stream,
// shell v2 framing, and the faults the control channel asks for. Everything of
// one device runs on that device's strand.
#pragma once

#include <utility>  // before Asio: Boost 1.74 uses std::exchange without including it
#include <boost/asio.hpp>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "devsim/model.h"

namespace jank::devsim {

namespace asio = boost::asio;
using Strand = asio::strand<asio::io_context::executor_type>;

struct TransportOptions {
  std::uint16_t port = 0;       // 0: the kernel chooses
  bool shell_v2 = true;         // false: a pre-N device (no exit codes)
  bool unauthorized = false;    // send AUTH forever, never CNXN
  int tick_ms = 50;             // simulation step and logcat pump period
};

class Connection;

class SimDevice : public std::enable_shared_from_this<SimDevice> {
 public:
  SimDevice(asio::io_context& io, std::unique_ptr<Device> model, TransportOptions opts);
  ~SimDevice();

  // Binds and listens (synchronously, so the port is known on return), then
  // starts accepting and ticking.
  void start();
  void stop();
  std::uint16_t port() const { return port_; }
  Strand& strand() { return strand_; }
  Device& model() { return *model_; }
  const TransportOptions& options() const { return opts_; }

  // Faults; call on the strand.
  void unplug(double seconds);  // seconds <= 0: until replug
  void replug();
  void kick();
  void set_hung(bool hung);
  bool hung() const { return hung_; }
  void garbage(std::size_t bytes);  // junk bytes into every logcat stream
  void corrupt();                    // a packet with a bad magic on every connection
  // The next line of every following logcat stream (or, if none, of the next
  // stream that sends one) is cut in the middle, then that stream ends.
  void cut();
  bool take_cut() { return std::exchange(cut_armed_, false); }
  void set_unauthorized(bool u) { opts_.unauthorized = u; }
  // Every command opened from now on answers `seconds` late (0: at once).
  void set_slow(double seconds) { slow_s_ = std::max(0.0, seconds); }
  double slow_seconds() const { return slow_s_; }
  // logd restarts: following logcat streams end with an error, adbd stays.
  void logd_restart();
  // The device reboots: away (unplugged) for away_seconds, back with its
  // wall clock at the host's plus clock_offset_seconds.
  void reboot(double away_seconds, double clock_offset_seconds);
  bool plugged() const { return plugged_; }
  std::size_t connections() const { return conns_.size(); }

  // Pushes new log lines to every following logcat stream (force: even if
  // nothing was logged since the last push).
  void pump(bool force = false);

  // Connection bookkeeping.
  void forget(const std::shared_ptr<Connection>& c) { conns_.erase(c); }
  std::string banner() const;

 private:
  void listen();
  void accept_loop();
  void tick();

  Strand strand_;
  std::unique_ptr<Device> model_;
  TransportOptions opts_;
  asio::ip::tcp::acceptor acceptor_;
  asio::steady_timer tick_timer_;
  asio::steady_timer replug_timer_;
  std::set<std::shared_ptr<Connection>> conns_;
  std::uint16_t port_ = 0;
  bool plugged_ = false;
  bool hung_ = false;
  bool stopped_ = false;
  bool cut_armed_ = false;
  std::uint64_t pumped_seq_ = 0;
  double slow_s_ = 0;
};

}  // namespace jank::devsim

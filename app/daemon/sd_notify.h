// systemd's notification protocol (READY=1, STOPPING=1, WATCHDOG=1): one
// datagram per message to the AF_UNIX socket named by $NOTIFY_SOCKET. Without
// that variable every call is a no-op, so the daemon runs the same anywhere.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace jank::app {

class SystemdNotifier {
 public:
  // Reads NOTIFY_SOCKET and WATCHDOG_USEC (and WATCHDOG_PID) once.
  static SystemdNotifier from_environment();
  SystemdNotifier() = default;
  SystemdNotifier(std::string socket_path, std::optional<std::chrono::microseconds> watchdog)
      : socket_path_(std::move(socket_path)), watchdog_(watchdog) {}

  bool enabled() const { return !socket_path_.empty(); }
  // Returns false when a message could not be sent (logged by the caller).
  bool notify(std::string_view message) const;
  bool ready() const { return notify("READY=1"); }
  bool stopping() const { return notify("STOPPING=1"); }
  bool watchdog() const { return notify("WATCHDOG=1"); }
  bool status(std::string_view text) const { return notify("STATUS=" + std::string(text)); }

  // Interval at which to ping: half of WatchdogSec, as systemd recommends.
  std::optional<std::chrono::microseconds> watchdog_ping_interval() const {
    if (!watchdog_) return std::nullopt;
    return *watchdog_ / 2;
  }

 private:
  std::string socket_path_;
  std::optional<std::chrono::microseconds> watchdog_;
};

}  // namespace jank::app

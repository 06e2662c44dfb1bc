#include "app/daemon/sd_notify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace jank::app {

SystemdNotifier SystemdNotifier::from_environment() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  std::optional<std::chrono::microseconds> watchdog;
  const char* usec = std::getenv("WATCHDOG_USEC");
  const char* pid = std::getenv("WATCHDOG_PID");
  // WATCHDOG_PID names the process the watchdog is meant for (not a child we started).
  const bool for_us = pid == nullptr || std::strtol(pid, nullptr, 10) == static_cast<long>(::getpid());
  if (usec != nullptr && for_us) {
    long long value = 0;
    const char* end = usec + std::strlen(usec);
    if (auto [p, ec] = std::from_chars(usec, end, value); ec == std::errc() && p == end && value > 0) {
      watchdog = std::chrono::microseconds(value);
    }
  }
  return SystemdNotifier(socket != nullptr ? socket : "", watchdog);
}

bool SystemdNotifier::notify(std::string_view message) const {
  if (socket_path_.empty()) return true;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path_.size() >= sizeof(addr.sun_path)) return false;
  std::memcpy(addr.sun_path, socket_path_.data(), socket_path_.size());
  if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';  // abstract namespace
  const socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + socket_path_.size());
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const ssize_t sent = ::sendto(fd, message.data(), message.size(), MSG_NOSIGNAL, reinterpret_cast<sockaddr*>(&addr), len);
  ::close(fd);
  return sent == static_cast<ssize_t>(message.size());
}

}  // namespace jank::app

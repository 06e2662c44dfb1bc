#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "app/daemon/sd_notify.h"

namespace {
// A datagram socket standing in for systemd's notification socket.
struct FakeSystemd {
  int fd = -1;
  std::string path;
  FakeSystemd() {
    path = "/tmp/jank-notify-" + std::to_string(::getpid());
    ::unlink(path.c_str());
    fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  }
  ~FakeSystemd() {
    ::close(fd);
    ::unlink(path.c_str());
  }
  std::string receive() {
    char buf[256];
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  }
};
}  // namespace

TEST_CASE("notifier sends each state as one datagram", "[sd_notify]") {
  FakeSystemd systemd;
  jank::app::SystemdNotifier n(systemd.path, std::chrono::seconds(30));
  REQUIRE(n.enabled());
  CHECK(n.ready());
  CHECK(systemd.receive() == "READY=1");
  CHECK(n.watchdog());
  CHECK(systemd.receive() == "WATCHDOG=1");
  CHECK(n.stopping());
  CHECK(systemd.receive() == "STOPPING=1");
  CHECK(n.watchdog_ping_interval() == std::chrono::seconds(15));
}

TEST_CASE("notifier without NOTIFY_SOCKET does nothing", "[sd_notify]") {
  jank::app::SystemdNotifier n;
  CHECK_FALSE(n.enabled());
  CHECK(n.ready());
  CHECK_FALSE(n.watchdog_ping_interval().has_value());
}

TEST_CASE("notifier reads the environment", "[sd_notify]") {
  ::setenv("NOTIFY_SOCKET", "/run/x", 1);
  ::setenv("WATCHDOG_USEC", "20000000", 1);
  ::setenv("WATCHDOG_PID", std::to_string(::getpid()).c_str(), 1);
  auto n = jank::app::SystemdNotifier::from_environment();
  CHECK(n.enabled());
  CHECK(n.watchdog_ping_interval() == std::chrono::seconds(10));
  ::setenv("WATCHDOG_PID", "1", 1);  // the watchdog is someone else's
  CHECK_FALSE(jank::app::SystemdNotifier::from_environment().watchdog_ping_interval().has_value());
  ::unsetenv("NOTIFY_SOCKET");
  ::unsetenv("WATCHDOG_USEC");
  ::unsetenv("WATCHDOG_PID");
}

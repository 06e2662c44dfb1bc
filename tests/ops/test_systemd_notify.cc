// The real binary run the way systemd runs a Type=notify service with
// WatchdogSec=: a NOTIFY_SOCKET datagram socket of the test's own and
// WATCHDOG_USEC in the environment. No adb server is reachable (a closed
// port): the daemon must still start, be ready, ping and stop cleanly.
#include <catch2/catch.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;
using Clock = std::chrono::steady_clock;

namespace {

// What systemd listens on: an AF_UNIX datagram socket, one message per datagram.
class NotifySocket {
 public:
  explicit NotifySocket(const std::string& path) : path_(path) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    REQUIRE(path.size() < sizeof addr.sun_path);
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  }
  ~NotifySocket() { ::close(fd_); }
  NotifySocket(const NotifySocket&) = delete;
  NotifySocket& operator=(const NotifySocket&) = delete;

  // The next datagram, or "" when none arrives within `timeout`.
  std::string receive(ms timeout) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) != 1) return {};
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  }

 private:
  std::string path_;
  int fd_ = -1;
};

struct Message {
  std::string text;
  Clock::time_point at;
};

// Collects datagrams until `until` returns true for one of them or `timeout` passes.
template <typename Pred>
bool collect(NotifySocket& sock, std::vector<Message>& out, ms timeout, Pred&& until) {
  const auto end = Clock::now() + timeout;
  while (Clock::now() < end) {
    const auto left = std::chrono::duration_cast<ms>(end - Clock::now());
    std::string m = sock.receive(std::max(left, ms(1)));
    if (m.empty()) continue;
    out.push_back({m, Clock::now()});
    if (until(out.back())) return true;
  }
  return false;
}

struct Run {
  TempDir dir{"jank-notify"};
  std::uint16_t http_port = free_port();
  std::uint16_t closed_adb_port = free_port();  // nothing listens there
  std::string notify_path = dir.path() + "/notify";
  std::string state_dir = dir.path() + "/state";
  std::string log_path = dir.path() + "/exporter.log";

  ChildProcess start(const std::vector<std::string>& env) const {
    return ChildProcess({JANK_EXPORTER_PROGRAM, "--adb", "127.0.0.1:" + std::to_string(closed_adb_port), "--listen",
                         "127.0.0.1:" + std::to_string(http_port), "--state-dir", state_dir},
                        env, log_path);
  }
};

}  // namespace

TEST_CASE("under a systemd-like supervisor the daemon sends READY=1 then paced WATCHDOG=1 pings then STOPPING=1") {
  Run run;
  NotifySocket sock(run.notify_path);
  ChildProcess proc = run.start({"NOTIFY_SOCKET=" + run.notify_path, "WATCHDOG_USEC=3000000"});

  std::vector<Message> got;
  REQUIRE(collect(sock, got, 15000ms, [](const Message& m) { return m.text == "READY=1"; }));
  INFO(read_file(run.log_path));
  // Ready means serving: the probe answers at once.
  CHECK(http_get(run.http_port, "/readyz", 2000ms).find(" 200 ") != std::string::npos);

  // WatchdogSec=3s: a ping every 1.5 s (half the interval) from the event loop.
  const auto ready_at = got.back().at;
  std::vector<Message> after;
  collect(sock, after, 6000ms, [](const Message&) { return false; });
  std::vector<Clock::time_point> pings{ready_at};
  for (const auto& m : after) {
    CHECK(m.text == "WATCHDOG=1");
    if (m.text == "WATCHDOG=1") pings.push_back(m.at);
  }
  CHECK(pings.size() - 1 >= 3);
  CHECK(pings.size() - 1 <= 5);  // paced, not flooding
  for (std::size_t i = 1; i < pings.size(); ++i) {
    const auto gap = std::chrono::duration_cast<ms>(pings[i] - pings[i - 1]);
    INFO("gap " << i << ": " << gap.count() << " ms");
    CHECK(gap < 3000ms);  // inside WATCHDOG_USEC: systemd would never kill it, even on a loaded machine
  }

  // SIGTERM: STOPPING=1, the state written, exit status 0.
  const int status = proc.stop(10000ms);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  std::vector<Message> tail;
  CHECK(collect(sock, tail, 2000ms, [](const Message& m) { return m.text == "STOPPING=1"; }));
  CHECK(std::filesystem::exists(run.state_dir + "/state"));
  CHECK(read_file(run.log_path).find("received SIGTERM") != std::string::npos);
}

TEST_CASE("without WATCHDOG_USEC or with a WATCHDOG_PID of another process the daemon never pings") {
  const std::string extra = GENERATE(as<std::string>{}, "WATCHDOG_USEC=1000000", "");
  Run run;
  NotifySocket sock(run.notify_path);
  std::vector<std::string> env = {"NOTIFY_SOCKET=" + run.notify_path};
  if (!extra.empty()) {
    env.push_back(extra);
    env.push_back("WATCHDOG_PID=1");  // the watchdog is meant for another process
  } else {
    env.push_back("WATCHDOG_USEC");  // unset
  }
  ChildProcess proc = run.start(env);
  std::vector<Message> got;
  REQUIRE(collect(sock, got, 15000ms, [](const Message& m) { return m.text == "READY=1"; }));
  collect(sock, got, 2500ms, [](const Message&) { return false; });
  for (const auto& m : got) CHECK(m.text != "WATCHDOG=1");
  CHECK(proc.stop(10000ms) == 0);
  std::vector<Message> tail;
  CHECK(collect(sock, tail, 2000ms, [](const Message& m) { return m.text == "STOPPING=1"; }));
}

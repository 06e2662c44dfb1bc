// HTTP servers on 127.0.0.1 for the command-line clients' tests: one that
// answers one request with canned bytes, and one that stalls.
#pragma once

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

namespace jank::test {

// A listening socket on an ephemeral loopback port.
inline int listen_loopback(int& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(fd, 8) == 0);
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  port = ntohs(addr.sin_port);
  return fd;
}

inline void write_all(int fd, const std::string& bytes) {
  for (std::size_t done = 0; done < bytes.size();) {
    const auto n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
}

// Answers one HTTP request with `response`, recording the request line.
class OneShotServer {
 public:
  explicit OneShotServer(std::string response) : response_(std::move(response)) {
    listener_ = listen_loopback(port_);
    thread_ = std::thread([this] {
      const int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      char buf[4096];
      while (request_.find("\r\n\r\n") == std::string::npos) {
        const auto n = ::read(fd, buf, sizeof buf);
        if (n <= 0) break;
        request_.append(buf, static_cast<std::size_t>(n));
      }
      write_all(fd, response_);
      ::close(fd);
    });
  }
  ~OneShotServer() {
    ::shutdown(listener_, SHUT_RDWR);  // wakes an accept still waiting
    if (thread_.joinable()) thread_.join();
    ::close(listener_);
  }
  OneShotServer(const OneShotServer&) = delete;
  OneShotServer& operator=(const OneShotServer&) = delete;
  int port() const { return port_; }
  // Waits for the one exchange to end.
  const std::string& request() {
    if (thread_.joinable()) thread_.join();
    return request_;
  }

 private:
  std::string response_, request_;
  int listener_ = -1, port_ = 0;
  std::thread thread_;
};

// Accepts every connection and never completes an answer: it sends `first`
// (nothing, or half a header) and then waits for the client to give up and
// close. A client without a deadline waits on it forever.
class StallServer {
 public:
  explicit StallServer(std::string first = "") : first_(std::move(first)) {
    listener_ = listen_loopback(port_);
    thread_ = std::thread([this] {
      while (true) {
        const int fd = ::accept(listener_, nullptr, nullptr);
        if (fd < 0) return;  // the listener was shut down
        ++connections_;
        if (!first_.empty()) write_all(fd, first_);
        char buf[4096];
        while (::read(fd, buf, sizeof buf) > 0) {
        }
        ::close(fd);
      }
    });
  }
  ~StallServer() {
    ::shutdown(listener_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    ::close(listener_);
  }
  StallServer(const StallServer&) = delete;
  StallServer& operator=(const StallServer&) = delete;
  int port() const { return port_; }
  std::string url(const char* scheme = "http") const { return std::string(scheme) + "://127.0.0.1:" + std::to_string(port_); }
  int connections() const { return connections_; }

 private:
  std::string first_;
  int listener_ = -1, port_ = 0;
  std::atomic<int> connections_{0};
  std::thread thread_;
};

}  // namespace jank::test

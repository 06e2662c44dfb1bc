// A real Alertmanager (Debian's 0.25) as a child process of a test, and the
// webhook receiver it sends to: a loopback HTTP listener that records every
// POSTed JSON body with its arrival time.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <re2/re2.h>

#include "tests/ops/prometheus_process.h"

namespace jank::ops_test {

using Clock = std::chrono::steady_clock;

class WebhookReceiver {
 public:
  struct Post {
    Clock::time_point at;
    std::string body;
    Json json;  // the body parsed (null when it is not JSON)
  };

  WebhookReceiver() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 16) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~WebhookReceiver() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  WebhookReceiver(const WebhookReceiver&) = delete;
  WebhookReceiver& operator=(const WebhookReceiver&) = delete;

  std::uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/alerts"; }
  std::vector<Post> posts() const {
    std::lock_guard<std::mutex> lock(mu_);
    return posts_;
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      handle(c);
      ::close(c);
    }
  }
  // One request per connection (the answer says Connection: close).
  void handle(int c) {
    std::string in;
    char buf[8192];
    const auto deadline = Clock::now() + 5s;
    std::size_t need = std::string::npos;
    while (Clock::now() < deadline) {
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      in.append(buf, static_cast<std::size_t>(n));
      const auto head_end = in.find("\r\n\r\n");
      if (head_end != std::string::npos && need == std::string::npos) {
        const std::string head = in.substr(0, head_end);
        static const RE2 length(R"((?:^|\r\n)[Cc]ontent-[Ll]ength:\s*(\d+))");
        std::size_t body = 0;
        need = head_end + 4 + (RE2::PartialMatch(head, length, &body) ? body : 0);
      }
      if (need != std::string::npos && in.size() >= need) break;
    }
    const auto head_end = in.find("\r\n\r\n");
    if (head_end == std::string::npos || in.rfind("POST ", 0) != 0) {
      const std::string no = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      ::send(c, no.data(), no.size(), MSG_NOSIGNAL);
      return;
    }
    Post post{Clock::now(), in.substr(head_end + 4), Json{}};
    if (auto j = jank::rig::parse_json(post.body)) post.json = *j;
    {
      std::lock_guard<std::mutex> lock(mu_);
      posts_.push_back(std::move(post));
    }
    const std::string ok = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    ::send(c, ok.data(), ok.size(), MSG_NOSIGNAL);
  }

  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::vector<Post> posts_;
};

class Alertmanager {
 public:
  // Runs with `config` (YAML text), no clustering, listening on a free
  // loopback port.
  explicit Alertmanager(const std::string& config) : port_(free_port()), dir_("jank-alertmanager") {
    const std::string file = dir_.path() + "/alertmanager.yml";
    std::ofstream(file) << config;
    log_ = dir_.path() + "/alertmanager.log";
    proc_ = ChildProcess({JANK_ALERTMANAGER_PROGRAM, "--config.file=" + file, "--storage.path=" + dir_.path() + "/data",
                          "--web.listen-address=127.0.0.1:" + std::to_string(port_), "--cluster.listen-address=",
                          "--log.level=warn"},
                         {}, log_);
    ready_ = wait_until([&] { return http_exchange(port_, "GET /-/ready HTTP/1.0\r\nHost: localhost\r\n").find(" 200 ") !=
                                     std::string::npos; },
                        30000ms, 200ms);
  }
  ~Alertmanager() { proc_.stop(10000ms); }
  bool ready() const { return ready_; }
  std::uint16_t port() const { return port_; }
  std::string log() const { return read_file(log_); }

 private:
  std::uint16_t port_;
  TempDir dir_;
  std::string log_;
  ChildProcess proc_;
  bool ready_ = false;
};

}  // namespace jank::ops_test

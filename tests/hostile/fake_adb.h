// A scriptable adb server with scripted devices, for the real jank_exporter
// binary: it answers what the daemon asks (track-devices, features, transport,
// shell services) the way each test wants — hostile names, huge or endless
// output, malformed replies — and records every request and service string.
// Blocking sockets, one thread per connection; everything ends at destruction.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace jank::hostile {

// hex4 + payload, as the server frames replies.
inline std::string framed(std::string_view payload) {
  char head[8];
  std::snprintf(head, sizeof head, "%04x", static_cast<unsigned>(payload.size()));
  return std::string(head, 4) + std::string(payload);
}

class Conn {
 public:
  Conn(int fd, const std::atomic<bool>& stopping) : fd_(fd), stopping_(stopping) {}
  // False once the peer is gone or the server stops.
  bool write(std::string_view bytes) {
    while (!bytes.empty()) {
      if (stopping_) return false;
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  // Waits up to `d`; false once the peer closed or the server stops.
  bool hold(std::chrono::milliseconds d) {
    const auto end = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < end) {
      if (stopping_) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) {
        char c;
        const ssize_t n = ::recv(fd_, &c, 1, MSG_DONTWAIT);
        if (n == 0 || (p.revents & (POLLHUP | POLLERR)) != 0) return false;
      }
    }
    return true;
  }
  bool read_exact(char* out, std::size_t n) {
    while (n > 0) {
      if (stopping_) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const ssize_t got = ::recv(fd_, out, n, 0);
      if (got <= 0) return false;
      out += got;
      n -= static_cast<std::size_t>(got);
    }
    return true;
  }
  // One host request: hex4 length + payload.
  bool read_request(std::string& out) {
    char head[4];
    if (!read_exact(head, 4)) return false;
    unsigned long length = 0;
    try {
      length = std::stoul(std::string(head, 4), nullptr, 16);
    } catch (...) {
      return false;
    }
    out.assign(length, '\0');
    return read_exact(out.data(), length);
  }

 private:
  int fd_;
  const std::atomic<bool>& stopping_;
};

struct FakeDevice {
  std::string serial;
  std::string state = "device";
  std::string model = "Fake";
  std::string features;  // "" means a legacy shell: output until EOF
  // Runs one shell command (the service after "shell:"); the connection closes on return.
  std::function<void(const std::string& command, Conn&)> shell;
};

class FakeAdbServer {
 public:
  // Answers host:track-devices-l; the default sends OKAY and the device list, then holds.
  using TrackScript = std::function<void(Conn&, const std::string& device_list)>;

  explicit FakeAdbServer(std::vector<FakeDevice> devices, TrackScript track = {})
      : devices_(std::move(devices)), track_(std::move(track)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 64) != 0) {
      throw std::runtime_error("fake adb server: cannot listen");
    }
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~FakeAdbServer() {
    stopping_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);
    acceptor_.join();
    ::close(listen_fd_);
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
      threads.swap(threads_);
    }
    for (auto& t : threads) t.join();
  }
  FakeAdbServer(const FakeAdbServer&) = delete;
  FakeAdbServer& operator=(const FakeAdbServer&) = delete;

  std::uint16_t port() const { return port_; }
  // Every host request and device service, in arrival order.
  std::vector<std::string> requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }
  // The device services ("shell:…") only.
  std::vector<std::string> services() const {
    std::vector<std::string> out;
    for (const auto& r : requests()) {
      if (r.rfind("shell", 0) == 0) out.push_back(r);
    }
    return out;
  }

  std::string device_list() const {
    std::string out;
    int id = 1;
    for (const auto& d : devices_) {
      out += d.serial + " " + d.state + " product:fake model:" + d.model + " device:fake transport_id:" +
             std::to_string(id++) + "\n";
    }
    return out;
  }

 private:
  void accept_loop() {
    for (;;) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (stopping_) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) {
        ::close(fd);
        return;
      }
      open_fds_.push_back(fd);
      threads_.emplace_back([this, fd] {
        serve(fd);
        std::lock_guard<std::mutex> l(mutex_);
        std::erase(open_fds_, fd);
        ::close(fd);
      });
    }
  }

  void record(const std::string& r) {
    std::lock_guard<std::mutex> lock(mutex_);
    requests_.push_back(r);
  }

  const FakeDevice* find(std::string_view serial) const {
    for (const auto& d : devices_) {
      if (d.serial == serial) return &d;
    }
    return nullptr;
  }

  void serve(int fd) {
    Conn c(fd, stopping_);
    std::string request;
    if (!c.read_request(request)) return;
    record(request);
    const std::string list = device_list();
    if (request == "host:version") {
      c.write("OKAY" + framed("0029"));
    } else if (request == "host:devices-l" || request == "host:devices") {
      c.write("OKAY" + framed(list));
    } else if (request == "host:track-devices-l") {
      if (track_) return track_(c, list);
      if (c.write("OKAY" + framed(list))) c.hold(std::chrono::hours(1));
    } else if (request.rfind("host-serial:", 0) == 0 && request.size() > 21 &&
               request.compare(request.size() - 9, 9, ":features") == 0) {
      const FakeDevice* d = find(std::string_view(request).substr(12, request.size() - 21));
      c.write(d ? "OKAY" + framed(d->features) : "FAIL" + framed("device not found"));
    } else if (request.rfind("host:transport:", 0) == 0) {
      const FakeDevice* d = find(std::string_view(request).substr(15));
      if (d == nullptr) {
        c.write("FAIL" + framed("device not found"));
        return;
      }
      if (!c.write("OKAY")) return;
      std::string service;
      if (!c.read_request(service)) return;
      record(service);
      if (service.rfind("shell:", 0) != 0 || !d->shell) {
        c.write("FAIL" + framed("closed"));
        return;
      }
      if (!c.write("OKAY")) return;
      d->shell(service.substr(6), c);
    } else {
      c.write("FAIL" + framed("unknown host service"));
    }
  }

  std::vector<FakeDevice> devices_;
  TrackScript track_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::vector<int> open_fds_;
  std::vector<std::thread> threads_;
  std::vector<std::string> requests_;
};

}  // namespace jank::hostile

// The jank_exporter binary as a child process of a test, and its /metrics.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cmath>
#include <thread>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/rig/rig.h"

namespace jank::daemon_test {

using namespace jank::rig;

// One request over loopback with a deadline on every read: `head` is the
// request line and headers (each ending in CRLF, without the blank line).
// The whole response; "" when nothing answers.
inline std::string http_exchange(std::uint16_t port, const std::string& head, ms timeout = 5000ms) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return {};
  timeval tv{};
  tv.tv_sec = static_cast<long>(timeout.count() / 1000);
  tv.tv_usec = static_cast<long>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string request = head + "\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
      char buf[65536];
      for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) response.append(buf, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  return response;
}

// GET (`headers`: more header lines, each ending in CRLF).
inline std::string http_get(std::uint16_t port, const std::string& path, ms timeout = 5000ms,
                            const std::string& headers = "") {
  return http_exchange(port, "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" + headers,
                       timeout);
}

// Samples of an exposition: "name{labels}" → value.
inline std::map<std::string, double> parse_samples(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("HTTP/", 0) == 0) continue;
    const auto space = line.rfind(' ');
    if (space == std::string::npos || (line.find('{') == std::string::npos && line.find(':') != std::string::npos)) {
      continue;  // HTTP headers
    }
    try {
      out[line.substr(0, space)] = std::stod(line.substr(space + 1));
    } catch (...) {
    }
  }
  return out;
}

class Exporter {
 public:
  // Waits until /readyz answers over plain HTTP, unless `wait_ready` is false
  // (an HTTPS exporter: the caller waits its own way). `env`: NAME=VALUE
  // entries set in the exporter's environment only (a profiler's preload).
  Exporter(const std::vector<std::uint16_t>& adb_ports, const std::string& state_dir,
           const std::vector<std::string>& extra = {}, bool wait_ready = true,
           const std::vector<std::string>& env = {})
      : port_(free_port()), dir_("jank-exporter") {
    std::vector<std::string> argv = {JANK_EXPORTER_PROGRAM, "--listen", "127.0.0.1:" + std::to_string(port_),
                                     "--state-dir", state_dir, "--log-level", "debug"};
    for (auto p : adb_ports) {
      argv.push_back("--adb");
      argv.push_back("127.0.0.1:" + std::to_string(p));
    }
    // The rigs check the frame-by-frame sources against the simulator's
    // truth, so they poll them all the time unless they ask otherwise (the
    // product's default, per_frame.mode needed, has rig tests of its own).
    if (std::find(extra.begin(), extra.end(), "--per-frame") == extra.end()) {
      argv.insert(argv.end(), {"--per-frame", "always"});
    }
    argv.insert(argv.end(), extra.begin(), extra.end());
    log_ = dir_.path() + "/exporter.log";
    proc_ = ChildProcess(argv, env, log_);
    if (wait_ready) {
      wait_until([&] { return http_get(port_, "/readyz", 1000ms).find(" 200 ") != std::string::npos; }, 15000ms);
    }
  }
  std::uint16_t port() const { return port_; }
  std::string scrape() const { return http_get(port_, "/metrics"); }
  std::map<std::string, double> samples() const { return parse_samples(scrape()); }
  // NaN when the series is absent.
  double value(const std::string& series) const {
    auto s = samples();
    auto it = s.find(series);
    return it == s.end() ? std::nan("") : it->second;
  }
  void kill9() {
    ::kill(proc_.pid(), SIGKILL);
    proc_.stop(1000ms);
  }
  int terminate() { return proc_.stop(10000ms); }
  bool alive() { return proc_.alive(); }
  pid_t pid() const { return proc_.pid(); }
  std::string log() const { return read_file(log_); }

 private:
  std::uint16_t port_;
  TempDir dir_;
  std::string log_;
  ChildProcess proc_;
};

// The JSON body of a 200 answer to GET `path`; nullopt otherwise.
inline std::optional<Json> get_json(const Exporter& ex, const std::string& path) {
  const std::string r = http_get(ex.port(), path);
  if (r.rfind("HTTP/1.1 200", 0) != 0) return std::nullopt;
  return parse_json(r.substr(r.find("\r\n\r\n") + 4));
}

inline std::string series(const std::string& name, const std::string& serial, const std::string& package = "") {
  std::string s = name + "{serial=\"" + serial + "\"";
  if (!package.empty()) s += ",package=\"" + package + "\"";
  return s + "}";
}

}  // namespace jank::daemon_test

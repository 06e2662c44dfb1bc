// Scale benchmark: one jank_devsim process with N devices, each logging
// RATE lines/s, streamed through a private real adb server to N concurrent
// logcat readers (one host connection each). Reports the simulator's and the
// adb server's CPU and RSS and whether every line arrived.
// Usage: jank_bench_devsim_scale [--devices N[,N…]] [--rate R] [--seconds S]
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/rig/rig.h"

using namespace jank::rig;
using steady = std::chrono::steady_clock;

namespace {

// host:transport:<serial> then exec:<cmd>; returns the socket streaming raw output.
int open_stream(std::uint16_t port, const std::string& serial, const std::string& cmd) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return -1;
  auto req = [&](const std::string& r) {
    char h[5];
    std::snprintf(h, sizeof h, "%04zx", r.size());
    std::string m = h + r;
    if (send(fd, m.data(), m.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(m.size())) return false;
    char st[4];
    std::size_t got = 0;
    while (got < 4) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 10000) <= 0) return false;
      ssize_t n = recv(fd, st + got, 4 - got, 0);
      if (n <= 0) return false;
      got += static_cast<std::size_t>(n);
    }
    return std::string(st, 4) == "OKAY";
  };
  if (!req("host:transport:" + serial) || !req("exec:" + cmd)) {
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, O_NONBLOCK);
  return fd;
}

struct Reader {
  int fd = -1;
  std::string serial, name;
  std::uint64_t lines = 0;  // log lines (separators excluded)
  bool at_start = true, is_sep = false;
  bool eof = false;
};

// Reads whatever is available; returns bytes read.
std::size_t drain(std::vector<Reader>& rs, int timeout_ms) {
  std::vector<pollfd> p;
  for (auto& r : rs) p.push_back({r.eof ? -1 : r.fd, POLLIN, 0});
  if (poll(p.data(), p.size(), timeout_ms) <= 0) return 0;
  std::size_t total = 0;
  static char buf[1 << 16];
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    for (;;) {
      ssize_t n = recv(rs[i].fd, buf, sizeof buf, 0);
      if (n == 0) rs[i].eof = true;
      if (n <= 0) break;
      total += static_cast<std::size_t>(n);
      for (ssize_t k = 0; k < n; ++k) {
        if (rs[i].at_start) {
          rs[i].is_sep = buf[k] == '-';
          rs[i].at_start = false;
        }
        if (buf[k] == '\n') {
          if (!rs[i].is_sep) ++rs[i].lines;
          rs[i].at_start = true;
        }
      }
    }
  }
  return total;
}

void run_one(int devices, double rate, int seconds) {
  AdbServer adb;
  DevSim sim({"--devices", std::to_string(devices), "--log-rate", std::to_string(rate), "--buffer-kib", "8192",
              "--threads", "2"});
  const auto t_connect = steady::now();
  for (const auto& d : sim.devices()) adb.connect("127.0.0.1:" + std::to_string(d.port));
  const bool all = wait_until(
      [&] {
        auto m = adb.devices();
        int n = 0;
        for (const auto& [s, st] : m) n += st == "device";
        return n == devices;
      },
      120000ms, 200ms);
  const double connect_s = std::chrono::duration<double>(steady::now() - t_connect).count();

  std::vector<Reader> rs;
  for (const auto& d : sim.devices()) {
    Reader r;
    r.serial = "127.0.0.1:" + std::to_string(d.port);
    r.name = d.name;
    r.fd = open_stream(adb.port(), r.serial, "logcat -v threadtime -b main,system,crash");
    rs.push_back(r);
  }
  int opened = 0;
  for (auto& r : rs) opened += r.fd >= 0;
  for (auto& r : rs) r.eof = r.fd < 0;

  const ProcessUsage s0 = process_usage(sim.pid()), a0 = process_usage(adb.pid());
  const auto t0 = steady::now();
  std::uint64_t bytes = 0;
  while (steady::now() - t0 < std::chrono::seconds(seconds)) bytes += drain(rs, 100);
  const double wall = std::chrono::duration<double>(steady::now() - t0).count();
  const ProcessUsage s1 = process_usage(sim.pid()), a1 = process_usage(adb.pid());

  // Stop producing, then read until everything written has arrived (or 20 s of trying).
  sim.control("pause");
  const Json truth = sim.truth();
  std::uint64_t written = 0, lost_in_buffer = 0;
  for (const Json& d : truth["devices"].arr) {
    written += d["lines_written"].u64();
    lost_in_buffer += d["lines_lost"].u64();
  }
  const auto tdrain = steady::now();
  auto received = [&] {
    std::uint64_t n = 0;
    for (auto& r : rs) n += r.lines;
    return n;
  };
  while (received() < written && steady::now() - tdrain < 20s) drain(rs, 200);
  std::uint64_t short_devices = 0;
  std::uint64_t got = received();
  for (const Json& d : truth["devices"].arr) {
    for (auto& r : rs) {
      if (r.name == d["name"].str && r.lines < d["lines_written"].u64()) ++short_devices;
    }
  }
  std::printf(
      "devices=%d rate=%.0f/s/device connect_all=%.1fs readers=%d window=%.1fs\n"
      "  devsim: cpu=%.1f%% of one core rss=%ld MiB\n"
      "  adb server: cpu=%.1f%% of one core rss=%ld MiB\n"
      "  lines written=%llu received=%llu (%.1f lines/s in window, %.1f MiB/s) lost_to_wrap=%llu "
      "devices_short=%llu all_connected=%s\n",
      devices, rate, connect_s, opened, wall, 100.0 * (s1.cpu_seconds - s0.cpu_seconds) / wall, s1.rss_kib / 1024,
      100.0 * (a1.cpu_seconds - a0.cpu_seconds) / wall, a1.rss_kib / 1024, static_cast<unsigned long long>(written),
      static_cast<unsigned long long>(got), static_cast<double>(got) / (wall + 1e-9),
      static_cast<double>(bytes) / wall / 1048576.0, static_cast<unsigned long long>(lost_in_buffer),
      static_cast<unsigned long long>(short_devices), all ? "yes" : "no");
  std::fflush(stdout);
  for (auto& r : rs) {
    if (r.fd >= 0) close(r.fd);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> counts = {100, 300, 500};
  double rate = 100;
  int seconds = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--devices") {
      counts.clear();
      std::stringstream ss(v);
      for (std::string x; std::getline(ss, x, ',');) counts.push_back(std::stoi(x));
    } else if (a == "--rate") {
      rate = std::stod(v);
    } else if (a == "--seconds") {
      seconds = std::stoi(v);
    }
  }
  for (int n : counts) run_one(n, rate, seconds);
  return 0;
}

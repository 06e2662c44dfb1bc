// Abusive HTTP clients against the real exporter's /metrics: slowloris
// headers, connections that never send, 1 MB headers and URIs, and many
// connections at once. A normal scrape must still be answered in bounded time,
// the abusers must be dropped, and memory must stay bounded.
#include <catch2/catch.hpp>

#include <sys/resource.h>

#include <filesystem>
#include <iostream>

#include "tests/hostile/support.h"

using namespace jank::daemon_test;
using namespace jank::hostile;

namespace {

using Clock = std::chrono::steady_clock;

int connect_loopback(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// True once the server closed `fd` (EOF or reset) within `timeout`.
bool closed_by_server(int fd, ms timeout, std::string* got = nullptr) {
  const auto end = Clock::now() + timeout;
  while (Clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return true;
    if (got) got->append(buf, static_cast<std::size_t>(n));
  }
  return false;
}

struct TimedScrape {
  bool ok = false;
  ms took{0};
};
TimedScrape timed_scrape(std::uint16_t port, ms timeout = 30000ms) {
  const auto t0 = Clock::now();
  const std::string r = http_get(port, "/metrics", timeout);
  return {r.rfind("HTTP/1.1 200 ", 0) == 0 && r.find("jank_exporter_") != std::string::npos,
          std::chrono::duration_cast<ms>(Clock::now() - t0)};
}

}  // namespace

TEST_CASE("slow and silent and oversized HTTP requests neither block the scrape nor grow memory") {
  FakeAdbServer adb({});
  TempDir state;
  Exporter ex({adb.port()}, state.path());
  REQUIRE(timed_scrape(ex.port()).ok);
  const long rss_before = proc_status_kb(ex.pid(), "VmRSS");

  std::vector<int> slow, silent;
  for (int i = 0; i < 10; ++i) {
    const int fd = connect_loopback(ex.port());
    REQUIRE(fd >= 0);
    const std::string head = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
    ::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
    slow.push_back(fd);
    silent.push_back(connect_loopback(ex.port()));
  }
  // Slowloris: one more header line every 500 ms, never the blank line.
  std::atomic<bool> stop{false};
  std::thread drip([&] {
    while (!stop) {
      for (int fd : slow) ::send(fd, "X-a: b\r\n", 8, MSG_NOSIGNAL);
      std::this_thread::sleep_for(500ms);
    }
  });
  // 1 MB of header, and a 1 MB URI.
  auto oversized = [&](const std::string& request, std::string& reply) {
    const int fd = connect_loopback(ex.port());
    if (fd < 0) return false;
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);  // the server may cut us off half way
    const bool closed = closed_by_server(fd, 10000ms, &reply);
    ::close(fd);
    return closed;
  };
  std::string big_header_reply, big_uri_reply;
  std::thread big_header([&] {
    oversized("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(1 << 20, 'a') + "\r\n\r\n",
              big_header_reply);
  });
  std::thread big_uri([&] {
    oversized("GET /metrics?" + std::string(1 << 20, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n", big_uri_reply);
  });
  std::this_thread::sleep_for(300ms);

  // 20 abusers hold 20 connections; the server waits for none of them: scrapes are answered at once.
  for (int i = 0; i < 5; ++i) {
    const TimedScrape t = timed_scrape(ex.port());
    std::cout << "hostile: scrape under slow/silent/oversized clients: " << t.took.count() << " ms\n";
    CHECK(t.ok);
    CHECK(t.took < 1000ms);
    std::this_thread::sleep_for(200ms);
  }
  big_header.join();
  big_uri.join();
  CHECK(big_header_reply.find(" 200 ") == std::string::npos);
  CHECK(big_uri_reply.find(" 200 ") == std::string::npos);
  // The server drops them all by its request timeout (5 s).
  const auto t0 = Clock::now();
  for (int fd : silent) CHECK(closed_by_server(fd, 8000ms));
  for (int fd : slow) CHECK(closed_by_server(fd, 8000ms));
  std::cout << "hostile: slow and silent clients dropped within "
            << std::chrono::duration_cast<ms>(Clock::now() - t0).count() << " ms of the last scrape\n";
  stop = true;
  drip.join();
  for (int fd : slow) ::close(fd);
  for (int fd : silent) ::close(fd);
  const long hwm = proc_status_kb(ex.pid(), "VmHWM");
  std::cout << "hostile: HTTP abuse: VmRSS before " << rss_before << " kB, VmHWM after " << hwm << " kB\n";
#ifndef JANK_SANITIZED
  CHECK(hwm - rss_before < 16 * 1024);
#endif
  CHECK(timed_scrape(ex.port()).ok);
  CHECK(ex.alive());
  CHECK(ex.terminate() == 0);
}

TEST_CASE("many concurrent connections: every scrape is answered within a bound") {
  FakeAdbServer adb({});
  TempDir state;
  Exporter ex({adb.port()}, state.path());
  REQUIRE(timed_scrape(ex.port()).ok);
  const long rss_before = proc_status_kb(ex.pid(), "VmRSS");
  // 64 connections that never send come first …
  std::vector<int> silent;
  for (int i = 0; i < 64; ++i) silent.push_back(connect_loopback(ex.port()));
  std::this_thread::sleep_for(200ms);
  // … then 100 scrapes at once.
  std::vector<TimedScrape> results(100);
  std::vector<std::thread> clients;
  const auto t0 = Clock::now();
  for (auto& r : results) clients.emplace_back([&r, &ex] { r = timed_scrape(ex.port()); });
  for (auto& t : clients) t.join();
  const auto took = std::chrono::duration_cast<ms>(Clock::now() - t0);
  ms slowest{0};
  int ok = 0;
  for (const auto& r : results) {
    ok += r.ok;
    slowest = std::max(slowest, r.took);
  }
  std::cout << "hostile: 100 concurrent scrapes behind 64 silent connections: " << ok << " ok, slowest "
            << slowest.count() << " ms, all in " << took.count() << " ms\n";
  CHECK(ok == 100);
  // Silent connections hold nothing but their descriptor: no scrape waits for them.
  CHECK(slowest < 5000ms);
  for (int fd : silent) ::close(fd);
  const TimedScrape after = timed_scrape(ex.port());
  CHECK(after.ok);
  CHECK(after.took < 1000ms);
  const long hwm = proc_status_kb(ex.pid(), "VmHWM");
  std::cout << "hostile: concurrent scrapes: VmRSS before " << rss_before << " kB, VmHWM after " << hwm << " kB\n";
#ifndef JANK_SANITIZED
  CHECK(hwm - rss_before < 32 * 1024);
#endif
  CHECK(ex.alive());
  CHECK(ex.terminate() == 0);
}

TEST_CASE("1000 idle connections: every scrape is answered within 1 s in bounded memory") {
  // 1000 connections and the scrapes need more descriptors than the usual soft limit of 1024.
  rlimit limit{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit) == 0);
  limit.rlim_cur = limit.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &limit);
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit) == 0);
  if (limit.rlim_cur < 1200) {
    WARN("hard RLIMIT_NOFILE " << limit.rlim_max << " is below 1200: skipped");
    return;
  }
  FakeAdbServer adb({});
  TempDir state;
  Exporter ex({adb.port()}, state.path());
  REQUIRE(timed_scrape(ex.port()).ok);
  // The exporter raised its own soft limit to the hard one, and said so.
  CHECK(ex.log().find("open files limit") != std::string::npos);
  const long rss_before = proc_status_kb(ex.pid(), "VmRSS");

  // 1000 kept-alive connections, each after one request: idle, waiting for the next.
  std::vector<int> idle;
  const std::string probe = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  for (int i = 0; i < 1000; ++i) {
    const int fd = connect_loopback(ex.port());
    REQUIRE(fd >= 0);
    idle.push_back(fd);
    REQUIRE(::send(fd, probe.data(), probe.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(probe.size()));
  }
  int answered = 0;
  for (int fd : idle) {
    std::string reply;
    const auto end = Clock::now() + 5000ms;
    while (reply.find("ok\n") == std::string::npos && Clock::now() < end) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      char buf[1024];
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      reply.append(buf, static_cast<std::size_t>(n));
    }
    answered += reply.rfind("HTTP/1.1 200 ", 0) == 0 && reply.find("Connection: keep-alive") != std::string::npos;
  }
  CHECK(answered == 1000);

  ms slowest{0};
  for (int i = 0; i < 12; ++i) {
    const TimedScrape t = timed_scrape(ex.port(), 5000ms);
    CHECK(t.ok);
    CHECK(t.took < 1000ms);
    slowest = std::max(slowest, t.took);
  }
  // The idle connections are all still open (none was closed to make room).
  int open = 0;
  for (int fd : idle) {
    pollfd p{fd, POLLIN, 0};
    open += ::poll(&p, 1, 0) == 0;
  }
  const long rss_after = proc_status_kb(ex.pid(), "VmRSS");
  std::cout << "hostile: 12 scrapes behind 1000 idle connections: slowest " << slowest.count() << " ms; " << open
            << " still open; VmRSS " << rss_before << " kB idle, " << rss_after << " kB with them\n";
  CHECK(open == 1000);
#ifndef JANK_SANITIZED
  CHECK(rss_after - rss_before < 50 * 1024);
#endif
  for (int fd : idle) ::close(fd);
  CHECK(ex.alive());
  CHECK(ex.terminate() == 0);
}

namespace {

std::string get_with_auth(std::uint16_t port, const std::string& path, const std::string& authorization) {
  const int fd = connect_loopback(port);
  if (fd < 0) return {};
  std::string request = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
  if (!authorization.empty()) request += "Authorization: " + authorization + "\r\n";
  request += "\r\n";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string reply;
  closed_by_server(fd, 5000ms, &reply);
  ::close(fd);
  return reply;
}

}  // namespace

TEST_CASE("basic auth from the config's password_file guards /metrics of the real binary") {
  FakeAdbServer adb({});
  TempDir state, conf_dir;
  const std::string password_file = conf_dir.path() + "/password";
  std::ofstream(password_file) << "s3cret-pw\n";  // the trailing newline is not part of the password
  const std::string conf = write_config(
      conf_dir, "http:\n  basic_auth:\n    username: prometheus\n    password_file: " + password_file + "\n");
  Exporter ex({adb.port()}, state.path(), {"--config", conf});
  // base64("prometheus:s3cret-pw"), base64("prometheus:wrong"), base64("prometheus:s3cret-pw\n")
  const std::string good = "Basic cHJvbWV0aGV1czpzM2NyZXQtcHc=";
  CHECK(get_with_auth(ex.port(), "/metrics", good).rfind("HTTP/1.1 200 ", 0) == 0);
  CHECK(get_with_auth(ex.port(), "/metrics", good).find("jank_exporter_") != std::string::npos);
  const std::string none = get_with_auth(ex.port(), "/metrics", "");
  CHECK(none.rfind("HTTP/1.1 401 ", 0) == 0);
  CHECK(none.find("WWW-Authenticate: Basic realm=\"jank_exporter\"") != std::string::npos);
  CHECK(none.find("jank_exporter_") == std::string::npos);
  CHECK(get_with_auth(ex.port(), "/metrics", "Basic cHJvbWV0aGV1czp3cm9uZw==").rfind("HTTP/1.1 401 ", 0) == 0);
  CHECK(get_with_auth(ex.port(), "/metrics", "Basic cHJvbWV0aGV1czpzM2NyZXQtcHcK").rfind("HTTP/1.1 401 ", 0) == 0);
  CHECK(get_with_auth(ex.port(), "/metrics", "Bearer cHJvbWV0aGV1czpzM2NyZXQtcHc=").rfind("HTTP/1.1 401 ", 0) == 0);
  CHECK(get_with_auth(ex.port(), "/", "").rfind("HTTP/1.1 401 ", 0) == 0);
  // Probes stay open for the service manager and load balancers.
  CHECK(get_with_auth(ex.port(), "/healthz", "").rfind("HTTP/1.1 200 ", 0) == 0);
  // curl, as an operator would check it.
  RunResult r = run({"curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-u", "prometheus:s3cret-pw",
                     "http://127.0.0.1:" + std::to_string(ex.port()) + "/metrics"},
                    {}, 10000ms);
  CHECK(r.out == "200");
  CHECK(ex.terminate() == 0);
}

TEST_CASE("unusable password or TLS files are clear errors") {
  TempDir dir;
  const std::string missing = write_config(
      dir, "http:\n  basic_auth:\n    username: p\n    password_file: " + dir.path() + "/nope\n");
  RunResult r = run({JANK_EXPORTER_PROGRAM, "--config", missing, "--listen", "127.0.0.1:0", "--state-dir", dir.path(),
                     "--adb", "127.0.0.1:1"},
                    {}, 10000ms);
  CHECK(r.exit != 0);
  CHECK(r.err.find("cannot read http.basic_auth.password_file " + dir.path() + "/nope") != std::string::npos);

  std::ofstream(dir.path() + "/empty") << "\n";
  const std::string empty = write_config(
      dir, "http:\n  basic_auth:\n    username: p\n    password_file: " + dir.path() + "/empty\n");
  r = run({JANK_EXPORTER_PROGRAM, "--config", empty, "--listen", "127.0.0.1:0", "--state-dir", dir.path(), "--adb",
           "127.0.0.1:1"},
          {}, 10000ms);
  CHECK(r.exit != 0);
  CHECK(r.err.find("is empty") != std::string::npos);

  // A TLS section needs both files; files that cannot be used stop the start with their name.
  const std::string half = write_config(dir, "http:\n  tls:\n    certificate_file: /etc/ssl/x.pem\n");
  r = run({JANK_EXPORTER_PROGRAM, "--check-config", half}, {}, 10000ms);
  CHECK(r.exit == 78);
  CHECK(r.err.find(half + ":3:5: http.tls: needs both certificate_file and key_file") != std::string::npos);
  const std::string absent = write_config(
      dir, "http:\n  tls:\n    certificate_file: " + dir.path() + "/no-cert.pem\n    key_file: " + dir.path() +
               "/no-key.pem\n");
  r = run({JANK_EXPORTER_PROGRAM, "--config", absent, "--listen", "127.0.0.1:0", "--state-dir", dir.path(), "--adb",
           "127.0.0.1:1"},
          {}, 10000ms);
  CHECK(r.exit != 0);
  CHECK(r.err.find("http.tls.certificate_file " + dir.path() + "/no-cert.pem") != std::string::npos);
}

TEST_CASE("HTTPS with basic auth on the real binary, checked by curl") {
  FakeAdbServer adb({});
  TempDir state, conf_dir;
  const std::string cert = conf_dir.path() + "/cert.pem", key = conf_dir.path() + "/key.pem";
  RunResult made = run({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-days", "2", "-subj", "/CN=jank-test", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", key, "-out", cert},
                       {}, 20000ms);
  REQUIRE(made.exit == 0);
  const std::string password_file = conf_dir.path() + "/password";
  std::ofstream(password_file) << "s3cret-pw\n";
  const std::string conf = write_config(conf_dir, "http:\n  basic_auth:\n    username: prometheus\n    password_file: " +
                                                      password_file + "\n  tls:\n    certificate_file: " + cert +
                                                      "\n    key_file: " + key + "\n");
  Exporter ex({adb.port()}, state.path(), {"--config", conf}, false);
  const std::string url = "https://127.0.0.1:" + std::to_string(ex.port());
  auto curl = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv = {"curl", "-sS", "--max-time", "10", "--cacert", cert};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run(argv, {}, 15000ms);
  };
  REQUIRE(wait_until([&] { return curl({"-o", "/dev/null", "-w", "%{http_code}", url + "/readyz"}).out == "200"; },
                     15000ms, 200ms));
  const RunResult metrics = curl({"-u", "prometheus:s3cret-pw", url + "/metrics"});
  CHECK(metrics.out.find("jank_exporter_build_info") != std::string::npos);
  CHECK(curl({"-o", "/dev/null", "-w", "%{http_code}", url + "/metrics"}).out == "401");
  // Plain HTTP on the HTTPS port gets no HTTP answer; the exporter stays up.
  CHECK(http_get(ex.port(), "/metrics", 2000ms).find("HTTP/1.1") == std::string::npos);
  CHECK(curl({"-o", "/dev/null", "-w", "%{http_code}", "-u", "prometheus:s3cret-pw", url + "/metrics"}).out == "200");
  CHECK(ex.alive());
  CHECK(ex.terminate() == 0);
}

TEST_CASE("the daemon runs without any privilege") {
  // As nobody, with no capabilities: all it needs is its state directory,
  // a TCP connection to the adb server and an unprivileged port.
  if (::geteuid() != 0) {
    WARN("not root: cannot drop to nobody; skipped");
    return;
  }
  FakeAdbServer adb({});
  TempDir state;
  REQUIRE(::chown(state.path().c_str(), 65534, 65534) == 0);
  const std::uint16_t port = free_port();
  TempDir logs;
  ChildProcess proc({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
                     "--bounding-set=-all", "--no-new-privs", JANK_EXPORTER_PROGRAM, "--listen",
                     "127.0.0.1:" + std::to_string(port), "--state-dir", state.path(), "--adb",
                     "127.0.0.1:" + std::to_string(adb.port())},
                    {}, logs.path() + "/log");
  CHECK(wait_until([&] { return http_get(port, "/metrics", 1000ms).rfind("HTTP/1.1 200 ", 0) == 0; }, 15000ms, 100ms));
  CHECK(wait_until([&] { return !adb.requests().empty(); }, 5000ms));
  std::ifstream status("/proc/" + std::to_string(proc.pid()) + "/status");
  std::string uid_line;
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Uid:", 0) == 0) uid_line = line;
  }
  INFO(read_file(logs.path() + "/log"));
  CHECK(uid_line.find("65534") != std::string::npos);
  CHECK(proc.stop(5000ms) == 0);
  CHECK(std::filesystem::exists(state.path() + "/state"));
}

namespace {

// A self-signed EC certificate for 127.0.0.1 with subject CN=`cn`, written to `cert` and `key`.
bool make_certificate(const std::string& cert, const std::string& key, const std::string& cn) {
  return run({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days",
              "2", "-subj", "/CN=" + cn, "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert},
             {}, 20000ms)
             .exit == 0;
}

// The subject of the certificate the server on `port` presents, as openssl s_client prints it.
std::string served_subject(std::uint16_t port) {
  const RunResult r = run({"openssl", "s_client", "-connect", "127.0.0.1:" + std::to_string(port), "-showcerts"}, {},
                          10000ms);
  const auto at = r.out.find("subject=");
  return at == std::string::npos ? "" : r.out.substr(at, r.out.find('\n', at) - at);
}

// Replaces `path`'s content in place (same inode, as an editor or a renewal tool writing the file would).
void rewrite(const std::string& path, const std::string& content) { std::ofstream(path, std::ios::trunc) << content; }

}  // namespace

TEST_CASE("SIGHUP serves a certificate renewed in place, and keeps the old server when the new one is broken") {
  FakeAdbServer adb({});
  TempDir state, conf_dir, spare;
  const std::string cert = conf_dir.path() + "/cert.pem", key = conf_dir.path() + "/key.pem";
  REQUIRE(make_certificate(cert, key, "jank-old"));
  const std::string old_cert = read_file(cert), old_key = read_file(key);
  std::ofstream(spare.path() + "/old-cert.pem") << old_cert;
  const std::string conf =
      write_config(conf_dir, "http:\n  tls:\n    certificate_file: " + cert + "\n    key_file: " + key + "\n");
  Exporter ex({adb.port()}, state.path(), {"--config", conf}, false);
  auto https_metrics = [&](const std::string& ca) {
    return run({"curl", "-sS", "--max-time", "10", "--cacert", ca,
                "https://127.0.0.1:" + std::to_string(ex.port()) + "/metrics"},
               {}, 15000ms)
        .out;
  };
  const std::string failures = "jank_exporter_config_reloads_total{result=\"failure\"}";
  const std::string successes = "jank_exporter_config_reloads_total{result=\"success\"}";
  REQUIRE(wait_until([&] { return served_subject(ex.port()).find("jank-old") != std::string::npos; }, 15000ms, 200ms));
  REQUIRE(parse_samples(https_metrics(cert))[failures] == 0);

  // Renewed in place: same paths, a new certificate and key.
  REQUIRE(make_certificate(spare.path() + "/new-cert.pem", spare.path() + "/new-key.pem", "jank-new"));
  rewrite(key, read_file(spare.path() + "/new-key.pem"));
  rewrite(cert, read_file(spare.path() + "/new-cert.pem"));
  REQUIRE(::kill(ex.pid(), SIGHUP) == 0);
  CHECK(wait_until([&] { return served_subject(ex.port()).find("jank-new") != std::string::npos; }, 10000ms, 200ms));
  std::map<std::string, double> samples = parse_samples(https_metrics(spare.path() + "/new-cert.pem"));
  CHECK(samples[successes] == 1);
  CHECK(samples[failures] == 0);

  // A broken certificate: the reload fails, counted, and the running server keeps answering with the one it has.
  rewrite(cert, "-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n");
  REQUIRE(::kill(ex.pid(), SIGHUP) == 0);
  CHECK(wait_until([&] { return parse_samples(https_metrics(spare.path() + "/new-cert.pem"))[failures] == 1; }, 10000ms,
                   200ms));
  samples = parse_samples(https_metrics(spare.path() + "/new-cert.pem"));
  CHECK(samples[successes] == 1);
  CHECK(served_subject(ex.port()).find("jank-new") != std::string::npos);
  CHECK(ex.log().find("http.tls.certificate_file " + cert) != std::string::npos);
  CHECK(ex.log().find("SIGHUP: configuration not reloaded, the running one stays") != std::string::npos);
  CHECK(ex.alive());
  CHECK(ex.terminate() == 0);
}

TEST_CASE("SIGHUP applies a password file rewritten in place") {
  FakeAdbServer adb({});
  TempDir state, conf_dir;
  const std::string password_file = conf_dir.path() + "/password";
  std::ofstream(password_file) << "old-pw\n";
  const std::string conf = write_config(
      conf_dir, "http:\n  basic_auth:\n    username: prometheus\n    password_file: " + password_file + "\n");
  Exporter ex({adb.port()}, state.path(), {"--config", conf});
  // base64("prometheus:old-pw"), base64("prometheus:new-pw")
  const std::string old_pw = "Basic cHJvbWV0aGV1czpvbGQtcHc=", new_pw = "Basic cHJvbWV0aGV1czpuZXctcHc=";
  CHECK(get_with_auth(ex.port(), "/metrics", old_pw).rfind("HTTP/1.1 200 ", 0) == 0);
  CHECK(get_with_auth(ex.port(), "/metrics", new_pw).rfind("HTTP/1.1 401 ", 0) == 0);
  rewrite(password_file, "new-pw\n");
  REQUIRE(::kill(ex.pid(), SIGHUP) == 0);
  CHECK(wait_until([&] { return get_with_auth(ex.port(), "/metrics", new_pw).rfind("HTTP/1.1 200 ", 0) == 0; }, 10000ms,
                   100ms));
  CHECK(get_with_auth(ex.port(), "/metrics", old_pw).rfind("HTTP/1.1 401 ", 0) == 0);
  const std::string metrics = get_with_auth(ex.port(), "/metrics", new_pw);
  CHECK(parse_samples(metrics)["jank_exporter_config_reloads_total{result=\"success\"}"] == 1);
  CHECK(ex.alive());
  CHECK(ex.terminate() == 0);
}

TEST_CASE("a request smuggled behind ambiguous framing is never answered by the real binary") {
  FakeAdbServer adb({});
  TempDir state, conf_dir;
  const std::string password_file = conf_dir.path() + "/password";
  std::ofstream(password_file) << "s3cret-pw\n";
  const std::string conf = write_config(
      conf_dir, "http:\n  basic_auth:\n    username: prometheus\n    password_file: " + password_file + "\n");
  Exporter ex({adb.port()}, state.path(), {"--config", conf});
  // The lowercase scheme is the same scheme (RFC 9110 §11.1).
  const std::string auth = "Authorization: basic cHJvbWV0aGV1czpzM2NyZXQtcHc=\r\n";
  const std::string body = R"({"package":"com.example.feed","id":"smuggled"})";
  const std::string smuggled = "POST /api/runs HTTP/1.1\r\nHost: x\r\n" + auth +
                               "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  for (const std::string te : {"xchunked", "chunked, identity"}) {
    INFO(te);
    const int fd = connect_loopback(ex.port());
    REQUIRE(fd >= 0);
    const std::string request = "POST /api/runs HTTP/1.1\r\nHost: x\r\n" + auth + "Transfer-Encoding: " + te +
                                "\r\nContent-Length: 5\r\n\r\n0\r\n\r\n" + smuggled;
    REQUIRE(::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
    std::string got;
    CHECK(closed_by_server(fd, 5000ms, &got));
    ::close(fd);
    CHECK(got.rfind("HTTP/1.1 400 ", 0) == 0);
    CHECK(got.find("HTTP/1.1 ", 1) == std::string::npos);  // the smuggled request got no answer
  }
  const std::string runs = http_get(ex.port(), "/api/runs", 5000ms, auth);
  CHECK(runs.rfind("HTTP/1.1 200 ", 0) == 0);
  CHECK(runs.find("smuggled") == std::string::npos);
  const std::string metrics = http_get(ex.port(), "/metrics", 5000ms, auth);
  CHECK(metrics.find("\njank_exporter_internal_errors_total{thread=\"http\"} 0\n") != std::string::npos);
  CHECK(ex.alive());
  CHECK(ex.terminate() == 0);
}

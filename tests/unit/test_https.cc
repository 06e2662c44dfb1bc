// HTTPS served by the HTTP server itself, checked with the real curl and
// openssl programs: a real handshake, certificate verification, and the ways
// a client or a configuration can go wrong.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include "exporters/http_server.h"
#include "exporters/prometheus_collector.h"
#include "metrics/sources/skips.h"
#include "metrics/store.h"
#include "tests/unit/test_support.h"

using namespace jank;
namespace fs = std::filesystem;

namespace {

// stdout of a shell command.
std::string run(const std::string& command) {
  std::string out;
  if (FILE* p = ::popen(command.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/jank-tls-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string path;
};

// A self-signed certificate for 127.0.0.1 (an EC key: fast to make).
void make_certificate(const std::string& dir, const std::string& name) {
  run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=jank-test"
      " -addext subjectAltName=IP:127.0.0.1 -keyout " + dir + "/" + name + "-key.pem -out " + dir + "/" + name +
      "-cert.pem 2>/dev/null");
  REQUIRE(fs::exists(dir + "/" + name + "-cert.pem"));
}

int connect_loopback(int port) {
  const int fd = jank::test::connect_loopback(port);
  REQUIRE(fd >= 0);
  return fd;
}

// True when the peer closes `fd` within `ms` (reading and dropping anything it sends).
bool closed_within(int fd, int ms) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  char buf[4096];
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) > 0) {
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("HTTPS: /metrics over TLS, verified by curl", "[http][tls]") {
  TempDir dir;
  make_certificate(dir.path, "server");
  metrics::Store store;
  jank::metrics::record_skip(store, store.device("s1"), "com.a", 0, false, 9);
  auto collector = std::make_shared<exporters::StoreCollector>(store, exporters::input_time_now());
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  options.request_timeout = std::chrono::milliseconds(500);
  options.basic_auth = std::make_pair(std::string("prom"), std::string("s3cret"));
  options.tls = exporters::TlsOptions{dir.path + "/server-cert.pem", dir.path + "/server-key.pem"};
  exporters::HttpServer server(options, exporters::text_source(collector), {});
  const std::string url = "https://127.0.0.1:" + std::to_string(server.ports().at(0));
  const std::string curl = "curl -sS --max-time 10 --cacert " + dir.path + "/server-cert.pem ";

  const std::string body = run(curl + "-u prom:s3cret " + url + "/metrics");
  CHECK_THAT(body, Catch::Contains("android_choreographer_skipped_frames_total{serial=\"s1\",package=\"com.a\"} 9"));
  // Basic auth still applies behind TLS; probes stay open.
  CHECK(run(curl + "-o /dev/null -w '%{http_code}' " + url + "/metrics") == "401");
  CHECK(run(curl + "-o /dev/null -w '%{http_code}' " + url + "/healthz") == "200");
  // TLS 1.1 is refused; an unknown certificate is refused by the client.
  CHECK(run(curl + "--tls-max 1.1 -o /dev/null -w '%{http_code}' " + url + "/healthz 2>/dev/null") == "000");
  CHECK(run("curl -s --max-time 10 -o /dev/null -w '%{http_code}' " + url + "/healthz") == "000");

  // Plain HTTP to the HTTPS port gets no HTTP answer, and the port keeps serving.
  {
    const int fd = connect_loopback(server.ports().at(0));
    const std::string request = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    REQUIRE(::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size()));
    char buf[256] = {};
    const ssize_t n = ::recv(fd, buf, sizeof buf - 1, 0);
    CHECK_THAT(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), !Catch::Contains("HTTP/1.1"));
    ::close(fd);
  }
  // A client that connects and never starts the handshake is dropped after the request timeout.
  {
    const int fd = connect_loopback(server.ports().at(0));
    CHECK(closed_within(fd, 3000));
    ::close(fd);
  }
  CHECK_THAT(run(curl + "-u prom:s3cret " + url + "/metrics"), Catch::Contains("} 9"));
}

TEST_CASE("HTTPS: a file route streams a large file whole over TLS", "[http][tls]") {
  TempDir dir;
  make_certificate(dir.path, "server");
  std::string bytes(5 * 1024 * 1024 + 7, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 131) >> 3);
  { std::ofstream(dir.path + "/big.bin", std::ios::binary) << bytes; }
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  options.tls = exporters::TlsOptions{dir.path + "/server-cert.pem", dir.path + "/server-key.pem"};
  exporters::FileRoute files{"/files/", [&](std::string_view path) {
                               exporters::FileResponse r;
                               r.file = path == "/files/big.bin" ? dir.path + "/big.bin" : dir.path + "/missing";
                               r.attachment = "big.bin";
                               return r;
                             }};
  exporters::HttpServer server(options, {}, {}, nullptr, {}, {files});
  const std::string url = "https://127.0.0.1:" + std::to_string(server.ports().at(0));
  const std::string curl = "curl -sS --max-time 20 --cacert " + dir.path + "/server-cert.pem ";
  const std::string headers = run(curl + "-D - -o " + dir.path + "/out.bin " + url + "/files/big.bin");
  CHECK_THAT(headers, Catch::StartsWith("HTTP/1.1 200"));
  CHECK_THAT(headers, Catch::Contains("Content-Disposition: attachment; filename=\"big.bin\""));
  CHECK(jank::test::read_file(dir.path + "/out.bin") == bytes);
  // A file the route names but that is gone is 404.
  CHECK(run(curl + "-o /dev/null -w '%{http_code}' " + url + "/files/other") == "404");
}

TEST_CASE("HTTPS: missing, unreadable or mismatched files are clear errors", "[http][tls]") {
  TempDir dir;
  make_certificate(dir.path, "a");
  make_certificate(dir.path, "b");
  metrics::Store store;
  auto collector = std::make_shared<exporters::StoreCollector>(store, exporters::input_time_now());
  auto start = [&](const std::string& cert, const std::string& key) {
    exporters::HttpOptions options;
    options.listen_address = "127.0.0.1:0";
    options.tls = exporters::TlsOptions{cert, key};
    exporters::HttpServer server(options, exporters::text_source(collector), {});
  };
  CHECK_THROWS_WITH(start(dir.path + "/none.pem", dir.path + "/a-key.pem"),
                    Catch::Contains("http.tls.certificate_file " + dir.path + "/none.pem"));
  CHECK_THROWS_WITH(start(dir.path + "/a-cert.pem", dir.path + "/none.pem"),
                    Catch::Contains("http.tls.key_file " + dir.path + "/none.pem"));
  CHECK_THROWS_WITH(start(dir.path + "/a-cert.pem", dir.path + "/b-key.pem"), Catch::Contains("b-key.pem") && Catch::Contains("mismatch"));
  CHECK_THROWS_WITH(start(dir.path + "/a-key.pem", dir.path + "/a-key.pem"),
                    Catch::Contains("http.tls.certificate_file"));
  CHECK_NOTHROW(start(dir.path + "/a-cert.pem", dir.path + "/a-key.pem"));
}

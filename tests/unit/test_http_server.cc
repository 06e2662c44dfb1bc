#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <vector>
#include <string>

#include "exporters/http_server.h"
#include "exporters/prometheus_collector.h"
#include "metrics/sources/skips.h"
#include "metrics/store.h"
#include "tests/support/prometheus_text.h"
#include "tests/unit/test_support.h"
#include "metrics/sources/traces.h"

using namespace jank;

namespace {

// One HTTP/1.1 request over loopback; returns the whole response.
std::string http(int port, const std::string& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size()));
  std::string response;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) response.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return response;
}

// Reads to the end: asks the server to close after the response (HTTP/1.1 keeps it open otherwise).
std::string get(int port, const std::string& path, const std::string& extra = "") {
  return http(port, "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" + extra + "\r\n");
}

}  // namespace

TEST_CASE("HTTP server serves metrics, landing page and probes", "[http]") {
  metrics::Store store;
  jank::metrics::record_skip(store, store.device("s1"), "com.a", 0, false, 9);
  auto collector = std::make_shared<exporters::StoreCollector>(store, exporters::input_time_now());
  std::atomic<bool> ready{false};
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  exporters::HttpServer server(options, exporters::text_source(collector), [&] { return ready.load(); });
  REQUIRE(server.ports().size() == 1);
  const int port = server.ports()[0];

  const std::string metrics = get(port, "/metrics");
  CHECK_THAT(metrics, Catch::StartsWith("HTTP/1.1 200"));
  CHECK_THAT(metrics, Catch::Contains("text/plain; version=0.0.4"));
  CHECK_THAT(metrics, Catch::Contains("android_choreographer_skipped_frames_total{serial=\"s1\",package=\"com.a\"} 9"));
  CHECK_THAT(get(port, "/"), Catch::Contains("<a href=\"/metrics\">"));
  CHECK_THAT(get(port, "/healthz"), Catch::StartsWith("HTTP/1.1 200"));
  CHECK_THAT(get(port, "/readyz"), Catch::StartsWith("HTTP/1.1 503"));
  ready = true;
  CHECK_THAT(get(port, "/readyz"), Catch::StartsWith("HTTP/1.1 200"));
  CHECK_THAT(get(port, "/nothing"), Catch::StartsWith("HTTP/1.1 404"));
  CHECK_THAT(http(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
             Catch::StartsWith("HTTP/1.1 405"));
}

TEST_CASE("/metrics?serial= serves one device's series", "[http]") {
  metrics::Store store;
  jank::metrics::record_skip(store, store.device("s1"), "com.a", 0, false, 9);
  jank::metrics::record_skip(store, store.device("emulator-5554"), "com.b", 0, false, 4);
  metrics::DaemonMetrics daemon;
  daemon.version = "t";
  auto collector = std::make_shared<exporters::StoreCollector>(store, exporters::input_time_now(), nullptr, &daemon);
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  exporters::HttpServer server(options, exporters::text_source(collector), {});
  const int port = server.ports()[0];

  const std::string one = get(port, "/metrics?serial=emulator-5554");
  CHECK_THAT(one, Catch::StartsWith("HTTP/1.1 200"));
  CHECK_THAT(one, Catch::Contains("android_choreographer_skipped_frames_total{serial=\"emulator-5554\",package=\"com.b\"} 4"));
  CHECK_THAT(one, !Catch::Contains("serial=\"s1\""));
  CHECK_THAT(one, !Catch::Contains("jank_exporter_build_info"));
  // Percent-encoded serials (network devices have ':') decode.
  jank::metrics::record_skip(store, store.device("10.0.0.7:5555"), "com.c", 0, false, 2);
  CHECK_THAT(get(port, "/metrics?serial=10.0.0.7%3A5555"), Catch::Contains("package=\"com.c\"} 2"));
  // An unknown device has no series; a bad parameter is refused, not read as "all".
  const std::string none = get(port, "/metrics?serial=nope");
  CHECK_THAT(none, Catch::StartsWith("HTTP/1.1 200"));
  CHECK_THAT(none, !Catch::Contains("android_"));
  CHECK_THAT(get(port, "/metrics?serial="), Catch::StartsWith("HTTP/1.1 400"));
  CHECK_THAT(get(port, "/metrics?serial=" + std::string(300, 'x')), Catch::StartsWith("HTTP/1.1 400"));
  // The full exposition still has everything.
  const std::string all = get(port, "/metrics?other=1");
  CHECK_THAT(all, Catch::Contains("serial=\"s1\""));
  CHECK_THAT(all, Catch::Contains("jank_exporter_build_info"));
}

// The same request with two Accept headers: the two formats, each exactly
// the collector's text; the 0.0.4 answer as it has always been.
TEST_CASE("/metrics answers OpenMetrics or the 0.0.4 text by the Accept header", "[http][openmetrics]") {
  using exporters::ExpositionFormat;
  metrics::Store store;
  auto& d = store.device("s1");
  jank::metrics::record_skip(store, d, "com.a", 0, false, 9);
  jank::metrics::trace_state(d).exemplars[{metrics::ExemplarCounter::skipped_frames, "com.a", ""}] = {"s1_com.a_20261124T031502Z_skip", 9,
                                                                                  1'795'000'000'000'000'000};
  jank::metrics::record_skip(store, store.device("s2"), "com.b", 0, false, 4);
  metrics::DaemonMetrics daemon;
  daemon.version = "t";
  auto collector = std::make_shared<exporters::StoreCollector>(store, exporters::input_time_now(), nullptr, &daemon);
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  exporters::HttpServer server(options, exporters::text_source(collector), {});
  const int port = server.ports()[0];
  auto response = [](const char* content_type, const std::string& body) {
    return std::string("HTTP/1.1 200 OK\r\nContent-Type: ") + content_type +
           "\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n" + body;
  };
  const std::string classic = response("text/plain; version=0.0.4; charset=utf-8", collector->Text().str());
  const std::string openmetrics = response("application/openmetrics-text; version=1.0.0; charset=utf-8",
                                           collector->Text(ExpositionFormat::openmetrics_1_0_0).str());
  REQUIRE_THAT(openmetrics, Catch::Contains("# {trace_id=\"s1_com.a_20261124T031502Z_skip\"} 9 1795000000.0\n"));
  REQUIRE_THAT(openmetrics, Catch::EndsWith("\n# EOF\n"));

  const std::string prometheus_accept =
      "Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
      "text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n";
  CHECK(get(port, "/metrics", prometheus_accept) == openmetrics);
  CHECK(get(port, "/metrics", "Accept: text/plain;version=0.0.4\r\n") == classic);
  CHECK(get(port, "/metrics") == classic);  // no Accept header
  CHECK(get(port, "/metrics", "Accept: */*\r\n") == classic);
  CHECK(get(port, "/metrics", "Accept: application/openmetrics-text;q=abc\r\n") == classic);  // malformed
  // Several Accept fields are one list.
  CHECK(get(port, "/metrics", "Accept: text/plain;q=0.1\r\nAccept: application/openmetrics-text\r\n") == openmetrics);
  // One device, and HEAD.
  CHECK(get(port, "/metrics?serial=s2", prometheus_accept) ==
        response("application/openmetrics-text; version=1.0.0; charset=utf-8",
                 collector->Text("s2", ExpositionFormat::openmetrics_1_0_0).str()));
  CHECK(get(port, "/metrics?serial=s2") ==
        response("text/plain; version=0.0.4; charset=utf-8", collector->Text("s2").str()));
  const std::string head =
      http(port, "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + prometheus_accept + "\r\n");
  CHECK(head == openmetrics.substr(0, openmetrics.find("\r\n\r\n") + 4));

  // prometheus-cpp collectables answer in OpenMetrics too.
  exporters::HttpServer cpp_server(options, test::exposition_of({collector}), {});
  const std::string cpp = get(cpp_server.ports()[0], "/metrics", prometheus_accept);
  CHECK_THAT(cpp, Catch::Contains("Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8\r\n"));
  CHECK_THAT(cpp, Catch::Contains("\n# TYPE android_choreographer_skipped_frames counter\n"));
  CHECK_THAT(cpp, Catch::EndsWith("\n# EOF\n"));
  CHECK_THAT(get(cpp_server.ports()[0], "/metrics"), Catch::Contains("Content-Type: text/plain; version=0.0.4"));
}

TEST_CASE("HTTP basic auth guards / and /metrics but not the probes", "[http]") {
  metrics::Store store;
  auto collector = std::make_shared<exporters::StoreCollector>(store, exporters::input_time_now());
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  options.basic_auth = std::make_pair(std::string("prom"), std::string("s3cret"));
  exporters::HttpServer server(options, test::exposition_of({collector}), {});
  const int port = server.ports()[0];
  CHECK_THAT(get(port, "/metrics"), Catch::StartsWith("HTTP/1.1 401"));
  CHECK_THAT(get(port, "/metrics"), Catch::Contains("WWW-Authenticate: Basic"));
  // "prom:wrong" and "prom:s3cret" in base64.
  CHECK_THAT(get(port, "/metrics", "Authorization: Basic cHJvbTp3cm9uZw==\r\n"), Catch::StartsWith("HTTP/1.1 401"));
  CHECK_THAT(get(port, "/metrics", "Authorization: Basic cHJvbTpzM2NyZXQ=\r\n"), Catch::StartsWith("HTTP/1.1 200"));
  CHECK_THAT(get(port, "/healthz"), Catch::StartsWith("HTTP/1.1 200"));
}

TEST_CASE("query parameters are found and percent-decoded", "[http]") {
  using exporters::query_parameter;
  CHECK(!query_parameter("", "serial").present);
  CHECK(!query_parameter("other=1", "serial").present);
  CHECK(query_parameter("a=1&serial=10.0.0.7%3A5555", "serial").value == "10.0.0.7:5555");
  CHECK(query_parameter("serial=a+b", "serial").value == "a b");
  CHECK(query_parameter("serial=", "serial").present);
  CHECK(query_parameter("serial=", "serial").value.empty());
  CHECK(query_parameter("serial", "serial").present);
  CHECK(!query_parameter("serial=%4", "serial").valid);
  CHECK(!query_parameter("serial=%zz", "serial").valid);
  CHECK(!query_parameter("serials=x", "serial").present);
}

TEST_CASE("an address in use is a clear error", "[http]") {
  metrics::Store store;
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  exporters::HttpServer first(options, {}, {});
  options.listen_address = "127.0.0.1:" + std::to_string(first.ports()[0]);
  CHECK_THROWS_WITH(exporters::HttpServer(options, {}, {}), Catch::Contains("cannot listen on 127.0.0.1:"));
}

namespace {

int connect_loopback(int port) {
  const int fd = jank::test::connect_loopback(port);
  REQUIRE(fd >= 0);
  return fd;
}


// True when the server closes `fd` within `ms` (dropping anything it sends).
bool closed_within(int fd, int ms) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  char buf[4096];
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) > 0 && ::recv(fd, buf, sizeof buf, 0) <= 0) return true;
  }
  return false;
}

void send_all(int fd, const std::string& s) {
  REQUIRE(::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size()));
}

}  // namespace

TEST_CASE("HTTP/1.1 keeps a connection alive until its idle timeout", "[http]") {
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  options.idle_timeout = std::chrono::milliseconds(300);
  exporters::HttpServer server(options, {}, {});
  const int fd = connect_loopback(server.ports()[0]);
  for (int i = 0; i < 3; ++i) {
    send_all(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string r = test::read_response(fd);
    CHECK_THAT(r, Catch::StartsWith("HTTP/1.1 200"));
    CHECK_THAT(r, Catch::Contains("Connection: keep-alive"));
  }
  // Two pipelined requests are answered in order (one read may bring both answers).
  const auto t0 = std::chrono::steady_clock::now();
  send_all(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /nothing HTTP/1.1\r\nHost: x\r\n\r\n");
  std::string both = test::read_response(fd);
  if (both.find("404") == std::string::npos) both += test::read_response(fd);
  CHECK_THAT(both, Catch::StartsWith("HTTP/1.1 200"));
  CHECK_THAT(both, Catch::Contains("HTTP/1.1 404"));
  // Closed once idle for 300 ms after the last answer, which came after t0.
  CHECK(closed_within(fd, 3000));
  CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(300));
  ::close(fd);
  // HEAD: the head alone.
  const std::string head = http(server.ports()[0], "HEAD /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK_THAT(head, Catch::StartsWith("HTTP/1.1 200"));
  CHECK_THAT(head, Catch::EndsWith("\r\n\r\n"));
}

TEST_CASE("oversized requests get 413, malformed ones 400, slow ones are dropped", "[http]") {
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  options.request_timeout = std::chrono::milliseconds(400);
  exporters::HttpServer server(options, {}, {});
  const int port = server.ports()[0];
  CHECK_THAT(get(port, "/healthz", "X-Big: " + std::string(100'000, 'a') + "\r\n"), Catch::StartsWith("HTTP/1.1 413"));
  CHECK_THAT(get(port, "/metrics?" + std::string(20'000, 'a')), Catch::StartsWith("HTTP/1.1 413"));
  CHECK_THAT(http(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + std::string(100'000, 'b')),
             Catch::StartsWith("HTTP/1.1 413"));
  CHECK_THAT(http(port, "GARBAGE\r\n\r\n"), Catch::StartsWith("HTTP/1.1 400"));
  CHECK_THAT(http(port, "GET /healthz HTTP/1.1\r\nHost x\r\n\r\n"), Catch::StartsWith("HTTP/1.1 400"));
  // A request that never ends, and a connection that never sends: dropped at the request timeout.
  const int slow = connect_loopback(port);
  send_all(slow, "GET /metrics HTTP/1.1\r\nHost: x\r\n");
  const int silent = connect_loopback(port);
  CHECK(closed_within(slow, 3000));
  CHECK(closed_within(silent, 3000));
  ::close(slow);
  ::close(silent);
  CHECK_THAT(get(port, "/healthz"), Catch::StartsWith("HTTP/1.1 200"));
}

TEST_CASE("a full server closes its longest-idle connection to admit a new one", "[http]") {
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  options.max_connections = 3;
  exporters::HttpServer server(options, {}, {});
  const int port = server.ports()[0];
  std::vector<int> fds;
  for (int i = 0; i < 3; ++i) {
    fds.push_back(connect_loopback(port));
    send_all(fds.back(), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    REQUIRE_THAT(test::read_response(fds.back()), Catch::StartsWith("HTTP/1.1 200"));
  }
  // A request in progress is not idle: the second connection starts one.
  send_all(fds[1], "GET /healthz HTTP/1.1\r\n");
  ::usleep(100'000);
  // A fourth connection evicts the first (idle longest), and is served; it stays, idle.
  fds.push_back(connect_loopback(port));
  send_all(fds.back(), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK_THAT(test::read_response(fds.back()), Catch::StartsWith("HTTP/1.1 200"));
  CHECK(closed_within(fds[0], 2000));
  // The next one evicts the third (idle longer than the fourth); the second,
  // mid-request, stays and finishes its request.
  CHECK_THAT(get(port, "/healthz"), Catch::StartsWith("HTTP/1.1 200"));
  CHECK(closed_within(fds[2], 2000));
  send_all(fds[1], "Host: x\r\n\r\n");
  CHECK_THAT(test::read_response(fds[1]), Catch::StartsWith("HTTP/1.1 200"));
  for (int fd : fds) ::close(fd);
}

TEST_CASE("a new server on the same address takes over the listening socket", "[http]") {
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  auto old_server = std::make_unique<exporters::HttpServer>(options, exporters::HttpServer::MetricsSource{}, std::function<bool()>{});
  const int port = old_server->ports()[0];
  const int kept = connect_loopback(port);  // served by the old server, then idle there
  send_all(kept, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  REQUIRE_THAT(test::read_response(kept), Catch::StartsWith("HTTP/1.1 200"));
  options.basic_auth = std::make_pair(std::string("prom"), std::string("new"));
  // "127.0.0.1:0" names the same address: the new server shares the old socket, both listening meanwhile.
  auto new_server = std::make_unique<exporters::HttpServer>(options, exporters::HttpServer::MetricsSource{},
                                                            std::function<bool()>{}, old_server.get());
  CHECK(new_server->ports()[0] == port);
  old_server.reset();
  CHECK(closed_within(kept, 2000));
  ::close(kept);
  CHECK_THAT(get(port, "/metrics"), Catch::StartsWith("HTTP/1.1 401"));
  CHECK_THAT(get(port, "/metrics", "Authorization: Basic cHJvbTpuZXc=\r\n"), Catch::StartsWith("HTTP/1.1 200"));
  // Without `previous`, the port in use is refused as before.
  exporters::HttpOptions other;
  other.listen_address = "127.0.0.1:" + std::to_string(port);
  CHECK_THROWS_WITH(exporters::HttpServer(other, {}, {}), Catch::Contains("cannot listen on"));
}

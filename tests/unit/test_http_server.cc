#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>

#include "exporters/http_server.h"
#include "exporters/prometheus_collector.h"
#include "metrics/store.h"

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

std::string get(int port, const std::string& path, const std::string& extra = "") {
  return http(port, "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n" + extra + "\r\n");
}

}  // namespace

TEST_CASE("HTTP server serves metrics, landing page and probes", "[http]") {
  metrics::Store store;
  store.record_skip(store.device("s1"), "com.a", 0, false, 9);
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
  CHECK_THAT(http(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"),
             Catch::StartsWith("HTTP/1.1 405"));
}

TEST_CASE("/metrics?serial= serves one device's series", "[http]") {
  metrics::Store store;
  store.record_skip(store.device("s1"), "com.a", 0, false, 9);
  store.record_skip(store.device("emulator-5554"), "com.b", 0, false, 4);
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
  store.record_skip(store.device("10.0.0.7:5555"), "com.c", 0, false, 2);
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

TEST_CASE("HTTP basic auth guards / and /metrics but not the probes", "[http]") {
  metrics::Store store;
  auto collector = std::make_shared<exporters::StoreCollector>(store, exporters::input_time_now());
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  options.basic_auth = std::make_pair(std::string("prom"), std::string("s3cret"));
  exporters::HttpServer server(options, exporters::exposition_of({collector}), {});
  const int port = server.ports()[0];
  CHECK_THAT(get(port, "/metrics"), Catch::StartsWith("HTTP/1.1 401"));
  CHECK_THAT(get(port, "/metrics"), Catch::Contains("WWW-Authenticate: Basic"));
  // "prom:wrong" and "prom:s3cret" in base64.
  CHECK_THAT(get(port, "/metrics", "Authorization: Basic cHJvbTp3cm9uZw==\r\n"), Catch::StartsWith("HTTP/1.1 401"));
  CHECK_THAT(get(port, "/metrics", "Authorization: Basic cHJvbTpzM2NyZXQ=\r\n"), Catch::StartsWith("HTTP/1.1 200"));
  CHECK_THAT(get(port, "/healthz"), Catch::StartsWith("HTTP/1.1 200"));
}

TEST_CASE("listen addresses map to civetweb's syntax", "[http]") {
  CHECK(exporters::civetweb_listening_ports(":9789") == "9789");
  CHECK(exporters::civetweb_listening_ports("127.0.0.1:9789") == "127.0.0.1:9789");
  CHECK(exporters::civetweb_listening_ports("[::]:9789") == "+[::]:9789");
}

TEST_CASE("an address in use is a clear error", "[http]") {
  metrics::Store store;
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  exporters::HttpServer first(options, {}, {});
  options.listen_address = "127.0.0.1:" + std::to_string(first.ports()[0]);
  CHECK_THROWS_WITH(exporters::HttpServer(options, {}, {}), Catch::Contains("cannot listen on 127.0.0.1:"));
}

// Hostile bytes never stop the HTTP server (issue 28): a handler that
// throws costs one request, request framing that a proxy could read
// otherwise is refused and the connection closed, the auth scheme is
// case-insensitive, and a file served is the regular file named.
#include <catch2/catch.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/api/runs_api.h"
#include "app/core/shared_state.h"
#include "exporters/http_server.h"
#include "exporters/prometheus_collector.h"
#include "exporters/regular_file.h"
#include "tests/unit/test_support.h"

using namespace jank;

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kNow = 1'800'000'000'000'000'000;

int connect_to(int port) {
  const int fd = test::connect_loopback(port);
  REQUIRE(fd >= 0);
  return fd;
}

void send_all(int fd, const std::string& s) {
  REQUIRE(::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size()));
}


// Everything the server sends until it closes the connection; `closed` is
// false when it did not close within `ms`.
std::string read_until_closed(int fd, bool& closed, int ms = 3000) {
  std::string got;
  closed = false;
  const auto end = Clock::now() + std::chrono::milliseconds(ms);
  while (Clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      closed = true;
      break;
    }
    got.append(buf, static_cast<std::size_t>(n));
  }
  return got;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string body_of(const std::string& response) {
  const auto end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

std::string get_request(const std::string& path, const std::string& extra = "") {
  return "GET " + path + " HTTP/1.1\r\nHost: x\r\n" + extra + "\r\n";
}

}  // namespace

TEST_CASE("a handler that throws is answered 500, reported, and the server goes on serving", "[http][hostile]") {
  std::atomic<bool> fail{false};
  std::mutex mutex;
  std::vector<std::pair<std::string, std::string>> reports;  // path, what
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  options.on_handler_error = [&](std::string_view path, std::string_view what) {
    std::lock_guard<std::mutex> lock(mutex);
    reports.emplace_back(path, what);
  };
  auto metrics = [&](std::string_view, exporters::ExpositionFormat format) {
    if (fail) throw std::runtime_error("collector failed");
    exporters::Exposition e;
    exporters::finish_exposition(e, format);
    return e;
  };
  auto ready = [&]() -> bool {
    if (fail) throw std::runtime_error("ready failed");
    return true;
  };
  auto api = [&](const exporters::ApiRequest& r) {
    if (r.path == "/api/boom") throw std::out_of_range("api failed");
    if (r.path == "/api/int") throw 42;  // not a std::exception
    return exporters::ApiResponse{200, "application/json", "{}"};
  };
  exporters::FileRoute files{"/files/", [&](std::string_view path) {
                               if (path == "/files/boom") throw std::runtime_error("route failed");
                               exporters::FileResponse r;
                               r.body = "file";
                               return r;
                             }};
  exporters::HttpServer server(options, metrics, ready, nullptr, api, {files});
  const int fd = connect_to(server.ports()[0]);
  // Each failure, then a request that succeeds, on the same kept-alive connection.
  const std::pair<std::string, std::string> steps[] = {
      {"/api/boom", "/api/ok"}, {"/api/int", "/api/ok"}, {"/files/boom", "/files/ok"}};
  for (const auto& [bad, good] : steps) {
    INFO(bad);
    send_all(fd, get_request(bad));
    const std::string r = test::read_response(fd);
    CHECK_THAT(r, Catch::StartsWith("HTTP/1.1 500 Internal Server Error\r\n"));
    CHECK_THAT(r, Catch::Contains("Connection: keep-alive"));
    if (bad.starts_with("/api/")) {
      CHECK_THAT(r, Catch::Contains("Content-Type: application/json\r\n"));
      CHECK(body_of(r) == "{\"error\":\"internal error\"}\n");
    } else {
      CHECK(body_of(r) == "internal error\n");
    }
    send_all(fd, get_request(good));
    CHECK_THAT(test::read_response(fd), Catch::StartsWith("HTTP/1.1 200"));
  }
  fail = true;
  for (const char* path : {"/metrics", "/readyz"}) {
    INFO(path);
    send_all(fd, get_request(path));
    const std::string r = test::read_response(fd);
    CHECK_THAT(r, Catch::StartsWith("HTTP/1.1 500"));
    CHECK(body_of(r) == "internal error\n");
  }
  fail = false;
  send_all(fd, get_request("/metrics"));
  CHECK_THAT(test::read_response(fd), Catch::StartsWith("HTTP/1.1 200"));
  send_all(fd, get_request("/readyz"));
  CHECK_THAT(test::read_response(fd), Catch::StartsWith("HTTP/1.1 200"));
  ::close(fd);

  std::lock_guard<std::mutex> lock(mutex);
  const std::vector<std::pair<std::string, std::string>> expected{{"/api/boom", "api failed"},
                                                                  {"/api/int", "unknown exception"},
                                                                  {"/files/boom", "route failed"},
                                                                  {"/metrics", "collector failed"},
                                                                  {"/readyz", "ready failed"}};
  CHECK(reports == expected);
}

TEST_CASE("the daemon's count of errors caught at its barriers is exported, every thread from 0", "[http][exporter]") {
  metrics::Store store;
  metrics::DaemonMetrics daemon;
  daemon.version = "t";
  daemon.internal_errors["http"] = 3;
  exporters::StoreCollector collector(store, exporters::input_time_now(), nullptr, &daemon);
  const std::string text = collector.Text().str();
  CHECK_THAT(text, Catch::Contains("# TYPE jank_exporter_internal_errors_total counter\n"));
  CHECK_THAT(text, Catch::Contains("\njank_exporter_internal_errors_total{thread=\"http\"} 3\n"));
  CHECK_THAT(text, Catch::Contains("\njank_exporter_internal_errors_total{thread=\"io\"} 0\n"));
  CHECK_THAT(text, Catch::Contains("\njank_exporter_internal_errors_total{thread=\"trace_writer\"} 0\n"));
}

namespace {

// The runs API on a real server, a device followed: a POST /api/runs that
// gets through creates a run.
struct RunsServer {
  RunsServer() : shared(metrics::StoreOptions{}), api(shared, [] { return kNow; }, [](std::vector<std::string>) {}) {
    auto& d = shared.store.device("emulator-5554");
    d.live.live = true;
    d.live.state = metrics::DeviceState::following;
    exporters::HttpOptions options;
    options.listen_address = "127.0.0.1:0";
    server = std::make_unique<exporters::HttpServer>(
        options, exporters::HttpServer::MetricsSource{}, std::function<bool()>{}, nullptr,
        [this](const exporters::ApiRequest& r) { return api.handle(r); });
    port = server->ports()[0];
  }
  std::size_t runs() {
    std::lock_guard<std::mutex> lock(shared.mutex);
    return shared.runs.runs().size();
  }
  app::SharedState shared;
  app::RunsApi api;
  std::unique_ptr<exporters::HttpServer> server;
  int port = 0;
};

const std::string kRunBody = R"({"package":"com.a"})";
// A whole POST /api/runs, to hide inside another request's body.
const std::string kSmuggled = "POST /api/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
                              std::to_string(kRunBody.size()) + "\r\n\r\n" + kRunBody;

}  // namespace

TEST_CASE("ambiguous request framing is refused with 400 and the connection closed: nothing smuggled runs",
          "[http][hostile][runs]") {
  RunsServer s;
  const std::string post = "POST /api/runs HTTP/1.1\r\nHost: x\r\n";
  // "0\r\n\r\n" ends a chunked body: a proxy that reads the request as
  // chunked sees the smuggled request as the next one, and so would a server
  // that framed by the 5-byte Content-Length.
  const std::string chunked_end = "0\r\n\r\n";
  const std::vector<std::string> requests{
      post + "Transfer-Encoding: xchunked\r\nContent-Length: 5\r\n\r\n" + chunked_end + kSmuggled,
      post + "Transfer-Encoding: chunked, identity\r\nContent-Length: 5\r\n\r\n" + chunked_end + kSmuggled,
      post + "Content-Length: 5\r\nTransfer-Encoding: chunked, identity\r\n\r\n" + chunked_end + kSmuggled,
      post + "Transfer-Encoding: gzip\r\n\r\n" + kSmuggled,  // no length at all: the body was read as empty
      post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n" + chunked_end + kSmuggled,
      post + "Transfer-Encoding: identity\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked_end + kSmuggled,
      post + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n" + chunked_end + kSmuggled,
      post + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked_end + kSmuggled,
      "POST /api/runs HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n" +
          chunked_end + kSmuggled,
  };
  for (const std::string& request : requests) {
    INFO(request.substr(0, request.find("\r\n\r\n")));
    const int fd = connect_to(s.port);
    send_all(fd, request);
    bool closed = false;
    const std::string got = read_until_closed(fd, closed);
    ::close(fd);
    CHECK_THAT(got, Catch::StartsWith("HTTP/1.1 400 Bad Request\r\n"));
    CHECK(count_of(got, "HTTP/1.1 ") == 1);
    CHECK_THAT(got, Catch::Contains("Connection: close\r\n"));
    CHECK(closed);
    CHECK(s.runs() == 0);
  }
  // Chunked alone is framing the server reads: the run starts.
  const int fd = connect_to(s.port);
  char size[16];
  std::snprintf(size, sizeof size, "%zx", kRunBody.size());
  send_all(fd, post + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + size + "\r\n" + kRunBody + "\r\n" +
                   chunked_end);
  bool closed = false;
  CHECK_THAT(read_until_closed(fd, closed), Catch::StartsWith("HTTP/1.1 201"));
  ::close(fd);
  CHECK(s.runs() == 1);
}

TEST_CASE("every 400 and 413 closes the connection: a request pipelined behind one is not read", "[http][hostile][runs]") {
  RunsServer s;
  const std::vector<std::pair<std::string, std::string>> requests{
      // A body the API refuses (400), then a good request on the same connection.
      {"POST /api/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\nnot json", "400"},
      {"GET /metrics?serial= HTTP/1.1\r\nHost: x\r\n\r\n", "400"},
      {"GET /api/runs/%ff HTTP/1.1\r\nHost: x\r\n\r\n", "400"},
      {"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20'000, 'a') + "\r\n\r\n", "413"},
  };
  for (const auto& [request, status] : requests) {
    INFO(request.substr(0, 40));
    const int fd = connect_to(s.port);
    send_all(fd, request + kSmuggled);
    bool closed = false;
    const std::string got = read_until_closed(fd, closed);
    ::close(fd);
    CHECK_THAT(got, Catch::StartsWith("HTTP/1.1 " + status));
    CHECK(count_of(got, "HTTP/1.1 ") == 1);
    CHECK(closed);
    CHECK(s.runs() == 0);
  }
}

TEST_CASE("the Basic auth scheme is case-insensitive and the credentials may follow after several blanks",
          "[http][hostile]") {
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  options.basic_auth = std::make_pair(std::string("prom"), std::string("s3cret"));
  exporters::HttpServer server(options, exporters::HttpServer::MetricsSource{}, {});
  const int port = server.ports()[0];
  auto status = [&](const std::string& authorization) {
    const int fd = connect_to(port);
    send_all(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: " + authorization + "\r\n\r\n");
    const std::string r = test::read_response(fd);
    ::close(fd);
    return r.substr(0, 12);
  };
  // base64("prom:s3cret"), base64("prom:wrong")
  const std::string good = "cHJvbTpzM2NyZXQ=", wrong = "cHJvbTp3cm9uZw==";
  for (const std::string& a : std::vector<std::string>{"Basic " + good, "basic " + good, "BASIC " + good, "bAsIc " + good,
                               "Basic   " + good, "Basic \t " + good, "basic\t" + good, "Basic " + good + "  "}) {
    INFO(a);
    CHECK(status(a) == "HTTP/1.1 200");
  }
  for (const std::string& a : std::vector<std::string>{"Basic " + wrong, "basic " + wrong, "Basic", "Basic ", "Basicx " + good,
                               "Bearer " + good, good, "Basic " + good + "x", "Basic " + good + "=AAAA",
                               "Basic " + good + " x", "Basic cHJvbTpzM2Ny ZXQ="}) {
    INFO(a);
    CHECK(status(a) == "HTTP/1.1 401");
  }
}

TEST_CASE("open_regular_file opens regular files only: not through a symlink, and a FIFO does not block",
          "[http][hostile]") {
  test::TempDir dir;
  const std::string file = dir.path() + "/file", link = dir.path() + "/link", fifo = dir.path() + "/fifo";
  std::ofstream(file) << "hello";
  std::filesystem::create_symlink(file, link);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);

  std::uint64_t size = 0;
  const int fd = exporters::open_regular_file(file, &size);
  CHECK(fd >= 0);
  CHECK(size == 5);
  if (fd >= 0) ::close(fd);
  const auto t0 = Clock::now();
  for (const std::string& path : std::vector<std::string>{link, fifo, dir.path(), dir.path() + "/missing"}) {
    INFO(path);
    CHECK(exporters::open_regular_file(path) == -1);
  }
  CHECK(Clock::now() - t0 < std::chrono::seconds(1));
  std::string out;
  CHECK(exporters::read_regular_file(file, 5, out));
  CHECK(out == "hello");
  CHECK_FALSE(exporters::read_regular_file(file, 4, out));  // larger than allowed
  CHECK_FALSE(exporters::read_regular_file(link, 100, out));
  CHECK_FALSE(exporters::read_regular_file(fifo, 100, out));
}

// The HTTP server's file routes as the pages use them: an exact "/", prefix
// routes in order after /metrics and /api/, extra response headers (checked:
// a bad one is a 500, never a header of its own), and the built-in landing
// page when no route takes "/".
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "exporters/http_server.h"
#include "tests/unit/test_support.h"

using namespace jank;

namespace {

std::string get(int port, const std::string& path, const std::string& extra = "") {
  const int fd = test::connect_loopback(port);
  REQUIRE(fd >= 0);
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + extra + "\r\n";
  REQUIRE(::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
  std::string out;
  char buf[8192];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return out;
}

std::string head_of(const std::string& response) { return response.substr(0, response.find("\r\n\r\n") + 2); }
std::string body_of(const std::string& response) { return response.substr(response.find("\r\n\r\n") + 4); }

exporters::FileRoute route(std::string prefix, bool exact, std::string body,
                           std::vector<std::pair<std::string, std::string>> headers = {}) {
  exporters::FileRoute r;
  r.prefix = std::move(prefix);
  r.exact = exact;
  r.handler = [body = std::move(body), headers = std::move(headers)](std::string_view path) {
    exporters::FileResponse f;
    f.content_type = "text/html; charset=utf-8";
    f.body = body + " " + std::string(path);
    f.headers = headers;
    return f;
  };
  return r;
}

struct Server {
  explicit Server(std::vector<exporters::FileRoute> routes,
                  std::optional<std::pair<std::string, std::string>> auth = std::nullopt) {
    exporters::HttpOptions options;
    options.listen_address = "127.0.0.1:0";
    options.basic_auth = std::move(auth);
    server = std::make_unique<exporters::HttpServer>(
        options, nullptr, [] { return true; }, nullptr,
        [](const exporters::ApiRequest&) { return exporters::ApiResponse{200, "application/json", "{}"}; },
        std::move(routes));
    port = server->ports().at(0);
  }
  std::unique_ptr<exporters::HttpServer> server;
  int port = 0;
};

}  // namespace

TEST_CASE("file routes: an exact root and prefix routes after /metrics and /api/", "[http][routes]") {
  Server s({route("/", true, "home"), route("/devices/", false, "device"),
            route("/", false, "catch-all")});
  CHECK(body_of(get(s.port, "/")) == "home /");
  CHECK(body_of(get(s.port, "/devices/sim0")) == "device /devices/sim0");
  // The first route that matches answers; the exact one takes only "/".
  CHECK(body_of(get(s.port, "/elsewhere")) == "catch-all /elsewhere");
  // Neither takes what the server answers itself.
  CHECK(body_of(get(s.port, "/healthz")) == "ok\n");
  CHECK(get(s.port, "/metrics").rfind("HTTP/1.1 200", 0) == 0);
  CHECK(body_of(get(s.port, "/metrics")).find("catch-all") == std::string::npos);
  CHECK(body_of(get(s.port, "/api/devices")) == "{}");
}

TEST_CASE("file routes: without a route for the root the landing page stays and unknown paths are 404",
          "[http][routes]") {
  Server s({route("/devices/", false, "device")});
  const std::string home = get(s.port, "/");
  CHECK(home.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(body_of(home).find("<h1>jank_exporter</h1>") != std::string::npos);
  CHECK(get(s.port, "/other").rfind("HTTP/1.1 404", 0) == 0);
  CHECK(get(s.port, "/devices").rfind("HTTP/1.1 404", 0) == 0);  // the prefix is "/devices/"
}

TEST_CASE("file routes: extra headers are sent and a route's Cache-Control replaces no-store", "[http][routes]") {
  Server s({route("/", true, "home", {{"Content-Security-Policy", "default-src 'none'"}, {"X-Frame-Options", "DENY"}}),
            route("/assets/", false, "js", {{"Cache-Control", "max-age=3600"}})});
  const std::string home = head_of(get(s.port, "/"));
  CHECK(home.find("\r\nContent-Security-Policy: default-src 'none'\r\n") != std::string::npos);
  CHECK(home.find("\r\nX-Frame-Options: DENY\r\n") != std::string::npos);
  CHECK(home.find("\r\nCache-Control: no-store\r\n") != std::string::npos);
  CHECK(home.find("\r\nContent-Type: text/html; charset=utf-8\r\n") != std::string::npos);
  const std::string asset = head_of(get(s.port, "/assets/live.js"));
  CHECK(asset.find("\r\nCache-Control: max-age=3600\r\n") != std::string::npos);
  CHECK(asset.find("no-store") == std::string::npos);
}

TEST_CASE("file routes: a header with CR or LF or a bad name or one the server writes is a 500 and never a header",
          "[http][routes]") {
  const std::vector<std::vector<std::pair<std::string, std::string>>> bad = {
      {{"X-Test", "a\r\nSet-Cookie: stolen=1"}},
      {{"X-Test", "a\nb"}},
      {{"X-Test", std::string("a\0b", 3)}},
      {{"X Test", "a"}},
      {{"X-Test:", "a"}},
      {{"", "a"}},
      {{"Content-Length", "0"}},
      {{"content-type", "text/plain"}},
      {{"Connection", "close"}},
      {{"Transfer-Encoding", "chunked"}},
  };
  for (const auto& headers : bad) {
    INFO(headers[0].first << ": " << headers[0].second);
    Server s({route("/", true, "home", headers)});
    const std::string r = get(s.port, "/");
    CHECK(r.rfind("HTTP/1.1 500", 0) == 0);
    CHECK(r.find("Set-Cookie") == std::string::npos);
    CHECK(body_of(r) == "bad response header\n");
  }
  // A content type with a line break is refused the same way.
  exporters::FileRoute broken{"/x", [](std::string_view) {
                                exporters::FileResponse f;
                                f.content_type = "text/html\r\nX-Injected: 1";
                                return f;
                              }, true};
  Server s({broken});
  const std::string r = get(s.port, "/x");
  CHECK(r.rfind("HTTP/1.1 500", 0) == 0);
  CHECK(r.find("X-Injected") == std::string::npos);
  // A tab is allowed in a value.
  Server ok({route("/", true, "home", {{"X-Test", "a\tb"}})});
  CHECK(get(ok.port, "/").rfind("HTTP/1.1 200", 0) == 0);
}

TEST_CASE("file routes take the same basic auth as /metrics", "[http][routes]") {
  Server s({route("/", true, "home"), route("/assets/", false, "js")}, std::make_pair(std::string("u"), std::string("p")));
  CHECK(get(s.port, "/").rfind("HTTP/1.1 401", 0) == 0);
  CHECK(get(s.port, "/assets/live.css").rfind("HTTP/1.1 401", 0) == 0);
  CHECK(get(s.port, "/healthz").rfind("HTTP/1.1 200", 0) == 0);
  const std::string auth = "Authorization: Basic dTpw\r\n";  // u:p
  CHECK(body_of(get(s.port, "/", auth)) == "home /");
  CHECK(body_of(get(s.port, "/assets/live.css", auth)) == "js /assets/live.css");
}

TEST_CASE("percent_decode decodes a path and refuses a malformed escape", "[http][routes]") {
  CHECK(exporters::percent_decode("192.168.1.5%3A5555") == std::optional<std::string>("192.168.1.5:5555"));
  CHECK(exporters::percent_decode("a+b%20c%2f") == std::optional<std::string>("a+b c/"));
  CHECK(exporters::percent_decode("") == std::optional<std::string>(""));
  CHECK_FALSE(exporters::percent_decode("a%2").has_value());
  CHECK_FALSE(exporters::percent_decode("a%g0").has_value());
  CHECK_FALSE(exporters::percent_decode("%").has_value());
}

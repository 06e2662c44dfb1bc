// /traces/ on a real server over loopback: the list, downloads streamed
// byte for byte, the ids refused, auth, HEAD, and a trace removed mid-send.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/api/trace_routes.h"
#include "app/daemon/trace_service.h"
#include "app/core/trace_store.h"
#include "exporters/http_server.h"
#include "tests/unit/test_support.h"

using namespace jank;
using Json = nlohmann::json;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kT0 = 1'795'490'102 * kSec;  // 2026-11-24T03:15:02Z

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  std::string header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

Response parse(const std::string& raw) {
  Response r;
  const auto end = raw.find("\r\n\r\n");
  if (raw.size() < 12 || end == std::string::npos) return r;
  r.status = std::stoi(raw.substr(9, 3));
  std::size_t at = raw.find("\r\n") + 2;
  while (at < end) {
    const auto eol = raw.find("\r\n", at);
    const std::string line = raw.substr(at, eol - at);
    const auto colon = line.find(':');
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    r.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
    at = eol + 2;
  }
  r.body = raw.substr(end + 4);
  return r;
}

// A socket with a small receive buffer: the server cannot push a large file
// into the kernel ahead of the test.
int connect_small(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  const int size = 4096;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  return fd;
}

void send_all(int fd, const std::string& text) {
  REQUIRE(::send(fd, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size()));
}

std::string read_to_end(int fd) {
  std::string out;
  char buf[65536];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  return out;
}

Response request(int port, const std::string& method, const std::string& path, const std::string& extra = "") {
  const int fd = test::connect_loopback(port);
  REQUIRE(fd >= 0);
  send_all(fd, method + " " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + extra + "\r\n");
  const std::string raw = read_to_end(fd);
  ::close(fd);
  return parse(raw);
}

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(gen() & 0xFF);
  return out;
}

metrics::StoredTrace meta(std::string serial, std::int64_t at_ns) {
  metrics::StoredTrace t;
  t.serial = std::move(serial);
  t.package = "com.example.feed";
  t.rule = "skip";
  t.triggered_at_ns = at_ns;
  return t;
}

// A store on a temporary directory served by a real server on loopback.
struct Served {
  explicit Served(exporters::HttpOptions options = {}, metrics::TraceLimits limits = {})
      : store(std::make_shared<app::TraceStore>(dir.path(), limits, [] { return kT0 + 60 * kSec; })) {
    std::string error;
    REQUIRE(store->open(error));
    options.listen_address = "127.0.0.1:0";
    server = std::make_unique<exporters::HttpServer>(options, nullptr, nullptr, nullptr, nullptr,
                                                     std::vector<exporters::FileRoute>{app::traces_route(store)});
    port = server->ports().at(0);
  }
  test::TempDir dir;
  std::shared_ptr<app::TraceStore> store;
  std::unique_ptr<exporters::HttpServer> server;
  int port = 0;
};

}  // namespace

TEST_CASE("GET /traces/ lists the traces newest first with their urls", "[http][traces]") {
  Served s;
  CHECK(request(s.port, "GET", "/traces/").body == "{\"traces\":[]}\n");
  const auto older = s.store->save("aaaa", meta("emulator-5554", kT0));
  const auto newer = s.store->save("bbbbbb", meta("emulator-5554", kT0 + kSec));
  REQUIRE((older.ok() && newer.ok()));
  const Response r = request(s.port, "GET", "/traces/");
  CHECK(r.status == 200);
  CHECK(r.header("content-type") == "application/json");
  const Json j = Json::parse(r.body);
  REQUIRE(j["traces"].size() == 2);
  CHECK(j["traces"][0]["id"] == newer.id);
  CHECK(j["traces"][0]["url"] == "/traces/" + newer.id + ".pftrace");
  CHECK(j["traces"][0]["bytes"] == 6);
  CHECK(j["traces"][0]["serial"] == "emulator-5554");
  CHECK(j["traces"][0]["triggered_at"] == "2026-11-24T03:15:03.000Z");
  CHECK(j["traces"][1]["id"] == older.id);
  // A query string changes nothing.
  CHECK(request(s.port, "GET", "/traces/?x=1").body == r.body);
}

TEST_CASE("a multi-MiB trace downloads byte for byte as an attachment", "[http][traces]") {
  Served s;
  const std::string bytes = random_bytes(6 * 1024 * 1024 + 123, 7);
  const auto saved = s.store->save(bytes, meta("emulator-5554", kT0));
  REQUIRE(saved.ok());
  const Response r = request(s.port, "GET", "/traces/" + saved.id + ".pftrace");
  CHECK(r.status == 200);
  CHECK(r.header("content-type") == "application/octet-stream");
  CHECK(r.header("content-length") == std::to_string(bytes.size()));
  CHECK(r.header("content-disposition") == "attachment; filename=\"" + saved.id + ".pftrace\"");
  CHECK(r.body.size() == bytes.size());
  CHECK(r.body == bytes);
  // HEAD: the same head, no body.
  const Response head = request(s.port, "HEAD", "/traces/" + saved.id + ".pftrace");
  CHECK(head.status == 200);
  CHECK(head.header("content-length") == std::to_string(bytes.size()));
  CHECK(head.header("content-disposition") == r.header("content-disposition"));
  CHECK(head.body.empty());
  const Response list_head = request(s.port, "HEAD", "/traces/");
  CHECK(list_head.status == 200);
  CHECK(list_head.body.empty());
}

TEST_CASE("two downloads on one kept-alive connection each arrive whole", "[http][traces]") {
  Served s;
  const std::string bytes = random_bytes(300 * 1024, 3);
  const auto saved = s.store->save(bytes, meta("s", kT0));
  const int fd = test::connect_loopback(s.port);
  REQUIRE(fd >= 0);
  const std::string get = "GET /traces/" + saved.id + ".pftrace HTTP/1.1\r\nHost: x\r\n\r\n";
  send_all(fd, get + get.substr(0, get.size() - 2) + "Connection: close\r\n\r\n");
  const std::string raw = read_to_end(fd);
  ::close(fd);
  // The first response ends where its Content-Length says.
  const std::size_t second = raw.find("\r\n\r\n") + 4 + bytes.size();
  REQUIRE(raw.size() > second);
  const Response one = parse(raw.substr(0, second));
  CHECK(one.header("connection") == "keep-alive");
  CHECK(one.body == bytes);
  CHECK(parse(raw.substr(second)).body == bytes);
}

TEST_CASE("trace ids outside the rule and unknown traces are 404 and other methods 405", "[http][traces]") {
  Served s;
  const auto saved = s.store->save("abc", meta("s", kT0));
  REQUIRE(saved.ok());
  for (const std::string& path : std::vector<std::string>{"/traces/../x", "/traces/%2e%2e/x", "/traces/%2e%2e.pftrace", "/traces/..%2f" + saved.id + ".pftrace",
        "/traces/" + saved.id, "/traces/" + saved.id + ".json", "/traces/nope.pftrace", "/traces/..pftrace",
        "/traces/a/" + saved.id + ".pftrace", "/traces/" + saved.id + ".pftrace/", "/traces/.pftrace",
        "/traces/a..b.pftrace", "/traces//etc/passwd"}) {
    INFO(path);
    const Response r = request(s.port, "GET", path);
    CHECK(r.status == 404);
    CHECK(r.body.find("abc") == std::string::npos);
  }
  CHECK(request(s.port, "GET", "/traces").status == 404);  // the list is /traces/
  CHECK(request(s.port, "POST", "/traces/", "Content-Length: 0\r\n").status == 405);
  const Response del = request(s.port, "DELETE", "/traces/" + saved.id + ".pftrace");
  CHECK(del.status == 405);
  CHECK(del.header("allow") == "GET, HEAD");
  CHECK(request(s.port, "GET", "/traces/" + saved.id + ".pftrace").body == "abc");
}

TEST_CASE("traces take the same basic auth as /metrics", "[http][traces]") {
  exporters::HttpOptions options;
  options.basic_auth = std::make_pair(std::string("prom"), std::string("s3cret"));
  Served s(options);
  const auto saved = s.store->save("abc", meta("s", kT0));
  const std::string url = "/traces/" + saved.id + ".pftrace";
  for (const std::string& path : std::vector<std::string>{"/traces/", url, "/traces/nope.pftrace"}) {
    INFO(path);
    const Response r = request(s.port, "GET", path);
    CHECK(r.status == 401);
    CHECK(r.header("www-authenticate") == "Basic realm=\"jank_exporter\"");
  }
  CHECK(request(s.port, "GET", url, "Authorization: Basic cHJvbTp3cm9uZw==\r\n").status == 401);
  const Response ok = request(s.port, "GET", url, "Authorization: Basic cHJvbTpzM2NyZXQ=\r\n");
  CHECK(ok.status == 200);
  CHECK(ok.body == "abc");
}

TEST_CASE("a trace removed by retention while it is sent still arrives whole", "[http][traces]") {
  metrics::TraceLimits limits;
  limits.max_count = 1;
  Served s({}, limits);
  const std::string bytes = random_bytes(8 * 1024 * 1024, 11);
  const auto saved = s.store->save(bytes, meta("s", kT0));
  REQUIRE(saved.ok());
  const int fd = connect_small(s.port);
  send_all(fd, "GET /traces/" + saved.id + ".pftrace HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  char first[4096];
  const ssize_t n = ::recv(fd, first, sizeof first, 0);
  REQUIRE(n > 0);  // the download is under way
  // A newer trace: retention removes the one being sent.
  REQUIRE(s.store->save("new", meta("s", kT0 + kSec)).ok());
  CHECK_FALSE(s.store->find(saved.id));
  const std::string raw = std::string(first, static_cast<std::size_t>(n)) + read_to_end(fd);
  ::close(fd);
  CHECK(parse(raw).body == bytes);
  CHECK(request(s.port, "GET", "/traces/" + saved.id + ".pftrace").status == 404);
}

TEST_CASE("a client that stops reading a download is dropped after the response timeout", "[http][traces]") {
  exporters::HttpOptions options;
  options.response_timeout = std::chrono::milliseconds(300);
  Served s(options);
  const std::string bytes = random_bytes(16 * 1024 * 1024, 5);
  const auto saved = s.store->save(bytes, meta("s", kT0));
  REQUIRE(saved.ok());
  const int fd = connect_small(s.port);
  send_all(fd, "GET /traces/" + saved.id + ".pftrace HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  std::string raw;
  char buf[65536];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) raw.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  CHECK(parse(raw).body.size() < bytes.size());
  // The server goes on serving.
  CHECK(request(s.port, "GET", "/traces/").status == 200);
}

TEST_CASE("the daemon's trace store publishes its status into the shared state", "[traces][store]") {
  test::TempDir tmp;
  app::SharedState shared{metrics::StoreOptions{}};
  metrics::TraceLimits limits;
  limits.max_count = 1;
  auto store = app::open_trace_store(tmp.path() + "/traces", limits, [] { return kT0 + 60 * kSec; }, shared);
  REQUIRE(store->save("abc", meta("s", kT0)).ok());
  REQUIRE(store->save("defg", meta("s", kT0 + kSec)).ok());
  std::lock_guard<std::mutex> lock(shared.mutex);
  CHECK(shared.daemon.traces.stored == 1);
  CHECK(shared.daemon.traces.stored_bytes == 4);
  CHECK(shared.daemon.traces.dropped.at("count") == 1);
  REQUIRE(shared.daemon.traces.recent.size() == 1);
  CHECK(shared.daemon.traces.recent[0].serial == "s");
}

TEST_CASE("a trace file replaced by a symlink or a FIFO is not served, and the server goes on", "[http][traces][hostile]") {
  Served s;
  const auto saved = s.store->save("abc", meta("s", kT0));
  REQUIRE(saved.ok());
  const std::string url = "/traces/" + saved.id + ".pftrace";
  const std::string path = s.store->trace_path(saved.id);

  // A file only its owner may read, linked in the trace's place after start.
  const std::string secret = s.dir.path() + "/secret";
  std::ofstream(secret) << "private bytes";
  std::filesystem::permissions(secret, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  REQUIRE(std::filesystem::remove(path));
  std::filesystem::create_symlink(secret, path);
  const Response linked = request(s.port, "GET", url);
  CHECK(linked.status == 404);
  CHECK(linked.body.find("private") == std::string::npos);

  // A FIFO with no writer: opening it to read would wait for one forever.
  REQUIRE(std::filesystem::remove(path));
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  const int fd = test::connect_loopback(s.port);
  REQUIRE(fd >= 0);
  send_all(fd, "GET " + url + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  std::string raw;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    raw.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  CHECK(parse(raw).status == 404);
  // Had the server blocked on the FIFO, a writer opening it lets it go (so the test ends either way).
  const int writer = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);
  if (writer >= 0) ::close(writer);
  CHECK(writer < 0);  // no reader waiting on it
  CHECK(request(s.port, "GET", "/traces/").status == 200);
}

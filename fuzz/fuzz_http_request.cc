// The HTTP request path on arbitrary bytes: one in-process server with basic
// auth and the daemon's own routes (app/api/http_routes.cc: the runs and devices
// APIs, the traces, the live pages) and /metrics, each input the raw bytes
// of one loopback connection, which the fuzzer then half-closes. Holds:
// - no handler throws (the server's report of one aborts here);
// - the server ends the connection within its timeouts;
// - what it sends is a sequence of whole HTTP/1.1 responses, none a 500;
// - nothing is sent after a 400 or 413 (the connection closes there, so no
//   byte after a misread request is read as another one);
// - every body but a trace's bytes is valid UTF-8, every JSON body parses;
// - no run is created that the client was not answered 201 for.
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "app/api/http_routes.h"
#include "app/api/runs_api.h"
#include "app/core/shared_state.h"
#include "app/core/trace_store.h"
#include "config/config.h"
#include "exporters/http_server.h"
#include "exporters/prometheus_collector.h"
#include "parsers/text_scan.h"
#include "parsers/utf8.h"

namespace {

using namespace jank;
constexpr std::int64_t kNow = 1'800'000'000'000'000'000;  // 2027-01-15

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "http_request: %s\n", why.c_str());
  std::abort();
}

struct Harness {
  Harness() : shared(metrics::StoreOptions{}), runs(shared, [] { return kNow; }, [](std::vector<std::string>) {}) {
    auto& d = shared.store.device("emulator-5554");
    d.live.live = true;
    d.live.state = metrics::DeviceState::following;
    d.live.info["model"] = "caf\xe9 \xff";  // not UTF-8: every writer must cope
    char tmpl[] = "/tmp/jank-fuzz-http-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) fail("mkdtemp");
    dir = tmpl;
    traces = std::make_shared<app::TraceStore>(dir, metrics::TraceLimits{}, [] { return kNow; });
    std::string error;
    if (!traces->open(error)) fail(error);
    metrics::StoredTrace t;
    t.serial = "emulator-5554";
    t.package = "com.example.feed";
    t.rule = "skip";
    t.triggered_at_ns = kNow - 60'000'000'000;
    trace_id = traces->save("trace bytes", t).id;
    if (trace_id.empty()) fail("cannot save the trace");

    exporters::HttpOptions options;
    options.listen_address = "127.0.0.1:0";
    options.basic_auth = std::make_pair(std::string("fz"), std::string("pw"));  // "Basic Zno6cHc="
    options.request_timeout = std::chrono::milliseconds(2000);
    options.idle_timeout = std::chrono::milliseconds(2000);
    options.response_timeout = std::chrono::milliseconds(2000);
    options.on_handler_error = [](std::string_view path, std::string_view what) {
      fail("a handler threw on " + parsers::terminal_text(path) + ": " + parsers::terminal_text(what));
    };
    auto routes = app::http_routes(config, shared, runs, [] { return kNow; }, traces);
    auto collector = std::make_shared<exporters::StoreCollector>(
        shared.store, [](const metrics::DeviceMetrics&) { return kNow; }, &shared.mutex, &shared.daemon, &shared.runs);
    server = std::make_unique<exporters::HttpServer>(options, exporters::text_source(collector), [] { return true; },
                                                     nullptr, std::move(routes.api), std::move(routes.files));
    port = server->ports().at(0);
  }
  ~Harness() {
    server.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  config::Config config;
  app::SharedState shared;
  app::RunsApi runs;
  std::string dir, trace_id;
  std::shared_ptr<app::TraceStore> traces;
  std::unique_ptr<exporters::HttpServer> server;
  int port = 0;
};

// Everything the server sends for `request`, until it closes the connection.
std::string exchange(int port, std::string_view request) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = -1;
  // Thousands of connections a second may run short of local ports for a moment: try again.
  for (int attempt = 0; fd < 0 && attempt < 200; ++attempt) {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd);
      fd = -1;
      ::usleep(10'000);
    }
  }
  if (fd < 0) fail("cannot connect");
  // The server may answer and close before taking it all (a 400, say): a short send is fine.
  std::size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  ::shutdown(fd, SHUT_WR);
  std::string got;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (;;) {
    if (std::chrono::steady_clock::now() > end) fail("the server did not close the connection");
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char buf[16384];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;  // closed (or reset: the server may close with bytes of ours unread)
    got.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return got;
}

// The value of header `name` (lower case) in `head`, or "".
std::string header(std::string_view head, std::string_view name) {
  const std::string h = parsers::scan::to_lower(head);
  const auto at = h.find("\r\n" + std::string(name) + ": ");
  if (at == std::string::npos) return "";
  const auto start = at + 4 + name.size();
  return std::string(head.substr(start, head.find("\r\n", start) - start));
}

// Checks the responses in `got`; returns how many were 201.
std::size_t check_responses(std::string_view got) {
  std::size_t created = 0;
  while (!got.empty()) {
    if (!got.starts_with("HTTP/1.1 ") || got.size() < 13) fail("not a status line");
    const std::string_view code = got.substr(9, 3);
    for (const char c : code) {
      if (!parsers::scan::is_digit(c)) fail("bad status");
    }
    const auto head_end = got.find("\r\n\r\n");
    if (head_end == std::string_view::npos) fail("a response head without its end");
    const std::string_view head = got.substr(0, head_end + 2);
    const std::string length_text = header(head, "content-length");
    if (length_text.empty()) fail("no Content-Length");
    const std::size_t length = std::stoul(length_text);
    std::string_view rest = got.substr(head_end + 4);
    // A HEAD request's answer has no body: the next response, or the end, follows at once.
    const bool body = length > 0 && !rest.empty() && !rest.starts_with("HTTP/1.1 ");
    if (body && rest.size() < length) fail("a body shorter than its Content-Length");
    const std::string_view content = body ? rest.substr(0, length) : std::string_view();
    rest.remove_prefix(content.size());
    const std::string type = header(head, "content-type");
    if (code == "500") fail("answered 500");
    if ((code == "400" || code == "413") && !rest.empty()) fail("a response after a " + std::string(code));
    if ((code == "400" || code == "413") && header(head, "connection") != "close") fail("kept alive after an error");
    if (type != "application/octet-stream" && !parsers::is_valid_utf8(content)) fail("a body not UTF-8");
    if (body && type == "application/json" && nlohmann::json::parse(content, nullptr, false).is_discarded()) {
      fail("a JSON body that does not parse");
    }
    if (code == "201") ++created;
    got = rest;
  }
  return created;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Harness h;
  {
    // Each input starts with no runs: the open-run cap stays far away, and a run is this input's.
    std::lock_guard<std::mutex> lock(h.shared.mutex);
    h.shared.runs = metrics::RunBook{};
  }
  const std::string got = exchange(h.port, std::string_view(reinterpret_cast<const char*>(data), size));
  const std::size_t created = check_responses(got);
  std::lock_guard<std::mutex> lock(h.shared.mutex);
  if (h.shared.runs.runs().size() > created) fail("a run was created without a 201 answer");
  return 0;
}

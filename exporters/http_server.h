// The HTTP side of the daemon: /metrics (the exposition a callback writes), a
// landing page at /, and /healthz and /readyz for probes. Optional HTTP basic
// auth on / and /metrics.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <prometheus/collectable.h>

#include "exporters/text_format.h"
#include "exporters/tls_frontend.h"

class CivetServer;

namespace jank::exporters {

struct HttpOptions {
  std::string listen_address = ":9789";  // ":PORT" for every interface, "HOST:PORT" for one
  std::optional<std::pair<std::string, std::string>> basic_auth;  // username, password
  // One civetweb thread serves one connection, so the thread count is how
  // many slow or silent clients can be held before a scrape has to queue.
  int threads = 32;
  int request_timeout_ms = 5'000;         // slow or half-open clients are dropped after this
  int max_request_bytes = 16 * 1024;      // request line + headers; larger gets 413
  // HTTPS only, on listen_address; the HTTP server then listens on loopback
  // behind the TLS frontend.
  std::optional<TlsOptions> tls;
};

class HttpServer {
 public:
  // Starts listening. Throws std::runtime_error when the address cannot be used.
  // `metrics` is called once per /metrics request, on a server thread, with
  // the value of the request's `serial` parameter ("" when absent): a
  // non-empty one asks for that device's series only.
  using MetricsSource = std::function<Exposition(std::string_view serial)>;
  HttpServer(const HttpOptions& options, MetricsSource metrics, std::function<bool()> ready);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  std::vector<int> ports() const;

 private:
  class Handler;
  std::unique_ptr<Handler> handler_;
  std::unique_ptr<CivetServer> server_;
  std::unique_ptr<TlsFrontend> tls_;  // in front of server_ when HTTPS
};

// /metrics for prometheus-cpp collectables: each Collect()ed and written out.
HttpServer::MetricsSource exposition_of(std::vector<std::shared_ptr<prometheus::Collectable>> collectables);

// civetweb's listening_ports value for a listen address (":9789" → "9789").
std::string civetweb_listening_ports(const std::string& listen_address);

}  // namespace jank::exporters

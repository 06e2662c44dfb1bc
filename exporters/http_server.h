// The HTTP side of the daemon: /metrics (the exposition a callback writes), a
// landing page at /, and /healthz and /readyz for probes. Optional HTTP basic
// auth on / and /metrics, optional HTTPS. Boost.Beast on its own thread and
// io_context, so neither the daemon's loop nor the HTTP clients wait for each
// other; only /metrics touches the daemon's state, through the callback.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporters/text_format.h"

namespace jank::exporters {

struct TlsOptions {
  std::string certificate_file;  // PEM: the server certificate, then any intermediates
  std::string key_file;          // PEM private key of the certificate
  bool operator==(const TlsOptions&) const = default;
};

struct HttpOptions {
  std::string listen_address = ":9789";  // ":PORT" for every interface, "HOST:PORT", "[V6]:PORT"
  std::optional<std::pair<std::string, std::string>> basic_auth;  // username, password
  // A new connection must deliver a whole request (TLS handshake included)
  // within this; so must a kept-alive one from its first byte. Slowloris and
  // silent clients are dropped after it.
  std::chrono::milliseconds request_timeout{5'000};
  // A kept-alive connection with no request in progress is closed after this.
  std::chrono::milliseconds idle_timeout{60'000};
  // Writing one response may take this long (a client that stops reading);
  // a streamed file (FileRoute) this long per chunk, so that a large download
  // over a slow link is not cut off while a stalled client still is.
  std::chrono::milliseconds response_timeout{30'000};
  int max_request_bytes = 16 * 1024;  // request line + headers (and any body); larger gets 413
  // Connections held at once. When full, the connection idle the longest
  // (waiting for a request) is closed to admit the new one, so idle or silent
  // clients cannot lock a scrape out; with none idle, the new one is closed.
  int max_connections = 1024;
  std::optional<TlsOptions> tls;  // HTTPS only, on listen_address
  // Called on the server thread when a handler (metrics, ready, api, a
  // FileRoute's) threw, with the request's path ("" when the exception came
  // from the server's own code) and what(); the request was answered 500 and
  // the server goes on. exporters/ has no logger: the owner logs and counts.
  std::function<void(std::string_view path, std::string_view what)> on_handler_error;
};

struct ApiRequest {
  std::string method;  // GET (also for HEAD) or POST
  std::string path;    // "/api/runs/ID/stop"
  std::string query;   // after '?', still percent-encoded
  std::string body;    // at most max_request_bytes
};

struct ApiResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

// What a FileRoute answers: a small body, or a file streamed from disk in
// bounded memory (a trace may be hundreds of MiB).
struct FileResponse {
  int status = 200;
  std::string content_type = "application/octet-stream";
  std::string body;        // served when `file` is empty
  std::string file;        // a path: opened by the server; gone by then is 404
  // A file name for Content-Disposition: attachment (printable ASCII without
  // quotes or backslashes; another gets no such header), or "".
  std::string attachment;
  // More response headers (name, value): Content-Security-Policy,
  // Cache-Control (replacing the default "no-store"), …. A name that is not
  // an HTTP token or that the server writes itself (Content-Type,
  // Content-Length, Transfer-Encoding, Connection), or a value holding a
  // control character (CR, LF: a header of its own), makes the response a
  // 500 instead: the handler's mistake never reaches the client as headers.
  std::vector<std::pair<std::string, std::string>> headers;
};

// One of the constructor's `routes`: GET and HEAD of every path under
// `prefix` (exactly `prefix` when `exact`, as for "/"), after the same auth
// as /metrics, answered by `handler` (when set) on the server thread with the
// path, still percent-encoded (a handler that accepts only plain names needs
// no decoding; percent_decode() decodes).
struct FileRoute {
  std::string prefix;  // "/traces/"
  std::function<FileResponse(std::string_view path)> handler;
  bool exact = false;
};

class HttpServer {
 public:
  // Loads the TLS files (when any), starts listening and serving on its own
  // thread. Throws std::runtime_error naming the file or address at fault.
  // `metrics` is called once per /metrics request, on the server thread, with
  // the value of the request's `serial` parameter ("" when absent): a
  // non-empty one asks for that device's series only; and with the format
  // the request's Accept header prefers (exporters/content_negotiation.h).
  //
  // With `previous` listening on the same listen_address, the new server
  // takes a duplicate of its listening socket instead of binding again: the
  // port never closes across a reload, and no SO_REUSEPORT is needed (which
  // would also let a second exporter bind the port unnoticed). Both accept
  // until `previous` is destroyed.
  //
  // `api`, when set, answers every request under /api/ (GET and POST, after
  // the same auth as /metrics), on the server thread.
  //
  // A path goes to /healthz, /readyz, /metrics, then /api/, then the first
  // of `routes` that matches it; "/" that none matches is the built-in
  // landing page; anything else is 404.
  using MetricsSource = std::function<Exposition(std::string_view serial, ExpositionFormat format)>;
  using ApiHandler = std::function<ApiResponse(const ApiRequest&)>;
  HttpServer(const HttpOptions& options, MetricsSource metrics, std::function<bool()> ready,
             const HttpServer* previous = nullptr, ApiHandler api = {}, std::vector<FileRoute> routes = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  std::vector<int> ports() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// The value of `name` in a URL query string, percent-decoded ('+' is a
// space); `valid` is false when a %XX escape is malformed.
struct QueryValue {
  bool present = false;
  bool valid = true;
  std::string value;
};
QueryValue query_parameter(std::string_view query, std::string_view name);

// A path or a part of one percent-decoded ('+' stays '+'); nullopt when a
// %XX escape is malformed.
std::optional<std::string> percent_decode(std::string_view text);

}  // namespace jank::exporters

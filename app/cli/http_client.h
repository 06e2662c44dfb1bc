// A small blocking HTTP(S) client for the command-line tools that talk to a
// running exporter (`jank_exporter run …`, `compare URL`): one request per
// connection, with a deadline it keeps whatever the server does, basic auth,
// and certificate checks for https.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

namespace jank::app {

struct HttpTarget {
  bool https = false;
  std::string host;
  std::string port;
  std::string base_path;  // without a trailing slash ("" or "/prefix")
};

// "http://host:port[/prefix]" or "https://…"; nullopt (and `error`) otherwise.
std::optional<HttpTarget> parse_http_url(const std::string& url, std::string& error);

struct HttpClientOptions {
  std::optional<std::pair<std::string, std::string>> basic_auth;  // username, password
  std::string ca_file;  // https: trust this PEM bundle (default: the system's)
  bool insecure = false;  // https: do not check the certificate (tests, self-signed)
  // One deadline for the whole exchange: name lookup, connect, TLS handshake,
  // sending the request and reading the whole answer. Past it the reply has
  // status 0 and "no answer from URL within N s".
  double timeout_seconds = 10;
  // A longer answer body is refused (status 0): a results list is far below.
  std::size_t max_body_bytes = std::size_t{64} << 20;
};

struct HttpReply {
  int status = 0;  // 0: no answer (then `error` says why)
  std::string body;
  std::string error;
};

HttpReply http_request(const HttpTarget& target, const std::string& method, const std::string& path,
                       const std::string& body, const HttpClientOptions& options);

}  // namespace jank::app

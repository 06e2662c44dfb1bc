// HTTPS for /metrics: terminates TLS (OpenSSL through Boost.Asio) and relays
// each connection to the HTTP server listening on loopback. Debian 12's
// civetweb cannot serve TLS itself (it crashes with OpenSSL 3, see
// docs/security.md), so the exporter does it in front of civetweb.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace jank::exporters {

struct TlsOptions {
  std::string certificate_file;  // PEM: the server certificate, then any intermediates
  std::string key_file;          // PEM private key of the certificate
};

struct TlsFrontendOptions {
  std::string listen_address;  // as HttpOptions::listen_address
  int backend_port = 0;        // the HTTP server on 127.0.0.1
  // A connection that moves no byte for this long (handshake included) is
  // closed: slow or half-open clients cannot pile up.
  int idle_timeout_ms = 5'000;
  // Connections beyond this are closed at once.
  int max_connections = 64;
};

class TlsFrontend {
 public:
  // Loads the certificate and key and starts listening on its own thread.
  // Throws std::runtime_error naming the file or address at fault.
  TlsFrontend(const TlsOptions& tls, const TlsFrontendOptions& options);
  ~TlsFrontend();
  TlsFrontend(const TlsFrontend&) = delete;
  TlsFrontend& operator=(const TlsFrontend&) = delete;

  std::vector<int> ports() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace jank::exporters

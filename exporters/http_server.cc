#include "exporters/http_server.h"

#include <CivetServer.h>
#include <civetweb.h>
#include "exporters/text_format.h"

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace jank::exporters {
namespace {

constexpr const char* kLandingPage =
    "<!doctype html><html><head><title>jank_exporter</title></head><body>"
    "<h1>jank_exporter</h1><p>Android UI smoothness for Prometheus.</p>"
    "<ul><li><a href=\"/metrics\">/metrics</a></li><li><a href=\"/healthz\">/healthz</a></li>"
    "<li><a href=\"/readyz\">/readyz</a></li></ul></body></html>\n";

std::string base64_decode(const std::string& in) {
  static const std::string chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned value = 0;
  int bits = -8;
  for (char c : in) {
    if (c == '=') break;
    const auto pos = chars.find(c);
    if (pos == std::string::npos) return {};
    value = (value << 6) + static_cast<unsigned>(pos);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((value >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

// Compares without an early exit so that timing does not reveal the prefix.
bool equal_constant_time(const std::string& a, const std::string& b) {
  unsigned diff = static_cast<unsigned>(a.size() ^ b.size());
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned>(a[i] ^ b[i % (b.empty() ? 1 : b.size())]);
  return diff == 0 && !b.empty();
}

void reply_head(mg_connection* conn, int status, const char* status_text, const char* content_type,
                std::size_t content_length, const char* extra_headers = "") {
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nCache-Control: no-store\r\n%s"
            "Connection: close\r\n\r\n",
            status, status_text, content_type, content_length, extra_headers);
}

void reply(mg_connection* conn, int status, const char* status_text, const char* content_type, const std::string& body,
           const char* extra_headers = "") {
  reply_head(conn, status, status_text, content_type, body.size(), extra_headers);
  mg_write(conn, body.data(), body.size());
}

}  // namespace

class HttpServer::Handler final : public CivetHandler {
 public:
  Handler(const HttpOptions& options, MetricsSource metrics, std::function<bool()> ready)
      : auth_(options.basic_auth), metrics_(std::move(metrics)), ready_(std::move(ready)) {}

  bool handleGet(CivetServer*, mg_connection* conn) override {
    const mg_request_info* info = mg_get_request_info(conn);
    const std::string uri = info->local_uri != nullptr ? info->local_uri : "";
    if (uri == "/healthz") {
      reply(conn, 200, "OK", "text/plain", "ok\n");
      return true;
    }
    if (uri == "/readyz") {
      if (!ready_ || ready_()) {
        reply(conn, 200, "OK", "text/plain", "ready\n");
      } else {
        reply(conn, 503, "Service Unavailable", "text/plain", "starting\n");
      }
      return true;
    }
    if (uri != "/" && uri != "/metrics") {
      reply(conn, 404, "Not Found", "text/plain", "not found\n");
      return true;
    }
    if (!authorized(conn)) {
      reply(conn, 401, "Unauthorized", "text/plain", "unauthorized\n",
            "WWW-Authenticate: Basic realm=\"jank_exporter\"\r\n");
      return true;
    }
    if (uri == "/") {
      reply(conn, 200, "OK", "text/html; charset=utf-8", kLandingPage);
      return true;
    }
    // ?serial=S: one device. An empty, undecodable or over-long value is
    // refused rather than read as "every device".
    char serial[256] = {};
    if (info->query_string != nullptr) {
      const int n = mg_get_var(info->query_string, std::strlen(info->query_string), "serial", serial, sizeof serial);
      if (n == 0 || n < -1) {
        reply(conn, 400, "Bad Request", "text/plain", "bad serial parameter\n");
        return true;
      }
    }
    const Exposition exposition = metrics_(serial);
    reply_head(conn, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", exposition.size());
    for (const auto& f : exposition.families) {
      // A client that went away makes mg_write fail: stop writing.
      if (mg_write(conn, f.header.data(), f.header.size()) < 0) break;
      if (!f.body.empty() && mg_write(conn, f.body.data(), f.body.size()) < 0) break;
    }
    return true;
  }

  bool handlePost(CivetServer*, mg_connection* conn) override {
    reply(conn, 405, "Method Not Allowed", "text/plain", "GET only\n", "Allow: GET\r\n");
    return true;
  }

 private:
  bool authorized(mg_connection* conn) const {
    if (!auth_) return true;
    const char* header = mg_get_header(conn, "Authorization");
    if (header == nullptr || std::strncmp(header, "Basic ", 6) != 0) return false;
    const std::string decoded = base64_decode(header + 6);
    const auto colon = decoded.find(':');
    if (colon == std::string::npos) return false;
    const bool user_ok = equal_constant_time(decoded.substr(0, colon), auth_->first);
    const bool password_ok = equal_constant_time(decoded.substr(colon + 1), auth_->second);
    return user_ok && password_ok;
  }

  std::optional<std::pair<std::string, std::string>> auth_;
  MetricsSource metrics_;
  std::function<bool()> ready_;
};

std::string civetweb_listening_ports(const std::string& listen_address) {
  if (!listen_address.empty() && listen_address.front() == ':') return listen_address.substr(1);
  if (!listen_address.empty() && listen_address.front() == '[') return "+" + listen_address;  // IPv6 and IPv4
  return listen_address;
}

HttpServer::MetricsSource exposition_of(std::vector<std::shared_ptr<prometheus::Collectable>> collectables) {
  return [collectables = std::move(collectables)](std::string_view) {
    Exposition exposition;
    for (const auto& c : collectables) {
      exposition.families.emplace_back();
      append_text_exposition(c->Collect(), exposition.families.back().body);
    }
    return exposition;
  };
}

HttpServer::HttpServer(const HttpOptions& options, HttpServer::MetricsSource metrics, std::function<bool()> ready)
    : handler_(std::make_unique<Handler>(options, std::move(metrics), std::move(ready))) {
  const std::vector<std::string> civet_options = {
      "listening_ports", options.tls ? "127.0.0.1:0" : civetweb_listening_ports(options.listen_address),
      "num_threads", std::to_string(options.threads),
      "request_timeout_ms", std::to_string(options.request_timeout_ms),
      "max_request_size", std::to_string(options.max_request_bytes),
      "enable_keep_alive", "no",
  };
  try {
    server_ = std::make_unique<CivetServer>(civet_options);
  } catch (const CivetException& e) {
    throw std::runtime_error("cannot listen on " + options.listen_address + ": " + e.what());
  }
  server_->addHandler("", handler_.get());
  if (options.tls) {
    TlsFrontendOptions frontend;
    frontend.listen_address = options.listen_address;
    frontend.backend_port = server_->getListeningPorts().at(0);
    frontend.idle_timeout_ms = options.request_timeout_ms;
    frontend.max_connections = 2 * options.threads;
    try {
      tls_ = std::make_unique<TlsFrontend>(*options.tls, frontend);
    } catch (...) {
      server_->close();
      throw;
    }
  }
}

HttpServer::~HttpServer() {
  tls_.reset();
  if (server_) server_->close();
}

std::vector<int> HttpServer::ports() const { return tls_ ? tls_->ports() : server_->getListeningPorts(); }

}  // namespace jank::exporters

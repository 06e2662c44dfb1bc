#include "ingest/endpoint.h"

#include <cstdlib>

#include "parsers/text_scan.h"

namespace jank::ingest {
namespace {

std::optional<std::uint16_t> parse_port(std::string_view text) {
  if (text.size() > 5) return std::nullopt;
  const auto value = parsers::scan::parse_int<unsigned>(text);
  if (!value || *value == 0 || *value > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(*value);
}

bool valid_host(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  for (char c : host) {
    // Printable, no separators that would make the text mean something else.
    if (c <= ' ' || c > '~' || c == '/' || c == '[' || c == ']') return false;
  }
  return true;
}

}  // namespace

std::string AdbEndpoint::to_string() const {
  std::string out;
  if (host.find(':') != std::string::npos) {
    out = "[" + host + "]";
  } else {
    out = host;
  }
  out += ':';
  out += std::to_string(port);
  return out;
}

std::optional<AdbEndpoint> parse_endpoint(std::string_view text) {
  if (text.starts_with("tcp:")) {
    text.remove_prefix(4);
    // adb's "tcp:PORT" means the loopback address.
    if (text.find(':') == std::string_view::npos) {
      auto port = parse_port(text);
      if (!port) return std::nullopt;
      return AdbEndpoint{"127.0.0.1", *port};
    }
  }
  std::string_view host;
  std::string_view port_text;
  if (text.starts_with("[")) {
    auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return std::nullopt;
    }
    host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
    if (host.find(':') == std::string_view::npos) return std::nullopt;  // brackets are for v6
  } else {
    auto colon = text.find(':');
    if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos) {
      return std::nullopt;
    }
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  }
  auto port = parse_port(port_text);
  if (!port || !valid_host(host)) return std::nullopt;
  return AdbEndpoint{std::string(host), *port};
}

EndpointChoice default_endpoint(const char* adb_server_socket, const char* android_adb_server_port) {
  if (adb_server_socket != nullptr && *adb_server_socket != '\0') {
    auto endpoint = parse_endpoint(adb_server_socket);
    if (!endpoint) {
      return {std::nullopt, "ADB_SERVER_SOCKET='" + std::string(adb_server_socket) +
                                "' is not tcp:HOST:PORT or tcp:PORT"};
    }
    return {endpoint, {}};
  }
  if (android_adb_server_port != nullptr && *android_adb_server_port != '\0') {
    auto port = parse_port(android_adb_server_port);
    if (!port) {
      return {std::nullopt, "ANDROID_ADB_SERVER_PORT='" + std::string(android_adb_server_port) +
                                "' is not a port number"};
    }
    return {AdbEndpoint{"127.0.0.1", *port}, {}};
  }
  return {AdbEndpoint{}, {}};
}

EndpointChoice default_endpoint_from_environment() {
  return default_endpoint(std::getenv("ADB_SERVER_SOCKET"), std::getenv("ANDROID_ADB_SERVER_PORT"));
}

}  // namespace jank::ingest

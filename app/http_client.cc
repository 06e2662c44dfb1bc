#include "app/http_client.h"

#include <chrono>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/core/detail/base64.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace jank::app {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

constexpr std::size_t kMaxReplyBytes = 64 << 20;  // a full run list stays far below

std::string base64(const std::string& in) {
  std::string out(beast::detail::base64::encoded_size(in.size()), '\0');
  out.resize(beast::detail::base64::encode(out.data(), in.data(), in.size()));
  return out;
}

template <class Stream>
HttpReply exchange(Stream& stream, const HttpTarget& target, const std::string& method, const std::string& path,
                   const std::string& body, const HttpClientOptions& options) {
  http::request<http::string_body> req{http::string_to_verb(method), target.base_path + path, 11};
  req.set(http::field::host, target.host);
  req.set(http::field::user_agent, "jank_exporter");
  if (options.basic_auth) {
    req.set(http::field::authorization, "Basic " + base64(options.basic_auth->first + ":" + options.basic_auth->second));
  }
  if (method == "POST") {
    req.set(http::field::content_type, "application/json");
    req.body() = body;
    req.prepare_payload();
  }
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxReplyBytes);
  http::read(stream, buffer, parser);
  return {static_cast<int>(parser.get().result_int()), parser.get().body(), {}};
}

}  // namespace

std::optional<HttpTarget> parse_http_url(const std::string& url, std::string& error) {
  HttpTarget t;
  std::string rest;
  if (url.rfind("http://", 0) == 0) {
    rest = url.substr(7);
  } else if (url.rfind("https://", 0) == 0) {
    t.https = true;
    rest = url.substr(8);
  } else {
    error = "the URL must start with http:// or https://: " + url;
    return std::nullopt;
  }
  const auto slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  t.base_path = slash == std::string::npos ? "" : rest.substr(slash);
  while (!t.base_path.empty() && t.base_path.back() == '/') t.base_path.pop_back();
  t.port = t.https ? "443" : "80";
  if (!authority.empty() && authority.front() == '[') {  // [v6]:port
    const auto close = authority.find(']');
    if (close == std::string::npos) {
      error = "bad IPv6 address in " + url;
      return std::nullopt;
    }
    t.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') t.port = authority.substr(close + 2);
  } else {
    const auto colon = authority.rfind(':');
    t.host = authority.substr(0, colon);
    if (colon != std::string::npos) t.port = authority.substr(colon + 1);
  }
  if (t.host.empty() || t.port.empty() || t.port.find_first_not_of("0123456789") != std::string::npos) {
    error = "bad host or port in " + url;
    return std::nullopt;
  }
  return t;
}

HttpReply http_request(const HttpTarget& target, const std::string& method, const std::string& path,
                       const std::string& body, const HttpClientOptions& options) {
  asio::io_context io;
  HttpReply reply;
  const auto timeout = std::chrono::milliseconds(static_cast<long>(options.timeout_seconds * 1000));
  try {
    tcp::resolver resolver(io);
    const auto endpoints = resolver.resolve(target.host, target.port);
    beast::tcp_stream tcp_stream(io);
    tcp_stream.expires_after(timeout);
    tcp_stream.connect(endpoints);
    if (!target.https) {
      reply = exchange(tcp_stream, target, method, path, body, options);
    } else {
      ssl::context ctx(ssl::context::tls_client);
      if (options.insecure) {
        ctx.set_verify_mode(ssl::verify_none);
      } else {
        if (options.ca_file.empty()) {
          ctx.set_default_verify_paths();
        } else {
          ctx.load_verify_file(options.ca_file);
        }
        ctx.set_verify_mode(ssl::verify_peer);
        ctx.set_verify_callback(ssl::host_name_verification(target.host));
      }
      beast::ssl_stream<beast::tcp_stream> stream(std::move(tcp_stream), ctx);
      // SNI (what SSL_set_tlsext_host_name expands to, without its C cast).
      SSL_ctrl(stream.native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
               const_cast<char*>(target.host.c_str()));
      beast::get_lowest_layer(stream).expires_after(timeout);
      stream.handshake(ssl::stream_base::client);
      reply = exchange(stream, target, method, path, body, options);
    }
  } catch (const std::exception& e) {
    reply.status = 0;
    reply.error = std::string("cannot reach ") + (target.https ? "https://" : "http://") + target.host + ":" +
                  target.port + ": " + e.what();
  }
  return reply;
}

}  // namespace jank::app

#include "app/cli/http_client.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <sstream>

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

std::string base64(const std::string& in) {
  std::string out(beast::detail::base64::encoded_size(in.size()), '\0');
  out.resize(beast::detail::base64::encode(out.data(), in.data(), in.size()));
  return out;
}

using Clock = std::chrono::steady_clock;

// The request's deadline passed before the operation in progress completed.
struct DeadlineReached {};

// Records how one asynchronous operation ended, whatever else it hands over.
struct Completion {
  bool* done;
  boost::system::error_code* error;
  template <class... Rest>
  void operator()(boost::system::error_code ec, Rest&&...) const {
    *error = ec;
    *done = true;
  }
};

// Beast's synchronous calls ignore tcp_stream's expiry, so every step is an
// asynchronous operation run on `io` until it completes or `deadline`
// passes. On the deadline `cancel` closes what the operation waits on: its
// handler then runs with operation_aborted, and nothing is left pending
// when `io` is destroyed.
template <class Start, class Cancel>
void run_until(asio::io_context& io, Clock::time_point deadline, Start&& start, Cancel&& cancel) {
  bool done = false;
  boost::system::error_code error;
  start(Completion{&done, &error});
  io.restart();
  io.run_until(deadline);
  if (!done) {
    cancel();
    io.restart();
    io.run();
    throw DeadlineReached{};
  }
  if (error) throw boost::system::system_error(error);
}

template <class Stream>
HttpReply exchange(asio::io_context& io, Clock::time_point deadline, Stream& stream, const HttpTarget& target,
                   const std::string& method, const std::string& path, const std::string& body,
                   const HttpClientOptions& options) {
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
  auto close = [&] { beast::get_lowest_layer(stream).close(); };
  run_until(io, deadline, [&](Completion done) { http::async_write(stream, req, done); }, close);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(options.max_body_bytes);
  // The header first: Beast 1.74 drops the body_limit error of a
  // Content-Length past the limit when it reads the whole message at once
  // (it carries on into the body, and that resets the error).
  run_until(io, deadline, [&](Completion done) { http::async_read_header(stream, buffer, parser, done); }, close);
  if (const auto length = parser.content_length(); length && *length > options.max_body_bytes) {
    throw boost::system::system_error(http::error::body_limit);
  }
  run_until(io, deadline, [&](Completion done) { http::async_read(stream, buffer, parser, done); }, close);
  return {static_cast<int>(parser.get().result_int()), parser.get().body(), {}};
}

// "0.5", "10", "120": the deadline as a person gave it.
std::string seconds_text(double seconds) {
  std::ostringstream s;
  if (seconds < 1000) {
    s << std::setprecision(3) << seconds;
  } else {
    s << std::fixed << std::setprecision(0) << seconds;
  }
  return s.str();
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
  const std::string where = (target.https ? "https://" : "http://") + target.host + ":" + target.port;
  const auto budget = std::chrono::duration<double>(std::max(options.timeout_seconds, 0.0));
  const Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(budget);
  HttpReply reply;
  try {
    asio::io_context io;
    // Name lookup runs on asio's own thread: the deadline ends the wait for
    // it, though the thread itself ends only when the system's resolver does.
    tcp::resolver resolver(io);
    tcp::resolver::results_type endpoints;
    run_until(
        io, deadline,
        [&](Completion done) {
          resolver.async_resolve(target.host, target.port,
                                 [&endpoints, done](boost::system::error_code ec, tcp::resolver::results_type found) {
                                   endpoints = std::move(found);
                                   done(ec);
                                 });
        },
        [&] { resolver.cancel(); });
    if (!target.https) {
      beast::tcp_stream stream(io);
      run_until(io, deadline, [&](Completion done) { stream.async_connect(endpoints, done); }, [&] { stream.close(); });
      reply = exchange(io, deadline, stream, target, method, path, body, options);
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
      beast::ssl_stream<beast::tcp_stream> stream(io, ctx);
      // SNI (what SSL_set_tlsext_host_name expands to, without its C cast).
      SSL_ctrl(stream.native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
               const_cast<char*>(target.host.c_str()));
      auto& tcp_layer = beast::get_lowest_layer(stream);
      run_until(io, deadline, [&](Completion done) { tcp_layer.async_connect(endpoints, done); },
                [&] { tcp_layer.close(); });
      run_until(io, deadline, [&](Completion done) { stream.async_handshake(ssl::stream_base::client, done); },
                [&] { tcp_layer.close(); });
      reply = exchange(io, deadline, stream, target, method, path, body, options);
    }
  } catch (const DeadlineReached&) {
    reply = {};
    reply.error = "no answer from " + where + " within " + seconds_text(options.timeout_seconds) + " s";
  } catch (const boost::system::system_error& e) {
    reply = {};
    if (e.code() == http::error::body_limit) {
      const std::size_t limit = options.max_body_bytes;
      reply.error = "the answer from " + where + " is larger than " +
                    (limit % (std::size_t{1} << 20) == 0 ? std::to_string(limit >> 20) + " MiB"
                                                         : std::to_string(limit) + " bytes");
    } else {
      reply.error = "cannot reach " + where + ": " + e.code().message();
    }
  } catch (const std::exception& e) {
    reply = {};
    reply.error = "cannot reach " + where + ": " + e.what();
  }
  return reply;
}

}  // namespace jank::app

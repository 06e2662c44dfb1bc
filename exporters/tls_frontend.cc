#include "exporters/tls_frontend.h"

#include <openssl/ssl.h>

#include <array>
#include <chrono>
#include <stdexcept>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

namespace jank::exporters {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;

namespace {

// One client connection: TLS on the outside, plain HTTP to the backend.
class Relay : public std::enable_shared_from_this<Relay> {
 public:
  Relay(tcp::socket client, ssl::context& context, const TlsFrontendOptions& options, std::shared_ptr<int> active)
      : client_(std::move(client), context),
        backend_(client_.get_executor()),
        timer_(client_.get_executor()),
        options_(options),
        active_(std::move(active)) {
    ++*active_;
  }
  ~Relay() { --*active_; }

  void start() {
    touch();
    auto self = shared_from_this();
    client_.async_handshake(ssl::stream_base::server, [self](boost::system::error_code ec) {
      if (ec || self->closed_) return self->close();
      self->touch();
      const tcp::endpoint backend(asio::ip::address_v4::loopback(), static_cast<unsigned short>(self->options_.backend_port));
      self->backend_.async_connect(backend, [self](boost::system::error_code connect_ec) {
        if (connect_ec || self->closed_) return self->close();
        self->client_to_backend();
        self->backend_to_client();
      });
    });
  }

 private:
  // Every byte moved pushes the idle deadline back.
  void touch() {
    timer_.expires_after(std::chrono::milliseconds(options_.idle_timeout_ms));
    std::weak_ptr<Relay> weak = shared_from_this();
    timer_.async_wait([weak](boost::system::error_code ec) {
      if (ec) return;  // re-armed or cancelled
      if (auto self = weak.lock()) self->close();
    });
  }

  void client_to_backend() {
    auto self = shared_from_this();
    client_.async_read_some(asio::buffer(up_), [self](boost::system::error_code ec, std::size_t n) {
      if (self->closed_) return;
      if (ec) {
        // The client finished sending (or went away): the backend still answers.
        boost::system::error_code ignored;
        self->backend_.shutdown(tcp::socket::shutdown_send, ignored);
        return;
      }
      self->touch();
      asio::async_write(self->backend_, asio::buffer(self->up_.data(), n),
                        [self](boost::system::error_code write_ec, std::size_t) {
                          if (write_ec || self->closed_) return self->close();
                          self->client_to_backend();
                        });
    });
  }

  void backend_to_client() {
    auto self = shared_from_this();
    backend_.async_read_some(asio::buffer(down_), [self](boost::system::error_code ec, std::size_t n) {
      if (self->closed_) return;
      if (ec) {
        // The response is complete (the backend closes every connection):
        // close_notify, then close whether or not the client answers.
        self->touch();
        return self->client_.async_shutdown([self](boost::system::error_code) { self->close(); });
      }
      self->touch();
      asio::async_write(self->client_, asio::buffer(self->down_.data(), n),
                        [self](boost::system::error_code write_ec, std::size_t) {
                          if (write_ec || self->closed_) return self->close();
                          self->backend_to_client();
                        });
    });
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ignored;
    timer_.cancel();
    client_.lowest_layer().close(ignored);
    backend_.close(ignored);
  }

  ssl::stream<tcp::socket> client_;
  tcp::socket backend_;
  asio::steady_timer timer_;
  const TlsFrontendOptions& options_;
  std::shared_ptr<int> active_;
  std::array<char, 16 * 1024> up_{};
  std::array<char, 64 * 1024> down_{};
  bool closed_ = false;
};

// ":9789" → every IPv4 interface; "HOST:PORT"; "[V6]:PORT" (with "[::]" also
// taking IPv4, as the HTTP server does).
tcp::endpoint listen_endpoint(asio::io_context& io, const std::string& address) {
  std::string host, port;
  if (!address.empty() && address.front() == '[') {
    const auto close = address.find("]:");
    if (close == std::string::npos) throw std::runtime_error("bad listen address " + address);
    host = address.substr(1, close - 1);
    port = address.substr(close + 2);
  } else {
    const auto colon = address.rfind(':');
    if (colon == std::string::npos) throw std::runtime_error("bad listen address " + address);
    host = address.substr(0, colon);
    port = address.substr(colon + 1);
  }
  if (host.empty()) host = "0.0.0.0";
  boost::system::error_code ec;
  tcp::resolver resolver(io);
  const auto results = resolver.resolve(host, port, tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) throw std::runtime_error("cannot resolve listen address " + address + ": " + ec.message());
  return results.begin()->endpoint();
}

}  // namespace

class TlsFrontend::Impl {
 public:
  Impl(const TlsOptions& tls, const TlsFrontendOptions& options)
      : options_(options), context_(ssl::context::tls_server), acceptor_(io_) {
    context_.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                         ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
    boost::system::error_code ec;
    context_.use_certificate_chain_file(tls.certificate_file, ec);
    if (ec) throw std::runtime_error("http.tls.certificate_file " + tls.certificate_file + ": " + ec.message());
    context_.use_private_key_file(tls.key_file, ssl::context::pem, ec);
    if (ec) throw std::runtime_error("http.tls.key_file " + tls.key_file + ": " + ec.message());
    if (SSL_CTX_check_private_key(context_.native_handle()) != 1) {
      throw std::runtime_error("http.tls.key_file " + tls.key_file + ": key values mismatch with http.tls.certificate_file " +
                               tls.certificate_file);
    }
    const tcp::endpoint endpoint = listen_endpoint(io_, options_.listen_address);
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec && endpoint.address().is_v6()) acceptor_.set_option(asio::ip::v6_only(false), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) throw std::runtime_error("cannot listen on " + options_.listen_address + ": " + ec.message());
    accept();
    thread_ = std::thread([this] { io_.run(); });
  }

  ~Impl() {
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }

  std::vector<int> ports() const { return {acceptor_.local_endpoint().port()}; }

 private:
  void accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (ec) {
        // Out of descriptors, say: try again shortly rather than spin.
        retry_.expires_after(std::chrono::milliseconds(100));
        retry_.async_wait([this](boost::system::error_code wait_ec) {
          if (!wait_ec) accept();
        });
        return;
      }
      {
        if (*active_ >= options_.max_connections) {
          boost::system::error_code ignored;
          socket.close(ignored);
        } else {
          std::make_shared<Relay>(std::move(socket), context_, options_, active_)->start();
        }
      }
      accept();
    });
  }

  TlsFrontendOptions options_;
  std::shared_ptr<int> active_ = std::make_shared<int>(0);
  asio::io_context io_;
  ssl::context context_;
  tcp::acceptor acceptor_;
  asio::steady_timer retry_{io_};
  std::thread thread_;
};

TlsFrontend::TlsFrontend(const TlsOptions& tls, const TlsFrontendOptions& options)
    : impl_(std::make_unique<Impl>(tls, options)) {}

TlsFrontend::~TlsFrontend() = default;

std::vector<int> TlsFrontend::ports() const { return impl_->ports(); }

}  // namespace jank::exporters

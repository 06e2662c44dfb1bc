#include "ingest/client.h"

#include <array>
#include <optional>
#include <utility>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "ingest/protocol.h"

namespace jank::ingest {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

std::string_view error_kind_name(AdbErrorKind kind) {
  switch (kind) {
    case AdbErrorKind::none: return "none";
    case AdbErrorKind::invalid_request: return "invalid_request";
    case AdbErrorKind::resolve_failed: return "resolve_failed";
    case AdbErrorKind::connect_refused: return "connect_refused";
    case AdbErrorKind::connect_failed: return "connect_failed";
    case AdbErrorKind::timeout: return "timeout";
    case AdbErrorKind::server_fail: return "server_fail";
    case AdbErrorKind::protocol: return "protocol";
    case AdbErrorKind::eof: return "eof";
    case AdbErrorKind::io: return "io";
    case AdbErrorKind::cancelled: return "cancelled";
  }
  return "unknown";
}

std::string AdbError::to_string() const {
  std::string out(error_kind_name(kind));
  if (!message.empty()) {
    out += ": ";
    out += message;
  }
  return out;
}

namespace detail {

namespace {
// Status words from a broken peer may be binary; keep log lines printable.
std::string printable(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}
}  // namespace

// One exchange: connect, then for each request write it and expect OKAY;
// finally read a length-prefixed payload or hand over the socket.
class Operation : public std::enable_shared_from_this<Operation> {
 public:
  Operation(asio::io_context& io, std::vector<std::string> requests, QueryHandler on_payload,
            StreamHandler on_stream)
      : io_(io),
        socket_(io),
        timer_(io),
        requests_(std::move(requests)),
        on_payload_(std::move(on_payload)),
        on_stream_(std::move(on_stream)) {}

  void start(const AdbEndpoint& endpoint, Deadline deadline) {
    timer_.expires_at(deadline);
    timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec) self->finish(AdbErrorKind::timeout, "no answer before the deadline while " + std::string(self->phase_));
    });
    phase_ = "connecting";
    error_code ec;
    auto address = asio::ip::make_address(endpoint.host, ec);
    if (!ec) {
      socket_.async_connect(tcp::endpoint(address, endpoint.port),
                            [self = shared_from_this()](error_code e) { self->on_connected(e); });
      return;
    }
    phase_ = "resolving";
    resolver_.emplace(io_);
    resolver_->async_resolve(endpoint.host, std::to_string(endpoint.port),
                             [self = shared_from_this()](error_code e, tcp::resolver::results_type results) {
                               if (self->done_) return;
                               if (e) return self->finish(AdbErrorKind::resolve_failed, e.message());
                               self->phase_ = "connecting";
                               asio::async_connect(self->socket_, results,
                                                   [self](error_code e2, const tcp::endpoint&) { self->on_connected(e2); });
                             });
  }

  void fail_now(AdbErrorKind kind, std::string message) {
    // Still asynchronous for the caller.
    asio::post(io_, [self = shared_from_this(), kind, message = std::move(message)]() mutable {
      self->finish(kind, std::move(message));
    });
  }

  void cancel_async() {
    asio::post(io_, [self = shared_from_this()] {
      self->finish(AdbErrorKind::cancelled, "cancelled while " + std::string(self->phase_));
    });
  }
  bool done() const { return done_; }

 private:
  void on_connected(error_code ec) {
    if (done_) return;
    if (ec) {
      auto kind = ec == asio::error::connection_refused ? AdbErrorKind::connect_refused : AdbErrorKind::connect_failed;
      return finish(kind, ec.message());
    }
    error_code ignored;
    socket_.set_option(tcp::no_delay(true), ignored);
    send_request();
  }

  void send_request() {
    phase_ = step_ == 0 ? "sending the request" : "sending the service request";
    out_ = *encode_request(requests_[step_]);  // validated by the initiating function
    asio::async_write(socket_, asio::buffer(out_), [self = shared_from_this()](error_code ec, std::size_t) {
      if (self->done_) return;
      if (ec) return self->finish_io(ec);
      self->read_status();
    });
  }

  void read_status() {
    if (requests_.size() == 1) {
      phase_ = "waiting for the status";
    } else {
      phase_ = step_ == 0 ? "waiting for the transport" : "waiting for the device to accept the service";
    }
    asio::async_read(socket_, asio::buffer(head_.data(), 4), [self = shared_from_this()](error_code ec, std::size_t) {
      if (self->done_) return;
      if (ec) return self->finish_io(ec);
      std::string_view word(self->head_.data(), 4);
      switch (parse_status(word)) {
        case Status::okay: return self->on_okay();
        case Status::fail: return self->read_length(true);
        case Status::invalid: return self->finish(AdbErrorKind::protocol, "unexpected status '" + printable(word) + "'");
      }
    });
  }

  void on_okay() {
    if (++step_ < requests_.size()) return send_request();
    if (on_stream_) return finish_stream();
    read_length(false);
  }

  void read_length(bool failing) {
    phase_ = failing ? "reading the FAIL message" : "reading the reply length";
    asio::async_read(socket_, asio::buffer(head_.data(), 4), [self = shared_from_this(), failing](error_code ec, std::size_t) {
      if (self->done_) return;
      if (ec) return self->finish_io(ec);
      auto length = parse_hex4(std::string_view(self->head_.data(), 4));
      if (!length) {
        return self->finish(AdbErrorKind::protocol,
                            "bad length '" + printable(std::string_view(self->head_.data(), 4)) + "'");
      }
      self->read_body(*length, failing);
    });
  }

  void read_body(std::size_t length, bool failing) {
    phase_ = failing ? "reading the FAIL message" : "reading the reply";
    body_.assign(length, '\0');
    asio::async_read(socket_, asio::buffer(body_), [self = shared_from_this(), failing](error_code ec, std::size_t) {
      if (self->done_) return;
      if (ec) return self->finish_io(ec);
      if (failing) return self->finish(AdbErrorKind::server_fail, std::move(self->body_));
      self->finish_payload();
    });
  }

  void finish_io(error_code ec) {
    if (ec == asio::error::eof) return finish(AdbErrorKind::eof, "connection closed while " + std::string(phase_));
    finish(AdbErrorKind::io, ec.message() + " while " + std::string(phase_));
  }

  void close() {
    error_code ignored;
    timer_.cancel();
    if (resolver_) resolver_->cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  void finish(AdbErrorKind kind, std::string message) {
    if (done_) return;
    done_ = true;
    close();
    AdbError error{kind, std::move(message)};
    if (on_stream_) {
      auto handler = std::move(on_stream_);
      handler(std::move(error), tcp::socket(io_));
    } else {
      auto handler = std::move(on_payload_);
      handler(std::move(error), {});
    }
  }

  void finish_payload() {
    done_ = true;
    close();
    auto handler = std::move(on_payload_);
    handler(AdbError{}, std::move(body_));
  }

  void finish_stream() {
    done_ = true;
    timer_.cancel();
    auto handler = std::move(on_stream_);
    handler(AdbError{}, std::move(socket_));
  }

  asio::io_context& io_;
  tcp::socket socket_;
  asio::steady_timer timer_;
  std::optional<tcp::resolver> resolver_;
  std::vector<std::string> requests_;
  std::size_t step_ = 0;
  QueryHandler on_payload_;
  StreamHandler on_stream_;
  std::string out_;
  std::array<char, 4> head_{};
  std::string body_;
  std::string_view phase_ = "starting";
  bool done_ = false;
};

}  // namespace detail

void AdbRequest::cancel() {
  auto op = op_.lock();
  if (!op) return;
  op->cancel_async();
}

bool AdbRequest::active() const {
  auto op = op_.lock();
  return op && !op->done();
}

namespace {

std::shared_ptr<detail::Operation> start(asio::io_context& io, const AdbEndpoint& endpoint,
                                         std::vector<std::string> requests, Deadline deadline,
                                         QueryHandler on_payload, StreamHandler on_stream,
                                         std::string_view invalid) {
  auto op = std::make_shared<detail::Operation>(io, std::move(requests), std::move(on_payload), std::move(on_stream));
  if (!invalid.empty()) {
    op->fail_now(AdbErrorKind::invalid_request, std::string(invalid));
  } else {
    op->start(endpoint, deadline);
  }
  return op;
}

bool encodable(std::string_view request) { return encode_request(request).has_value(); }

}  // namespace

AdbRequest query(asio::io_context& io, const AdbEndpoint& endpoint, std::string_view request, Deadline deadline,
                 QueryHandler handler) {
  std::string_view invalid = encodable(request) ? "" : "request is empty or longer than 65535 bytes";
  return AdbRequest(start(io, endpoint, {std::string(request)}, deadline, std::move(handler), {}, invalid));
}

AdbRequest open_host_stream(asio::io_context& io, const AdbEndpoint& endpoint, std::string_view request,
                            Deadline deadline, StreamHandler handler) {
  std::string_view invalid = encodable(request) ? "" : "request is empty or longer than 65535 bytes";
  return AdbRequest(start(io, endpoint, {std::string(request)}, deadline, {}, std::move(handler), invalid));
}

AdbRequest open_device_service(asio::io_context& io, const AdbEndpoint& endpoint, std::string_view serial,
                               std::string_view service, Deadline deadline, StreamHandler handler) {
  std::string_view invalid;
  if (serial.empty() || serial.find('\0') != std::string_view::npos || !encodable(transport_request(serial))) {
    invalid = "invalid serial";
  } else if (service.empty() || service.size() > kMaxServiceBytes || service.find('\0') != std::string_view::npos) {
    invalid = "service is empty, contains NUL or is longer than 4095 bytes";
  }
  return AdbRequest(start(io, endpoint, {transport_request(serial), std::string(service)}, deadline, {},
                          std::move(handler), invalid));
}

}  // namespace jank::ingest

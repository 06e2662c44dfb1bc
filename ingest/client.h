// Asynchronous adb host-protocol client on one io_context: one TCP connection
// per request, a deadline on the whole exchange (the server never times out a
// wedged device), errors as values. Handlers run on the io_context, never
// inside the initiating call, exactly once.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "ingest/endpoint.h"

namespace jank::ingest {

enum class AdbErrorKind : std::uint8_t {
  none,
  invalid_request,  // empty, too long, or not a valid service string
  resolve_failed,   // host name did not resolve
  connect_refused,  // nothing listens: no server
  connect_failed,   // other connect errors (unreachable, ...)
  timeout,          // deadline passed
  server_fail,      // the server answered FAIL; message holds its text
  protocol,         // bytes that are not the adb host protocol
  eof,              // the server closed the connection before the reply was complete
  io,               // other socket errors
  cancelled,        // AdbRequest::cancel()
};
// Short snake_case name, usable as a metric label.
std::string_view error_kind_name(AdbErrorKind kind);

struct AdbError {
  AdbErrorKind kind = AdbErrorKind::none;
  std::string message;  // the FAIL text for server_fail, else a description

  explicit operator bool() const { return kind != AdbErrorKind::none; }
  std::string to_string() const;  // "kind: message"
};

using Deadline = std::chrono::steady_clock::time_point;
using QueryHandler = std::function<void(AdbError error, std::string payload)>;
// On success the socket is connected to the service and owned by the handler.
using StreamHandler = std::function<void(AdbError error, boost::asio::ip::tcp::socket socket)>;

namespace detail {
class Operation;
}

// Handle of a request in flight; copying shares it, dropping it does not cancel.
class AdbRequest {
 public:
  AdbRequest() = default;
  explicit AdbRequest(std::weak_ptr<detail::Operation> op) : op_(std::move(op)) {}
  // Closes the socket; the handler then runs with `cancelled` unless it has
  // already run. Safe from any thread (the work is posted to the io_context).
  void cancel();
  // False once the handler has run or the operation is gone (io thread only).
  bool active() const;

 private:
  std::weak_ptr<detail::Operation> op_;
};

// One-shot host request ("host:version", "host:devices-l", ...): the reply is
// OKAY + hex4 + payload (host:version included) or FAIL + hex4 + text.
AdbRequest query(boost::asio::io_context& io, const AdbEndpoint& endpoint, std::string_view request,
                 Deadline deadline, QueryHandler handler);

// Sends `request`, waits for OKAY and hands over the socket (track-devices).
AdbRequest open_host_stream(boost::asio::io_context& io, const AdbEndpoint& endpoint, std::string_view request,
                            Deadline deadline, StreamHandler handler);

// host:transport:<serial>, wait for OKAY, then `service`, wait for OKAY (which
// the server sends only once the device accepted the OPEN), hand over the
// socket. The two requests are never sent together: the server drops the second.
AdbRequest open_device_service(boost::asio::io_context& io, const AdbEndpoint& endpoint, std::string_view serial,
                               std::string_view service, Deadline deadline, StreamHandler handler);

}  // namespace jank::ingest

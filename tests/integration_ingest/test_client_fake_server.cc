// The asio client against a scripted fake server: replies and error paths.
#include <catch2/catch.hpp>

#include <optional>

#include "fake_adb_server.h"
#include "ingest/client.h"
#include "ingest/protocol.h"

using namespace jank::ingest;
using namespace jank::ingest::testing;
using namespace std::chrono_literals;
using Action = FakeAdbServer::Action;
using After = FakeAdbServer::After;

namespace {

struct Outcome {
  int calls = 0;
  AdbError error;
  std::string payload;
};

Deadline in(std::chrono::milliseconds d) { return std::chrono::steady_clock::now() + d; }

Outcome run_query(asio::io_context& io, const AdbEndpoint& endpoint, const std::string& request,
                  std::chrono::milliseconds timeout = 2000ms) {
  Outcome out;
  query(io, endpoint, request, in(timeout), [&](AdbError e, std::string p) {
    ++out.calls;
    out.error = std::move(e);
    out.payload = std::move(p);
  });
  REQUIRE(run_until(io, [&] { return out.calls > 0; }));
  run_for(io, 20ms);  // a second call would show here
  REQUIRE(out.calls == 1);
  return out;
}

FakeAdbServer::Responder always(std::string reply, After after = After::close) {
  return [reply, after](const std::string&, FakeConnection&) { return Action{reply, after}; };
}

}  // namespace

TEST_CASE("query: host:version's OKAY + hex4 + payload", "[adb][fake]") {
  asio::io_context io;
  FakeAdbServer server(io, always("OKAY00040029"));
  auto out = run_query(io, server.endpoint(), "host:version");
  CHECK_FALSE(out.error);
  CHECK(out.payload == "0029");
  REQUIRE(server.requests().size() == 1);
  CHECK(server.requests()[0] == "host:version");
}

TEST_CASE("query: empty and maximal payloads", "[adb][fake]") {
  asio::io_context io;
  SECTION("empty list") {
    FakeAdbServer server(io, always("OKAY0000"));
    auto out = run_query(io, server.endpoint(), "host:devices-l");
    CHECK_FALSE(out.error);
    CHECK(out.payload.empty());
  }
  SECTION("65535 bytes, upper-case hex as adbkit-style servers send") {
    FakeAdbServer server(io, always("OKAYFFFF" + std::string(65535, 'x')));
    auto out = run_query(io, server.endpoint(), "host:devices-l");
    CHECK_FALSE(out.error);
    CHECK(out.payload.size() == 65535);
  }
}

TEST_CASE("query: FAIL text is surfaced as server_fail", "[adb][fake]") {
  asio::io_context io;
  FakeAdbServer server(io, always("FAIL" + framed("device 'x' not found")));
  auto out = run_query(io, server.endpoint(), "host:transport:x");
  CHECK(out.error.kind == AdbErrorKind::server_fail);
  CHECK(out.error.message == "device 'x' not found");
  CHECK(out.error.to_string() == "server_fail: device 'x' not found");
}

TEST_CASE("query: protocol errors for garbage status and bad hex lengths", "[adb][fake]") {
  asio::io_context io;
  SECTION("garbage status") {
    FakeAdbServer server(io, always("HELO0000"));
    auto out = run_query(io, server.endpoint(), "host:version");
    CHECK(out.error.kind == AdbErrorKind::protocol);
    CHECK(out.error.message.find("HELO") != std::string::npos);
  }
  SECTION("binary status is reported printable") {
    FakeAdbServer server(io, always(std::string("\0\x01\xff\n", 4)));
    auto out = run_query(io, server.endpoint(), "host:version");
    CHECK(out.error.kind == AdbErrorKind::protocol);
    CHECK(out.error.message.find("\\x00\\x01\\xff\\x0a") != std::string::npos);
  }
  SECTION("bad length after OKAY") {
    FakeAdbServer server(io, always("OKAYzz!z"));
    auto out = run_query(io, server.endpoint(), "host:version");
    CHECK(out.error.kind == AdbErrorKind::protocol);
    CHECK(out.error.message.find("zz!z") != std::string::npos);
  }
  SECTION("bad length after FAIL") {
    FakeAdbServer server(io, always("FAIL 12 "));
    auto out = run_query(io, server.endpoint(), "host:version");
    CHECK(out.error.kind == AdbErrorKind::protocol);
  }
  SECTION("old-style version reply without OKAY") {
    FakeAdbServer server(io, always("0029"));
    auto out = run_query(io, server.endpoint(), "host:version");
    CHECK(out.error.kind == AdbErrorKind::protocol);
  }
}

TEST_CASE("query: EOF at every point of a reply", "[adb][fake]") {
  asio::io_context io;
  for (const char* reply : {"", "OK", "OKAY", "OKAY00", "OKAY0010", "OKAY0010abc", "FAIL", "FAIL0006clo"}) {
    DYNAMIC_SECTION("reply '" << reply << "' then EOF") {
      FakeAdbServer server(io, always(reply));
      auto out = run_query(io, server.endpoint(), "host:devices");
      CHECK(out.error.kind == AdbErrorKind::eof);
      CHECK(out.error.message.find("connection closed while") == 0);
    }
  }
}

TEST_CASE("query: a server that accepts and never answers hits the deadline", "[adb][fake]") {
  asio::io_context io;
  FakeAdbServer server(io, always("", After::hang));
  auto start = std::chrono::steady_clock::now();
  auto out = run_query(io, server.endpoint(), "host:devices", 200ms);
  auto took = std::chrono::steady_clock::now() - start;
  CHECK(out.error.kind == AdbErrorKind::timeout);
  CHECK(out.error.message.find("waiting for the status") != std::string::npos);
  CHECK(took >= 190ms);
  CHECK(took < 2s);
}

TEST_CASE("query: a partial reply followed by silence also hits the deadline", "[adb][fake]") {
  asio::io_context io;
  FakeAdbServer server(io, always("OKAY0100abc", After::hang));
  auto out = run_query(io, server.endpoint(), "host:devices", 150ms);
  CHECK(out.error.kind == AdbErrorKind::timeout);
  CHECK(out.error.message.find("reading the reply") != std::string::npos);
}

TEST_CASE("query: connection refused when nothing listens", "[adb][fake]") {
  asio::io_context io;
  std::uint16_t port;
  {
    tcp::acceptor probe(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    port = probe.local_endpoint().port();
  }
  auto out = run_query(io, AdbEndpoint{"127.0.0.1", port}, "host:version");
  CHECK(out.error.kind == AdbErrorKind::connect_refused);
  CHECK(error_kind_name(out.error.kind) == "connect_refused");
}

TEST_CASE("query: host names are resolved", "[adb][fake]") {
  asio::io_context io;
  FakeAdbServer server(io, always("OKAY00040029"));
  auto out = run_query(io, AdbEndpoint{"localhost", server.endpoint().port}, "host:version");
  // localhost may resolve to ::1 first; the client tries every address.
  CHECK_FALSE(out.error);
  CHECK(out.payload == "0029");
}

TEST_CASE("query: invalid requests fail asynchronously without a connection", "[adb][fake]") {
  asio::io_context io;
  FakeAdbServer server(io, always("OKAY0000"));
  int calls = 0;
  AdbError error;
  query(io, server.endpoint(), "", in(1s), [&](AdbError e, std::string) {
    ++calls;
    error = e;
  });
  CHECK(calls == 0);  // never inside the initiating call
  REQUIRE(run_until(io, [&] { return calls > 0; }));
  CHECK(error.kind == AdbErrorKind::invalid_request);
  auto big = run_query(io, server.endpoint(), std::string(65536, 'a'));
  CHECK(big.error.kind == AdbErrorKind::invalid_request);
  CHECK(server.accepted() == 0);
}

TEST_CASE("AdbRequest::cancel closes the socket and reports cancelled once", "[adb][fake]") {
  asio::io_context io;
  FakeAdbServer server(io, always("", After::hang));
  int calls = 0;
  AdbError error;
  auto request = query(io, server.endpoint(), "host:devices", in(10s), [&](AdbError e, std::string) {
    ++calls;
    error = e;
  });
  REQUIRE(run_until(io, [&] { return server.requests().size() == 1; }));
  CHECK(request.active());
  request.cancel();
  request.cancel();
  REQUIRE(run_until(io, [&] { return calls > 0; }));
  run_for(io, 30ms);
  CHECK(calls == 1);
  CHECK(error.kind == AdbErrorKind::cancelled);
  CHECK_FALSE(request.active());
  request.cancel();  // harmless after completion
  AdbRequest().cancel();
}

TEST_CASE("query: a hundred requests at once on one thread", "[adb][fake]") {
  asio::io_context io;
  FakeAdbServer server(io, [](const std::string& request, FakeConnection&) {
    return Action{"OKAY" + framed(request.substr(5)), After::close, 50ms};
  });
  int done = 0;
  int good = 0;
  for (int i = 0; i < 100; ++i) {
    query(io, server.endpoint(), "host:" + std::to_string(i), in(5s), [&, i](AdbError e, std::string p) {
      ++done;
      if (!e && p == std::to_string(i)) ++good;
    });
  }
  auto start = std::chrono::steady_clock::now();
  REQUIRE(run_until(io, [&] { return done == 100; }));
  CHECK(good == 100);
  // Concurrent, not one after another (100 x 70 ms would be 7 s).
  CHECK(std::chrono::steady_clock::now() - start < 3s);
}

namespace {
struct StreamOutcome {
  int calls = 0;
  AdbError error;
  std::optional<tcp::socket> socket;
};

StreamOutcome run_open(asio::io_context& io, const AdbEndpoint& endpoint, const std::string& serial,
                       const std::string& service, std::chrono::milliseconds timeout = 2000ms) {
  StreamOutcome out;
  open_device_service(io, endpoint, serial, service, in(timeout), [&](AdbError e, tcp::socket s) {
    ++out.calls;
    out.error = std::move(e);
    if (!out.error) out.socket.emplace(std::move(s));
  });
  REQUIRE(run_until(io, [&] { return out.calls > 0; }));
  run_for(io, 20ms);
  REQUIRE(out.calls == 1);
  return out;
}

// A server that binds the transport, then answers the service request.
FakeAdbServer::Responder device_server(std::string service_reply, After after = After::hang,
                                       std::string transport_reply = "OKAY") {
  return [=](const std::string& request, FakeConnection&) {
    if (request.starts_with("host:transport:")) return Action{transport_reply, After::next_request};
    return Action{service_reply, after};
  };
}
}  // namespace

TEST_CASE("open_device_service: transport then wait then service then the stream is ours", "[adb][fake]") {
  asio::io_context io;
  FakeAdbServer server(io, device_server("OKAY" + std::string("\x01\x03\0\0\0hi\n", 8)));
  auto out = run_open(io, server.endpoint(), "127.0.0.1:37645", "shell,v2,raw:echo hi");
  REQUIRE_FALSE(out.error);
  REQUIRE(server.requests().size() == 2);
  CHECK(server.requests()[0] == "host:transport:127.0.0.1:37645");
  CHECK(server.requests()[1] == "shell,v2,raw:echo hi");
  REQUIRE(server.connections().size() == 1);
  CHECK_FALSE(server.connections()[0]->pipelined);

  // Bytes right after the OKAY belong to the stream, none swallowed.
  std::string got(8, '\0');
  bool read_done = false;
  asio::async_read(*out.socket, asio::buffer(got), [&](boost::system::error_code ec, std::size_t) {
    CHECK_FALSE(ec);
    read_done = true;
  });
  REQUIRE(run_until(io, [&] { return read_done; }));
  CHECK(got == std::string("\x01\x03\0\0\0hi\n", 8));
  boost::system::error_code ec;
  tcp::no_delay nodelay;
  out.socket->get_option(nodelay, ec);
  CHECK(nodelay.value());
}

TEST_CASE("open_device_service: FAIL from the transport or from the device", "[adb][fake]") {
  asio::io_context io;
  SECTION("missing device") {
    FakeAdbServer server(io, device_server("", After::close, "FAIL" + framed("device 'x' not found")));
    auto out = run_open(io, server.endpoint(), "x", "shell:true");
    CHECK(out.error.kind == AdbErrorKind::server_fail);
    CHECK(out.error.message == "device 'x' not found");
    CHECK(server.requests().size() == 1);  // the service was never sent
  }
  SECTION("device refused the OPEN") {
    FakeAdbServer server(io, device_server("FAIL0006closed", After::close));
    auto out = run_open(io, server.endpoint(), "emulator-5554", "log:main");
    CHECK(out.error.kind == AdbErrorKind::server_fail);
    CHECK(out.error.message == "closed");
  }
  SECTION("EOF after the transport OKAY") {
    FakeAdbServer server(io, device_server("", After::close));
    auto out = run_open(io, server.endpoint(), "emulator-5554", "shell:true");
    CHECK(out.error.kind == AdbErrorKind::eof);
  }
}

TEST_CASE("open_device_service: a wedged device hits the deadline", "[adb][fake]") {
  asio::io_context io;
  FakeAdbServer server(io, device_server("", After::hang));
  auto out = run_open(io, server.endpoint(), "wedged", "shell:true", 200ms);
  CHECK(out.error.kind == AdbErrorKind::timeout);
  CHECK(out.error.message.find("waiting for the device to accept the service") != std::string::npos);
}

TEST_CASE("open_device_service: invalid serials and services never reach the server", "[adb][fake]") {
  asio::io_context io;
  FakeAdbServer server(io, device_server("OKAY"));
  CHECK(run_open(io, server.endpoint(), "", "shell:true").error.kind == AdbErrorKind::invalid_request);
  CHECK(run_open(io, server.endpoint(), "s", "").error.kind == AdbErrorKind::invalid_request);
  CHECK(run_open(io, server.endpoint(), "s", std::string(kMaxServiceBytes + 1, 'x')).error.kind ==
        AdbErrorKind::invalid_request);
  CHECK(run_open(io, server.endpoint(), std::string("a\0b", 3), "shell:true").error.kind ==
        AdbErrorKind::invalid_request);
  CHECK(server.accepted() == 0);
}

TEST_CASE("open_host_stream hands over the socket after OKAY", "[adb][fake]") {
  asio::io_context io;
  FakeAdbServer server(io, always("OKAY" + framed(""), After::hang));
  int calls = 0;
  std::optional<tcp::socket> socket;
  open_host_stream(io, server.endpoint(), "host:track-devices-l", in(1s), [&](AdbError e, tcp::socket s) {
    ++calls;
    REQUIRE_FALSE(e);
    socket.emplace(std::move(s));
  });
  REQUIRE(run_until(io, [&] { return calls == 1; }));
  char head[4];
  bool read_done = false;
  asio::async_read(*socket, asio::buffer(head), [&](boost::system::error_code ec, std::size_t) {
    CHECK_FALSE(ec);
    read_done = true;
  });
  REQUIRE(run_until(io, [&] { return read_done; }));
  CHECK(std::string(head, 4) == "0000");
}

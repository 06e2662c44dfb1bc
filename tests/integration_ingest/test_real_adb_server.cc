// The client and tracker against Debian's real adb server (29.0.6), each test
// server private: own port, HOME, TMPDIR, no port scan.
#include <catch2/catch.hpp>

#include <memory>
#include <optional>

#include "adb_server_process.h"
#include "fake_adb_server.h"
#include "ingest/device_tracker.h"
#include "ingest/protocol.h"

using namespace jank::ingest;
using namespace jank::ingest::testing;
using namespace std::chrono_literals;

namespace {

// One server for the read-only tests, started on first use.
AdbServerProcess& shared_server() {
  static AdbServerProcess server;
  return server;
}

Deadline in(std::chrono::milliseconds d) { return std::chrono::steady_clock::now() + d; }

std::pair<AdbError, std::string> run_query(asio::io_context& io, const AdbEndpoint& endpoint, const std::string& request) {
  std::optional<std::pair<AdbError, std::string>> out;
  query(io, endpoint, request, in(3s), [&](AdbError e, std::string p) { out.emplace(std::move(e), std::move(p)); });
  REQUIRE(run_until(io, [&] { return out.has_value(); }));
  return *out;
}

std::optional<std::string> read_block(asio::io_context& io, tcp::socket& socket) {
  char head[4];
  bool done = false;
  boost::system::error_code error;
  asio::async_read(socket, asio::buffer(head), [&](boost::system::error_code ec, std::size_t) {
    error = ec;
    done = true;
  });
  if (!run_until(io, [&] { return done; }, 3s) || error) return std::nullopt;
  auto length = parse_hex4(std::string_view(head, 4));
  if (!length) return std::nullopt;
  std::string body(*length, '\0');
  done = false;
  asio::async_read(socket, asio::buffer(body), [&](boost::system::error_code ec, std::size_t) {
    error = ec;
    done = true;
  });
  if (!run_until(io, [&] { return done; }, 3s) || error) return std::nullopt;
  return body;
}

// A listener the server can attach to with host:emulator: it never answers
// CNXN, so the server lists the transport as offline while it stays open.
struct SilentEmulator {
  explicit SilentEmulator(asio::io_context& io)
      : acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)), socket(io) {
    acceptor.async_accept(socket, [](boost::system::error_code) {});
  }
  std::uint16_t port() const { return acceptor.local_endpoint().port(); }
  std::string serial() const { return "emulator-" + std::to_string(port() - 1); }
  tcp::acceptor acceptor;
  tcp::socket socket;
};

void attach_emulator(asio::io_context& io, const AdbEndpoint& endpoint, const SilentEmulator& emulator) {
  // host:emulator: has no reply; the server just closes the connection.
  auto [error, payload] = run_query(io, endpoint, "host:emulator:" + std::to_string(emulator.port()));
  CHECK(error.kind == AdbErrorKind::eof);
}

struct Recorder {
  std::vector<DeviceEvent> devices;
  std::vector<ServerEvent> servers;
  DeviceTrackerCallbacks callbacks() {
    return {[this](const DeviceEvent& e) { devices.push_back(e); },
            [this](const ServerEvent& e) { servers.push_back(e); }};
  }
  std::size_t count(bool up) const {
    return static_cast<std::size_t>(std::count_if(servers.begin(), servers.end(), [&](auto& s) { return s.up == up; }));
  }
};

}  // namespace

TEST_CASE("real adb: host:version is 41 in the OKAY + hex4 form", "[adb][real]") {
  asio::io_context io;
  auto [error, payload] = run_query(io, shared_server().endpoint(), "host:version");
  REQUIRE_FALSE(error);
  CHECK(payload == "0029");
  CHECK(parse_hex4(payload) == 41);
}

TEST_CASE("real adb: a fresh server lists no devices", "[adb][real]") {
  asio::io_context io;
  auto [error, payload] = run_query(io, shared_server().endpoint(), "host:devices-l");
  REQUIRE_FALSE(error);
  CHECK(payload.empty());
  auto [error2, payload2] = run_query(io, shared_server().endpoint(), "host:devices");
  REQUIRE_FALSE(error2);
  CHECK(payload2.empty());
}

TEST_CASE("real adb: track-devices-l answers OKAY and an empty first block at once", "[adb][real]") {
  asio::io_context io;
  std::optional<tcp::socket> stream;
  AdbError error;
  bool done = false;
  open_host_stream(io, shared_server().endpoint(), "host:track-devices-l", in(3s), [&](AdbError e, tcp::socket s) {
    error = e;
    done = true;
    if (!e) stream.emplace(std::move(s));
  });
  REQUIRE(run_until(io, [&] { return done; }));
  REQUIRE_FALSE(error);
  auto block = read_block(io, *stream);
  REQUIRE(block);
  CHECK(block->empty());
}

TEST_CASE("real adb: FAIL texts for a missing device and an unknown service", "[adb][real]") {
  asio::io_context io;
  auto endpoint = shared_server().endpoint();
  auto [error, payload] = run_query(io, endpoint, "host:transport:x");
  CHECK(error.kind == AdbErrorKind::server_fail);
  CHECK(error.message == "device 'x' not found");

  AdbError open_error;
  bool done = false;
  open_device_service(io, endpoint, "127.0.0.1:1", "shell,v2,raw:true", in(3s), [&](AdbError e, tcp::socket) {
    open_error = e;
    done = true;
  });
  REQUIRE(run_until(io, [&] { return done; }));
  CHECK(open_error.kind == AdbErrorKind::server_fail);
  CHECK(open_error.message == "device '127.0.0.1:1' not found");

  auto [unknown, unused] = run_query(io, endpoint, "host:no-such-thing");
  CHECK(unknown.kind == AdbErrorKind::server_fail);
  CHECK(unknown.message == "unknown host service");
}

TEST_CASE("real adb: an offline transport is listed and tracked and refused", "[adb][real]") {
  asio::io_context io;
  AdbServerProcess server;
  Recorder rec;
  DeviceTrackerOptions o;
  o.endpoint = server.endpoint();
  o.poll_interval = 200ms;
  DeviceTracker tracker(io, o, rec.callbacks());
  tracker.start();
  REQUIRE(run_until(io, [&] { return tracker.stats().blocks >= 1; }));
  CHECK(rec.devices.empty());

  SilentEmulator emulator(io);
  attach_emulator(io, server.endpoint(), emulator);
  REQUIRE(run_until(io, [&] { return !rec.devices.empty(); }));
  CHECK(rec.devices[0].change == DeviceChange::added);
  CHECK(rec.devices[0].serial == emulator.serial());
  CHECK(rec.devices[0].new_state == "offline");
  CHECK(rec.devices[0].info.transport_id.has_value());

  auto [error, list] = run_query(io, server.endpoint(), "host:devices-l");
  REQUIRE_FALSE(error);
  auto parsed = parse_device_list(list, ListFormat::long_);
  CHECK(parsed.malformed_lines == 0);
  REQUIRE(parsed.devices.size() == 1);
  CHECK(parsed.devices[0].serial == emulator.serial());

  AdbError open_error;
  bool done = false;
  open_device_service(io, server.endpoint(), emulator.serial(), "shell:true", in(3s), [&](AdbError e, tcp::socket) {
    open_error = e;
    done = true;
  });
  REQUIRE(run_until(io, [&] { return done; }));
  CHECK(open_error.kind == AdbErrorKind::server_fail);
  CHECK(open_error.message == "device offline");
}

TEST_CASE("real adb: killing the server is reported as loss and a new one on the same port is followed",
          "[adb][real][tracker]") {
  asio::io_context io;
  auto server = std::make_unique<AdbServerProcess>();
  const auto port = server->port();
  SilentEmulator emulator(io);
  attach_emulator(io, server->endpoint(), emulator);

  Recorder rec;
  DeviceTrackerOptions o;
  o.endpoint = server->endpoint();
  o.poll_interval = 200ms;
  o.backoff = {100ms, 400ms, 2.0, 0.5};
  DeviceTracker tracker(io, o, rec.callbacks(), [] { return 0.5; });
  tracker.start();
  REQUIRE(run_until(io, [&] { return rec.devices.size() == 1; }));
  CHECK(rec.count(true) == 1);

  server->stop(SIGKILL);
  REQUIRE(run_until(io, [&] { return rec.count(false) >= 1; }));
  REQUIRE(rec.devices.size() == 2);
  CHECK(rec.devices[1].change == DeviceChange::removed);
  CHECK(rec.devices[1].serial == emulator.serial());
  CHECK(rec.devices[1].old_state == "offline");
  CHECK(tracker.devices().empty());
  CHECK_FALSE(tracker.server_up());
  run_for(io, 300ms);  // a few refused reconnects
  CHECK(rec.servers.back().error.kind == AdbErrorKind::connect_refused);

  server = std::make_unique<AdbServerProcess>(port);
  REQUIRE(run_until(io, [&] { return rec.count(true) == 2; }, 5s));
  REQUIRE(run_until(io, [&] { return tracker.stats().blocks >= 2; }));
  CHECK(tracker.stats().connects == 2);
  CHECK(tracker.stats().losses == 1);
  CHECK(tracker.devices().empty());  // the new server never heard of the emulator
}

TEST_CASE("real adb: two servers and two trackers each with its own devices", "[adb][real][tracker]") {
  asio::io_context io;
  AdbServerProcess a;
  AdbServerProcess b;
  SilentEmulator emulator(io);
  attach_emulator(io, a.endpoint(), emulator);
  Recorder rec_a;
  Recorder rec_b;
  DeviceTrackerOptions oa;
  oa.endpoint = a.endpoint();
  DeviceTrackerOptions ob;
  ob.endpoint = b.endpoint();
  DeviceTracker ta(io, oa, rec_a.callbacks());
  DeviceTracker tb(io, ob, rec_b.callbacks());
  ta.start();
  tb.start();
  REQUIRE(run_until(io, [&] { return ta.stats().blocks >= 1 && tb.stats().blocks >= 1 && !rec_a.devices.empty(); }));
  CHECK(rec_a.devices[0].serial == emulator.serial());
  CHECK(rec_b.devices.empty());
  CHECK(ta.devices().size() == 1);
  CHECK(tb.devices().empty());
}

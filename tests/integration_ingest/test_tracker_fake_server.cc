// DeviceTracker against a scripted fake server: diffing, polling, loss,
// reconnection and backoff.
#include <catch2/catch.hpp>

#include "fake_adb_server.h"
#include "ingest/device_tracker.h"

using namespace jank::ingest;
using namespace jank::ingest::testing;
using namespace std::chrono_literals;
using Action = FakeAdbServer::Action;
using After = FakeAdbServer::After;

namespace {

const std::string kTrack = "host:track-devices-l";
const std::string kDevice = "emulator-5554          device product:p model:M device:d transport_id:1\n";
const std::string kOffline = "emulator-5554          offline transport_id:1\n";
const std::string kTcp = "127.0.0.1:37645        device product:q model:N device:e transport_id:2\n";

// Track stream answers `track_list` and stays open; polls answer `poll_list`.
struct Scripted {
  std::string track_list;
  std::string poll_list;
  std::chrono::milliseconds poll_delay{0};
  bool polls_hang = false;

  FakeAdbServer::Responder responder() {
    return [this](const std::string& request, FakeConnection&) {
      if (request == kTrack) return Action{"OKAY" + framed(track_list), After::hang};
      if (request == "host:devices-l") {
        if (polls_hang) return Action{"", After::hang};
        return Action{"OKAY" + framed(poll_list), After::close, poll_delay};
      }
      return Action{"FAIL" + framed("unknown host service"), After::close};
    };
  }
};

struct Recorder {
  std::vector<DeviceEvent> devices;
  std::vector<ServerEvent> servers;
  DeviceTrackerCallbacks callbacks() {
    return {[this](const DeviceEvent& e) { devices.push_back(e); },
            [this](const ServerEvent& e) { servers.push_back(e); }};
  }
  std::size_t ups() const {
    std::size_t n = 0;
    for (auto& s : servers) n += s.up ? 1 : 0;
    return n;
  }
  std::size_t downs() const { return servers.size() - ups(); }
};

DeviceTrackerOptions options(const AdbEndpoint& endpoint) {
  DeviceTrackerOptions o;
  o.endpoint = endpoint;
  o.poll_interval = 10s;  // tests that want polls lower it
  o.request_timeout = 1s;
  o.backoff = {20ms, 80ms, 2.0, 0.5};
  return o;
}

double half() { return 0.5; }

}  // namespace

TEST_CASE("tracker: blocks are diffed and duplicates are silent", "[adb][fake][tracker]") {
  asio::io_context io;
  Scripted script{kDevice, kDevice};
  FakeAdbServer server(io, script.responder());
  Recorder rec;
  DeviceTracker tracker(io, options(server.endpoint()), rec.callbacks(), half);
  tracker.start();

  REQUIRE(run_until(io, [&] { return rec.devices.size() == 1; }));
  CHECK(rec.ups() == 1);
  CHECK(tracker.server_up());
  CHECK(rec.devices[0].change == DeviceChange::added);
  CHECK(rec.devices[0].serial == "emulator-5554");
  CHECK(rec.devices[0].new_state == "device");
  CHECK(rec.devices[0].info.model == "M");

  server.send(kTrack, framed(kDevice));
  server.send(kTrack, framed(kDevice));
  REQUIRE(run_until(io, [&] { return tracker.stats().blocks == 3; }));
  CHECK(rec.devices.size() == 1);

  server.send(kTrack, framed(kOffline + kTcp));
  REQUIRE(run_until(io, [&] { return rec.devices.size() == 3; }));
  CHECK(rec.devices[1].serial == "127.0.0.1:37645");
  CHECK(rec.devices[1].change == DeviceChange::added);
  CHECK(rec.devices[2].serial == "emulator-5554");
  CHECK(rec.devices[2].change == DeviceChange::changed);
  CHECK(rec.devices[2].old_state == "device");
  CHECK(rec.devices[2].new_state == "offline");
  CHECK(tracker.devices().size() == 2);

  server.send(kTrack, framed(""));
  REQUIRE(run_until(io, [&] { return rec.devices.size() == 5; }));
  CHECK(rec.devices[3].change == DeviceChange::removed);
  CHECK(rec.devices[4].change == DeviceChange::removed);
  CHECK(tracker.devices().empty());
  CHECK(rec.downs() == 0);
}

TEST_CASE("tracker: the poll catches an offline transition the stream never reports (29.0.6)",
          "[adb][fake][tracker]") {
  asio::io_context io;
  Scripted script{kDevice, kDevice};
  FakeAdbServer server(io, script.responder());
  Recorder rec;
  auto o = options(server.endpoint());
  o.poll_interval = 30ms;
  DeviceTracker tracker(io, o, rec.callbacks(), half);
  tracker.start();
  REQUIRE(run_until(io, [&] { return tracker.stats().polls_ok >= 2; }));
  CHECK(rec.devices.size() == 1);  // polls agreeing with the stream say nothing

  script.poll_list = kOffline;
  REQUIRE(run_until(io, [&] { return rec.devices.size() == 2; }));
  CHECK(rec.devices[1].change == DeviceChange::changed);
  CHECK(rec.devices[1].new_state == "offline");
  CHECK(tracker.stats().blocks == 1);
}

TEST_CASE("tracker: a poll answer older than a block is discarded", "[adb][fake][tracker]") {
  asio::io_context io;
  Scripted script{kDevice, kDevice, 200ms};
  FakeAdbServer server(io, script.responder());
  Recorder rec;
  auto o = options(server.endpoint());
  o.poll_interval = 20ms;
  DeviceTracker tracker(io, o, rec.callbacks(), half);
  tracker.start();
  REQUIRE(run_until(io, [&] {
    auto& r = server.requests();
    return std::count(r.begin(), r.end(), "host:devices-l") >= 1;
  }));
  // The poll in flight will still say "device" ...
  server.send(kTrack, framed(""));
  script.poll_list = "";
  REQUIRE(run_until(io, [&] { return tracker.stats().polls_discarded >= 1; }));
  run_for(io, 100ms);
  // ... but the device stays removed.
  REQUIRE(rec.devices.size() == 2);
  CHECK(rec.devices[0].change == DeviceChange::added);
  CHECK(rec.devices[1].change == DeviceChange::removed);
}

TEST_CASE("tracker: stream EOF is server loss and devices go and a reconnect brings them back", "[adb][fake][tracker]") {
  asio::io_context io;
  Scripted script{kDevice + kTcp, kDevice + kTcp};
  FakeAdbServer server(io, script.responder());
  Recorder rec;
  DeviceTracker tracker(io, options(server.endpoint()), rec.callbacks(), half);
  tracker.start();
  REQUIRE(run_until(io, [&] { return rec.devices.size() == 2; }));

  server.close_connections();
  REQUIRE(run_until(io, [&] { return rec.downs() == 1; }));
  REQUIRE(rec.devices.size() == 4);
  for (int i : {2, 3}) {
    CHECK(rec.devices[i].change == DeviceChange::removed);
    CHECK(rec.devices[i].old_state == "device");
  }
  const auto& down = rec.servers.back();
  CHECK(down.error.kind == AdbErrorKind::eof);
  CHECK(down.retry_in == 15ms);  // 20 ms base, jitter 0.5 at draw 0.5
  CHECK(down.attempt == 1);
  CHECK_FALSE(tracker.server_up());
  CHECK(tracker.devices().empty());

  REQUIRE(run_until(io, [&] { return rec.devices.size() == 6; }));
  CHECK(rec.ups() == 2);
  CHECK(rec.devices[4].change == DeviceChange::added);
  CHECK(tracker.stats().connects == 2);
  CHECK(tracker.stats().losses == 1);
}

TEST_CASE("tracker: refused connections back off exponentially with the injected jitter", "[adb][fake][tracker]") {
  asio::io_context io;
  std::uint16_t port;
  {
    tcp::acceptor probe(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    port = probe.local_endpoint().port();
  }
  Recorder rec;
  std::vector<double> draws{0.0, 1.0, 0.5, 0.0, 0.0};
  std::size_t next = 0;
  DeviceTracker tracker(io, options({"127.0.0.1", port}), rec.callbacks(),
                        [&] { return draws[std::min(next++, draws.size() - 1)]; });
  tracker.start();
  REQUIRE(run_until(io, [&] { return rec.servers.size() == 5; }));
  tracker.stop();
  const long expected[] = {20, 20, 60, 80, 80};  // 20, 40*(1-0.5), 80*(1-0.25), capped 80
  for (std::size_t i = 0; i < 5; ++i) {
    INFO(i);
    CHECK_FALSE(rec.servers[i].up);
    CHECK(rec.servers[i].error.kind == AdbErrorKind::connect_refused);
    CHECK(rec.servers[i].attempt == i + 1);
    CHECK(rec.servers[i].retry_in.count() == expected[i]);
  }
  CHECK(rec.devices.empty());
  CHECK(tracker.stats().losses == 0);
}

TEST_CASE("tracker: a wedged server (polls time out) counts as lost", "[adb][fake][tracker]") {
  asio::io_context io;
  Scripted script{kDevice, kDevice};
  script.polls_hang = true;
  FakeAdbServer server(io, script.responder());
  Recorder rec;
  auto o = options(server.endpoint());
  o.poll_interval = 20ms;
  o.request_timeout = 100ms;
  o.poll_failures_before_loss = 2;
  DeviceTracker tracker(io, o, rec.callbacks(), half);
  tracker.start();
  REQUIRE(run_until(io, [&] { return rec.downs() == 1; }));
  CHECK(tracker.stats().polls_failed == 2);
  CHECK(rec.servers.back().error.kind == AdbErrorKind::timeout);
  CHECK(rec.servers.back().error.message.find("device poll") == 0);
  REQUIRE(rec.devices.size() == 2);
  CHECK(rec.devices[1].change == DeviceChange::removed);
}

TEST_CASE("tracker: a bad block length is a protocol error and a reconnect", "[adb][fake][tracker]") {
  asio::io_context io;
  Scripted script{"", ""};
  FakeAdbServer server(io, script.responder());
  Recorder rec;
  DeviceTracker tracker(io, options(server.endpoint()), rec.callbacks(), half);
  tracker.start();
  REQUIRE(run_until(io, [&] { return tracker.stats().blocks == 1; }));
  server.send(kTrack, "zz!z");
  REQUIRE(run_until(io, [&] { return rec.downs() == 1; }));
  CHECK(rec.servers.back().error.kind == AdbErrorKind::protocol);
  REQUIRE(run_until(io, [&] { return rec.ups() == 2; }));
}

TEST_CASE("tracker: stop() inside a callback ends all callbacks", "[adb][fake][tracker]") {
  asio::io_context io;
  Scripted script{kDevice + kTcp, kDevice + kTcp};
  FakeAdbServer server(io, script.responder());
  int device_events = 0;
  std::unique_ptr<DeviceTracker> tracker;
  DeviceTrackerCallbacks callbacks{[&](const DeviceEvent&) {
                                     ++device_events;
                                     tracker->stop();
                                   },
                                   {}};
  auto o = options(server.endpoint());
  o.poll_interval = 10ms;
  tracker = std::make_unique<DeviceTracker>(io, o, callbacks, half);
  tracker->start();
  REQUIRE(run_until(io, [&] { return device_events > 0; }));
  server.send(kTrack, framed(""));
  server.close_connections();
  run_for(io, 100ms);
  CHECK(device_events == 1);
  tracker.reset();  // destroying with work still queued is safe
  run_for(io, 50ms);
}

TEST_CASE("tracker: device list lines and polls are reported through on_stats, malformed ones too",
          "[adb][fake][tracker]") {
  asio::io_context io;
  // A line without a state: skipped, and no device event comes of it.
  Scripted script{kDevice + "garbage-without-state\n", kDevice + "garbage-without-state\n"};
  FakeAdbServer server(io, script.responder());
  Recorder rec;
  std::vector<DeviceTrackerStats> reports;
  auto callbacks = rec.callbacks();
  callbacks.on_stats = [&](const DeviceTrackerStats& s) { reports.push_back(s); };
  auto o = options(server.endpoint());
  o.poll_interval = 20ms;
  DeviceTracker tracker(io, o, std::move(callbacks), half);
  tracker.start();

  REQUIRE(run_until(io, [&] { return !reports.empty() && reports.back().polls_ok >= 1; }));
  const auto& last = reports.back();
  CHECK(rec.devices.size() == 1);  // the good line only
  CHECK(last.lines == 2 * (last.blocks + last.polls_ok - last.polls_discarded));
  CHECK(last.malformed_lines * 2 == last.lines);
  CHECK(last.polls_failed == 0);
  // What on_stats reported last is what the tracker holds.
  CHECK(tracker.stats().lines == last.lines);
  CHECK(tracker.stats().malformed_lines == last.malformed_lines);
}

// Follows the devices of one adb server: a host:track-devices-l stream diffed
// against the last state, plus a periodic host:devices-l poll because 29.0.6
// does not send a block for every offline transition. Stream EOF or repeated
// poll failures mean the server is lost: its devices are reported removed and
// the tracker reconnects with backoff. Several servers = several trackers.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "ingest/backoff.h"
#include "ingest/client.h"
#include "ingest/endpoint.h"
#include "ingest/protocol.h"

namespace jank::ingest {

struct DeviceTrackerOptions {
  AdbEndpoint endpoint;
  std::chrono::milliseconds poll_interval{2000};
  // Deadline for connecting + OKAY of the stream, and for each poll.
  std::chrono::milliseconds request_timeout{5000};
  // Consecutive failed polls (a wedged server keeps the stream silent) that
  // count as losing the server.
  std::uint32_t poll_failures_before_loss = 2;
  BackoffPolicy backoff;
};

struct ServerEvent {
  bool up = false;                    // the track stream was accepted
  AdbError error;                     // why it is down (up == false)
  std::chrono::milliseconds retry_in{0};
  std::uint32_t attempt = 0;          // consecutive failed attempts so far
};

struct DeviceTrackerStats {
  std::uint64_t blocks = 0;           // track-devices blocks received
  std::uint64_t polls_ok = 0;
  std::uint64_t polls_failed = 0;
  std::uint64_t polls_discarded = 0;  // a block arrived while the poll was in flight
  std::uint64_t connects = 0;         // track streams accepted
  std::uint64_t losses = 0;           // server lost after being up
  std::uint64_t lines = 0;            // non-empty lines of the device lists applied (blocks and polls)
  std::uint64_t malformed_lines = 0;  // of those, lines that did not parse
};

struct DeviceTrackerCallbacks {
  std::function<void(const DeviceEvent&)> on_device;
  std::function<void(const ServerEvent&)> on_server;
  // After the counts changed (a device list applied, a poll failed or
  // discarded): the daemon exports them.
  std::function<void(const DeviceTrackerStats&)> on_stats = {};
};

class DeviceTracker {
 public:
  // `unit_random` returns numbers in [0, 1) for the backoff jitter; empty
  // means a seeded std::mt19937_64.
  DeviceTracker(boost::asio::io_context& io, DeviceTrackerOptions options, DeviceTrackerCallbacks callbacks,
                std::function<double()> unit_random = {});
  ~DeviceTracker();
  DeviceTracker(const DeviceTracker&) = delete;
  DeviceTracker& operator=(const DeviceTracker&) = delete;

  void start();
  // Closes everything; no callbacks afterwards, no removal events either.
  void stop();

  const std::vector<DeviceInfo>& devices() const;
  bool server_up() const;
  const DeviceTrackerStats& stats() const;
  const AdbEndpoint& endpoint() const;

  class Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace jank::ingest

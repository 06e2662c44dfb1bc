// The daemon's own status (adb servers, checkpoints, reloads): set by the
// daemon, exported beside the metric model by exporters/, not part of it.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "metrics/trace_status.h"

namespace jank::metrics {

struct DaemonMetrics {
  // What a device tracker counted of one adb server's device lists.
  struct TrackerCounts {
    std::uint64_t list_lines = 0;            // non-empty lines received in device lists (stream and polls)
    std::uint64_t list_malformed_lines = 0;  // of those, lines that did not parse (skipped)
    std::uint64_t polls_ok = 0;              // host:devices-l polls answered
    std::uint64_t polls_discarded = 0;       // of those, answers dropped as older than a block applied
    std::uint64_t polls_failed = 0;          // polls that failed or timed out
  };
  struct AdbServer {
    bool up = false;                              // the device list is followed
    std::map<std::string, std::uint64_t> errors;  // by error kind
    TrackerCounts tracker;
  };
  std::map<std::string, AdbServer> adb_servers;   // by endpoint "host:port"
  std::uint64_t checkpoints_written = 0;
  std::uint64_t checkpoint_failures = 0;
  std::uint64_t state_load_failures = 0;
  std::map<std::string, std::uint64_t> state_rejected_records;  // by record kind (Store::LoadReport)
  std::uint64_t config_reloads = 0;
  std::uint64_t config_reload_failures = 0;
  std::uint64_t http_handler_errors = 0;  // HTTP requests answered 500 because a handler threw
  std::string version;
  TraceStoreStatus traces;  // the flight recorder's directory (docs/traces.md)
};

}  // namespace jank::metrics

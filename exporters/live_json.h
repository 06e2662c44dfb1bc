// The live view's JSON documents (docs/live-view.md, "JSON endpoints"):
// GET /api/devices and GET /api/devices/SERIAL. A snapshot is copied from
// the store under its lock (cheap: a few numbers per device, one device's
// ring), and the document is written from it after the lock is let go.
// The pages (/ and /devices/SERIAL) read the same snapshots.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/device_view.h"
#include "metrics/live_history.h"
#include "metrics/run_book.h"
#include "metrics/store.h"
#include "metrics/trace_status.h"

namespace jank::exporters {

struct LiveViewOptions {
  std::chrono::seconds sample{5};     // live_view.sample_seconds
  std::chrono::seconds history{900};  // live_view.history_minutes
};

// One device's row: what /api/devices gives of it.
struct LiveDeviceRow {
  std::string serial;
  std::optional<std::string> model, manufacturer, release, foreground;  // android_device_info's labels
  std::optional<int> sdk;
  double refresh_hz = 0;                  // android_display_refresh_rate_hertz
  metrics::LiveStatus status = metrics::LiveStatus::starting;
  std::optional<std::string> status_reason;  // why stalled or unsupported (jank_exporter_device_state_reason)
  std::optional<double> sm;               // android_choreographer_device_sm
  metrics::LiveWindow window;             // over the newest SM window of the ring
  std::optional<int> thermal_status;      // android_thermal_status
  bool trace_armed = false;
  std::size_t open_runs = 0;              // runs not finished that measure the device
  std::optional<std::int64_t> sampled_at_ms;  // the ring's newest sample
  metrics::DeviceTotals totals;
};

// A run as the device's document lists it.
struct LiveRunRef {
  std::string id, name;
  std::int64_t start_ns = 0;
  std::optional<std::int64_t> end_ns;  // none while it is open
};

// Every device, sorted by serial.
struct LiveDevicesSnapshot {
  std::int64_t generated_at_ns = 0;
  std::chrono::seconds sm_window{60};  // choreographer.sm_window_seconds: the store's SM window
  LiveViewOptions options;
  std::vector<LiveDeviceRow> devices;
};

// One device with its history.
// What one kind of the exporter's commands cost the device so far
// (jank_exporter_device_command_runs_total, _seconds_total, _output_bytes_total,
// _timed_total, _device_seconds_total).
struct LiveCommandCost {
  std::string kind;
  std::uint64_t runs = 0;
  double seconds = 0;  // host time from sending to the whole answer
  std::uint64_t output_bytes = 0;
  std::uint64_t timed = 0;    // of those, timed by the device's shell
  double device_seconds = 0;  // their time on the device
};

struct LiveDeviceSnapshot {
  std::int64_t generated_at_ns = 0;
  std::chrono::seconds sm_window{60};
  LiveViewOptions options;
  LiveDeviceRow row;
  std::vector<metrics::LiveSample> history;  // oldest first
  std::uint8_t jank_causes_seen = 0;         // bit per metrics::JankCause
  std::vector<LiveRunRef> runs;              // measuring the device and overlapping the history
  std::vector<LiveCommandCost> commands;     // by kind, the most run first
  std::optional<bool> per_frame_polling;     // jank_exporter_device_per_frame_polling
  std::uint64_t budget_waits = 0;            // jank_exporter_device_budget_waits_total
};

// Under the store's lock. `now_ns` is the host's wall time (as /metrics
// reads its windows with).
LiveDevicesSnapshot snapshot_devices(const metrics::Store& store, const metrics::RunBook& runs, std::int64_t now_ns,
                                     const LiveViewOptions& options);
// nullopt when the store has no such device.
std::optional<LiveDeviceSnapshot> snapshot_device(const metrics::Store& store, const metrics::RunBook& runs,
                                                  std::string_view serial, std::int64_t now_ns,
                                                  const LiveViewOptions& options);

// The documents. `traces` is the trace store's listing (any order, any
// device): those of the device taken within the history are listed.
std::string devices_json(const LiveDevicesSnapshot& snapshot);
std::string device_json(const LiveDeviceSnapshot& snapshot, const std::vector<metrics::StoredTrace>& traces);

// The body of an API error answer: {"error": message}.
std::string api_error_json(std::string_view message);

}  // namespace jank::exporters

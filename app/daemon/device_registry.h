// Which devices are followed: one DeviceController per selected device that
// an adb server lists online, started, replaced and stopped as the servers'
// device lists change; a device the exporter cannot follow says why
// (unauthorized, offline, gone); devices away longer than the grace period,
// and processes dead longer than theirs, lose their series.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "app/core/host_clock.h"
#include "app/core/shared_state.h"
#include "config/config.h"
#include "ingest/endpoint.h"
#include "ingest/protocol.h"

namespace jank::app {

class DeviceController;

// The serial matches an include glob and no exclude glob.
bool serial_selected(const config::Config& config, const std::string& serial);

// What one device-list event means for the device's controller.
struct DeviceRoute {
  bool stop_existing = false;  // the controller running for the serial ends
  bool start = false;          // a new controller starts
  bool note_absent = false;    // the device's state says why it is not followed
  bool conflict = false;       // another adb server lists the serial too: ignored
};
// `existing`: no controller (none), one for this event's server (same) or
// another's (other).
enum class ExistingController { none, same_server, other_server };
DeviceRoute route_device_event(const ingest::DeviceEvent& event, bool selected, ExistingController existing);

// Serials of devices that are down and have been for longer than `grace_ns`.
std::vector<std::string> devices_past_grace(const metrics::Store& store, std::int64_t now_ns, std::int64_t grace_ns);

class DeviceRegistry {
 public:
  DeviceRegistry(boost::asio::io_context& io, SharedState& shared, HostClock clock);
  ~DeviceRegistry();

  void on_device_event(const std::shared_ptr<const config::Config>& config, const ingest::AdbEndpoint& endpoint,
                       const ingest::DeviceEvent& event);
  void stop_all();
  // Asks these devices' sessions for a gfxinfo round now (runs settle on one).
  void poll_gfxinfo_soon(const std::vector<std::string>& serials);
  // Removes the series of devices and processes past their grace periods.
  void expire(const config::Config& config, std::int64_t now_ns);

 private:
  void note_absent_state(const ingest::DeviceEvent& event, std::int64_t now_ns);

  boost::asio::io_context& io_;
  SharedState& shared_;
  HostClock clock_;
  std::map<std::string, std::shared_ptr<DeviceController>> controllers_;
};

}  // namespace jank::app

#include "app/daemon/device_registry.h"

#include <fnmatch.h>

#include "app/session/device_controller.h"
#include "app/core/log.h"
#include "parsers/time_units.h"

namespace jank::app {

bool serial_selected(const config::Config& c, const std::string& serial) {
  auto matches = [&](const std::vector<std::string>& globs) {
    for (const auto& g : globs) {
      if (::fnmatch(g.c_str(), serial.c_str(), 0) == 0) return true;
    }
    return false;
  };
  return matches(c.include_serials) && !matches(c.exclude_serials);
}

DeviceRoute route_device_event(const ingest::DeviceEvent& event, bool selected, ExistingController existing) {
  DeviceRoute r;
  if (event.new_state == "device" && selected) {
    if (existing == ExistingController::other_server) {
      r.conflict = true;
    } else if (existing == ExistingController::none) {
      r.start = true;
    } else if (event.change == ingest::DeviceChange::changed) {
      // A new transport (fast replug): the old streams are dead.
      r.stop_existing = r.start = true;
    }
    return r;
  }
  // Gone, not online, or no longer selected: only the server that lists the
  // device may end its session.
  if (existing == ExistingController::other_server) return r;
  r.stop_existing = existing == ExistingController::same_server;
  r.note_absent = true;
  return r;
}

std::vector<std::string> devices_past_grace(const metrics::Store& store, std::int64_t now_ns, std::int64_t grace_ns) {
  std::vector<std::string> gone;
  for (const auto& [serial, d] : store.devices()) {
    if (d->live.live && !d->live.up && d->live.down_since_ns != 0 && now_ns - d->live.down_since_ns > grace_ns) {
      gone.push_back(serial);
    }
  }
  return gone;
}

DeviceRegistry::DeviceRegistry(boost::asio::io_context& io, SharedState& shared, HostClock clock)
    : io_(io), shared_(shared), clock_(std::move(clock)) {}

DeviceRegistry::~DeviceRegistry() { stop_all(); }

void DeviceRegistry::on_device_event(const std::shared_ptr<const config::Config>& config,
                                     const ingest::AdbEndpoint& endpoint, const ingest::DeviceEvent& e) {
  auto it = controllers_.find(e.serial);
  const ExistingController existing = it == controllers_.end()           ? ExistingController::none
                                      : it->second->endpoint() == endpoint ? ExistingController::same_server
                                                                           : ExistingController::other_server;
  const bool selected = serial_selected(*config, e.serial);
  const DeviceRoute route = route_device_event(e, selected, existing);
  if (route.conflict) {
    log_warning("device " + e.serial + " is listed by two adb servers; following the first");
    return;
  }
  if (route.stop_existing) {
    if (!route.start) log_info("device " + e.serial + " " + (e.new_state.empty() ? std::string("removed") : e.new_state));
    it->second->stop();
    controllers_.erase(it);
  }
  if (route.start) {
    auto c = std::make_shared<DeviceController>(io_, config, endpoint, e.serial, shared_, clock_);
    controllers_.emplace(e.serial, c);
    log_info("device " + e.serial + " online (" + e.info.model + ")");
    c->start();
  }
  if (route.note_absent && selected) note_absent_state(e, clock_.wall_ns());
}

void DeviceRegistry::note_absent_state(const ingest::DeviceEvent& e, std::int64_t now_ns) {
  std::lock_guard<std::mutex> lock(shared_.mutex);
  const bool known = shared_.store.devices().contains(e.serial);
  if (!known && e.new_state.empty()) return;  // never seen, now gone: nothing to say
  auto& d = shared_.store.device(e.serial);
  d.live.live = true;
  if (d.live.up) return;
  if (e.new_state.empty()) {
    d.live.state = metrics::DeviceState::disconnected;
  } else if (e.new_state == "unauthorized") {
    d.live.state = metrics::DeviceState::unauthorized;
  } else {
    d.live.state = metrics::DeviceState::offline;
  }
  if (d.live.down_since_ns == 0) d.live.down_since_ns = now_ns;
}

void DeviceRegistry::poll_gfxinfo_soon(const std::vector<std::string>& serials) {
  for (const auto& s : serials) {
    if (const auto it = controllers_.find(s); it != controllers_.end()) it->second->poll_gfxinfo_soon();
  }
}

void DeviceRegistry::stop_all() {
  for (auto& [serial, c] : controllers_) c->stop();
  controllers_.clear();
}

void DeviceRegistry::expire(const config::Config& config, std::int64_t now_ns) {
  const auto grace = parsers::units::to_ns(config.device_grace_seconds);
  std::lock_guard<std::mutex> lock(shared_.mutex);
  for (const auto& serial : devices_past_grace(shared_.store, now_ns, grace)) {
    shared_.store.erase_device(serial);
    log_info("device " + serial + " away longer than devices.grace_seconds: its series are removed");
  }
  // Processes that died (and did not come back under the same name).
  shared_.store.set_host_time(now_ns);
  const auto process_grace = parsers::units::to_ns(config.process_grace_seconds);
  for (const auto& [serial, d] : shared_.store.devices()) {
    if (d->live.up) shared_.store.expire_packages(*d, process_grace);
  }
}

}  // namespace jank::app

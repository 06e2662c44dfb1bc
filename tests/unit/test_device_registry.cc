#include <catch2/catch.hpp>

#include "app/daemon/device_registry.h"

using jank::app::DeviceRoute;
using jank::app::ExistingController;
using jank::app::route_device_event;
using jank::ingest::DeviceChange;
using jank::ingest::DeviceEvent;

namespace {
DeviceEvent event(DeviceChange change, std::string new_state) {
  DeviceEvent e;
  e.change = change;
  e.serial = "emulator-5554";
  e.new_state = std::move(new_state);
  return e;
}
bool same(const DeviceRoute& a, const DeviceRoute& b) {
  return a.stop_existing == b.stop_existing && a.start == b.start && a.note_absent == b.note_absent &&
         a.conflict == b.conflict;
}
}  // namespace

TEST_CASE("device-list events start, replace, stop or leave a device's controller", "[app][registry]") {
  using E = ExistingController;
  struct Row {
    DeviceEvent e;
    bool selected;
    E existing;
    DeviceRoute expected;  // stop, start, note_absent, conflict
  };
  const std::vector<Row> rows = {
      {event(DeviceChange::added, "device"), true, E::none, {false, true, false, false}},
      {event(DeviceChange::added, "device"), true, E::same_server, {false, false, false, false}},
      // a fast replug: a new transport, the old streams are dead
      {event(DeviceChange::changed, "device"), true, E::same_server, {true, true, false, false}},
      {event(DeviceChange::added, "device"), true, E::other_server, {false, false, false, true}},
      {event(DeviceChange::changed, "offline"), true, E::same_server, {true, false, true, false}},
      {event(DeviceChange::changed, "unauthorized"), true, E::none, {false, false, true, false}},
      {event(DeviceChange::removed, ""), true, E::same_server, {true, false, true, false}},
      // another server's device going away there does not end this one's session
      {event(DeviceChange::removed, ""), true, E::other_server, {false, false, false, false}},
      // no longer selected (a reload changed the globs)
      {event(DeviceChange::added, "device"), false, E::same_server, {true, false, true, false}},
      {event(DeviceChange::added, "device"), false, E::none, {false, false, true, false}},
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO("row " << i);
    CHECK(same(route_device_event(rows[i].e, rows[i].selected, rows[i].existing), rows[i].expected));
  }
}

TEST_CASE("serials are selected by include globs minus exclude globs", "[app][registry]") {
  jank::config::Config c;
  c.include_serials = {"emulator-*", "R58*"};
  c.exclude_serials = {"emulator-5556"};
  CHECK(jank::app::serial_selected(c, "emulator-5554"));
  CHECK_FALSE(jank::app::serial_selected(c, "emulator-5556"));
  CHECK(jank::app::serial_selected(c, "R58M123"));
  CHECK_FALSE(jank::app::serial_selected(c, "127.0.0.1:5555"));
}

TEST_CASE("only devices down longer than the grace period are past it", "[app][registry]") {
  jank::metrics::Store store;
  auto& away = store.device("away");
  away.live.live = true;
  away.live.down_since_ns = 100;
  auto& recent = store.device("recent");
  recent.live.live = true;
  recent.live.down_since_ns = 900;
  auto& up = store.device("up");
  up.live.live = true;
  up.live.up = true;
  store.device("replayed");  // not live: never expires
  CHECK(jank::app::devices_past_grace(store, 1000, 500) == std::vector<std::string>{"away"});
  CHECK(jank::app::devices_past_grace(store, 1000, 900).empty());
}

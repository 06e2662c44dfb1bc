// The simulator's `dumpsys battery` (docs/devsim.md, "Releases", Battery):
// the keys of each release, the battery model and its control, and the
// exporter's parser reading each release's answer to exactly the truth.
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "devsim/battery_dump.h"
#include "devsim/model.h"
#include "devsim/shell.h"
#include "devsim/simulator.h"
#include "tests/devsim/sim_control.h"
#include "parsers/battery.h"
#include "tests/devsim/quiet_device.h"
#include "tests/rig/json.h"

using namespace jank::devsim;
using jank::devsim::test::control;
namespace parsers = jank::parsers;

namespace {

constexpr int kReleases[] = {21, 22, 23, 24, 25, 26, 28, 29, 30, 31, 32, 33, 34, 35, 36};

SimBattery charging_phone() {
  SimBattery b;
  b.plugged = SimPlug::usb;
  b.max_charging_current_ua = 500000;
  b.max_charging_voltage_uv = 5000000;
  b.charge_counter_uah = 3015000;
  b.status = 2;
  b.level = 67;
  b.voltage_mv = 4049;
  b.temperature_tenths = 301;
  b.capacity_level = 3;
  b.current_broadcast_ms = 3'723'004;
  b.voltage_broadcast_ms = 3'700'000;
  b.broadcast_voltage_mv = 4041;
  return b;
}

bool has(const std::string& text, const std::string& line) { return text.find(line) != std::string::npos; }

void run_for(Device& dev, ManualClock& clock, int seconds) {
  for (int s = 0; s < seconds; ++s) {
    clock.advance_ms(1000);
    dev.advance();
  }
}

jank::rig::Json battery_truth(const Device& dev) {
  const auto truth = jank::rig::parse_json(dev.truth_json());
  REQUIRE(truth);
  return (*truth)["battery"];
}

// The parser's reading of the device's `dumpsys battery` equals the truth,
// field by field, for what that release prints.
void check_against_truth(Device& dev) {
  const ShellResult r = run_shell(dev, "dumpsys battery");
  REQUIRE(r.exit == 0);
  REQUIRE(r.err.empty());
  const parsers::BatteryDump d = parsers::parse_battery(r.out);
  const jank::rig::Json t = battery_truth(dev);
  const int sdk = dev.config().sdk;
  INFO("sdk " << sdk << "\n" << r.out);
  CHECK(d.recognised);
  CHECK_FALSE(d.updates_stopped);
  CHECK(d.malformed_lines == 0);
  REQUIRE(d.level);
  CHECK(*d.level == t["level"].integer());
  CHECK(d.scale == t["scale"].integer());
  REQUIRE(d.level_fraction);
  CHECK(*d.level_fraction == static_cast<double>(t["level"].integer()) / 100);
  REQUIRE(d.temperature_celsius);
  CHECK(*d.temperature_celsius == t["temperature_celsius"].num);
  REQUIRE(d.voltage_volts);
  CHECK(*d.voltage_volts == t["voltage_volts"].num);
  CHECK(d.status == t["status"].integer());
  CHECK(d.health == t["health"].integer());
  CHECK(d.present == t["present"].b);
  const std::string plug = t["plugged"].str;
  CHECK(d.ac_powered == (plug == "ac"));
  CHECK(d.usb_powered == (plug == "usb"));
  CHECK(d.wireless_powered == (plug == "wireless"));
  if (sdk >= 34) {
    CHECK(d.dock_powered == (plug == "dock"));
    CHECK(parsers::battery_plug_name(d) == plug);
  } else {
    CHECK_FALSE(d.dock_powered);
  }
  if (sdk >= 23) {
    CHECK(d.max_charging_current_ua == t["max_charging_current_ua"].integer());
  } else {
    CHECK_FALSE(d.max_charging_current_ua);
  }
  if (sdk >= 24) {
    CHECK(d.max_charging_voltage_uv == t["max_charging_voltage_uv"].integer());
    CHECK(d.charge_counter_uah == t["charge_counter_uah"].integer());
  } else {
    CHECK_FALSE(d.max_charging_voltage_uv);
    CHECK_FALSE(d.charge_counter_uah);
  }
  if (sdk >= 35) {
    CHECK(d.charging_state == t["charging_state"].integer());
    CHECK(d.charging_policy == t["charging_policy"].integer());
  } else {
    CHECK_FALSE(d.charging_state);
  }
  if (sdk >= 36) {
    CHECK(d.capacity_level == t["capacity_level"].integer());
  } else {
    CHECK_FALSE(d.capacity_level);
  }
}

}  // namespace

TEST_CASE("devsim battery: each release prints the keys of its BatteryService", "[battery]") {
  const SimBattery b = charging_phone();
  for (const int sdk : kReleases) {
    INFO("sdk " << sdk);
    const std::string text = format_battery(sdk, b);
    CHECK(text.rfind("Current Battery Service state:\n  AC powered: false\n  USB powered: true\n"
                     "  Wireless powered: false\n",
                     0) == 0);
    CHECK(has(text, "  status: 2\n  health: 2\n  present: true\n  level: 67\n  scale: 100\n  voltage: 4049\n"));
    CHECK(has(text, "  temperature: 301\n  technology: Li-ion\n"));
    CHECK(has(text, "  Dock powered: false\n") == (sdk >= 34));
    CHECK(has(text, "  Max charging current: 500000\n") == (sdk >= 23));
    CHECK(has(text, "  Max charging voltage: 5000000\n  Charge counter: 3015000\n") == (sdk >= 24));
    CHECK(has(text, "  Charging state: 1\n  Charging policy: 1\n") == (sdk >= 35));
    CHECK(has(text, "  Capacity level: 3\n") == (sdk >= 36));
    CHECK(has(text, " Time when the latest") == (sdk >= 36));
    CHECK_FALSE(has(text, "UPDATES STOPPED"));
  }
  // Releases outside the simulated range print their nearest one's layout.
  CHECK(format_battery(16, b) == format_battery(21, b));
  CHECK(format_battery(40, b) == format_battery(36, b));
}

TEST_CASE("devsim battery: Android 5 and 14 and 16 exactly as their BatteryService prints them", "[battery]") {
  SimBattery b = charging_phone();
  CHECK(format_battery(22, b) ==
        "Current Battery Service state:\n"
        "  AC powered: false\n"
        "  USB powered: true\n"
        "  Wireless powered: false\n"
        "  status: 2\n"
        "  health: 2\n"
        "  present: true\n"
        "  level: 67\n"
        "  scale: 100\n"
        "  voltage: 4049\n"
        "  temperature: 301\n"
        "  technology: Li-ion\n");
  b.updates_stopped = true;
  b.plugged = SimPlug::dock;
  b.temperature_tenths = -52;
  CHECK(format_battery(34, b) ==
        "Current Battery Service state:\n"
        "  (UPDATES STOPPED -- use 'reset' to restart)\n"
        "  AC powered: false\n"
        "  USB powered: false\n"
        "  Wireless powered: false\n"
        "  Dock powered: true\n"
        "  Max charging current: 500000\n"
        "  Max charging voltage: 5000000\n"
        "  Charge counter: 3015000\n"
        "  status: 2\n"
        "  health: 2\n"
        "  present: true\n"
        "  level: 67\n"
        "  scale: 100\n"
        "  voltage: 4049\n"
        "  temperature: -52\n"
        "  technology: Li-ion\n");
  b.updates_stopped = false;
  CHECK(format_battery(36, b) ==
        "Current Battery Service state:\n"
        "  AC powered: false\n"
        "  USB powered: false\n"
        "  Wireless powered: false\n"
        "  Dock powered: true\n"
        "  Max charging current: 500000\n"
        " Time when the latest updated value of the Max charging current was sent via battery changed broadcast: "
        "+1h2m3s4ms\n"
        "  Max charging voltage: 5000000\n"
        "  Charge counter: 3015000\n"
        "  status: 2\n"
        "  health: 2\n"
        "  present: true\n"
        "  level: 67\n"
        "  scale: 100\n"
        "  voltage: 4049\n"
        " Time when the latest updated value of the voltage was sent via battery changed broadcast: +1h1m40s0ms\n"
        " The last voltage value sent via the battery changed broadcast: 4041\n"
        "  temperature: -52\n"
        "  technology: Li-ion\n"
        "  Charging state: 1\n"
        "  Charging policy: 1\n"
        "  Capacity level: 3\n");
}

TEST_CASE("devsim battery: the parser reads every release's answer as it was simulated", "[battery]") {
  for (const SimPlug plug : {SimPlug::none, SimPlug::ac, SimPlug::usb, SimPlug::wireless, SimPlug::dock}) {
    SimBattery b = charging_phone();
    b.plugged = plug;
    b.updates_stopped = plug == SimPlug::ac;
    for (const int sdk : kReleases) {
      INFO("sdk " << sdk << " plugged " << sim_plug_name(plug));
      const parsers::BatteryDump d = parsers::parse_battery(format_battery(sdk, b));
      CHECK(d.recognised);
      CHECK(d.updates_stopped == b.updates_stopped);
      CHECK(d.malformed_lines == 0);
      CHECK(d.level == b.level);
      CHECK(d.scale == b.scale);
      CHECK(d.level_fraction == 0.67);
      CHECK(d.temperature_celsius == 30.1);
      CHECK(d.voltage_volts == 4.049);
      CHECK(d.status == 2);
      CHECK(d.usb_powered == (plug == SimPlug::usb));
      // A dock charger is not printed before Android 14: the sources all read false.
      const bool dock_shown = sdk >= 34 || plug != SimPlug::dock;
      CHECK(parsers::battery_plug_name(d) == (dock_shown ? sim_plug_name(plug) : "none"));
    }
  }
}

TEST_CASE("devsim battery: TimeUtils.formatDuration as Android 16's dump prints it", "[battery]") {
  CHECK(java_format_duration(0) == "0");
  CHECK(java_format_duration(500) == "+500ms");
  CHECK(java_format_duration(60'000) == "+1m0s0ms");
  CHECK(java_format_duration(3'723'004) == "+1h2m3s4ms");
  CHECK(java_format_duration(90'061'001) == "+1d1h1m1s1ms");
  CHECK(java_format_duration(86'400'000) == "+1d0h0m0s0ms");
  CHECK(java_format_duration(-1'500) == "-1s500ms");
}

TEST_CASE("devsim battery: the gauge drains on battery and fills on a charger", "[battery]") {
  ManualClock clock;
  Device dev(test::quiet_device(34), clock);
  const SimBattery start = dev.battery();
  CHECK(start.plugged == SimPlug::none);
  CHECK(start.status == 3);
  CHECK(start.level >= 55);
  CHECK(start.level <= 95);
  CHECK(start.max_charging_current_ua == 0);
  // One app drawing on a lit screen: 11 % an hour.
  run_for(dev, clock, 1800);
  const SimBattery drained = dev.battery();
  CHECK(drained.level == Approx(start.level - 5.5).margin(1));
  CHECK(drained.voltage_mv < start.voltage_mv);

  REQUIRE(dev.set_battery(*parse_battery_control({"plugged=ac", "level=90"})).empty());
  SimBattery b = dev.battery();
  CHECK(b.level == 90);
  CHECK(b.status == 2);
  CHECK(b.max_charging_current_ua == 3'000'000);
  CHECK(b.voltage_mv == 3500 + 7 * 90 + 80);
  run_for(dev, clock, 1200);  // 60 % an hour: full
  b = dev.battery();
  CHECK(b.level == 100);
  CHECK(b.status == 5);
  CHECK(b.capacity_level == 5);

  // A rate of 0 holds the level; paused, nothing moves either.
  REQUIRE(dev.set_battery(*parse_battery_control({"plugged=none", "rate=0", "level=40"})).empty());
  run_for(dev, clock, 600);
  CHECK(dev.battery().level == 40);
  REQUIRE(dev.set_battery(*parse_battery_control({"rate=auto"})).empty());
  dev.set_paused(true);
  run_for(dev, clock, 3600);
  CHECK(dev.battery().level == 40);
  dev.set_paused(false);
  run_for(dev, clock, 3600);
  CHECK(dev.battery().level < 40);

  // The screen off drains slower than an app drawing.
  ManualClock c_lit, c_dark;
  Device lit(test::quiet_device(34), c_lit), dark(test::quiet_device(34), c_dark);
  dark.set_screen(Screen::off);
  run_for(lit, c_lit, 3600);
  run_for(dark, c_dark, 3600);
  CHECK(dark.battery().charge_counter_uah > lit.battery().charge_counter_uah);
}

TEST_CASE("devsim battery: the temperature follows the thermal model unless fixed", "[battery]") {
  ManualClock clock;
  Device dev(test::quiet_device(34), clock);
  run_for(dev, clock, 120);
  double sensor = 0;
  for (const auto& t : dev.thermal().temps) {
    if (t.name == "battery") sensor = t.value;
  }
  CHECK(dev.battery().temperature_tenths == static_cast<int>(std::lround(sensor * 10)));
  REQUIRE(dev.set_battery(*parse_battery_control({"temp=41.7"})).empty());
  CHECK(dev.battery().temperature_tenths == 417);
  run_for(dev, clock, 60);
  CHECK(dev.battery().temperature_tenths == 417);
  CHECK(battery_truth(dev)["temperature_fixed"].b);
  REQUIRE(dev.set_battery(*parse_battery_control({"temp=auto"})).empty());
  CHECK_FALSE(battery_truth(dev)["temperature_fixed"].b);
  CHECK(dev.battery().temperature_tenths != 417);
}

TEST_CASE("devsim battery: a reboot keeps the charge and the exporter's parser still agrees", "[battery]") {
  ManualClock clock;
  Device dev(test::quiet_device(36), clock);
  REQUIRE(dev.set_battery(*parse_battery_control({"level=33", "plugged=usb"})).empty());
  run_for(dev, clock, 30);
  const int before = dev.battery().level;
  dev.reboot(0);
  run_for(dev, clock, 5);
  CHECK(dev.battery().level == before);
  CHECK(dev.battery().plugged == SimPlug::usb);
  check_against_truth(dev);
  // BatteryService started again: its first broadcast was at boot.
  CHECK(dev.battery().voltage_broadcast_ms <= 8'000);
}

TEST_CASE("devsim battery: every release's answer reads back to the truth", "[battery]") {
  for (const int sdk : kReleases) {
    ManualClock clock;
    Device dev(test::quiet_device(sdk), clock);
    run_for(dev, clock, 90);
    check_against_truth(dev);
    for (const char* plug : {"usb", "ac", "wireless"}) {
      REQUIRE(dev.set_battery(*parse_battery_control({std::string("plugged=") + plug, "temp=-3.5"})).empty());
      run_for(dev, clock, 45);
      check_against_truth(dev);
    }
    if (sdk >= 33) {
      REQUIRE(dev.set_battery(*parse_battery_control({"plugged=dock", "temp=auto", "level=100"})).empty());
      check_against_truth(dev);
    }
    CHECK(run_shell(dev, "dumpsys battery -a").out == run_shell(dev, "dumpsys battery").out);
  }
}

TEST_CASE("devsim battery: the control command changes the answer and the truth", "[battery]") {
  boost::asio::io_context io;
  ManualClock clock;
  SimOptions o;
  o.devices = 3;
  o.sdk = {22, 30, 35};
  o.packages = {"com.example.feed"};
  o.log_rate = 0;
  Simulator sim(io, o, clock);
  sim.start();
  const auto& d = sim.devices();

  CHECK(control(io, sim, "battery sim2 level=42 temp=31.5 plugged=ac") == "OK");
  Device& a15 = d[2]->model();
  parsers::BatteryDump dump = parsers::parse_battery(run_shell(a15, "dumpsys battery").out);
  CHECK(dump.level == 42);
  CHECK(dump.temperature_celsius == 31.5);
  CHECK(dump.ac_powered == true);
  CHECK(dump.dock_powered == false);
  CHECK(parsers::battery_status_name(*dump.status) == "charging");
  const jank::rig::Json t = battery_truth(a15);
  CHECK(t["level"].integer() == 42);
  CHECK(t["temperature_celsius"].num == 31.5);
  CHECK(t["plugged"].str == "ac");
  CHECK(t["status"].integer() == 2);
  CHECK(t["voltage_volts"].num == dump.voltage_volts);

  // Every device at once, and the truth through the control channel.
  CHECK(control(io, sim, "battery * plugged=none level=12") == "OK");
  const std::string reply = control(io, sim, "truth sim0");
  REQUIRE(reply.rfind("OK ", 0) == 0);
  const auto truth = jank::rig::parse_json(std::string_view(reply).substr(3));
  REQUIRE(truth);
  const jank::rig::Json& b0 = (*truth)["devices"][0]["battery"];
  CHECK(b0["level"].integer() == 12);
  CHECK(b0["plugged"].str == "none");
  CHECK(b0["status"].integer() == 3);
  dump = parsers::parse_battery(run_shell(d[0]->model(), "dumpsys battery").out);
  CHECK(dump.level == 12);
  CHECK_FALSE(dump.max_charging_current_ua);  // Android 5.1 prints none

  // Dock charging exists from Android 13 only; bad arguments are refused.
  CHECK(control(io, sim, "battery sim1 plugged=dock") == "ERR no dock charging before Android 13 (sdk 33)");
  CHECK(control(io, sim, "battery sim2 plugged=dock") == "OK");
  const std::string usage = "ERR usage: battery DEV [level=0-100] [temp=-40..100|auto] "
                            "[plugged=none|ac|usb|wireless|dock] [rate=0-1000|auto]";
  CHECK(control(io, sim, "battery sim2") == usage);
  CHECK(control(io, sim, "battery sim2 level=101") == usage);
  CHECK(control(io, sim, "battery sim2 level=50.5") == usage);
  CHECK(control(io, sim, "battery sim2 temp=hot") == usage);
  CHECK(control(io, sim, "battery sim2 plugged=solar") == usage);
  CHECK(control(io, sim, "battery sim2 rate=-3") == usage);
  CHECK(control(io, sim, "battery sim2 charge=3") == usage);
  CHECK(control(io, sim, "battery nosuch level=3") == "ERR unknown device 'nosuch'");
  CHECK(battery_truth(a15)["plugged"].str == "dock");
  sim.stop();
  io.poll();
}

TEST_CASE("devsim battery: dumpsys battery options the simulator does not know", "[battery]") {
  ManualClock clock;
  Device dev(test::quiet_device(33), clock);
  const ShellResult r = run_shell(dev, "dumpsys battery unplug");
  CHECK(r.exit == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "dumpsys battery: unplug is not simulated by jank_devsim\n");
}

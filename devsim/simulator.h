// Many simulated devices in one process plus the control channel: a loopback
// TCP port taking one command per line (see docs/devsim.md).
#pragma once

#include <utility>  // before Asio: Boost 1.74 uses std::exchange without including it
#include <boost/asio.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "devsim/transport.h"

namespace jank::devsim {

struct SimOptions {
  int devices = 1;
  std::uint16_t base_port = 0;     // device i listens on base_port + i; 0: kernel-chosen
  std::uint16_t control_port = 0;
  std::string name_prefix = "sim";
  std::string model_prefix = "JankSim";
  std::vector<double> refresh_hz = {60};  // cycled over devices
  std::vector<std::string> packages = {"com.example.feed", "com.example.shop", "com.example.chat"};
  // Games: apps that also draw through a SurfaceView at their own rate.
  std::vector<std::pair<std::string, double>> games;
  std::vector<int> sdk = {33};  // Android API level, cycled over devices
  bool hwui_profile = false;     // every app prints "Profile data in ms" tables
  // Further windows: {package, title}, in the order given.
  std::vector<std::pair<std::string, std::string>> windows;
  double stall_prob = 0.012;
  double hitch_prob = 0.02;     // per game frame: the next comes 3 to 10 periods late
  double sf_miss_prob = 0.002;  // SurfaceFlinger misses a composition
  double drop_prob = 0;         // a frame queued behind another is dropped
  std::vector<SkipBand> bands = {{1, 9, 0.55}, {10, 44, 0.33}, {45, 120, 0.12}};
  double crash_per_min = 0;
  double log_rate = 2;               // background lines per second per device
  std::size_t buffer_kib = 256;
  std::int32_t tz_offset_min = 0;
  bool root = false;
  bool shell_v2 = true;
  bool unauthorized = false;
  int tick_ms = 50;
  std::uint64_t seed = 1;
  ThermalEpisodes thermal_episodes;  // scripted throttling, every device alike
  // CPU, GPU and battery sysfs (devsim/resources.cc), each list cycled over devices.
  std::vector<GpuKind> gpu = {GpuKind::adreno};
  std::vector<SysfsLabel> gpu_label = {SysfsLabel::automatic};
  std::vector<SysfsLabel> battery_label = {SysfsLabel::sysfs_batteryinfo};
  std::vector<bool> current_positive_discharging = {false};
};

// Parses a "1-9:0.55,10-44:0.33" band list; false on syntax errors.
bool parse_bands(const std::string& text, std::vector<SkipBand>* out);
// Parses "EVERY:LENGTH:STATUS" (seconds, seconds, 0-6; LENGTH < EVERY).
bool parse_thermal_episodes(const std::string& text, ThermalEpisodes* out);

class Simulator {
 public:
  Simulator(boost::asio::io_context& io, SimOptions opts, const Clock& clock);
  ~Simulator();
  // Creates every device and listens (ports are known on return).
  void start();
  void stop();
  std::uint16_t control_port() const { return control_port_; }
  // {"devices":[{"name":…,"port":…,"model":…},…],"control":PORT}
  std::string ready_json() const;
  const std::vector<std::shared_ptr<SimDevice>>& devices() const { return devices_; }

  // Runs one control command; `reply` is called once, from some io thread.
  void command(const std::string& line, std::function<void(std::string)> reply);

 private:
  void accept_control();
  std::vector<std::shared_ptr<SimDevice>> select(const std::string& which) const;

  boost::asio::io_context& io_;
  SimOptions opts_;
  const Clock& clock_;
  std::vector<std::shared_ptr<SimDevice>> devices_;
  boost::asio::ip::tcp::acceptor control_;
  std::uint16_t control_port_ = 0;
};

}  // namespace jank::devsim

// The simulated device's thermal state: a skin, CPU, GPU and battery sensor
// that approach a target temperature set by how much the apps draw, the
// status their skin thresholds give (or a throttling episode's), and what a
// throttled device does to frames. docs/devsim.md, "Thermal state".
#include <algorithm>
#include <cmath>

#include "devsim/json.h"
#include "devsim/model.h"

namespace jank::devsim {
namespace {

// Frame work multiplier per status: a severe device has its CPU and GPU
// clocks capped (what its cooling devices do), so a frame takes longer.
constexpr std::array<double, 7> kThrottle = {1, 1, 1, 1.5, 2, 2.5, 3};

// HALs report with limited precision; hundredths print the same in Java's
// float text and in the truth.
double reading(double celsius) { return std::round(celsius * 100) / 100; }

}  // namespace

void Device::init_thermal() {
  thermal_rng_.seed(cfg_.seed ^ 0x746865726d616c21ULL);
  std::uniform_real_distribution<double> u(0, 1);
  ambient_ = 24 + 4 * u(thermal_rng_);
  heat_scale_ = 0.9 + 0.2 * u(thermal_rng_);
  // Skin heats slowly and little; the SoC's sensors fast and much. With up
  // to six units of load (three apps and a game) the skin stays below the
  // severe threshold: only an episode, or a heavier load, throttles.
  sensors_ = {
      {"skin", 3, 3, 1, 1.2, 90, 0},
      {"cpu", 0, 12, 4, 5, 10, 0},
      {"gpu", 1, 8, 2, 3, 15, 0},
      {"battery", 2, 2, 1, 0.6, 240, 0},
  };
  // At rest with the screen on: temperatures rise once apps draw.
  for (auto& s : sensors_) s.value = ambient_ + s.on;
  thermal_at_ = thermal_origin_ = sim_time_;
}

void Device::update_thermal(std::int64_t now) {
  if (sim_time_ < thermal_at_) {
    // Monotonic time went back (a reboot, at sim_time_): episodes keep their length.
    const std::int64_t shift = sim_time_ - thermal_at_;
    if (episode_until_) *episode_until_ += shift;
    thermal_origin_ += shift;
    thermal_at_ = sim_time_;
  }
  const std::int64_t dt = now - thermal_at_;
  if (dt <= 0) return;
  thermal_at_ = now;
  double load = 0;
  for (const auto& a : apps_) {
    if (a.pid != 0 && draws(a)) load += a.cfg.game_fps > 0 ? 3 : 1;
  }
  const std::optional<int> episode = thermal_episode_at(now);
  const double seconds = static_cast<double>(dt) / 1e9;
  for (std::size_t i = 0; i < sensors_.size(); ++i) {
    ThermalSensor& s = sensors_[i];
    double target = ambient_ + (screen_ == Screen::on ? s.on : s.off) + heat_scale_ * s.per_load * load;
    // An episode's heat source drives the skin to its severity.
    if (i == 0 && episode && *episode > 0) target = std::max(target, static_cast<double>(kSimSkinHot[static_cast<std::size_t>(*episode)]) + 1);
    s.value = target + (s.value - target) * std::exp(-seconds / s.tau_s);
  }
}

std::optional<int> Device::thermal_episode_at(std::int64_t t) const {
  if (episode_status_ >= 0 && (!episode_until_ || t < *episode_until_)) return episode_status_;
  const ThermalEpisodes& e = cfg_.thermal_episodes;
  if (e.every_s > 0 && e.length_s > 0) {
    const auto every = static_cast<std::int64_t>(e.every_s * 1e9);
    const std::int64_t phase = ((t - thermal_origin_) % every + every) % every;
    if (phase >= every - static_cast<std::int64_t>(e.length_s * 1e9)) return std::clamp(e.status, 0, 6);
  }
  return std::nullopt;
}

int Device::thermal_status_at(std::int64_t t) const {
  if (const auto episode = thermal_episode_at(t)) return *episode;
  const double skin = reading(sensors_.front().value);
  int status = 0;
  for (int s = 1; s < 7; ++s) {
    if (skin >= static_cast<double>(kSimSkinHot[static_cast<std::size_t>(s)])) status = s;
  }
  return status;
}

double Device::throttle_at(std::int64_t t) const {
  return kThrottle[static_cast<std::size_t>(thermal_status_at(t))];
}

void Device::thermal_episode(int status, double seconds) {
  advance();
  episode_status_ = std::clamp(status, 0, 6);
  episode_until_.reset();
  if (seconds >= 0) episode_until_ = sim_time_ + static_cast<std::int64_t>(seconds * 1e9);
}

void Device::end_thermal_episode() {
  advance();
  episode_status_ = -1;
  episode_until_.reset();
}

SimThermal Device::thermal() const {
  SimThermal t;
  t.status = thermal_status();
  for (std::size_t i = 0; i < sensors_.size(); ++i) {
    const ThermalSensor& s = sensors_[i];
    // The device's status is its skin sensor's (AOSP: the worst SKIN severity).
    t.temps.push_back({s.name, s.type, reading(s.value), i == 0 ? t.status : 0});
  }
  t.cooling = {{"thermal-cpufreq-0", 2, t.status >= 2 ? t.status - 1 : 0}};
  return t;
}

Json Device::thermal_truth() const {
  const SimThermal t = thermal();
  Json temperatures = Json::array();
  for (const SimTemperature& temp : t.temps) {
    temperatures.push_back(
        {{"name", temp.name}, {"type", temp.type}, {"value", fixed(temp.value, 2)}, {"status", temp.status}});
  }
  return {{"status", t.status},
          {"episode", thermal_episode_at(sim_time_).has_value()},
          {"throttle", fixed(throttle(), 2)},
          {"temperatures", std::move(temperatures)}};
}

}  // namespace jank::devsim

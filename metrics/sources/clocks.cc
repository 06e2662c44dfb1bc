#include "metrics/sources/clocks.h"

#include <algorithm>
#include <string>

#include "parsers/time_units.h"

namespace jank::metrics {
namespace {

constexpr FamilySpec kFamilies[] = {
    {"android_cpu_frequency_hertz", FamilyType::gauge, "hertz",
     "Clock of the cpufreq policy's cores now (scaling_cur_freq).", "serial,policy"},
    {"android_cpu_frequency_max_hertz", FamilyType::gauge, "hertz",
     "Highest clock the policy may run at now (scaling_max_freq): below the hardware's while a thermal or power "
     "cap holds.",
     "serial,policy"},
    {"android_cpu_frequency_hardware_max_hertz", FamilyType::gauge, "hertz",
     "Highest clock the policy's hardware has (cpuinfo_max_freq).", "serial,policy"},
    {"android_cpu_throttled_seconds_total", FamilyType::counter, "seconds",
     "Host time the policy's allowed highest clock stood below the hardware's, between two resource polls that "
     "both saw it so.",
     "serial,policy"},
    {"android_gpu_frequency_hertz", FamilyType::gauge, "hertz",
     "GPU clock now (Adreno kgsl gpuclk, Mali devfreq cur_freq).", "serial"},
    {"android_gpu_frequency_max_hertz", FamilyType::gauge, "hertz",
     "Highest GPU clock allowed now (kgsl max_gpuclk, devfreq max_freq).", "serial"},
    {"android_gpu_busy_ratio", FamilyType::gauge, "ratio",
     "GPU busy time over its last sampling window (kgsl gpubusy), 0 to 1.", "serial"},
};
constexpr const FamilySpec& kCur = kFamilies[0];
constexpr const FamilySpec& kMax = kFamilies[1];
constexpr const FamilySpec& kHwMax = kFamilies[2];
constexpr const FamilySpec& kThrottled = kFamilies[3];
constexpr const FamilySpec& kGpuCur = kFamilies[4];
constexpr const FamilySpec& kGpuMax = kFamilies[5];
constexpr const FamilySpec& kGpuBusy = kFamilies[6];

constexpr std::uint64_t kMaxPolicies = 4096;
constexpr double kHzPerKhz = 1000;

bool capped(const parsers::CpufreqPolicy& p) { return p.max_khz && p.hw_max_khz && *p.max_khz < *p.hw_max_khz; }

}  // namespace

const ClockSource& clock_source() {
  static const ClockSource source;
  return source;
}

std::span<const FamilySpec> ClockSource::families() const { return kFamilies; }

bool ClockSource::state_worth_saving(const ClockState& s) const {
  return std::any_of(s.policies.begin(), s.policies.end(), [](const auto& p) { return p.second.throttled_ns > 0; });
}

bool ClockSource::checkpoint_state(Checkpoint& c, ClockState& s) const {
  bool sane = true;
  c.entries(s.policies, kMaxPolicies, [&](Checkpoint& e, int& policy, PolicyClock& p) {
    std::int64_t n = policy;
    e.i64(n).i64(p.throttled_ns);
    policy = static_cast<int>(std::clamp<std::int64_t>(n, 0, kMaxPolicies - 1));
    sane = sane && n == policy && p.throttled_ns >= 0;
  });
  return c.valid() && sane;
}

void ClockSource::collect(SeriesSink& f, const DeviceMetrics& d, const LabelSet& dev, std::int64_t now,
                          CollectAt) const {
  const ClockState* s = find(d);
  if (s == nullptr) return;
  const bool current = reading_current(d, s->fresh_until_ns, now);
  for (const auto& [first, p] : s->policies) {
    const LabelSet labels = f.labels({{"serial", d.serial}, {"policy", std::to_string(first)}});
    if (current) {
      const parsers::CpufreqPolicy& r = p.reading;
      if (r.cur_khz) f.sample(kCur, labels, static_cast<double>(*r.cur_khz) * kHzPerKhz);
      if (r.max_khz) f.sample(kMax, labels, static_cast<double>(*r.max_khz) * kHzPerKhz);
      if (r.hw_max_khz) f.sample(kHwMax, labels, static_cast<double>(*r.hw_max_khz) * kHzPerKhz);
    }
    f.sample(kThrottled, labels, parsers::units::seconds_of_ns(p.throttled_ns));
  }
  if (!current) return;
  const parsers::GpuFiles& g = s->gpu;
  if (g.cur_hz) f.sample(kGpuCur, dev, static_cast<double>(*g.cur_hz));
  if (g.max_hz) f.sample(kGpuMax, dev, static_cast<double>(*g.max_hz));
  if (g.busy && g.busy_total && *g.busy_total > 0) {
    f.sample(kGpuBusy, dev, static_cast<double>(*g.busy) / static_cast<double>(*g.busy_total));
  }
}

void record_clocks(const Store& store, DeviceMetrics& device, const parsers::ResourceAnswer& answer,
                   std::int64_t fresh_for_ns) {
  ClockState& s = clock_source().state(device);
  const std::int64_t now = store.host_time();
  s.fresh_until_ns = fresh_until(store, fresh_for_ns);
  // Where the poll asks for cpufreq next: per core where the policy
  // directories are missing (kernels before 4.4). A quiet grep tells nothing
  // but the absence of lines, so an answer without cpufreq before any had it
  // tries the other layout once; without either, the device shows none.
  if (answer.no_policy_directories) {
    s.per_core_cpufreq = true;
  } else if (!answer.cpufreq.empty()) {
    s.cpufreq_seen = true;
  } else if (!s.cpufreq_seen) {
    s.per_core_cpufreq = !s.per_core_tried;
    s.per_core_tried = true;
  }
  for (auto& [first, p] : s.policies) {
    if (!answer.cpufreq.contains(first)) p = {{}, p.throttled_ns, 0};
  }
  for (const auto& [first, reading] : answer.cpufreq) {
    PolicyClock& p = s.policies[first];
    p.reading = reading;
    if (!capped(reading)) {
      p.capped_since_ns = 0;
      continue;
    }
    // Only the time between two answers in a row that both saw the cap:
    // never across a missed poll (longer than a reading stays fresh), a host
    // clock step back, or in a replay (no host time).
    const std::int64_t gap = now - p.capped_since_ns;
    if (p.capped_since_ns > 0 && gap > 0 && (fresh_for_ns == 0 || gap <= fresh_for_ns)) p.throttled_ns += gap;
    p.capped_since_ns = now;
  }
  s.gpu = answer.gpu;
}

const ClockState* clocks_of(const DeviceMetrics& device) { return clock_source().find(device); }

parsers::CpufreqLayout cpufreq_layout(const DeviceMetrics& device) {
  const ClockState* s = clocks_of(device);
  return s != nullptr && s->per_core_cpufreq ? parsers::CpufreqLayout::per_core : parsers::CpufreqLayout::policy;
}

}  // namespace jank::metrics

#include "app/surface_poller.h"

#include <algorithm>

#include "app/gfxinfo_poller.h"
#include "app/log.h"
#include "ingest/protocol.h"
#include "parsers/power_state.h"
#include "parsers/sf_latency.h"

namespace jank::app {
namespace {

constexpr std::size_t kListOutput = 4 << 20;   // a few hundred layers of up to ~300 bytes
constexpr std::size_t kLatencyOutput = 1 << 20;  // 127 rows of ~60 bytes
constexpr std::size_t kPowerOutput = 1 << 20;
constexpr int kTableFrames = 127;  // FrameTracker's ring, as --latency prints it
// Only the two lines the screen state needs: a whole dump is tens of KiB.
constexpr const char* kPowerCommand = "dumpsys power | grep -e mWakefulness= -e 'Display Power: state='";

std::chrono::nanoseconds seconds(double s) {
  return std::chrono::nanoseconds(static_cast<std::int64_t>(s * 1e9));
}

}  // namespace

std::vector<parsers::AppLayer> layers_to_follow(const std::vector<std::string>& listed,
                                                const std::set<std::string, std::less<>>& watched, std::size_t max) {
  std::vector<parsers::AppLayer> out;
  std::set<std::string, std::less<>> seen;
  for (const auto& name : listed) {
    if (out.size() >= max) break;
    auto layer = parsers::classify_layer(name);
    if (!layer || !watched.contains(layer->package) || !seen.insert(layer->stable_name).second) continue;
    out.push_back(std::move(*layer));
  }
  return out;
}

PollIntervals poll_intervals(const config::Config& c) {
  PollIntervals i;
  i.fast = seconds(c.surfaceflinger_fast_poll_interval_seconds);
  i.idle = seconds(c.surfaceflinger_idle_poll_interval_seconds);
  i.list = seconds(c.surfaceflinger_list_interval_seconds);
  i.power = seconds(c.power_poll_interval_seconds);
  i.spacing = seconds(1.0 / c.surfaceflinger_max_commands_per_second);
  return i;
}

PollSchedule::PollSchedule(PollIntervals intervals, Time start)
    : intervals_(intervals), list_due_(start), power_due_(start) {}

PollSchedule::Job PollSchedule::next(Time now) const {
  std::optional<Job> layer;
  for (const auto& [name, due] : layer_due_) {
    if (!layer || due < layer->due) layer = Job{Job::Kind::layer, name, due};
  }
  if (layer && layer->due <= now) return *layer;
  Job job{Job::Kind::list, "", list_due_};
  if (power_due_ < job.due) job = {Job::Kind::power, "", power_due_};
  if (layer && layer->due < job.due) job = *layer;
  return job;
}

PollSchedule::Time PollSchedule::earliest_start(const Job& job) const {
  return last_start_ ? std::max(job.due, *last_start_ + intervals_.spacing) : job.due;
}

void PollSchedule::ran(const Job& job, Time at, bool presented, std::optional<std::chrono::nanoseconds> table_span) {
  last_start_ = at;
  switch (job.kind) {
    case Job::Kind::list: list_due_ = at + intervals_.list; break;
    case Job::Kind::power: power_due_ = at + intervals_.power; break;
    case Job::Kind::layer: {
      const auto it = layer_due_.find(job.layer);
      if (it == layer_due_.end()) break;
      if (presented) layer_presented_[job.layer] = at;
      const auto p = layer_presented_.find(job.layer);
      const bool resting = p == layer_presented_.end() || at - p->second >= kRestAfter;
      auto interval = resting ? intervals_.idle : intervals_.fast;
      if (table_span && *table_span > std::chrono::nanoseconds::zero()) {
        interval = std::min(interval, *table_span * 9 / 10);
      }
      it->second = at + interval;
      break;
    }
  }
}

void PollSchedule::follow(const std::vector<std::string>& stable_names, Time now) {
  std::map<std::string, Time> next;
  for (const auto& name : stable_names) {
    const auto it = layer_due_.find(name);
    next.emplace(name, it == layer_due_.end() ? now : it->second);
  }
  layer_due_ = std::move(next);
  std::erase_if(layer_presented_, [&](const auto& e) { return !layer_due_.contains(e.first); });
}

SurfacePoller::SurfacePoller(std::shared_ptr<const config::Config> config, std::string serial, SharedState& shared,
                             RunCommand run, RunAfter after, HostClock clock)
    : config_(std::move(config)),
      serial_(std::move(serial)),
      shared_(shared),
      run_(std::move(run)),
      after_(std::move(after)),
      clock_(std::move(clock)),
      schedule_(poll_intervals(*config_), clock_.steady_now()) {}

void SurfacePoller::start(std::chrono::milliseconds first) {
  after_(first, [this] { step(); });
}

void SurfacePoller::step() {
  const auto now = clock_.steady_now();
  const auto job = schedule_.next(now);
  const auto start = schedule_.earliest_start(job);
  if (start > now) {
    // Whole milliseconds, rounded up: never early.
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(start - now);
    after_(wait, [this] { step(); });
    return;
  }
  run_job(job);
}

void SurfacePoller::count(const char* command, const ingest::ShellResult& r) {
  shared_.with_device(serial_, [&](metrics::DeviceMetrics& d) {
    ++d.live.surfaceflinger_polls[{command, std::string(ingest::shell_result_name(r))}];
  });
}

void SurfacePoller::run_job(const PollSchedule::Job& job) {
  const auto started = clock_.steady_now();
  switch (job.kind) {
    case PollSchedule::Job::Kind::list:
      run_("dumpsys SurfaceFlinger --list", kListOutput, [this, job, started](ingest::ShellResult r) {
        count("list", r);
        schedule_.ran(job, started);
        if (!r.error) listed(r.output);
        step();
      });
      return;
    case PollSchedule::Job::Kind::power:
      run_(kPowerCommand, kPowerOutput, [this, job, started](ingest::ShellResult r) {
        count("power", r);
        schedule_.ran(job, started);
        // An answer without either line (grep found none) is an unknown
        // state; only a failed command leaves the state as it was.
        if (!r.error) {
          const auto lines = static_cast<std::uint64_t>(std::count(r.output.begin(), r.output.end(), '\n'));
          const auto power = parsers::parse_power_state(r.output);
          shared_.with_device(serial_, [&](metrics::DeviceMetrics& d) {
            shared_.store.record_power_state(d, power, lines);
          });
        }
        step();
      });
      return;
    case PollSchedule::Job::Kind::layer: {
      const auto it = layers_.find(job.layer);
      if (it == layers_.end()) {  // cannot happen: the schedule follows layers_
        schedule_.follow({}, started);
        after_(std::chrono::milliseconds(100), [this] { step(); });
        return;
      }
      const parsers::AppLayer layer = it->second;
      run_(ingest::quote_args({"dumpsys", "SurfaceFlinger", "--latency", layer.name}), kLatencyOutput,
           [this, job, started, layer](ingest::ShellResult r) {
             count("latency", r);
             std::uint64_t added = 0;
             std::optional<std::chrono::nanoseconds> span;
             if (!r.error) {
               const parsers::SfLatency table = parsers::parse_sf_latency(r.output);
               if (table.refresh_period_ns && *table.refresh_period_ns > 0) {
                 span = std::chrono::nanoseconds(*table.refresh_period_ns) * kTableFrames;
               }
               std::uint64_t overflows_before = 0, overflows_after = 0;
               std::optional<std::int64_t> anchor;
               {
                 std::lock_guard<std::mutex> lock(shared_.mutex);
                 auto& d = shared_.store.device(serial_);
                 if (const auto found = d.layers.find(layer.stable_name); found != d.layers.end()) {
                   overflows_before = found->second.presents.overflows();
                   anchor = found->second.presents.last_present();
                 }
                 shared_.store.set_host_time(clock_.wall_ns());
                 added = shared_.store.record_layer_latency(d, layer, table);
                 if (const auto found = d.layers.find(layer.stable_name); found != d.layers.end()) {
                   overflows_after = found->second.presents.overflows();
                 }
               }
               if (overflows_after > overflows_before) {
                 const auto since = started - last_poll_[layer.stable_name];
                 log_debug("device " + serial_ + ": layer " + layer.name + ": frames presented unseen (newest counted " +
                           std::to_string(anchor.value_or(0)) + " ns is gone from its table; previous poll " +
                           std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(since).count()) +
                           " ms before this one)");
               }
             }
             last_poll_[layer.stable_name] = started;
             schedule_.ran(job, started, added > 0, span);
             step();
           });
      return;
    }
  }
}

void SurfacePoller::listed(const std::string& output) {
  const parsers::SfLayerList list = parsers::parse_sf_layer_list(output);
  std::set<std::string, std::less<>> watched;
  {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    auto& d = shared_.store.device(serial_);
    shared_.store.record_layer_list(d, list);
    for (auto& p : packages_to_poll(*config_, d, d.live.foreground)) watched.insert(std::move(p));
  }
  const auto follow = layers_to_follow(list.names, watched, config_->surfaceflinger_max_layers);
  layers_.clear();
  std::vector<std::string> names;
  for (const auto& layer : follow) {
    names.push_back(layer.stable_name);
    layers_.emplace(layer.stable_name, layer);
  }
  schedule_.follow(names, clock_.steady_now());
}

}  // namespace jank::app

#include "app/session/surface_poller.h"

#include <algorithm>
#include <charconv>

#include "app/session/gfxinfo_poller.h"
#include "app/session/surfaceflinger_commands.h"
#include "app/core/log.h"
#include "ingest/protocol.h"
#include "metrics/app_version.h"
#include "metrics/frametimeline_tracker.h"
#include "metrics/sources/frametimeline.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/power.h"
#include "metrics/sources/timestats.h"
#include "parsers/frametimeline.h"
#include "parsers/power_state.h"
#include "parsers/time_units.h"
#include "parsers/timestats.h"
#include "parsers/sf_latency.h"

namespace jank::app {

using namespace sf;

namespace {

constexpr std::size_t kPowerOutput = 1 << 20;
// Only the two lines the screen state needs: a whole dump is tens of KiB.
constexpr const char* kPowerCommand = "dumpsys power | grep -e mWakefulness= -e 'Display Power: state='";

std::chrono::nanoseconds ns(config::Seconds s) { return std::chrono::duration_cast<std::chrono::nanoseconds>(s); }

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
  i.fast = ns(c.surfaceflinger_fast_poll_interval_seconds);
  i.idle = ns(c.surfaceflinger_idle_poll_interval_seconds);
  i.list = ns(c.surfaceflinger_list_interval_seconds);
  i.power = ns(c.power_poll_interval_seconds);
  i.spacing = ns(config::Seconds(1.0 / c.surfaceflinger_max_commands_per_second));
  i.frametimeline = c.surfaceflinger_frametimeline;
  if (c.surfaceflinger_timestats) i.timestats = ns(c.surfaceflinger_timestats_interval_seconds);
  return i;
}

PollSchedule::PollSchedule(PollIntervals intervals, Time start)
    : intervals_(intervals), list_due_(start), power_due_(start) {
  if (intervals_.frametimeline) ft_due_ = start;
  if (intervals_.timestats) ts_due_ = start;
}

PollSchedule::Job PollSchedule::next() const {
  const Followed* first = nullptr;
  for (const auto& [name, f] : layers_) {
    if (first == nullptr || f.due < first->due) first = &f;
  }
  Job job{Job::Kind::list, {}, list_due_};
  if (power_due_ < job.due) job = {Job::Kind::power, {}, power_due_};
  if (ts_due_ && *ts_due_ < job.due) job = {Job::Kind::timestats, {}, *ts_due_};
  if (first != nullptr && first->due <= job.due) job = {Job::Kind::layer, first->layer, first->due};
  // FrameTimeline's window is the shortest (64 frames against a layer's
  // 127): it goes first when due within one spacing of the other. Only
  // that much: a budget too small for everything still shares it.
  if (ft_due_ && *ft_due_ - intervals_.spacing <= job.due) job = {Job::Kind::frametimeline, {}, *ft_due_};
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
      const auto it = layers_.find(job.layer.stable_name);
      if (it == layers_.end()) break;  // no longer listed
      Followed& f = it->second;
      f.last_ran = at;
      if (presented) {
        f.presented = at;
        // Something animates: FrameTimeline's window fills from now on.
        if (ft_due_ && (!ft_frames_ || at - *ft_frames_ >= kFtRestAfter)) ft_due_ = std::min(*ft_due_, at);
        if (ft_due_) ft_frames_ = at;
      }
      const bool resting = !f.presented || at - *f.presented >= kRestAfter;
      auto interval = resting ? intervals_.idle : intervals_.fast;
      if (table_span && *table_span > std::chrono::nanoseconds::zero()) {
        interval = std::min(interval, *table_span * 9 / 10);
      }
      f.due = at + interval;
      break;
    }
    case Job::Kind::frametimeline: break;  // ran_frametimeline
    case Job::Kind::timestats:
      if (ts_due_) ts_due_ = at + *intervals_.timestats;
      break;
  }
}

void PollSchedule::ran_frametimeline(Time at, bool made_frames, std::optional<std::chrono::nanoseconds> window_span) {
  last_start_ = at;
  if (!ft_due_) return;
  if (window_span && *window_span > std::chrono::nanoseconds::zero()) ft_span_ = window_span;
  if (made_frames) ft_frames_ = at;
  const bool animating = ft_frames_ && at - *ft_frames_ < kFtRestAfter;
  const auto fast = ft_span_ ? frametimeline_poll_interval(*ft_span_) : intervals_.fast;
  // At rest the window does not change and a presenting layer wakes it, so
  // the list's interval will do (a dark or static screen costs little).
  ft_due_ = at + (animating ? fast : std::max(fast, intervals_.list));
}

void PollSchedule::hold(const Job& job, Time at) {
  if (job.kind == Job::Kind::frametimeline && ft_due_) ft_due_ = at + intervals_.fast;
  if (job.kind != Job::Kind::layer) return;
  if (const auto it = layers_.find(job.layer.stable_name); it != layers_.end()) it->second.due = at + intervals_.fast;
}

void PollSchedule::defer(const Job& job, Time at) {
  if (job.kind == Job::Kind::frametimeline && ft_due_) ft_due_ = at + intervals_.list;
  if (job.kind == Job::Kind::timestats && ts_due_) ts_due_ = at + intervals_.list;
}

void PollSchedule::follow(const std::vector<parsers::AppLayer>& layers, Time now) {
  std::map<std::string, Followed> next;
  for (const auto& layer : layers) {
    const auto it = layers_.find(layer.stable_name);
    Followed f = it == layers_.end() ? Followed{layer, now, std::nullopt, std::nullopt} : it->second;
    f.layer = layer;
    next.emplace(layer.stable_name, std::move(f));
  }
  layers_ = std::move(next);
}

std::optional<PollSchedule::Time> PollSchedule::last_ran(const std::string& stable_name) const {
  const auto it = layers_.find(stable_name);
  return it == layers_.end() ? std::nullopt : it->second.last_ran;
}

SurfacePoller::SurfacePoller(std::shared_ptr<const config::Config> config, std::string serial, SharedState& shared,
                             RunCommand run, RunAfter after, HostClock clock, std::shared_ptr<PerFramePolicy> per_frame)
    : config_(std::move(config)),
      serial_(std::move(serial)),
      shared_(shared),
      run_(std::move(run)),
      after_(std::move(after)),
      clock_(std::move(clock)),
      per_frame_(std::move(per_frame)),
      schedule_(poll_intervals(*config_), clock_.steady_now()) {}

void SurfacePoller::start(std::chrono::milliseconds first) {
  after_(first, [this] { step(); });
}

void SurfacePoller::step() {
  const auto now = clock_.steady_now();
  const auto job = schedule_.next();
  const auto start = schedule_.earliest_start(job);
  if (start > now) {
    // Whole milliseconds, rounded up: never early.
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(start - now);
    after_(wait, [this] { step(); });
    return;
  }
  run_job(job);
}

template <typename F>
void SurfacePoller::record(const char* command, const ingest::ShellResult& r, F apply) {
  std::lock_guard<std::mutex> lock(shared_.mutex);
  auto& d = shared_.store.device(serial_);
  ++d.live.surfaceflinger_polls[{command, std::string(ingest::shell_result_name(r))}];
  if (r.error) return;
  shared_.store.set_host_time(clock_.wall_ns());
  apply(d);
}

namespace {

int sdk_of(const metrics::DeviceMetrics& device) {
  int sdk = 0;
  const auto& info = device.live.info;
  if (const auto it = info.find("sdk"); it != info.end()) {
    std::from_chars(it->second.data(), it->second.data() + it->second.size(), sdk);
  }
  return sdk;
}

}  // namespace

bool polls_frametimeline(const config::Config& c, const metrics::DeviceMetrics& device) {
  return c.surfaceflinger_enabled && c.surfaceflinger_frametimeline && sdk_of(device) >= kFrameTimelineSdk;
}

void expect_frametimeline(const config::Config& c, metrics::DeviceMetrics& device) {
  metrics::expect_frametimeline(device, polls_frametimeline(c, device));
}

bool SurfacePoller::polls_per_frame(const PollSchedule::Job& job) {
  bool polls = true;
  shared_.with_device(serial_, [&](metrics::DeviceMetrics& d) {
    const std::int64_t now = clock_.wall_ns();
    per_frame_->update(d, now);
    if (job.kind == PollSchedule::Job::Kind::frametimeline) {
      polls = per_frame_->polls_any();
      if (!polls) metrics::pause_frametimeline(d);
    } else {
      polls = per_frame_->polls(metrics::base_package(job.layer.package));
      if (!polls) metrics::pause_layer(d, job.layer.stable_name, now);
    }
  });
  return polls;
}

int SurfacePoller::device_sdk() {
  std::lock_guard<std::mutex> lock(shared_.mutex);
  return sdk_of(shared_.store.device(serial_));
}

void SurfacePoller::run_job(const PollSchedule::Job& job) {
  const auto started = clock_.steady_now();
  switch (job.kind) {
    case PollSchedule::Job::Kind::list:
      run_(kListCommand, kListOutput, [this, job, started](ingest::ShellResult r) {
        schedule_.ran(job, started);
        const parsers::SfLayerList list = parsers::parse_sf_layer_list(r.output);
        std::set<std::string, std::less<>> watched;
        record("list", r, [&](metrics::DeviceMetrics& d) {
          metrics::record_layer_list(d, list);
          for (auto& p : packages_to_poll(*config_, d, d.live.foreground)) watched.insert(std::move(p));
        });
        // A failed list leaves the followed layers as they were.
        if (!r.error) {
          schedule_.follow(layers_to_follow(list.names, watched, config_->surfaceflinger_max_layers),
                           clock_.steady_now());
        }
        step();
      });
      return;
    case PollSchedule::Job::Kind::power:
      run_(kPowerCommand, kPowerOutput, [this, job, started](ingest::ShellResult r) {
        schedule_.ran(job, started);
        // An answer without either line (grep found none) is an unknown
        // state; only a failed command leaves the state as it was.
        const auto power = parsers::parse_power_state(r.output);
        record("power", r, [&](metrics::DeviceMetrics& d) { metrics::record_power_state(shared_.store, d, power); });
        step();
      });
      return;
    case PollSchedule::Job::Kind::frametimeline:
    case PollSchedule::Job::Kind::timestats:
      // An older SurfaceFlinger takes --frametimeline for a full dump, and
      // its TimeStats has no jank payload: never ask it.
      if (device_sdk() < kFrameTimelineSdk) {
        schedule_.defer(job, started);
        step();
        return;
      }
      if (job.kind == PollSchedule::Job::Kind::frametimeline && !polls_per_frame(job)) {
        schedule_.hold(job, started);
        step();
        return;
      }
      if (job.kind == PollSchedule::Job::Kind::timestats) {
        // -dump runs before -enable whatever the order: this reads, then
        // turns TimeStats on if it was off (a first answer may be empty).
        run_(kTimeStatsCommand, kTimeStatsOutput, [this, job, started](ingest::ShellResult r) {
          schedule_.ran(job, started);
          const parsers::TimeStatsDump dump = parsers::parse_timestats(r.output);
          record("timestats", r, [&](metrics::DeviceMetrics& d) { metrics::record_timestats(d, dump); });
          step();
        });
        return;
      }
      run_(kFrameTimelineCommand, kFrameTimelineOutput, [this, started](ingest::ShellResult r) {
        const parsers::FrameTimelineDump dump = parsers::parse_frametimeline(r.output);
        std::optional<std::int64_t> since_previous;
        if (ft_requested_) since_previous = std::chrono::nanoseconds(clock_.steady_now() - *ft_requested_).count();
        if (!r.error) ft_requested_ = started;
        metrics::FrameTimelinePoll poll;
        record("frametimeline", r, [&](metrics::DeviceMetrics& d) {
          poll = metrics::record_frametimeline(shared_.store, d, dump, since_previous);
        });
        if (poll.overflow) {
          log_debug("device " + serial_ + ": FrameTimeline: app frames went by unseen (no frame of this poll's "
                    "window was in the previous one)");
        }
        std::optional<std::chrono::nanoseconds> span;
        if (poll.vsync_period_ms && *poll.vsync_period_ms > 0) {
          span = std::chrono::nanoseconds(parsers::units::ns_of_ms(*poll.vsync_period_ms)) *
                 static_cast<std::int64_t>(metrics::kFrameTimelineDisplayFrames);
        }
        schedule_.ran_frametimeline(started, poll.frames > 0, span);
        step();
      });
      return;
    case PollSchedule::Job::Kind::layer:
      if (!polls_per_frame(job)) {
        schedule_.hold(job, started);
        step();
        return;
      }
      run_(latency_command(job.layer.name), kLatencyOutput,
           [this, job, started](ingest::ShellResult r) {
             const parsers::SfLatency table = parsers::parse_sf_latency(r.output);
             metrics::LayerPoll poll;
             record("latency", r, [&](metrics::DeviceMetrics& d) {
               poll = metrics::record_layer_latency(shared_.store, d, job.layer, table);
             });
             if (poll.overflow) {
               const auto previous = schedule_.last_ran(job.layer.stable_name);
               log_debug("device " + serial_ + ": layer " + job.layer.name + ": frames presented unseen (newest counted " +
                         std::to_string(poll.newest_before.value_or(0)) + " ns is gone from its table; previous poll " +
                         (previous ? std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                        started - *previous).count()) + " ms"
                                   : std::string("unknown")) +
                         " before this one)");
             }
             std::optional<std::chrono::nanoseconds> span;
             if (!r.error && table.refresh_period_ns && *table.refresh_period_ns > 0) {
               span = std::chrono::nanoseconds(*table.refresh_period_ns) * parsers::kSfLatencyRows;
             }
             schedule_.ran(job, started, poll.frames > 0, span);
             step();
           });
      return;
  }
}

}  // namespace jank::app

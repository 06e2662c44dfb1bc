#include "app/cli/observer_phases.h"

#include <algorithm>
#include <set>

#include "app/session/command_kind.h"
#include "app/session/gfxinfo_poller.h"
#include "app/session/graphicsstats_poller.h"
#include "app/session/surface_poller.h"
#include "app/session/surfaceflinger_commands.h"
#include "metrics/frametimeline_tracker.h"
#include "parsers/graphicsstats.h"
#include "parsers/sf_latency.h"
#include "parsers/sf_layers.h"
#include "parsers/timestats.h"

namespace jank::app {
namespace {

constexpr int kGraphicsStatsSdk = 24;  // Android 7.0: GraphicsStatsService

bool answered(const ingest::ShellResult& r) { return !r.error && r.exit_code.value_or(0) == 0; }

template <class D>
ObserverPhases::Clock::duration to_clock(D d) {
  return std::chrono::duration_cast<ObserverPhases::Clock::duration>(d);
}

}  // namespace

bool has_graphicsstats(int sdk) { return sdk >= kGraphicsStatsSdk; }
bool has_timestats(int sdk) { return sdk >= sf::kFrameTimelineSdk; }

ObserverPhases::ObserverPhases(DeviceShell& shell, const config::Config& config, ObserverPlan plan,
                               std::function<Clock::time_point()> now,
                               std::function<void(Clock::time_point)> sleep_until)
    : shell_(shell), config_(config), plan_(std::move(plan)), now_(std::move(now)),
      sleep_until_(std::move(sleep_until)) {}

ObserverPhases::Readings ObserverPhases::read_counters() {
  Readings r;
  if (has_graphicsstats(plan_.sdk)) {
    const CommandSource& source = graphicsstats_command_source();
    const ingest::ShellResult answer = shell_.run(source.command, source.max_output);
    if (answered(answer) && !answer.truncated) {
      r.graphicsstats = metrics::graphicsstats_reading(parsers::parse_graphicsstats(answer.output), plan_.package);
    }
  }
  if (has_timestats(plan_.sdk)) {
    const ingest::ShellResult answer = shell_.run(sf::kTimeStatsCommand, sf::kTimeStatsOutput);
    if (answered(answer) && !answer.truncated) {
      r.timestats = metrics::timestats_reading(parsers::parse_timestats(answer.output), plan_.package);
    }
  }
  return r;
}

void ObserverPhases::run_counted(const std::string& command, std::size_t max_output, ObserverPhase& phase,
                                 const std::function<void(const ingest::ShellResult&)>& use) {
  const ingest::ShellResult r = shell_.run(command, max_output);
  ++phase.commands[std::string(command_kind(command))];
  if (!answered(r)) {
    ++phase.failed_commands;
    return;
  }
  if (use) use(r);
}

void ObserverPhases::poll_until(Clock::time_point end, ObserverPhase& phase) {
  enum class Kind { list, latency, frametimeline, framestats };
  struct Job {
    Kind kind;
    Clock::time_point due;
  };
  const bool sf = config_.surfaceflinger_enabled;
  std::vector<Job> jobs;
  const Clock::time_point start = now_();
  if (sf) jobs.push_back({Kind::list, start});
  if (sf && config_.surfaceflinger_frametimeline && plan_.sdk >= sf::kFrameTimelineSdk) {
    jobs.push_back({Kind::frametimeline, start});
  }
  jobs.push_back({Kind::framestats, start});
  std::size_t next_layer = 0;  // layers take turns in the latency job's slots
  for (;;) {
    const Clock::time_point t = now_();
    if (t >= end) return;
    auto job = std::min_element(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.due < b.due; });
    if (job->due > t) {
      sleep_until_(std::min(job->due, end));
      continue;
    }
    bool add_latency = false;
    switch (job->kind) {
      case Kind::list:
        run_counted(sf::kListCommand, sf::kListOutput, phase, [&](const ingest::ShellResult& r) {
          layers_.clear();
          for (auto& layer : layers_to_follow(parsers::parse_sf_layer_list(r.output).names, {plan_.package},
                                              config_.surfaceflinger_max_layers)) {
            layers_.push_back(std::move(layer.name));
          }
        });
        job->due = t + to_clock(config_.surfaceflinger_list_interval_seconds);
        add_latency = !layers_.empty() &&
                      std::none_of(jobs.begin(), jobs.end(), [](const Job& j) { return j.kind == Kind::latency; });
        break;
      case Kind::latency:
        if (!layers_.empty()) {
          const std::string& layer = layers_[next_layer++ % layers_.size()];
          run_counted(sf::latency_command(layer), sf::kLatencyOutput, phase, [&](const ingest::ShellResult& r) {
            const auto period = parsers::parse_sf_latency(r.output).refresh_period_ns;
            if (period && *period > 0) period_ = std::chrono::nanoseconds(*period);
          });
        }
        job->due = t + to_clock(config_.surfaceflinger_fast_poll_interval_seconds) /
                           static_cast<long>(std::max<std::size_t>(1, layers_.size()));
        break;
      case Kind::frametimeline:
        run_counted(sf::kFrameTimelineCommand, sf::kFrameTimelineOutput, phase);
        job->due = t + to_clock(sf::frametimeline_poll_interval(
                           period_ * static_cast<long>(metrics::kFrameTimelineDisplayFrames)));
        break;
      case Kind::framestats:
        run_counted(gfxinfo_command(config_, plan_.package, true), kGfxinfoOutput, phase);
        job->due = t + to_clock(config_.gfxinfo_fast_poll_interval_seconds);
        break;
    }
    // Each layer is asked at the fast interval: the latency job's slot comes
    // round once per layer in that time.
    if (add_latency) jobs.push_back({Kind::latency, t});
  }
}

std::string ObserverPhases::run(const std::function<void(const ObserverPhase&)>& done) {
  if (!has_graphicsstats(plan_.sdk)) {
    return "Android 7.0 (API 24) or later is needed: older releases keep no counter of janky frames "
           "outside the app (graphicsstats)";
  }
  Readings before = read_counters();
  // The first TimeStats dump may have just enabled it: read again from there.
  if (has_timestats(plan_.sdk) && !before.timestats.readable) before = read_counters();
  if (!before.graphicsstats.readable && !before.timestats.readable) {
    return "neither `dumpsys graphicsstats` nor SurfaceFlinger's TimeStats could be read on " + shell_.serial();
  }
  for (std::size_t pair = 0; pair < plan_.pairs; ++pair) {
    for (int half = 0; half < 2; ++half) {
      ObserverPhase phase;
      phase.high = (pair % 2 == 0) == (half == 1);
      const Clock::time_point start = now_();
      const Clock::time_point end = start + plan_.phase;
      if (phase.high) poll_until(end, phase);
      if (now_() < end) sleep_until_(end);
      const Readings after = read_counters();
      phase.seconds = std::chrono::duration<double>(now_() - start).count();
      phase.graphicsstats = metrics::phase_counts(before.graphicsstats, after.graphicsstats);
      phase.timestats = metrics::phase_counts(before.timestats, after.timestats);
      phases_.push_back(phase);
      if (done) done(phases_.back());
      before = after;
    }
  }
  return {};
}

}  // namespace jank::app

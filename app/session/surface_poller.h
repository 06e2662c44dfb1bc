// SurfaceFlinger and screen polling for one device session: which layers
// the watched apps have (`dumpsys SurfaceFlinger --list`), their presented
// frames (`--latency '<exact name>'`), SurfaceFlinger's verdict on every app
// frame (`--frametimeline -all`, Android 12+), and whether the panel is on
// (`dumpsys power`). One command at a time, spaced by a per-device budget; a
// layer that presented in its last poll is polled at the fast interval, a
// resting one at the idle interval. The order is decided by PollSchedule, a
// pure class; the poller only runs what it says.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/core/host_clock.h"
#include "app/session/per_frame_policy.h"
#include "app/session/session_io.h"
#include "app/core/shared_state.h"
#include "config/config.h"
#include "parsers/sf_layers.h"

namespace jank::app {

// Whether a session on `device` (its getprop facts recorded) polls
// --frametimeline: SurfaceFlinger polling and FrameTimeline on, Android 12+.
bool polls_frametimeline(const config::Config& c, const metrics::DeviceMetrics& device);
// Tells the FrameTimeline module whether its verdicts will come on `device`
// (polls_frametimeline): elsewhere framestats rows do not wait for them.
void expect_frametimeline(const config::Config& c, metrics::DeviceMetrics& device);

// The app layers of a --list answer worth following: those of `watched`
// packages, at most `max` of them (in list order, which is Z order: the
// ones on top first), one per stable name.
std::vector<parsers::AppLayer> layers_to_follow(const std::vector<std::string>& listed,
                                                const std::set<std::string, std::less<>>& watched, std::size_t max);

struct PollIntervals {
  std::chrono::nanoseconds fast{500'000'000};
  std::chrono::nanoseconds idle{2'000'000'000};
  std::chrono::nanoseconds list{10'000'000'000};
  std::chrono::nanoseconds power{5'000'000'000};
  std::chrono::nanoseconds spacing{100'000'000};  // 1 / max commands per second
  bool frametimeline = false;                      // poll --frametimeline at all
  std::optional<std::chrono::nanoseconds> timestats;  // --timestats -dump interval; none: off
};

// What to run next and when. Jobs: the layer list, the power state, and
// one per followed layer (by stable name). Time is whatever clock the
// caller passes, the same one throughout.
class PollSchedule {
 public:
  using Time = std::chrono::steady_clock::time_point;
  struct Job {
    enum class Kind : std::uint8_t { list, power, layer, frametimeline, timestats } kind;
    parsers::AppLayer layer;  // for Kind::layer
    Time due;
  };

  PollSchedule(PollIntervals intervals, Time start);
  // The next job: the one due earliest, FrameTimeline winning when due
  // within one spacing of it (its window is the shortest), a layer winning a
  // tie with the list or the power state (its table holds about a second at
  // 120 Hz). Earliest due first, so that when the
  // budget is too small for every layer's interval the list and the power
  // state still take their turn instead of waiting behind layers that are
  // always due. It may run not before its due time nor within `spacing` of
  // the previous command's start (earliest_start).
  Job next() const;
  Time earliest_start(const Job& job) const;
  // The job started at `at`. For a layer, `presented`: its poll brought
  // frames; `table_span`: how long its table lasts (127 refresh periods).
  // A layer rests once it presented nothing for kRestAfter: until then a
  // stall is not rest, and it keeps the fast interval. Any interval is
  // capped at 90 % of the table's span, so that a layer waking from rest
  // has not filled its table before the next poll.
  void ran(const Job& job, Time at, bool presented = false,
           std::optional<std::chrono::nanoseconds> table_span = std::nullopt);
  static constexpr std::chrono::nanoseconds kRestAfter{1'200'000'000};
  // FrameTimeline's window: 64 display frames, at most one per refresh
  // period, so it lasts at least 64 periods. While anything animates (a
  // poll made frames final, or a layer presented, within kFtRestAfter) it is
  // polled every 3/5 of that (0.64 s at 60 Hz, 0.32 s at 120 Hz: a poll
  // may wait a command's spacing past its due time), else at the list
  // interval (the window does not change at rest); a layer that presents
  // wakes it at once. The long rest
  // delay keeps bursty UIs (scroll, read, scroll) at the fast cadence, where
  // a burst after a rest would lose its first frames to the wake-up delay.
  // `window_span`: 64 periods of the dump's refresh rate.
  void ran_frametimeline(Time at, bool made_frames, std::optional<std::chrono::nanoseconds> window_span);
  // The device cannot answer the job's command (--frametimeline or
  // --timestats before Android 12, or its release not known yet): asked
  // again after the list interval, without taking a command's turn.
  void defer(const Job& job, Time at);
  // A FrameTimeline or layer job not to run now (per-frame polling paused,
  // app/session/per_frame_policy.h): asked again after the fast interval,
  // without taking a command's turn, so that a run or a spike resumes it
  // within that.
  void hold(const Job& job, Time at);
  static constexpr std::chrono::nanoseconds kFtRestAfter{10'000'000'000};
  // The layers to follow from now on (their exact names may have changed):
  // new ones are due at once, gone ones dropped.
  void follow(const std::vector<parsers::AppLayer>& layers, Time now);
  std::size_t layers() const { return layers_.size(); }
  // When the layer's previous poll started, if it had one.
  std::optional<Time> last_ran(const std::string& stable_name) const;

 private:
  struct Followed {
    parsers::AppLayer layer;
    Time due;
    std::optional<Time> last_ran;
    std::optional<Time> presented;  // when a poll last brought frames
  };
  PollIntervals intervals_;
  Time list_due_, power_due_;
  std::optional<Time> last_start_;
  std::map<std::string, Followed> layers_;  // by stable name
  std::optional<Time> ft_due_;              // none: FrameTimeline not polled
  std::optional<Time> ft_frames_;            // when a poll last made frames final, or a layer presented
  std::optional<std::chrono::nanoseconds> ft_span_;
  std::optional<Time> ts_due_;  // none: TimeStats not polled
};

class SurfacePoller {
 public:
  SurfacePoller(std::shared_ptr<const config::Config> config, std::string serial, SharedState& shared, RunCommand run,
                RunAfter after, HostClock clock, std::shared_ptr<PerFramePolicy> per_frame);
  void start(std::chrono::milliseconds first);

 private:
  void step();
  void run_job(const PollSchedule::Job& job);
  int device_sdk();  // 0 while not known
  // Whether the FrameTimeline or layer job runs now (per_frame.*); when not,
  // its source is told the gap to come is no overflow.
  bool polls_per_frame(const PollSchedule::Job& job);
  // Counts the command's result and, when it answered, applies `apply` to
  // the device under the store's lock at the host's time.
  template <typename F>
  void record(const char* command, const ingest::ShellResult& r, F apply);

  std::shared_ptr<const config::Config> config_;
  std::string serial_;
  SharedState& shared_;
  RunCommand run_;
  RunAfter after_;
  HostClock clock_;
  std::shared_ptr<PerFramePolicy> per_frame_;
  PollSchedule schedule_;
  // When the previous --frametimeline request of this session was sent.
  std::optional<PollSchedule::Time> ft_requested_;
};

PollIntervals poll_intervals(const config::Config& config);

}  // namespace jank::app

// Runs (docs/runs.md): named intervals on devices for one app, whose results
// are the growth of the exporter's counters between a baseline and the end.
//
// A run waits for a fresh gfxinfo poll of its app on every device before it
// takes its baseline (state starting → running), and again after the stop
// was asked for before it takes its final counts (stopping → finished): a
// polled count then holds every frame drawn before that moment. A device
// that does not answer within the settle timeout is marked unsettled. Between
// the two, the daemon samples every open run about once a second: the growth
// goes to the run's totals and to its time steps (the report's charts).
//
// Host time only (the daemon's wall clock): device clocks never order runs.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/app_version.h"
#include "metrics/run_counters.h"
#include "metrics/store.h"

namespace jank::metrics {

enum class RunState : std::uint8_t { starting, running, stopping, finished };
std::string_view run_state_name(RunState state);

struct RunSpec {
  std::string id;  // empty: the book makes one
  std::string name;
  std::string package;
  std::vector<std::string> serials;  // empty: every device followed now
  std::map<std::string, std::string> tags;
};

// A run id: 1 to 64 characters of A-Z a-z 0-9 . _ -, and not "." or ".."
// (an id names a path in URLs and reports). Checked before an id from a
// request, a command line or a state file is used anywhere, even in an error.
bool valid_run_id(std::string_view id);
inline constexpr std::string_view kRunIdRule = "a run id is 1 to 64 characters of A-Z a-z 0-9 . _ - (not . or ..)";

// Why a spec is refused: "" when it is fine (one rule for the API and the CLI).
std::string check_run_spec(const RunSpec& spec);

struct RunStep {
  std::int64_t end_ns = 0;   // host time the step ended
  std::int64_t span_ns = 0;  // how long it was
  std::uint64_t frames = 0, janky_frames = 0, skipped_frames = 0, sf_frames = 0;
  std::uint64_t sf_intervals = 0;  // present-to-present intervals within active time: FPS's numerator
  std::uint64_t active_ns = 0;
  bool has_frames = false, has_sf = false;  // whether the sources existed (else the arrays hold null)
  bool intervals_unknown = false;  // a step kept from before intervals were counted: no FPS
  std::uint64_t cpu_ticks = 0;     // the app's CPU time (resource poll), clock ticks
  bool has_cpu = false;            // the app's CPU was measured (else its array holds null)
};

struct VersionSeen {
  AppVersion version;
  std::int64_t at_ns = 0;  // host time it was first seen in the run
};

struct RunDevice {
  std::string serial;
  std::string model;
  std::optional<int> sdk;
  double refresh_hz = 60;
  bool settled_start = false, settled_stop = false;
  AppCounters last;     // the snapshot the next growth is measured from
  AppCounters counted;  // growth since the baseline
  std::uint64_t restarts = 0;  // sources found restarted (a series re-created)
  std::uint32_t max_skip_frames = 0;
  std::int64_t max_frame_ns = 0;
  std::uint64_t peak_rss_bytes = 0;  // the app's main process, at the run's samples (0: never read)
  std::vector<VersionSeen> versions;
  std::vector<RunStep> steps;
  RunStep open_step;           // growth since the last closed step
  std::int64_t step_began_ns = 0;  // when the open step began
};

struct Run {
  RunSpec spec;
  RunState state = RunState::starting;
  std::int64_t requested_ns = 0;       // start asked
  std::int64_t started_ns = 0;         // baseline taken
  std::int64_t stop_requested_ns = 0;  // stop asked (0: not yet)
  std::int64_t finished_ns = 0;        // final counts taken
  std::int64_t step_ns = 0;            // length of a time step (doubles as steps merge)
  std::vector<RunDevice> devices;
};

struct RunBookOptions {
  std::size_t max_open = 64;       // runs not finished at once
  std::size_t max_kept = 500;      // finished runs kept (oldest dropped first)
  std::chrono::nanoseconds max_age = std::chrono::days(30);  // finished runs older are dropped
  std::chrono::nanoseconds step = std::chrono::seconds(5);    // time step of the series
  std::size_t max_steps = 360;                                // per device; then steps merge
  std::chrono::nanoseconds settle_timeout = std::chrono::seconds(30);  // wait for a fresh poll at most this
  std::chrono::nanoseconds min_settle = std::chrono::seconds(1);  // the log stream's lag: its lines arrive within this
};

class RunBook {
 public:
  explicit RunBook(RunBookOptions options = {}) : options_(options) {}
  void set_options(const RunBookOptions& options) { options_ = options; }

  struct StartResult {
    const Run* run = nullptr;  // on success
    int status = 0;            // HTTP-like: 400 bad spec, 409 conflict, 429 too many open
    std::string error;
  };
  // Opens a run on `store`'s devices; pins the app on them.
  StartResult start(RunSpec spec, std::int64_t now_ns, Store& store);
  // Asks the run to stop; false (404/409 in `status`) when it is unknown or already stopping.
  bool stop(const std::string& id, std::int64_t now_ns, int& status, std::string& error);
  // Samples every open run: baselines when settled, growth, steps, final
  // counts. Returns true when a run changed state.
  bool advance(std::int64_t now_ns, Store& store);

  const Run* find(const std::string& id) const;
  const std::map<std::uint64_t, Run>& runs() const { return runs_; }  // by age (oldest first)

  struct Counts {
    std::uint64_t started = 0, finished = 0;
    std::map<std::string, std::uint64_t> dropped;  // finished runs dropped, by reason (count, age)
  };
  const Counts& counts() const { return counts_; }

  // Checkpoint (the state directory's `runs` file).
  std::string save() const;
  bool load(std::string_view text, std::string& error, Store& store);

 private:
  void take_baseline(Run& run, std::int64_t now_ns, Store& store);
  void sample(Run& run, std::int64_t now_ns, Store& store);
  static void sample_device(const Run& run, RunDevice& d, const DeviceMetrics& dev, std::int64_t now_ns);
  void finish(Run& run, std::int64_t now_ns, Store& store);
  void repin(Store& store) const;
  void drop_old(std::int64_t now_ns);
  std::string make_id(std::int64_t now_ns);

  RunBookOptions options_;
  std::map<std::uint64_t, Run> runs_;
  std::uint64_t next_seq_ = 1;
  Counts counts_;
};

}  // namespace jank::metrics

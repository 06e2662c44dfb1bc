// What the io thread and the HTTP threads share: the metric model and the
// daemon's own status, under one mutex.
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "metrics/daemon_status.h"
#include "metrics/run_book.h"
#include "metrics/store.h"
#include "metrics/trace_budget.h"

namespace jank::app {

// Where pulled traces go (docs/traces.md, "Where traces go"). Called on the
// io thread, never under SharedState::mutex.
struct SavedTrace {
  std::string id;      // when kept
  std::string reason;  // when not: the jank_exporter_traces_failed_total reason
  std::string error;   // when not: what failed
};
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // Keeps `bytes` (or says why not) off the io thread, then calls `done` on
  // the io thread; `done` may not run at all once the daemon stops.
  virtual void save(std::string bytes, metrics::StoredTrace meta, std::function<void(SavedTrace)> done) = 0;
};

struct SharedState {
  explicit SharedState(metrics::StoreOptions options) : store(options) {}
  std::mutex mutex;
  metrics::Store store;
  metrics::DaemonMetrics daemon;
  metrics::RunBook runs;  // docs/runs.md
  // The flight recorder's shared parts (docs/traces.md); io thread only.
  metrics::TraceBudget trace_budget{300'000'000'000, 12};
  TraceSink* trace_sink = nullptr;  // null while traces are off
  // Traces pulled or being saved, every device together: a slot is taken
  // when a pull starts and given back when its bytes are gone (failed, or
  // the save done), so at most kMaxTracePulls traces are ever in memory.
  std::size_t trace_pulls = 0;
  static constexpr std::size_t kMaxTracePulls = 2;  // bounds the memory traces in transit take

  // `f(device)` for the device `serial`, under the lock.
  template <typename F>
  void with_device(const std::string& serial, F&& f) {
    std::lock_guard<std::mutex> lock(mutex);
    f(store.device(serial));
  }
};

}  // namespace jank::app

// The trace store as the daemon keeps it (docs/traces.md): saved into off
// the io thread, and into the metrics as DaemonMetrics::traces. Served over
// HTTP as /traces/ by app/api/trace_routes.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>

#include "app/core/shared_state.h"
#include "app/core/trace_store.h"
#include "config/config.h"

namespace jank::app {

// A store for `dir` whose status is copied into shared.daemon.traces (under
// shared.mutex) after every change, opened: read again and retention applied.
// A directory that cannot be used is logged; the store then fails each save.
std::shared_ptr<TraceStore> open_trace_store(std::string dir, metrics::TraceLimits limits,
                                             std::function<std::int64_t()> now_ns, SharedState& shared);

// The flight recorder's host side for the daemon: the store for the
// configuration (kept across a reload that keeps its directory, its limits
// updated), the sink the recorders save into, and the trigger budget's
// limits. Called on the io thread; the sink writes on a thread of its own
// and answers on `io`.
class TraceHost {
 public:
  TraceHost(boost::asio::io_context& io, SharedState& shared, std::function<std::int64_t()> now_ns);
  ~TraceHost();
  TraceHost(const TraceHost&) = delete;
  TraceHost& operator=(const TraceHost&) = delete;

  // Opens, keeps or closes the store for `config` (traces.enabled, traces.dir).
  void configure(const config::Config& config);
  std::shared_ptr<TraceStore> store() const { return store_; }
  // Age retention of traces no save follows; call now and then.
  void enforce();

 private:
  class Writer;
  class Sink;
  SharedState& shared_;
  std::function<std::int64_t()> now_ns_;
  std::shared_ptr<TraceStore> store_;
  std::unique_ptr<Writer> writer_;  // outlives every sink: a reload never waits for a save
  std::unique_ptr<TraceSink> sink_;
};

// traces.dir, or STATE_DIR/traces.
std::string trace_dir(const config::Config& config);
metrics::TraceLimits trace_limits(const config::Config& config);

}  // namespace jank::app

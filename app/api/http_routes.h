// What the daemon's HTTP server answers besides /metrics and the probes,
// for one configuration: the APIs under /api/ (runs, devices) and the
// file routes (the traces, and the live view's pages: exporters/live_pages.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "app/api/runs_api.h"
#include "app/core/shared_state.h"
#include "app/core/trace_store.h"
#include "config/config.h"
#include "exporters/http_server.h"

namespace jank::app {

struct HttpRoutes {
  exporters::HttpServer::ApiHandler api;
  std::vector<exporters::FileRoute> files;
};

// `runs` outlives the server; `now` is the host's wall time; `traces` is
// null while traces are off.
HttpRoutes http_routes(const config::Config& config, SharedState& shared, RunsApi& runs,
                       std::function<std::int64_t()> now, std::shared_ptr<const TraceStore> traces);

}  // namespace jank::app

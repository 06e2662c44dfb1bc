// The trace directory over HTTP (docs/traces.md): /traces/ and
// /traces/ID.pftrace, answered from the store the daemon saves into.
#pragma once

#include <memory>

#include "app/core/trace_store.h"
#include "exporters/http_server.h"

namespace jank::app {

// GET and HEAD of /traces/ (the list, newest first) and /traces/ID.pftrace
// (the trace, as an attachment), on the HTTP thread. Anything else under
// /traces/ is 404: an id outside [A-Za-z0-9._-]+ or holding "..", a percent
// escape, a path below, a trace the store does not hold.
exporters::FileRoute traces_route(std::shared_ptr<const TraceStore> store);

}  // namespace jank::app

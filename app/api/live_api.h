// The live view's JSON under /api/devices (docs/live-view.md): every device,
// or one (GET /api/devices/SERIAL, SERIAL percent-encoded). On the HTTP
// thread: a snapshot under the shared state's lock, the document written
// after it; the trace listing is read before the lock is taken (the trace
// store takes that lock itself when it changes).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "app/core/shared_state.h"
#include "app/core/trace_store.h"
#include "config/config.h"
#include "exporters/http_server.h"
#include "exporters/live_json.h"

namespace jank::app {

class LiveApi {
 public:
  // `now` is the host's wall time (ns); `traces` may be null (traces off).
  LiveApi(SharedState& shared, std::function<std::int64_t()> now, exporters::LiveViewOptions options,
          std::shared_ptr<const TraceStore> traces);

  exporters::ApiResponse handle(const exporters::ApiRequest& request) const;
  // GET /api/devices and GET /api/devices/SERIAL (decoded): also what the
  // live pages are written from.
  exporters::ApiResponse list() const;
  exporters::ApiResponse show(const std::string& serial) const;

 private:

  SharedState& shared_;
  std::function<std::int64_t()> now_;
  exporters::LiveViewOptions options_;
  std::shared_ptr<const TraceStore> traces_;
};

// live_view.* of a configuration as the documents give them.
exporters::LiveViewOptions live_view_options(const config::Config& config);

}  // namespace jank::app

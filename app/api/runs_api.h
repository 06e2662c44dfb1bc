// The runs API under /api/runs (docs/runs.md): what a test harness calls to
// start and stop runs and to read their results. Requests arrive on the HTTP
// thread and take the shared state's lock; they never wait for a device.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/core/shared_state.h"
#include "exporters/http_server.h"

namespace jank::app {

class RunsApi {
 public:
  // `now` is the host's wall time (ns); `poll_soon` asks the sessions of
  // these devices for a gfxinfo round now (runs wait for one to settle).
  RunsApi(SharedState& shared, std::function<std::int64_t()> now,
          std::function<void(std::vector<std::string> serials)> poll_soon);

  exporters::ApiResponse handle(const exporters::ApiRequest& request);

 private:
  exporters::ApiResponse start(const std::string& body);
  exporters::ApiResponse stop(const std::string& id);
  exporters::ApiResponse list(const std::string& query);
  exporters::ApiResponse show(const std::string& id, const std::string& query);

  SharedState& shared_;
  std::function<std::int64_t()> now_;
  std::function<void(std::vector<std::string>)> poll_soon_;
};

}  // namespace jank::app

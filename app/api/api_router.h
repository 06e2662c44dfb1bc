// Requests under /api/ go to the handler of their prefix (/api/runs,
// /api/devices, …): each API stays its own class, and one that is not
// there answers 404 in the same JSON shape as the others' errors.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "exporters/http_server.h"

namespace jank::app {

class ApiRouter {
 public:
  // `prefix` takes itself and every path below it ("/api/runs": "/api/runs/ID/stop").
  ApiRouter& add(std::string prefix, exporters::HttpServer::ApiHandler handler);
  exporters::ApiResponse operator()(const exporters::ApiRequest& request) const;

 private:
  std::vector<std::pair<std::string, exporters::HttpServer::ApiHandler>> routes_;
};

}  // namespace jank::app

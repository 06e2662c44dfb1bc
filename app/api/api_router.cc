#include "app/api/api_router.h"

#include "exporters/live_json.h"

namespace jank::app {

ApiRouter& ApiRouter::add(std::string prefix, exporters::HttpServer::ApiHandler handler) {
  routes_.emplace_back(std::move(prefix), std::move(handler));
  return *this;
}

exporters::ApiResponse ApiRouter::operator()(const exporters::ApiRequest& request) const {
  const std::string_view path = request.path;
  for (const auto& [prefix, handler] : routes_) {
    if (!path.starts_with(prefix)) continue;
    if (path.size() == prefix.size() || path[prefix.size()] == '/') return handler(request);
  }
  return {404, "application/json", exporters::api_error_json("no such endpoint")};
}

}  // namespace jank::app

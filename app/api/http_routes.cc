#include "app/api/http_routes.h"

#include "app/api/api_router.h"
#include "app/api/live_api.h"
#include "app/api/trace_routes.h"
#include "exporters/live_pages.h"

namespace jank::app {

HttpRoutes http_routes(const config::Config& config, SharedState& shared, RunsApi& runs,
                       std::function<std::int64_t()> now, std::shared_ptr<const TraceStore> traces) {
  HttpRoutes out;
  auto live = std::make_shared<const LiveApi>(shared, std::move(now), live_view_options(config), traces);
  ApiRouter api;
  api.add("/api/runs", [&runs](const exporters::ApiRequest& r) { return runs.handle(r); });
  api.add("/api/devices", [live](const exporters::ApiRequest& r) { return live->handle(r); });
  out.api = std::move(api);
  if (traces) out.files.push_back(traces_route(std::move(traces)));
  // The pages are written from the same documents as /api/devices.
  exporters::LiveSources pages;
  pages.devices = [live] { return nlohmann::json::parse(live->list().body); };
  pages.device = [live](std::string_view serial) -> std::optional<nlohmann::json> {
    const auto r = live->show(std::string(serial));
    if (r.status != 200) return std::nullopt;
    return nlohmann::json::parse(r.body);
  };
  for (auto& route : exporters::live_routes(std::move(pages))) out.files.push_back(std::move(route));
  return out;
}

}  // namespace jank::app

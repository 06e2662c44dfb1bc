#include "app/trace_service.h"

#include "app/log.h"
#include "exporters/trace_json.h"
#include "metrics/trace_files.h"

namespace jank::app {

exporters::FileRoute traces_route(std::shared_ptr<const TraceStore> store) {
  return {std::string(exporters::kTracesPath), [store = std::move(store)](std::string_view path) {
            exporters::FileResponse r;
            const std::string_view rest = path.substr(exporters::kTracesPath.size());
            if (rest.empty()) {
              r.content_type = "application/json";
              r.body = exporters::trace_list_json(store->list());
              return r;
            }
            const std::string_view id = rest.ends_with(metrics::kTraceExtension)
                                            ? rest.substr(0, rest.size() - metrics::kTraceExtension.size())
                                            : std::string_view();
            if (!metrics::valid_trace_id(id) || !store->find(id)) {
              r.status = 404;
              r.content_type = "text/plain";
              r.body = "no such trace\n";
              return r;
            }
            r.file = store->trace_path(id);
            r.attachment = std::string(rest);
            return r;
          }};
}

std::shared_ptr<TraceStore> open_trace_store(std::string dir, metrics::TraceLimits limits,
                                             std::function<std::int64_t()> now_ns, SharedState& shared) {
  auto store = std::make_shared<TraceStore>(std::move(dir), limits, std::move(now_ns),
                                            [&shared](const metrics::TraceStoreStatus& status) {
                                              std::lock_guard<std::mutex> lock(shared.mutex);
                                              shared.daemon.traces = status;
                                            });
  std::string error;
  if (!store->open(error)) log_error(error);
  return store;
}

}  // namespace jank::app

#include "app/api/trace_routes.h"

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

}  // namespace jank::app

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

std::string trace_dir(const config::Config& c) {
  return c.traces_dir.empty() ? c.state_dir + "/traces" : c.traces_dir;
}

metrics::TraceLimits trace_limits(const config::Config& c) {
  return {c.traces_max_count, c.traces_max_bytes, static_cast<std::int64_t>(c.traces_max_age_days * 86'400e9)};
}

// Recorders see the store as a TraceSink: an id, or why not.
class TraceHost::Sink final : public TraceSink {
 public:
  explicit Sink(std::shared_ptr<TraceStore> store) : store_(std::move(store)) {}
  SavedTrace save(std::string_view bytes, const metrics::StoredTrace& meta) override {
    const auto r = store_->save(bytes, meta);
    return {r.id, r.ok() ? std::string() : r.reason, r.error};
  }

 private:
  std::shared_ptr<TraceStore> store_;
};

TraceHost::TraceHost(SharedState& shared, std::function<std::int64_t()> now_ns)
    : shared_(shared), now_ns_(std::move(now_ns)) {}

TraceHost::~TraceHost() {
  std::lock_guard<std::mutex> lock(shared_.mutex);
  shared_.trace_sink = nullptr;
}

void TraceHost::configure(const config::Config& c) {
  const std::string dir = trace_dir(c);
  if (!c.traces_enabled) {
    store_.reset();
  } else if (store_ && store_->dir() == dir) {
    store_->set_limits(trace_limits(c));
  } else {
    store_ = open_trace_store(dir, trace_limits(c), now_ns_, shared_);
  }
  sink_ = store_ ? std::make_unique<Sink>(store_) : nullptr;
  std::lock_guard<std::mutex> lock(shared_.mutex);
  shared_.trace_sink = sink_.get();
  shared_.trace_budget.set_limits(static_cast<std::int64_t>(c.traces_min_interval_seconds * 1e9), c.traces_max_per_hour);
  if (!store_) shared_.daemon.traces = {};
}

void TraceHost::enforce() {
  if (store_) store_->enforce();
}

}  // namespace jank::app

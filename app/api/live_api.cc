#include "app/api/live_api.h"

namespace jank::app {
namespace {

using exporters::ApiResponse;

constexpr std::string_view kRoot = "/api/devices";

ApiResponse error(int status, std::string_view message) {
  return {status, "application/json", exporters::api_error_json(message)};
}

}  // namespace

LiveApi::LiveApi(SharedState& shared, std::function<std::int64_t()> now, exporters::LiveViewOptions options,
                 std::shared_ptr<const TraceStore> traces)
    : shared_(shared), now_(std::move(now)), options_(options), traces_(std::move(traces)) {}

ApiResponse LiveApi::handle(const exporters::ApiRequest& request) const {
  std::string_view path = request.path;
  if (!path.starts_with(kRoot)) return error(404, "no such endpoint");
  path.remove_prefix(kRoot.size());
  if (!path.empty() && path.front() != '/') return error(404, "no such endpoint");
  if (request.method != "GET") return error(405, "GET only");
  if (path.empty() || path == "/") return list();
  path.remove_prefix(1);
  // A serial holding '/' comes encoded (%2F): a raw one is a path below.
  if (path.find('/') != std::string_view::npos) return error(404, "no such endpoint");
  const auto serial = exporters::percent_decode(path);
  if (!serial || serial->empty()) return error(400, "bad serial in the path");
  return show(*serial);
}

ApiResponse LiveApi::list() const {
  const std::int64_t now = now_();
  exporters::LiveDevicesSnapshot snapshot;
  {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    snapshot = exporters::snapshot_devices(shared_.store, shared_.runs, now, options_);
  }
  return {200, "application/json", exporters::devices_json(snapshot)};
}

ApiResponse LiveApi::show(const std::string& serial) const {
  const auto traces = traces_ ? traces_->list() : std::vector<metrics::StoredTrace>{};
  const std::int64_t now = now_();
  std::optional<exporters::LiveDeviceSnapshot> snapshot;
  {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    snapshot = exporters::snapshot_device(shared_.store, shared_.runs, serial, now, options_);
  }
  if (!snapshot) return error(404, "no device " + serial);
  return {200, "application/json", exporters::device_json(*snapshot, traces)};
}

exporters::LiveViewOptions live_view_options(const config::Config& config) {
  exporters::LiveViewOptions o;
  o.sample = config.live_view_sample_seconds;
  o.history = config.live_view_history_minutes;
  return o;
}

}  // namespace jank::app

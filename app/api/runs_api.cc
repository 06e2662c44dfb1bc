#include "app/api/runs_api.h"

#include <nlohmann/json.hpp>

#include "exporters/live_json.h"
#include "exporters/run_json.h"

namespace jank::app {
namespace {

using exporters::ApiResponse;
using Json = nlohmann::json;

ApiResponse error(int status, const std::string& message) {
  return {status, "application/json", exporters::api_error_json(message)};
}

// The body of POST /api/runs as a spec, or the reason it is not one.
bool parse_spec(const std::string& body, metrics::RunSpec& spec, std::string& why) {
  const Json j = Json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    why = "the body must be a JSON object";
    return false;
  }
  auto text = [&](const char* key, std::string& into, bool required) {
    const auto it = j.find(key);
    if (it == j.end()) {
      if (required) why = std::string("\"") + key + "\" is required";
      return !required;
    }
    if (!it->is_string()) {
      why = std::string("\"") + key + "\" must be a string";
      return false;
    }
    into = it->get<std::string>();
    return true;
  };
  for (const auto& [key, value] : j.items()) {
    if (key != "id" && key != "name" && key != "package" && key != "serials" && key != "tags") {
      why = "unknown field \"" + key + "\"";
      return false;
    }
  }
  if (!text("package", spec.package, true) || !text("name", spec.name, false) || !text("id", spec.id, false)) {
    return false;
  }
  if (spec.name.empty()) spec.name = spec.package;
  if (const auto it = j.find("serials"); it != j.end()) {
    if (!it->is_array()) {
      why = "\"serials\" must be an array of strings";
      return false;
    }
    for (const auto& s : *it) {
      if (!s.is_string()) {
        why = "\"serials\" must be an array of strings";
        return false;
      }
      spec.serials.push_back(s.get<std::string>());
    }
  }
  if (const auto it = j.find("tags"); it != j.end()) {
    if (!it->is_object()) {
      why = "\"tags\" must be an object of strings";
      return false;
    }
    for (const auto& [k, v] : it->items()) {
      if (!v.is_string()) {
        why = "\"tags\" must be an object of strings";
        return false;
      }
      spec.tags[k] = v.get<std::string>();
    }
  }
  why = metrics::check_run_spec(spec);
  return why.empty();
}

bool wants_csv(const std::string& query) {
  const auto format = exporters::query_parameter(query, "format");
  return format.present && format.value == "csv";
}

}  // namespace

RunsApi::RunsApi(SharedState& shared, std::function<std::int64_t()> now,
                 std::function<void(std::vector<std::string>)> poll_soon)
    : shared_(shared), now_(std::move(now)), poll_soon_(std::move(poll_soon)) {}

ApiResponse RunsApi::handle(const exporters::ApiRequest& request) {
  constexpr std::string_view kRoot = "/api/runs";
  std::string_view path = request.path;
  if (path.substr(0, kRoot.size()) != kRoot) return error(404, "no such endpoint");
  path.remove_prefix(kRoot.size());
  if (path.empty() || path == "/") {
    if (request.method == "POST") return start(request.body);
    return list(request.query);
  }
  path.remove_prefix(1);
  const auto slash = path.find('/');
  const std::string id(path.substr(0, slash));
  const std::string_view rest = slash == std::string_view::npos ? std::string_view() : path.substr(slash);
  // Checked before any use: the id is neither looked up nor echoed unless it is one.
  if (!metrics::valid_run_id(id)) return error(400, std::string(metrics::kRunIdRule));
  if (rest == "/stop") {
    if (request.method != "POST") return error(405, "POST /api/runs/ID/stop");
    return stop(id);
  }
  if (!rest.empty()) return error(404, "no such endpoint");
  if (request.method != "GET") return error(405, "GET /api/runs/ID");
  return show(id, request.query);
}

ApiResponse RunsApi::start(const std::string& body) {
  metrics::RunSpec spec;
  std::string why;
  if (!parse_spec(body, spec, why)) return error(400, why);
  const std::int64_t now = now_();
  std::vector<std::string> serials;
  ApiResponse response;
  {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    const auto result = shared_.runs.start(std::move(spec), now, shared_.store);
    if (result.run == nullptr) return error(result.status, result.error);
    serials = result.run->spec.serials;
    response = {201, "application/json", exporters::run_json(*result.run, now, exporters::RunDetail::summary)};
  }
  poll_soon_(std::move(serials));
  return response;
}

ApiResponse RunsApi::stop(const std::string& id) {
  const std::int64_t now = now_();
  std::vector<std::string> serials;
  ApiResponse response;
  {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    int status = 0;
    std::string why;
    if (!shared_.runs.stop(id, now, status, why)) return error(status, why);
    const metrics::Run* run = shared_.runs.find(id);
    serials = run->spec.serials;
    response = {status, "application/json", exporters::run_json(*run, now, exporters::RunDetail::summary)};
  }
  poll_soon_(std::move(serials));
  return response;
}

ApiResponse RunsApi::list(const std::string& query) {
  const std::int64_t now = now_();
  std::lock_guard<std::mutex> lock(shared_.mutex);
  std::vector<const metrics::Run*> runs;
  for (const auto& [seq, run] : shared_.runs.runs()) runs.push_back(&run);
  if (wants_csv(query)) return {200, "text/csv; charset=utf-8", exporters::run_csv(runs, now)};
  return {200, "application/json", exporters::run_list_json(runs, now)};
}

ApiResponse RunsApi::show(const std::string& id, const std::string& query) {
  const std::int64_t now = now_();
  std::lock_guard<std::mutex> lock(shared_.mutex);
  const metrics::Run* run = shared_.runs.find(id);
  if (run == nullptr) return error(404, "no run " + id);
  if (wants_csv(query)) return {200, "text/csv; charset=utf-8", exporters::run_csv({run}, now)};
  return {200, "application/json", exporters::run_json(*run, now, exporters::RunDetail::full)};
}

}  // namespace jank::app

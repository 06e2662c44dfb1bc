#include "app/cli/compare_input.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "app/cli/http_client.h"
#include "app/cli/results_file.h"
#include "exporters/run_results_input.h"

namespace jank::app {
namespace {

namespace fs = std::filesystem;

// compare's own rules on a run read from format 1: it needs the state and
// the duration; a run that is not finished and a device that did not settle
// are left out, and told.
void add_run(const exporters::results::Run& r, const std::string& origin, std::vector<LoadedRun>& out,
             std::vector<std::string>& notices) {
  auto fail = [&](const char* key, const char* what) {
    throw InputError(origin + ": " + (r.path.empty() ? key : r.path + "." + key) + ": " + what);
  };
  if (r.state.empty()) fail("state", "missing");
  if (!r.duration_seconds) fail("duration_seconds", "missing");
  if (*r.duration_seconds < 0) fail("duration_seconds", "negative");
  LoadedRun loaded;
  loaded.origin = origin;
  metrics::CompareRun& run = loaded.run;
  run.id = r.id;
  run.package = r.package;
  run.duration_seconds = *r.duration_seconds;
  loaded.tags.insert(r.tags.begin(), r.tags.end());
  bool versions_agree = true;
  for (const auto& d : r.devices) {
    std::optional<AppVersionRef> version;
    if (!d.versions.empty()) version = AppVersionRef{d.versions.front().name, d.versions.front().code};
    if (d.version_changed) {
      loaded.version_problem = "the app's version changed on " + d.serial + " during the run";
    } else if (!version) {
      loaded.version_problem = d.serial + " has no app version";
    } else if (!loaded.version) {
      loaded.version = version;
    } else if (loaded.version->name != version->name) {
      versions_agree = false;
    }
    if (d.settled == false) {
      notices.push_back(origin + ": run " + run.id + ": device " + d.serial +
                        " left out: its final poll did not come (settled false), so its counts stop early");
      continue;
    }
    run.devices.push_back({d.serial, {d.metrics.begin(), d.metrics.end()}, d.model});
    loaded.device_kinds.push_back({d.sdk, d.refresh_hz});
  }
  if (!versions_agree) loaded.version_problem = "its devices ran different versions of the app";
  if (!loaded.version_problem.empty()) loaded.version.reset();
  if (r.state != "finished") {
    notices.push_back(origin + ": run " + run.id + " left out: it is " + r.state + ", not finished");
    return;
  }
  out.push_back(std::move(loaded));
}

std::string read_file(const fs::path& path) {
  std::string text;
  if (std::string error = read_results_file(path.string(), path.string(), text); !error.empty()) throw InputError(error);
  return text;
}

// GET PREFIX/api/runs from http(s)://HOST[:PORT][/PREFIX].
// The whole exchange is bounded by `timeout_seconds`, the answer by the
// results limit (the client refuses a larger body).
std::string fetch_runs(const std::string& url, double timeout_seconds) {
  std::string error;
  const auto target = parse_http_url(url, error);
  if (!target) throw InputError(url + ": " + error);
  HttpClientOptions options;
  options.timeout_seconds = timeout_seconds;
  options.max_body_bytes = exporters::results::kMaxResultsBytes;
  const HttpReply reply = http_request(*target, "GET", "/api/runs", "", options);
  if (reply.status == 0) throw InputError(url + ": " + reply.error);
  if (reply.status != 200) throw InputError(url + "/api/runs: HTTP " + std::to_string(reply.status));
  return reply.body;
}

}  // namespace

std::vector<LoadedRun> parse_results(std::string text, const std::string& origin,
                                     std::vector<std::string>& notices) {
  std::vector<exporters::results::Run> read;
  const std::string error =
      exporters::results::read_runs({origin, std::move(text)}, exporters::results::Group::none, read);
  if (!error.empty()) throw InputError(error);
  std::vector<LoadedRun> runs;
  for (const auto& r : read) add_run(r, origin, runs, notices);
  return runs;
}

std::vector<LoadedRun> load_source(const std::string& source, std::vector<std::string>& notices,
                                   double fetch_timeout_seconds) {
  if (source.starts_with("http://") || source.starts_with("https://")) {
    return parse_results(fetch_runs(source, fetch_timeout_seconds), source, notices);
  }
  if (source.find("://") != std::string::npos) throw InputError(source + ": only http:// and https:// URLs are fetched");
  std::error_code ec;
  if (!fs::is_directory(source, ec)) {
    if (!fs::exists(source, ec)) throw InputError(source + ": no such file or directory");
    return parse_results(read_file(source), source, notices);
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(source, ec))
    if (entry.path().extension() == ".json" && entry.is_regular_file(ec)) files.push_back(entry.path());
  if (ec) throw InputError(source + ": cannot list: " + ec.message());
  if (files.empty()) throw InputError(source + ": no .json files in this directory");
  std::sort(files.begin(), files.end());
  std::vector<LoadedRun> runs;
  for (const auto& f : files) {
    auto some = parse_results(read_file(f), f.string(), notices);
    std::move(some.begin(), some.end(), std::back_inserter(runs));
  }
  return runs;
}

std::vector<LoadedRun> load_runs(const std::vector<std::string>& sources, const std::string& package,
                                 std::vector<std::string>& notices, double fetch_timeout_seconds) {
  std::vector<LoadedRun> runs;
  for (const auto& source : sources) {
    for (auto& r : load_source(source, notices, fetch_timeout_seconds)) {
      if (package.empty() || r.run.package == package) runs.push_back(std::move(r));
    }
  }
  return runs;
}

}  // namespace jank::app

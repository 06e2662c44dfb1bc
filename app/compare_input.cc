#include "app/compare_input.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/http_client.h"

namespace jank::app {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Results files are a few MiB at most (720 steps per device); anything far
// larger is not one.
constexpr std::uintmax_t kMaxSourceBytes = 256u << 20;
constexpr auto kFetchTimeout = std::chrono::seconds(30);

// Reads fields of one source, naming the source and the field's path in errors.
class Reader {
 public:
  explicit Reader(const std::string& origin) : origin_(origin) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw InputError(origin_ + ": " + (path.empty() ? "" : path + ": ") + what);
  }
  const json& field(const json& object, const std::string& path, const char* key) const {
    const auto it = object.find(key);
    if (it == object.end()) fail(join(path, key), "missing");
    return *it;
  }
  const json* optional_field(const json& object, const char* key) const {
    const auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
  }
  const json& object(const json& v, const std::string& path) const {
    if (!v.is_object()) fail(path, "expected an object");
    return v;
  }
  const json& array(const json& v, const std::string& path) const {
    if (!v.is_array()) fail(path, "expected an array");
    return v;
  }
  std::string string(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "expected a string");
    return v.get<std::string>();
  }
  double number(const json& v, const std::string& path) const {
    if (!v.is_number()) fail(path, "expected a number");
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(path, "expected a finite number");
    return d;
  }
  bool boolean(const json& v, const std::string& path) const {
    if (!v.is_boolean()) fail(path, "expected true or false");
    return v.get<bool>();
  }
  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  static std::string index(const std::string& path, std::size_t i) {
    return path + "[" + std::to_string(i) + "]";
  }
  const std::string& origin() const { return origin_; }

 private:
  const std::string& origin_;
};

// The keys compare reads from a device's `metrics`; others may hold anything
// a later format adds.
const std::set<std::string, std::less<>>& compared_keys() {
  static const auto keys = [] {
    std::set<std::string, std::less<>> k;
    for (const auto& m : metrics::compared_metrics()) {
      k.emplace(m.key);
      if (!m.denominator.empty()) k.emplace(m.denominator);
    }
    return k;
  }();
  return keys;
}

std::optional<AppVersionRef> first_version(const Reader& r, const json& device, const std::string& path) {
  const json* versions = r.optional_field(device, "versions");
  if (versions == nullptr || r.array(*versions, Reader::join(path, "versions")).empty()) return std::nullopt;
  const std::string vpath = Reader::index(Reader::join(path, "versions"), 0);
  const json& v = r.object((*versions)[0], vpath);
  AppVersionRef ref{r.string(r.field(v, vpath, "name"), Reader::join(vpath, "name")), std::nullopt};
  if (const json* code = r.optional_field(v, "code")) {
    if (!code->is_number_integer()) r.fail(Reader::join(vpath, "code"), "expected an integer");
    ref.code = code->get<std::int64_t>();
  }
  return ref;
}

void read_run(const Reader& r, const json& v, const std::string& path, std::vector<LoadedRun>& out,
              std::vector<std::string>& notices) {
  r.object(v, path.empty() ? "run" : path);
  LoadedRun loaded;
  loaded.origin = r.origin();
  metrics::CompareRun& run = loaded.run;
  run.id = r.string(r.field(v, path, "id"), Reader::join(path, "id"));
  const std::string state = r.string(r.field(v, path, "state"), Reader::join(path, "state"));
  run.duration_seconds = r.number(r.field(v, path, "duration_seconds"), Reader::join(path, "duration_seconds"));
  if (run.duration_seconds < 0) r.fail(Reader::join(path, "duration_seconds"), "negative");
  if (const json* p = r.optional_field(v, "package")) run.package = r.string(*p, Reader::join(path, "package"));
  if (const json* tags = r.optional_field(v, "tags")) {
    const std::string tpath = Reader::join(path, "tags");
    for (const auto& [key, value] : r.object(*tags, tpath).items())
      loaded.tags[key] = r.string(value, Reader::join(tpath, key));
  }
  const std::string dpath = Reader::join(path, "devices");
  const json& devices = r.array(r.field(v, path, "devices"), dpath);
  bool versions_agree = true;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const std::string ipath = Reader::index(dpath, i);
    const json& d = r.object(devices[i], ipath);
    metrics::CompareDevice device;
    device.serial = r.string(r.field(d, ipath, "serial"), Reader::join(ipath, "serial"));
    const std::string mpath = Reader::join(ipath, "metrics");
    for (const auto& [key, value] : r.object(r.field(d, ipath, "metrics"), mpath).items()) {
      if (value.is_null() || (!value.is_number() && !compared_keys().contains(key))) continue;
      device.metrics[key] = r.number(value, Reader::join(mpath, key));
    }
    const auto version = first_version(r, d, ipath);
    const json* changed = r.optional_field(d, "version_changed");
    if (changed != nullptr && r.boolean(*changed, Reader::join(ipath, "version_changed"))) {
      loaded.version_problem = "the app's version changed on " + device.serial + " during the run";
    } else if (!version) {
      loaded.version_problem = device.serial + " has no app version";
    } else if (!loaded.version) {
      loaded.version = version;
    } else if (loaded.version->name != version->name) {
      versions_agree = false;
    }
    const json* settled = r.optional_field(d, "settled");
    if (settled != nullptr && !r.boolean(*settled, Reader::join(ipath, "settled"))) {
      notices.push_back(r.origin() + ": run " + run.id + ": device " + device.serial +
                        " left out: its final poll did not come (settled false), so its counts stop early");
      continue;
    }
    run.devices.push_back(std::move(device));
  }
  if (!versions_agree) loaded.version_problem = "its devices ran different versions of the app";
  if (!loaded.version_problem.empty()) loaded.version.reset();
  if (state != "finished") {
    notices.push_back(r.origin() + ": run " + run.id + " left out: it is " + state + ", not finished");
    return;
  }
  out.push_back(std::move(loaded));
}

std::string read_file(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxSourceBytes) throw InputError(path.string() + ": larger than 256 MiB, not a results file");
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) throw InputError(path.string() + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path.string() + ": cannot be read");
  return text.str();
}

// GET PREFIX/api/runs from http(s)://HOST[:PORT][/PREFIX].
std::string fetch_runs(const std::string& url) {
  std::string error;
  const auto target = parse_http_url(url, error);
  if (!target) throw InputError(url + ": " + error);
  HttpClientOptions options;
  options.timeout_seconds = std::chrono::duration<double>(kFetchTimeout).count();
  const HttpReply reply = http_request(*target, "GET", "/api/runs", "", options);
  if (reply.status == 0) throw InputError(url + ": " + reply.error);
  if (reply.status != 200) throw InputError(url + "/api/runs: HTTP " + std::to_string(reply.status));
  if (reply.body.size() > kMaxSourceBytes) throw InputError(url + "/api/runs: answer too large");
  return reply.body;
}

}  // namespace

std::vector<LoadedRun> parse_results(std::string_view text, const std::string& origin,
                                     std::vector<std::string>& notices) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.what() starts with the library's own tag; the position and reason follow it.
    std::string what = e.what();
    const auto tag_end = what.find("] ");
    throw InputError(origin + ": not JSON: " + (tag_end == std::string::npos ? what : what.substr(tag_end + 2)));
  }
  const Reader r(origin);
  r.object(doc, "top level");
  const json& format = r.field(doc, "", "format");
  if (!format.is_number_integer() || format.get<std::int64_t>() != 1)
    r.fail("format", "expected 1 (the only results format this build reads)");
  std::vector<LoadedRun> runs;
  if (const auto list = doc.find("runs"); list != doc.end()) {
    r.array(*list, "runs");
    for (std::size_t i = 0; i < list->size(); ++i) read_run(r, (*list)[i], Reader::index("runs", i), runs, notices);
  } else {
    read_run(r, doc, "", runs, notices);
  }
  return runs;
}

std::vector<LoadedRun> load_source(const std::string& source, std::vector<std::string>& notices) {
  if (source.starts_with("http://") || source.starts_with("https://")) {
    return parse_results(fetch_runs(source), source, notices);
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

}  // namespace jank::app

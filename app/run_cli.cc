#include "app/run_cli.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "exporters/json_text.h"

#include "app/http_client.h"
#include "app/replay.h"

namespace jank::app {
namespace {

using Json = nlohmann::json;

constexpr const char* kUsage =
    "Usage: jank_exporter run start --package PKG [--name NAME] [--id ID] [--serial S]... [--tag K=V]...\n"
    "                               [--no-wait]           prints the run id once its baseline is taken\n"
    "       jank_exporter run stop ID [--no-wait] [--json|--csv]   waits for the final counts\n"
    "       jank_exporter run list [--json|--csv]\n"
    "       jank_exporter run show ID [--json|--csv]\n"
    "Common options:\n"
    "  --url URL             the exporter (default $JANK_EXPORTER_URL, else http://127.0.0.1:9789)\n"
    "  --user NAME --password-file FILE   HTTP basic auth, as configured on the exporter\n"
    "  --ca-file FILE        https: trust this PEM bundle;  --insecure: no certificate check\n"
    "  --timeout SECONDS     longest wait for a start or stop to settle (default 120)\n"
    "Without --serial a run covers every device the exporter follows now. Exit status: 0 done,\n"
    "1 refused, unreachable or timed out, 64 usage. docs/runs.md describes the results.\n";

struct Options {
  std::string verb, id, url, user, password_file;
  HttpClientOptions http;
  Json spec = Json::object();
  bool wait = true;
  std::string format = "text";
  double timeout_seconds = 120;
};

std::string cell(const Json& metrics, const char* key, int precision) {
  const auto it = metrics.find(key);
  if (it == metrics.end() || !it->is_number()) return "-";
  std::ostringstream s;
  s << std::fixed << std::setprecision(precision) << it->get<double>();
  return s.str();
}

// The table a person reads in a CI log: one line per device.
void print_run(const Json& run, std::ostream& out) {
  out << "run " << run.value("id", "") << "  " << run.value("name", "") << "  " << run.value("package", "") << "  "
      << run.value("state", "") << "  " << std::fixed << std::setprecision(1) << run.value("duration_seconds", 0.0)
      << " s\n";
  out << std::left << std::setw(24) << "serial" << std::right;
  const char* heads[] = {"frames", "janky%", "p90ms", "p99ms", "SM", "FPS", "skipped", "maxskip", "davey", "version"};
  for (const char* h : heads) out << std::setw(9) << h;
  out << "\n";
  for (const auto& d : run.value("devices", Json::array())) {
    const Json m = d.value("metrics", Json::object());
    std::string version = "-";
    if (d.contains("versions") && !d["versions"].empty()) version = d["versions"].back().value("name", "-");
    if (d.value("version_changed", false)) version += "*";
    out << std::left << std::setw(24) << d.value("serial", "") << std::right << std::setw(9) << cell(m, "frames", 0)
        << std::setw(9) << cell(m, "janky_percent", 2) << std::setw(9) << cell(m, "frame_time_p90_ms", 0)
        << std::setw(9) << cell(m, "frame_time_p99_ms", 0) << std::setw(9) << cell(m, "sm", 1) << std::setw(9)
        << cell(m, "fps", 1) << std::setw(9) << cell(m, "skipped_frames", 0) << std::setw(9)
        << cell(m, "max_skipped_frames", 0) << std::setw(9) << cell(m, "davey_frames", 0) << std::setw(9) << version
        << (d.value("settled", true) ? "" : "  (unsettled)") << "\n";
  }
}

int fail(std::ostream& err, const std::string& message) {
  err << "jank_exporter run: " << message << "\n";
  return 1;
}

// The error the exporter gave, or the HTTP status.
std::string reason(const HttpReply& r) {
  if (r.status == 0) return r.error;
  const Json j = Json::parse(r.body, nullptr, false);
  if (j.is_object() && j.contains("error") && j["error"].is_string()) return j["error"].get<std::string>();
  return "HTTP " + std::to_string(r.status);
}

bool parse_args(const std::vector<std::string>& args, Options& o, std::ostream& err) {
  if (args.empty()) return false;
  o.verb = args[0];
  if (o.verb != "start" && o.verb != "stop" && o.verb != "list" && o.verb != "show") return false;
  const char* env_url = std::getenv("JANK_EXPORTER_URL");
  o.url = env_url != nullptr && *env_url != '\0' ? env_url : "http://127.0.0.1:9789";
  Json serials = Json::array(), tags = Json::object();
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) {
        err << "jank_exporter run: " << a << " needs a value\n";
        return std::nullopt;
      }
      return args[++i];
    };
    std::optional<std::string> v;
    if (a == "--no-wait") {
      o.wait = false;
    } else if (a == "--json" || a == "--csv") {
      o.format = a.substr(2);
    } else if (a == "--insecure") {
      o.http.insecure = true;
    } else if (a == "--url" || a == "--user" || a == "--password-file" || a == "--ca-file" || a == "--package" ||
               a == "--name" || a == "--id" || a == "--serial" || a == "--tag" || a == "--timeout") {
      if (!(v = value())) return false;
      if (a == "--url") o.url = *v;
      if (a == "--user") o.user = *v;
      if (a == "--password-file") o.password_file = *v;
      if (a == "--ca-file") o.http.ca_file = *v;
      if (a == "--package") o.spec["package"] = *v;
      if (a == "--name") o.spec["name"] = *v;
      if (a == "--id") o.spec["id"] = *v;
      if (a == "--serial") serials.push_back(*v);
      if (a == "--tag") {
        const auto eq = v->find('=');
        if (eq == std::string::npos || eq == 0) {
          err << "jank_exporter run: --tag takes KEY=VALUE\n";
          return false;
        }
        tags[v->substr(0, eq)] = v->substr(eq + 1);
      }
      if (a == "--timeout") {
        char* end = nullptr;
        o.timeout_seconds = std::strtod(v->c_str(), &end);
        if (end == v->c_str() || *end != '\0' || !(o.timeout_seconds > 0)) {
          err << "jank_exporter run: --timeout takes a positive number of seconds\n";
          return false;
        }
      }
    } else if (!a.empty() && a[0] != '-' && o.id.empty() && (o.verb == "stop" || o.verb == "show")) {
      o.id = a;
    } else {
      err << "jank_exporter run: unknown argument '" << a << "'\n";
      return false;
    }
  }
  if (!serials.empty()) o.spec["serials"] = serials;
  if (!tags.empty()) o.spec["tags"] = tags;
  if (o.verb == "start" && !o.spec.contains("package")) {
    err << "jank_exporter run start: --package is required\n";
    return false;
  }
  if ((o.verb == "stop" || o.verb == "show") && o.id.empty()) {
    err << "jank_exporter run " << o.verb << ": the run id is required\n";
    return false;
  }
  if (o.user.empty() != o.password_file.empty()) {
    err << "jank_exporter run: --user and --password-file go together\n";
    return false;
  }
  return true;
}

// Polls the run until it reaches `state` (or finished); the run's JSON, or nullopt on a timeout.
std::optional<Json> wait_for(const HttpTarget& target, const Options& o, const std::string& id,
                             const std::string& state, std::string& why) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<long>(o.timeout_seconds * 1000));
  while (true) {
    const HttpReply r = http_request(target, "GET", "/api/runs/" + id, "", o.http);
    if (r.status != 200) {
      why = reason(r);
      return std::nullopt;
    }
    Json j = Json::parse(r.body, nullptr, false);
    if (j.is_object() && (j.value("state", "") == state || j.value("state", "") == "finished")) return j;
    if (std::chrono::steady_clock::now() > deadline) {
      why = "run " + id + " did not reach " + state + " within " + std::to_string(o.timeout_seconds) + " s";
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

}  // namespace

int run_runs_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Options o;
  if (!parse_args(args, o, err)) {
    err << kUsage;
    return kExitUsage;
  }
  std::string why;
  const auto target = parse_http_url(o.url, why);
  if (!target) {
    err << "jank_exporter run: " << why << "\n";
    return kExitUsage;
  }
  if (!o.password_file.empty()) {
    std::ifstream in(o.password_file);
    std::string password;
    if (!in || !std::getline(in, password)) return fail(err, "cannot read the password file " + o.password_file);
    o.http.basic_auth = std::make_pair(o.user, password);
  }
  const std::string csv = o.format == "csv" ? "?format=csv" : "";
  if (o.verb == "list" || (o.verb == "show" && o.format == "csv")) {
    const HttpReply r =
        http_request(*target, "GET", o.verb == "list" ? "/api/runs" + csv : "/api/runs/" + o.id + csv, "", o.http);
    if (r.status != 200) return fail(err, reason(r));
    if (o.format == "text") {
      const Json j = Json::parse(r.body, nullptr, false);
      if (!j.is_object()) return fail(err, "the exporter sent no JSON");
      for (const auto& run : j.value("runs", Json::array())) print_run(run, out);
    } else {
      out << r.body;
    }
    return 0;
  }
  std::string id = o.id;
  if (o.verb == "start") {
    const HttpReply r = http_request(*target, "POST", "/api/runs", exporters::json_text(o.spec), o.http);
    if (r.status != 201) return fail(err, reason(r));
    const Json j = Json::parse(r.body, nullptr, false);
    if (!j.is_object() || !j.contains("id")) return fail(err, "the exporter sent no run");
    id = j["id"].get<std::string>();
    if (o.wait && !wait_for(*target, o, id, "running", why)) return fail(err, why);
    out << id << "\n";
    return 0;
  }
  if (o.verb == "stop") {
    const HttpReply r = http_request(*target, "POST", "/api/runs/" + id + "/stop", "", o.http);
    if (r.status != 202) return fail(err, reason(r));
    if (!o.wait) return 0;
    if (!wait_for(*target, o, id, "finished", why)) return fail(err, why);
  }
  const HttpReply r = http_request(*target, "GET", "/api/runs/" + id + csv, "", o.http);
  if (r.status != 200) return fail(err, reason(r));
  if (o.format != "text") {
    out << r.body;
    return 0;
  }
  const Json j = Json::parse(r.body, nullptr, false);
  if (!j.is_object()) return fail(err, "the exporter sent no JSON");
  print_run(j, out);
  return 0;
}

}  // namespace jank::app

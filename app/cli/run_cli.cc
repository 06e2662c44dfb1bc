#include "app/cli/run_cli.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "exporters/json_text.h"
#include "metrics/run_book.h"
#include "parsers/utf8.h"

#include "app/cli/http_client.h"
#include "app/core/exit_codes.h"

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
    "  --timeout SECONDS     longest the whole command may take, a start or stop's\n"
    "                        settling included (default 120); each request also gives\n"
    "                        up after 10 s without a full answer\n"
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

// What the exporter sent may hold any bytes and any types: every string is
// shown through terminal_text, and a member of the wrong type as absent.
std::string text_of(const Json& obj, const char* key, const char* absent = "") {
  const auto it = obj.find(key);  // end() too when `obj` is not an object
  if (it == obj.end() || !it->is_string()) return absent;
  return parsers::terminal_text(it->get_ref<const std::string&>());
}

const Json& member_of(const Json& obj, const char* key) {
  static const Json null;
  const auto it = obj.find(key);
  return it == obj.end() ? null : *it;
}

std::string cell(const Json& metrics, const char* key, int precision) {
  const Json& v = member_of(metrics, key);
  if (!v.is_number()) return "-";
  std::ostringstream s;
  s << std::fixed << std::setprecision(precision) << v.get<double>();
  return s.str();
}

// The table a person reads in a CI log: one line per device.
void print_run(const Json& run, std::ostream& out) {
  const Json& duration = member_of(run, "duration_seconds");
  out << "run " << text_of(run, "id") << "  " << text_of(run, "name") << "  " << text_of(run, "package") << "  "
      << text_of(run, "state") << "  " << std::fixed << std::setprecision(1)
      << (duration.is_number() ? duration.get<double>() : 0.0) << " s\n";
  out << std::left << std::setw(24) << "serial" << std::right;
  const char* heads[] = {"frames", "janky%", "p90ms", "p99ms", "SM", "FPS", "skipped", "maxskip", "davey", "version"};
  for (const char* h : heads) out << std::setw(9) << h;
  out << "  model\n";
  const Json& devices = member_of(run, "devices");
  if (!devices.is_array()) return;
  for (const auto& d : devices) {
    const Json& m = member_of(d, "metrics");
    std::string version = "-";
    const Json& versions = member_of(d, "versions");
    if (versions.is_array() && !versions.empty()) version = text_of(versions.back(), "name", "-");
    if (member_of(d, "version_changed") == true) version += "*";
    out << std::left << std::setw(24) << text_of(d, "serial") << std::right << std::setw(9) << cell(m, "frames", 0)
        << std::setw(9) << cell(m, "janky_percent", 2) << std::setw(9) << cell(m, "frame_time_p90_ms", 0)
        << std::setw(9) << cell(m, "frame_time_p99_ms", 0) << std::setw(9) << cell(m, "sm", 1) << std::setw(9)
        << cell(m, "fps", 1) << std::setw(9) << cell(m, "skipped_frames", 0) << std::setw(9)
        << cell(m, "max_skipped_frames", 0) << std::setw(9) << cell(m, "davey_frames", 0) << std::setw(9) << version
        << "  " << text_of(d, "model", "-") << (member_of(d, "settled") == false ? "  (unsettled)" : "") << "\n";
  }
}

int fail(std::ostream& err, const std::string& message) {
  err << "jank_exporter run: " << parsers::terminal_text(message) << "\n";
  return kExitFailure;
}

// The error the exporter gave (fit for a terminal), or the HTTP status.
std::string reason(const HttpReply& r) {
  if (r.status == 0) return parsers::terminal_text(r.error);
  const Json j = Json::parse(r.body, nullptr, false);
  if (std::string why = text_of(j, "error"); !why.empty()) return why;
  return "HTTP " + std::to_string(r.status);
}

// `run` refuses an id outside the grammar before any request: it goes into
// the request's path.
bool check_run_id(const std::string& id, std::ostream& err) {
  if (metrics::valid_run_id(id)) return true;
  err << "jank_exporter run: '" << parsers::terminal_text(id) << "': " << metrics::kRunIdRule << "\n";
  return false;
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
        if (end == v->c_str() || *end != '\0' || !(o.timeout_seconds > 0) || !std::isfinite(o.timeout_seconds)) {
          err << "jank_exporter run: --timeout takes a positive number of seconds\n";
          return false;
        }
      }
    } else if (!a.empty() && a[0] != '-' && o.id.empty() && (o.verb == "stop" || o.verb == "show")) {
      o.id = a;
    } else {
      err << "jank_exporter run: unknown argument '" << parsers::terminal_text(a) << "'\n";
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
  if (!o.id.empty() && !check_run_id(o.id, err)) return false;
  if (o.spec.contains("id") && !check_run_id(o.spec["id"].get<std::string>(), err)) return false;
  if (o.user.empty() != o.password_file.empty()) {
    err << "jank_exporter run: --user and --password-file go together\n";
    return false;
  }
  return true;
}

// --timeout bounds the whole command: every request, and the wait for a
// start or stop to settle. Each request also gives up after kRequestSeconds
// without a full answer, so one wedged exchange cannot take the whole wait.
constexpr double kRequestSeconds = 10;

class Session {
 public:
  Session(const HttpTarget& target, const Options& o)
      : target_(target),
        o_(o),
        deadline_(std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(o.timeout_seconds))) {}

  double remaining_seconds() const {
    return std::chrono::duration<double>(deadline_ - std::chrono::steady_clock::now()).count();
  }

  HttpReply request(const std::string& method, const std::string& path, const std::string& body = "") const {
    const double left = remaining_seconds();
    if (left <= 0) return {0, "", "no time left of --timeout " + timeout_text() + " s"};
    HttpClientOptions http = o_.http;
    http.timeout_seconds = std::min(kRequestSeconds, left);
    return http_request(target_, method, path, body, http);
  }

  // Polls the run until it reaches `state` (or finished); its JSON, or nullopt
  // (then `why`) on an error or at the deadline.
  std::optional<Json> wait_for(const std::string& id, const std::string& state, std::string& why) const {
    while (true) {
      const HttpReply r = request("GET", "/api/runs/" + id);
      if (r.status != 200) {
        why = reason(r);
        return std::nullopt;
      }
      Json j = Json::parse(r.body, nullptr, false);
      const std::string now = text_of(j, "state");
      if (now == state || now == "finished") return j;
      if (remaining_seconds() <= 0.25) {
        why = "run " + id + " did not reach " + state + " within " + timeout_text() + " s";
        return std::nullopt;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250));  // the exporter polls at its own pace
    }
  }

 private:
  std::string timeout_text() const {
    std::ostringstream s;
    s << o_.timeout_seconds;
    return s.str();
  }

  const HttpTarget& target_;
  const Options& o_;
  std::chrono::steady_clock::time_point deadline_;
};

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
  const Session session(*target, o);
  const std::string csv = o.format == "csv" ? "?format=csv" : "";
  if (o.verb == "list" || (o.verb == "show" && o.format == "csv")) {
    const HttpReply r = session.request("GET", o.verb == "list" ? "/api/runs" + csv : "/api/runs/" + o.id + csv);
    if (r.status != 200) return fail(err, reason(r));
    if (o.format == "text") {
      const Json j = Json::parse(r.body, nullptr, false);
      if (!j.is_object()) return fail(err, "the exporter sent no JSON");
      const Json& runs = member_of(j, "runs");
      if (runs.is_array())
        for (const auto& run : runs) print_run(run, out);
    } else {
      out << r.body;
    }
    return kExitOk;
  }
  std::string id = o.id;
  if (o.verb == "start") {
    const HttpReply r = session.request("POST", "/api/runs", exporters::json_text(o.spec));
    if (r.status != 201) return fail(err, reason(r));
    const Json j = Json::parse(r.body, nullptr, false);
    // The id goes into the next requests' paths: only one of the grammar.
    const Json& sent = member_of(j, "id");
    if (!sent.is_string() || !metrics::valid_run_id(sent.get<std::string>())) return fail(err, "the exporter sent no run id");
    id = sent.get<std::string>();
    if (o.wait && !session.wait_for(id, "running", why)) return fail(err, why);
    out << id << "\n";
    return kExitOk;
  }
  if (o.verb == "stop") {
    const HttpReply r = session.request("POST", "/api/runs/" + id + "/stop");
    if (r.status != 202) return fail(err, reason(r));
    if (!o.wait) return kExitOk;
    if (!session.wait_for(id, "finished", why)) return fail(err, why);
  }
  const HttpReply r = session.request("GET", "/api/runs/" + id + csv);
  if (r.status != 200) return fail(err, reason(r));
  if (o.format != "text") {
    out << r.body;
    return kExitOk;
  }
  const Json j = Json::parse(r.body, nullptr, false);
  if (!j.is_object()) return fail(err, "the exporter sent no JSON");
  print_run(j, out);
  return kExitOk;
}

}  // namespace jank::app

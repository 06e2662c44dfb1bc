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

#include "app/cli/cli_parse.h"
#include "app/cli/http_client.h"
#include "app/core/exit_codes.h"

namespace jank::app {
namespace {

using Json = nlohmann::json;

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
void check_run_id(const std::string& id) {
  if (!metrics::valid_run_id(id)) throw UsageError{"'" + id + "': " + std::string(metrics::kRunIdRule)};
}

constexpr const char* kFooter = "Exit status: 0 done, 1 refused, unreachable or timed out, 64 usage.";

// The values as given, checked once all are parsed.
struct Given {
  std::string id, url, user, password_file, ca_file, timeout, package, name, run_id;
  std::vector<std::string> serials, tags;
  bool insecure = false, no_wait = false;
};

// What every verb takes: where the exporter is, and how long to wait for it.
void add_common(CLI::App& verb, Given& g) {
  verb.add_option("--url", g.url, "the exporter (default $JANK_EXPORTER_URL, else\nhttp://127.0.0.1:9789)")
      ->option_text("URL");
  verb.add_option("--user", g.user, "HTTP basic auth, as configured on the exporter;\nwith --password-file")
      ->option_text("NAME");
  verb.add_option("--password-file", g.password_file, "the file whose first line is the password")
      ->option_text("FILE");
  verb.add_option("--ca-file", g.ca_file, "https: trust this PEM bundle")->option_text("FILE");
  verb.add_flag("--insecure", g.insecure, "https: no certificate check");
  verb.add_option("--timeout", g.timeout,
                  "longest the whole command may take, a start or stop's\n"
                  "settling included (default 120); each request also gives\n"
                  "up after 10 s without a full answer")
      ->option_text("SECONDS");
}

void add_formats(CLI::App& verb) {
  verb.add_flag("--json")->description("print the exporter's JSON as it sent it");
  verb.add_flag("--csv")->description("print the exporter's CSV as it sent it");
}

std::unique_ptr<CLI::App> make_run_command(Given& g) {
  auto app = make_command("jank_exporter run",
                          "Usage: jank_exporter run start|stop|list|show [OPTIONS]\n"
                          "\n"
                          "A test harness's side of the runs API (docs/runs.md): starts and stops\n"
                          "runs on a running exporter and prints their results.\n",
                          "`jank_exporter run VERB --help` lists a verb's options.\n" + std::string(kFooter));
  app->require_subcommand(0, 1);  // none: an error of its own (run_runs_cli), after those of the words given
  CLI::App* start = add_verb(*app, "start", "start a run; prints its id once its baseline is taken",
                             "Usage: jank_exporter run start --package PKG [--name NAME] [--id ID] [--serial S]...\n"
                             "                               [--tag K=V]... [--no-wait] [OPTIONS]\n"
                             "\n"
                             "Starts a run and prints its id once its baseline is taken (every device\n"
                             "polled after the start). Without --serial a run covers every device the\n"
                             "exporter follows now.\n",
                             kFooter);
  start->add_option("--package", g.package, "the app measured (required)")->option_text("PKG");
  start->add_option("--name", g.name, "the run's name")->option_text("NAME");
  start->add_option("--id", g.run_id, "the run's id (default: the exporter makes one)")->option_text("ID");
  start->add_option("--serial", g.serials, "a device of the run; repeatable")->option_text("S")->allow_extra_args(false);
  start->add_option("--tag", g.tags, "a tag of the run; repeatable")->option_text("K=V")->allow_extra_args(false);
  start->add_flag("--no-wait", g.no_wait, "print the id at once, before the baseline is taken");
  CLI::App* stop = add_verb(*app, "stop", "stop a run; waits for the final counts, prints the results",
                            "Usage: jank_exporter run stop ID [--no-wait] [--json|--csv] [OPTIONS]\n"
                            "\n"
                            "Stops the run ID, waits for its final counts (every device polled after\n"
                            "the stop) and prints its results.\n",
                            kFooter);
  stop->add_option("ID", g.id, "the run's id");
  stop->add_flag("--no-wait", g.no_wait, "return once the stop is accepted, print nothing");
  CLI::App* list = add_verb(*app, "list", "the runs the exporter keeps",
                            "Usage: jank_exporter run list [--json|--csv] [OPTIONS]\n\nThe runs the exporter keeps.\n",
                            kFooter);
  CLI::App* show = add_verb(*app, "show", "one run's results",
                            "Usage: jank_exporter run show ID [--json|--csv] [OPTIONS]\n\nThe results of the run ID.\n",
                            kFooter);
  show->add_option("ID", g.id, "the run's id");
  for (CLI::App* verb : {stop, list, show}) add_formats(*verb);
  for (CLI::App* verb : {start, stop, list, show}) add_common(*verb, g);
  return app;
}

// The checks of what the verb was given, in the words of its options.
void check(const CLI::App& verb, const Given& g, Options& o) {
  auto given = [&](const char* name) {
    const CLI::Option* opt = verb.get_option_no_throw(name);
    return opt != nullptr && opt->count() > 0;
  };
  o.verb = verb.get_name();
  const char* env_url = std::getenv("JANK_EXPORTER_URL");
  o.url = given("--url") ? g.url : env_url != nullptr && *env_url != '\0' ? env_url : "http://127.0.0.1:9789";
  o.user = g.user;
  o.password_file = g.password_file;
  o.http.ca_file = g.ca_file;
  o.http.insecure = g.insecure;
  o.wait = !g.no_wait;
  for (const CLI::Option* opt : verb.parse_order())  // the last of --json and --csv counts
    if (opt->get_name() == "--json" || opt->get_name() == "--csv") o.format = opt->get_name().substr(2);
  if (given("--package")) o.spec["package"] = g.package;
  if (given("--name")) o.spec["name"] = g.name;
  if (given("--id")) o.spec["id"] = g.run_id;
  if (!g.serials.empty()) o.spec["serials"] = g.serials;
  Json tags = Json::object();
  for (const auto& tag : g.tags) {
    const auto eq = tag.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError{"--tag takes KEY=VALUE"};
    tags[tag.substr(0, eq)] = tag.substr(eq + 1);
  }
  if (!tags.empty()) o.spec["tags"] = tags;
  if (given("--timeout")) {
    char* end = nullptr;
    o.timeout_seconds = std::strtod(g.timeout.c_str(), &end);
    if (end == g.timeout.c_str() || *end != '\0' || !(o.timeout_seconds > 0) || !std::isfinite(o.timeout_seconds))
      throw UsageError{"--timeout takes a positive number of seconds"};
  }
  if (o.verb == "start" && !given("--package")) throw UsageError{"--package is required"};
  if ((o.verb == "stop" || o.verb == "show") && !given("ID")) throw UsageError{"the run id is required"};
  o.id = g.id;
  if (given("ID")) check_run_id(o.id);
  if (given("--id")) check_run_id(g.run_id);
  if (o.user.empty() != o.password_file.empty()) throw UsageError{"--user and --password-file go together"};
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
  Given g;
  const auto app = make_run_command(g);
  if (auto status = parse_command(*app, args, out, err)) return *status;
  if (app->get_subcommands().empty()) return usage_error(*app, err, "give a verb: start, stop, list or show");
  Options o;
  try {
    check(*app->get_subcommands().front(), g, o);
  } catch (const UsageError& e) {
    return usage_error(*app, err, e.message);
  }
  std::string why;
  const auto target = parse_http_url(o.url, why);
  if (!target) return usage_error(*app, err, why);
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

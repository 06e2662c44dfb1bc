// The runs API over the exporter's real HTTP server (loopback): routes,
// methods, auth, bad bodies, and the CLI's refusals that need no server.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/cli/http_client.h"
#include "app/cli/run_cli.h"
#include "app/api/runs_api.h"
#include "exporters/http_server.h"
#include "parsers/utf8.h"

using namespace jank;

namespace {

constexpr std::int64_t kNow = 1'800'000'000'000'000'000;  // 2027-01-15

struct ApiFixture {
  explicit ApiFixture(std::optional<std::pair<std::string, std::string>> auth = std::nullopt)
      : shared(metrics::StoreOptions{}),
        api(shared, [] { return kNow; }, [this](std::vector<std::string> serials) { polled = serials; }) {
    auto& d = shared.store.device("emulator-5554");
    d.live.live = true;
    d.live.state = metrics::DeviceState::following;
    exporters::HttpOptions options;
    options.listen_address = "127.0.0.1:0";
    options.basic_auth = std::move(auth);
    server = std::make_unique<exporters::HttpServer>(
        options, [](std::string_view, exporters::ExpositionFormat) { return exporters::Exposition{}; }, [] { return true; }, nullptr,
        [this](const exporters::ApiRequest& r) { return api.handle(r); });
    target.host = "127.0.0.1";
    target.port = std::to_string(server->ports()[0]);
  }
  app::HttpReply call(const std::string& method, const std::string& path, const std::string& body = "") {
    return app::http_request(target, method, path, body, client);
  }

  app::SharedState shared;
  std::vector<std::string> polled;
  app::RunsApi api;
  std::unique_ptr<exporters::HttpServer> server;
  app::HttpTarget target;
  app::HttpClientOptions client;
};

nlohmann::json body_of(const app::HttpReply& r) { return nlohmann::json::parse(r.body, nullptr, false); }

}  // namespace

TEST_CASE("POST /api/runs starts a run and asks its devices for a poll", "[http][runs]") {
  ApiFixture f;
  const auto r = f.call("POST", "/api/runs", R"({"package":"com.example.feed","name":"scroll","tags":{"build":"7"}})");
  REQUIRE(r.status == 201);
  const auto j = body_of(r);
  CHECK(j["state"] == "starting");
  CHECK(j["package"] == "com.example.feed");
  CHECK(j["tags"]["build"] == "7");
  CHECK(j["devices"][0]["serial"] == "emulator-5554");
  CHECK(f.polled == std::vector<std::string>{"emulator-5554"});
  const std::string id = j["id"].get<std::string>();
  CHECK(id.rfind("r20270115T", 0) == 0);  // made from the host's time

  const auto list = f.call("GET", "/api/runs");
  REQUIRE(list.status == 200);
  CHECK(body_of(list)["runs"].size() == 1);
  const auto one = f.call("GET", "/api/runs/" + id);
  REQUIRE(one.status == 200);
  CHECK(body_of(one).contains("devices"));
  const auto csv = f.call("GET", "/api/runs/" + id + "?format=csv");
  CHECK(csv.body.rfind("id,name,package,state,", 0) == 0);

  REQUIRE(f.call("POST", "/api/runs/" + id + "/stop").status == 202);
  CHECK(f.call("POST", "/api/runs/" + id + "/stop").status == 409);
  CHECK(f.call("POST", "/api/runs/nope/stop").status == 404);
  CHECK(f.call("GET", "/api/runs/nope").status == 404);
}

TEST_CASE("the runs API refuses bad bodies with the reason and wrong methods and paths", "[http][runs]") {
  ApiFixture f;
  const std::pair<const char*, std::string> cases[] = {
      {"not json", "the body must be a JSON object"},
      {"[1]", "the body must be a JSON object"},
      {R"({"name":"x"})", "\"package\" is required"},
      {R"({"package":7})", "\"package\" must be a string"},
      {R"({"package":"com.a","serials":"s"})", "\"serials\" must be an array of strings"},
      {R"({"package":"com.a","tags":{"k":1}})", "\"tags\" must be an object of strings"},
      {R"({"package":"com.a","colour":"red"})", "unknown field \"colour\""},
      {R"({"package":"com.a","id":"a b"})", jank::metrics::kRunIdRule.data()},
      {R"({"package":"; rm -rf /"})", "package must be an Android package name"},
  };
  for (const auto& [body, why] : cases) {
    INFO(body);
    const auto r = f.call("POST", "/api/runs", body);
    CHECK(r.status == 400);
    CHECK(body_of(r)["error"] == why);
  }
  CHECK(f.call("POST", "/api/elsewhere").status == 404);
  CHECK(f.call("GET", "/api/runs/x/stop").status == 405);
  CHECK(f.call("POST", "/metrics").status == 405);  // POST only under /api/
  CHECK(f.shared.runs.runs().empty());
}

TEST_CASE("run ids outside their grammar are refused before any use, and answers stay valid UTF-8", "[http][runs][hostile]") {
  ApiFixture f;
  for (const std::string& path : std::vector<std::string>{"/api/runs/\xff", "/api/runs/caf\xe9", "/api/runs/.", "/api/runs/..",
                                 "/api/runs/" + std::string(65, 'a')}) {
    for (const bool stop : {false, true}) {
      INFO(path << (stop ? "/stop" : ""));
      const auto r = stop ? f.call("POST", path + "/stop") : f.call("GET", path);
      CHECK(r.status == 400);
      REQUIRE(parsers::is_valid_utf8(r.body));
      CHECK(body_of(r)["error"] == std::string(metrics::kRunIdRule));
    }
  }
  CHECK(f.call("POST", "/api/runs", R"({"package":"com.a","id":".."})").status == 400);
  CHECK(f.call("POST", "/api/runs", R"({"package":"com.a","id":"."})").status == 400);
  CHECK(f.call("POST", "/api/runs", R"({"package":"com.a","id":"..."})").status == 201);  // three dots are a name
  CHECK(f.call("GET", "/healthz").status == 200);  // the server is still there
}

TEST_CASE("a run on a phone whose model is not UTF-8 is listed, shown and stopped", "[http][runs][hostile]") {
  ApiFixture f;
  // A model over 256 bytes cut inside a character would be as bad: both reach the run.
  f.shared.store.device("emulator-5554").live.info["model"] = "caf\xe9 \xff\xfe";
  auto& d = f.shared.store.device("emulator-5554");
  d.live.gfxinfo_round_begun_ns = kNow + 1;
  REQUIRE(f.call("POST", "/api/runs", R"({"package":"com.a","id":"r1"})").status == 201);
  {
    std::lock_guard<std::mutex> lock(f.shared.mutex);
    f.shared.runs.advance(kNow + 1'000'000'000, f.shared.store);  // the baseline
    f.shared.runs.advance(kNow + 2'000'000'000, f.shared.store);  // a sample: the model is read
    REQUIRE(f.shared.runs.find("r1")->devices.at(0).model == "caf\xe9 \xff\xfe");
  }
  for (const std::string& path : std::vector<std::string>{"/api/runs", "/api/runs/r1", "/api/runs/r1?format=csv", "/api/runs?format=csv"}) {
    INFO(path);
    const auto r = f.call("GET", path);
    REQUIRE(r.status == 200);
    CHECK(parsers::is_valid_utf8(r.body));
    CHECK(r.body.find("caf\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd") != std::string::npos);
  }
  const auto stopped = f.call("POST", "/api/runs/r1/stop");
  CHECK(stopped.status == 202);
  CHECK(body_of(stopped)["devices"][0]["model"] == "caf\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd");
}

TEST_CASE("the runs API takes the same basic auth as /metrics", "[http][runs]") {
  ApiFixture f(std::make_pair(std::string("ci"), std::string("pw")));
  CHECK(f.call("GET", "/api/runs").status == 401);
  CHECK(f.call("POST", "/api/runs", R"({"package":"com.a"})").status == 401);
  CHECK(f.shared.runs.runs().empty());
  f.client.basic_auth = std::make_pair(std::string("ci"), std::string("pw"));
  CHECK(f.call("GET", "/api/runs").status == 200);
}

TEST_CASE("jank_exporter run refuses bad usage and reports an unreachable exporter", "[runs]") {
  std::ostringstream out, err;
  CHECK(app::run_runs_cli({}, out, err) == 64);
  CHECK(app::run_runs_cli({"start"}, out, err) == 64);  // no --package
  CHECK(app::run_runs_cli({"stop"}, out, err) == 64);   // no id
  CHECK(app::run_runs_cli({"start", "--package", "com.a", "--tag", "novalue"}, out, err) == 64);
  CHECK(app::run_runs_cli({"list", "--url", "ftp://x"}, out, err) == 64);
  err.str("");
  // Port 1 on loopback: nothing listens.
  CHECK(app::run_runs_cli({"list", "--url", "http://127.0.0.1:1", "--timeout", "2"}, out, err) == 1);
  CHECK_THAT(err.str(), Catch::Contains("cannot reach http://127.0.0.1:1"));
}

TEST_CASE("exporter URLs are parsed with their port and prefix", "[runs]") {
  std::string error;
  const auto a = app::parse_http_url("http://host:9789/prefix/", error);
  REQUIRE(a);
  CHECK(a->host == "host");
  CHECK(a->port == "9789");
  CHECK(a->base_path == "/prefix");
  const auto b = app::parse_http_url("https://[::1]:8443", error);
  REQUIRE(b);
  CHECK(b->https);
  CHECK(b->host == "::1");
  CHECK(b->port == "8443");
  CHECK(app::parse_http_url("https://h", error)->port == "443");
  CHECK(!app::parse_http_url("h:1", error));
  CHECK(!app::parse_http_url("http://h:x", error));
}

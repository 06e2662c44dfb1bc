// The live view's JSON (exporters/live_json.h) against a store filled by
// hand, its agreement with /metrics, and /api/devices over the real HTTP
// server: routes, 404 and 400, basic auth.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/api/api_router.h"
#include "app/cli/http_client.h"
#include "app/api/http_routes.h"
#include "app/api/live_api.h"
#include "exporters/live_json.h"
#include "exporters/prometheus_collector.h"
#include "metrics/device_view.h"
#include "metrics/sources/clocks.h"
#include "metrics/sources/cpu.h"
#include "metrics/sources/memory.h"
#include "metrics/sources/skips.h"
#include "metrics/sources/thermal.h"
#include "parsers/gfxinfo.h"
#include "parsers/resource_files.h"
#include "parsers/thermal.h"
#include "parsers/utf8.h"
#include "tests/unit/live_fixture.h"

using namespace jank;
using Json = nlohmann::json;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kT0 = 1'764'061'000LL * kSec + 125'000'000;  // …000.125
const exporters::LiveViewOptions kOptions{std::chrono::seconds(5), std::chrono::seconds(900)};

void sample(metrics::Store& store, std::int64_t now) {
  for (const auto& [serial, d] : store.devices()) {
    d->history.configure(180, 5000);
    d->history.record(now, metrics::live_reading(*d, now, store.options().sm_window));
  }
}

void gfxinfo(metrics::Store& store, metrics::DeviceMetrics& d) {
  test::record_example_gfxinfo(store, d, "com.example.feed");
}

// Two devices: "sim0", followed, with a baseline sample at kT0 − 5 s and one
// at kT0 after 30 skipped frames, a Davey, a gfxinfo dump and a thermal
// reading; "a:5555", known by serial only.
struct Farm {
  Farm() {
    auto& d = store.device("sim0");
    d.live.live = true;
    d.live.up = true;
    d.live.state = metrics::DeviceState::following;
    d.live.info = {{"model", "JankSim 0"}, {"manufacturer", "JankSim"}, {"release", "14"}, {"sdk", "34"}};
    d.live.foreground = "com.example.feed";
    store.device("a:5555");
    sample(store, kT0 - 5 * kSec);
    jank::metrics::record_skip(store, d, "com.example.feed", kT0 - 2 * kSec, true, 18);
    jank::metrics::record_skip(store, d, "com.example.chat", kT0 - 1 * kSec, true, 12);
    parsers::DaveyFrame davey;
    davey.duration_ms = 800;
    jank::metrics::record_davey(store, d, "com.example.feed", davey);
    gfxinfo(store, d);
    metrics::record_thermal(store, d, parsers::parse_thermalservice(
                               "IsStatusOverride: false\nThermal Status: 3\nCached temperatures:\nHAL Ready: true\n"
                               "HAL connection:\n\tThermalHAL AIDL 1  connected: yes\nCurrent temperatures from HAL:\n"
                               "Current cooling devices from HAL:\n"));
    sample(store, kT0);
    metrics::RunSpec spec;
    spec.package = "com.example.feed";
    spec.name = "scroll";
    spec.id = "r1";
    spec.serials = {"sim0"};
    REQUIRE(runs.start(spec, kT0 - 60 * kSec, store).run != nullptr);
    spec.id = "r2";
    spec.serials = {"a:5555"};
    REQUIRE(runs.start(spec, kT0 - 60 * kSec, store).run != nullptr);
    traces = {trace("sim0_recent", "sim0", kT0 - 30 * kSec), trace("sim0_old", "sim0", kT0 - 1000 * kSec),
              trace("other", "a:5555", kT0 - 10 * kSec)};
  }
  static metrics::StoredTrace trace(std::string id, std::string serial, std::int64_t at) {
    metrics::StoredTrace t;
    t.id = std::move(id);
    t.serial = std::move(serial);
    t.rule = "skip";
    t.triggered_at_ns = at;
    return t;
  }

  metrics::Store store;
  metrics::RunBook runs;
  std::vector<metrics::StoredTrace> traces;
};

// The sum of every sample of `family` of device `serial` in an exposition; NaN when none.
double metrics_sum(const std::string& text, const std::string& family, const std::string& serial) {
  std::istringstream in(text);
  double sum = 0;
  bool any = false;
  const std::string head = family + "{serial=\"" + serial + "\"";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(head, 0) != 0 || (line[head.size()] != ',' && line[head.size()] != '}')) continue;
    sum += std::stod(line.substr(line.rfind(' ') + 1));
    any = true;
  }
  return any ? sum : std::nan("");
}

}  // namespace

TEST_CASE("GET /api/devices: every device sorted by serial with its row", "[live][json]") {
  Farm f;
  const Json j = Json::parse(
      exporters::devices_json(exporters::snapshot_devices(f.store, f.runs, kT0, kOptions)));
  CHECK(j["generated_at"].get<double>() == 1764061000.125);
  CHECK(j["window_seconds"] == 60);
  CHECK(j["sample_seconds"] == 5);
  CHECK(j["history_seconds"] == 900);
  REQUIRE(j["devices"].size() == 2);
  CHECK(j["devices"][0]["serial"] == "a:5555");
  const Json& d = j["devices"][1];
  CHECK(d["serial"] == "sim0");
  CHECK(d["model"] == "JankSim 0");
  CHECK(d["manufacturer"] == "JankSim");
  CHECK(d["release"] == "14");
  CHECK(d["sdk"] == 34);
  CHECK(d["refresh_hz"] == 60);
  CHECK(d["status"] == "following");
  CHECK(d["foreground"] == "com.example.feed");
  CHECK(d["sm"].get<double>() == Approx(60 - 30.0 / 60));
  CHECK(d["fps"].is_null());  // no layers
  CHECK(d["jank_percent"].get<double>() == Approx(36.364));
  CHECK(d["skipped_per_minute"].get<double>() == Approx(360));  // 30 in 5 s
  CHECK(d["davey_per_minute"].get<double>() == Approx(12));
  CHECK(d["big_jank_per_minute"].is_null());
  CHECK(d["thermal_status"] == 3);
  CHECK(d["trace_armed"] == false);
  CHECK(d["open_runs"] == 1);
  CHECK(d["sampled_at"].get<double>() == 1764061000.125);
  // The example dump's 800 ms frame is frozen; no layers: no layer count.
  CHECK(d["totals"] == Json::parse(R"({"skipped_frames": 30, "davey_frames": 1, "big_jank": null,
                                       "frozen_frames": 1, "layer_frozen_frames": null})"));

  // A device that told nothing: nulls, never zeros.
  const Json& bare = j["devices"][0];
  CHECK(bare["model"].is_null());
  CHECK(bare["sdk"].is_null());
  CHECK(bare["status"] == "starting");
  CHECK(bare["foreground"].is_null());
  CHECK(bare["fps"].is_null());
  CHECK(bare["jank_percent"].is_null());
  CHECK(bare["thermal_status"].is_null());
  CHECK(bare["skipped_per_minute"] == 0);
  CHECK(bare["open_runs"] == 1);
  CHECK(bare["totals"]["skipped_frames"] == 0);
}

TEST_CASE("GET /api/devices: totals and sm and refresh and thermal status and info equal /metrics at the same moment",
          "[live][json]") {
  Farm f;
  const std::string text =
      exporters::StoreCollector(f.store, [](const metrics::DeviceMetrics&) { return kT0; }).Text().str();
  const Json j = Json::parse(
      exporters::devices_json(exporters::snapshot_devices(f.store, f.runs, kT0, kOptions)));
  for (const Json& d : j["devices"]) {
    const std::string serial = d["serial"];
    INFO(serial);
    const double skipped = metrics_sum(text, "android_choreographer_skipped_frames_total", serial);
    CHECK(d["totals"]["skipped_frames"].get<double>() == (std::isnan(skipped) ? 0 : skipped));
    const double davey = metrics_sum(text, "android_hwui_davey_frames_total", serial);
    CHECK(d["totals"]["davey_frames"].get<double>() == (std::isnan(davey) ? 0 : davey));
    // Frozen frames: null where /metrics has no series, else their sum.
    const double frozen = metrics_sum(text, "android_gfxinfo_frozen_frames_total", serial);
    CHECK(d["totals"]["frozen_frames"].is_null() == std::isnan(frozen));
    if (!std::isnan(frozen)) CHECK(d["totals"]["frozen_frames"].get<double>() == frozen);
    CHECK(d["sm"].get<double>() == metrics_sum(text, "android_choreographer_device_sm", serial));
    CHECK(d["refresh_hz"].get<double>() == metrics_sum(text, "android_display_refresh_rate_hertz", serial));
    const double thermal = metrics_sum(text, "android_thermal_status", serial);
    CHECK(d["thermal_status"].is_null() == std::isnan(thermal));
    if (!d["thermal_status"].is_null()) CHECK(d["thermal_status"].get<double>() == thermal);
  }
  CHECK(text.find("android_device_info{serial=\"sim0\",manufacturer=\"JankSim\",model=\"JankSim 0\",release=\"14\","
                  "sdk=\"34\"} 1") != std::string::npos);
}

TEST_CASE("GET /api/devices/SERIAL: the row and the history column-wise and its sums and runs and traces", "[live][json]") {
  Farm f;
  const auto snapshot = exporters::snapshot_device(f.store, f.runs, "sim0", kT0, kOptions);
  REQUIRE(snapshot);
  const Json j = Json::parse(exporters::device_json(*snapshot, f.traces));
  CHECK(j["serial"] == "sim0");
  CHECK(j["totals"]["skipped_frames"] == 30);
  const Json& h = j["history"];
  CHECK(h["t"] == Json::parse("[1764060995.125, 1764061000.125]"));
  CHECK(h["skipped_frames"] == Json::parse("[0, 30]"));
  CHECK(h["davey_frames"] == Json::parse("[0, 1]"));
  CHECK(h["big_jank"] == Json::parse("[null, null]"));
  CHECK(h["fps"] == Json::parse("[null, null]"));
  CHECK(h["jank_percent"] == Json::parse("[null, 36.364]"));
  CHECK(h["status"] == Json::parse(R"(["following", "following"])"));
  CHECK(h["thermal_status"] == Json::parse("[null, 3]"));
  CHECK(h["sm"][0] == 60);
  CHECK(h["sm"][1].get<double>() == Approx(59.5));
  // No resource poll: what the phone did is null, never 0.
  for (const char* key : {"app_cpu_percent", "main_thread_cpu_percent", "device_cpu_percent", "app_rss_mib",
                          "cpu_capped"}) {
    INFO(key);
    CHECK(h[key] == Json::parse("[null, null]"));
  }
  CHECK(j["frame_time"] == Json::parse(R"({"bounds_ms": [8, 11, 17, 34, 53, 101, 700],
                                           "counts": [2, 0, 3, 1, 0, 0, 4, 1]})"));
  CHECK(j["jank_causes"] == Json::parse(R"({"missed_vsync": 1, "slow_ui_thread": 3})"));
  REQUIRE(j["runs"].size() == 1);
  CHECK(j["runs"][0] == Json::parse(R"({"id": "r1", "name": "scroll", "start": 1764060940.125, "end": null})"));
  REQUIRE(j["traces"].size() == 1);  // sim0's within the 15 minutes
  CHECK(j["traces"][0] == Json::parse(R"({"id": "sim0_recent", "time": 1764060970.125, "rule": "skip",
                                          "url": "/traces/sim0_recent.pftrace"})"));

  // Without gfxinfo in the history: null.
  const auto bare = exporters::snapshot_device(f.store, f.runs, "a:5555", kT0, kOptions);
  REQUIRE(bare);
  const Json b = Json::parse(exporters::device_json(*bare, f.traces));
  CHECK(b["frame_time"].is_null());
  CHECK(b["jank_causes"].is_null());
  CHECK(b["traces"].size() == 1);
  CHECK_FALSE(exporters::snapshot_device(f.store, f.runs, "nope", kT0, kOptions).has_value());
}

TEST_CASE("GET /api/devices/SERIAL: what the exporter's commands cost the device, the most run first", "[live][json]") {
  Farm f;
  auto& d = f.store.device("sim0");
  d.live.command_costs["power"] = {3, 0.03, 90};  // a device without shell v2: none timed
  d.live.command_costs["gfxinfo"] = {10, 1.5, 20480, 9, 0.125};
  d.live.per_frame_polling = true;
  d.live.budget_waits = 2;
  const auto snapshot = exporters::snapshot_device(f.store, f.runs, "sim0", kT0, kOptions);
  REQUIRE(snapshot);
  const Json j = Json::parse(exporters::device_json(*snapshot, f.traces));
  CHECK(j["cost"] == Json::parse(R"({"per_frame_polling": true, "budget_waits": 2, "commands": [
      {"kind": "gfxinfo", "runs": 10, "seconds": 1.5, "output_bytes": 20480, "timed": 9, "device_seconds": 0.125},
      {"kind": "power", "runs": 3, "seconds": 0.03, "output_bytes": 90, "timed": 0, "device_seconds": 0.0}]})"));
  CHECK(j["history"]["commands_per_second"].size() == j["history"]["t"].size());
  // A device no session decided for: null, never false.
  const auto bare = exporters::snapshot_device(f.store, f.runs, "a:5555", kT0, kOptions);
  REQUIRE(bare);
  CHECK(Json::parse(exporters::device_json(*bare, f.traces))["cost"]["per_frame_polling"].is_null());
}

TEST_CASE("GET /api/devices/SERIAL: each sample's CPU, memory and CPU cap from the resource poll", "[live][json]") {
  metrics::Store store;
  metrics::RunBook runs;
  auto& d = store.device("r");
  d.pid_names.started(4242, "com.example.feed");
  // Two cores, the app's process and main thread, its memory, two cpufreq policies.
  const auto poll = [&](int cpu0_user, int cpu0_idle, int cpu1_user, int cpu1_idle, int user, int main, int rss_kb,
                        int big_max_khz) {
    const std::string stat = " (om.example.feed) S 1 1 0 0 -1 0 0 0 0 0 ";
    const std::string tail = " 0 0 0 10 -10 20 0 5000 1 512\n";
    const auto answer = parsers::parse_resource_answer(
        "/proc/sys/kernel/random/boot_id:b1\n"
        "/proc/stat:cpu0 " + std::to_string(cpu0_user) + " 0 0 " + std::to_string(cpu0_idle) + " 0 0 0 0 0 0\n"
        "/proc/stat:cpu1 " + std::to_string(cpu1_user) + " 0 0 " + std::to_string(cpu1_idle) + " 0 0 0 0 0 0\n"
        "/proc/4242/stat:4242" + stat + std::to_string(user) + tail +
        "/proc/4242/task/4242/stat:4242" + stat + std::to_string(main) + tail +
        "/proc/4242/status:VmRSS:\t" + std::to_string(rss_kb) + " kB\n"
        "/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq:1800000\n"
        "/sys/devices/system/cpu/cpufreq/policy0/cpuinfo_max_freq:1800000\n"
        "/sys/devices/system/cpu/cpufreq/policy1/scaling_max_freq:" + std::to_string(big_max_khz) + "\n"
        "/sys/devices/system/cpu/cpufreq/policy1/cpuinfo_max_freq:3000000\n");
    REQUIRE(answer.malformed_lines == 0);
    metrics::record_cpu(store, d, answer, {});
    metrics::record_memory(store, d, answer);
    metrics::record_clocks(store, d, answer);
  };
  poll(1000, 9000, 1000, 9000, 100, 60, 312'400, 3'000'000);
  sample(store, kT0 - 5 * kSec);
  // 5 s later: the first core's clock +500 ticks, both cores +1000 of which
  // 225 busy; the app +251 ticks (50.2 % of a core), its main thread +157
  // (31.4 %); 313 600 kB resident (306.25 MiB); the big cluster capped at 2 GHz.
  poll(1200, 9300, 1025, 9475, 351, 217, 313'600, 2'000'000);
  sample(store, kT0);

  const auto snapshot = exporters::snapshot_device(store, runs, "r", kT0, kOptions);
  REQUIRE(snapshot);
  const Json h = Json::parse(exporters::device_json(*snapshot, {}))["history"];
  CHECK(h["app_cpu_percent"] == Json::parse("[null, 50.2]"));
  CHECK(h["main_thread_cpu_percent"] == Json::parse("[null, 31.4]"));
  CHECK(h["device_cpu_percent"] == Json::parse("[null, 22.5]"));
  CHECK(h["app_rss_mib"] == Json::parse("[305, 306]"));  // 312 400 kB: 305.08 MiB
  CHECK(h["cpu_capped"] == Json::parse("[false, true]"));
  for (const auto& [key, values] : h.items()) {
    INFO(key);
    CHECK(values.size() == 2);  // one entry per sample, as `t`
  }
}

namespace {

// The live API and a stand-in for the runs API behind the router, on a real server.
struct Served {
  explicit Served(std::optional<std::pair<std::string, std::string>> auth = std::nullopt)
      : shared(metrics::StoreOptions{}), live(shared, [] { return kT0; }, kOptions, nullptr) {
    auto& d = shared.store.device("192.168.1.5:5555");
    d.live.live = true;
    d.live.state = metrics::DeviceState::following;
    shared.store.device("a b+c");
    exporters::HttpOptions options;
    options.listen_address = "127.0.0.1:0";
    options.basic_auth = std::move(auth);
    app::ApiRouter router;
    router.add("/api/devices", [this](const exporters::ApiRequest& r) { return live.handle(r); });
    router.add("/api/runs", [](const exporters::ApiRequest&) { return exporters::ApiResponse{200, "text/plain", "runs"}; });
    server = std::make_unique<exporters::HttpServer>(options, nullptr, [] { return true; }, nullptr, std::move(router));
    target.host = "127.0.0.1";
    target.port = std::to_string(server->ports()[0]);
  }
  app::HttpReply get(const std::string& path, const std::string& method = "GET") {
    return app::http_request(target, method, path, "", client);
  }

  app::SharedState shared;
  app::LiveApi live;
  std::unique_ptr<exporters::HttpServer> server;
  app::HttpTarget target;
  app::HttpClientOptions client;
};

}  // namespace

TEST_CASE("/api/devices over HTTP: the list and one device by its percent-encoded serial", "[live][http]") {
  Served s;
  const auto list = s.get("/api/devices");
  REQUIRE(list.status == 200);
  CHECK(Json::parse(list.body)["devices"].size() == 2);
  const auto one = s.get("/api/devices/192.168.1.5%3A5555");
  REQUIRE(one.status == 200);
  CHECK(Json::parse(one.body)["serial"] == "192.168.1.5:5555");
  CHECK(Json::parse(one.body)["history"]["t"].empty());
  // In a path '+' is itself; a space is %20.
  CHECK(Json::parse(s.get("/api/devices/a%20b+c").body)["serial"] == "a b+c");
  // The router hands /api/runs to its own handler.
  CHECK(s.get("/api/runs").body == "runs");
}

TEST_CASE("/api/devices over HTTP: unknown serial 404 and bad escape 400 and other paths and methods refused",
          "[live][http]") {
  Served s;
  const auto unknown = s.get("/api/devices/nope");
  CHECK(unknown.status == 404);
  CHECK(Json::parse(unknown.body)["error"] == "no device nope");
  const auto bad = s.get("/api/devices/a%2");
  CHECK(bad.status == 400);
  CHECK(Json::parse(bad.body).contains("error"));
  CHECK(s.get("/api/devices/a%ZZb").status == 400);
  CHECK(s.get("/api/devices/192.168.1.5:5555/more").status == 404);
  CHECK(s.get("/api/devicesX").status == 404);
  CHECK(s.get("/api/nothing").status == 404);
  CHECK(Json::parse(s.get("/api/nothing").body)["error"] == "no such endpoint");
  CHECK(s.get("/api/devices", "POST").status == 405);
}

TEST_CASE("/api/devices takes the same basic auth as /metrics", "[live][http]") {
  Served s(std::make_pair(std::string("ci"), std::string("pw")));
  CHECK(s.get("/api/devices").status == 401);
  CHECK(s.get("/api/devices/a%20b+c").status == 401);
  s.client.basic_auth = std::make_pair(std::string("ci"), std::string("wrong"));
  CHECK(s.get("/api/devices").status == 401);
  s.client.basic_auth = std::make_pair(std::string("ci"), std::string("pw"));
  CHECK(s.get("/api/devices").status == 200);
  CHECK(s.get("/api/devices/a%20b+c").status == 200);
}

TEST_CASE("a serial that is not UTF-8 keeps a working link: pages and /api/devices reach it by its bytes",
          "[live][http][hostile]") {
  app::SharedState shared(metrics::StoreOptions{});
  auto& d = shared.store.device("sim\xff\xc3");
  d.live.live = true;
  d.live.state = metrics::DeviceState::following;
  d.live.info["model"] = "M\xe9";
  const config::Config config;
  app::RunsApi runs(shared, [] { return kT0; }, [](std::vector<std::string>) {});
  auto routes = app::http_routes(config, shared, runs, [] { return kT0; }, nullptr);
  exporters::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  exporters::HttpServer server(options, nullptr, [] { return true; }, nullptr, std::move(routes.api),
                               std::move(routes.files));
  app::HttpTarget target{false, "127.0.0.1", std::to_string(server.ports()[0]), ""};
  auto get = [&](const std::string& path) { return app::http_request(target, "GET", path, "", {}); };

  const auto list = get("/api/devices");
  REQUIRE(list.status == 200);
  REQUIRE(parsers::is_valid_utf8(list.body));
  const Json row = Json::parse(list.body)["devices"][0];
  CHECK(row["serial"] == "sim\xef\xbf\xbd\xef\xbf\xbd");  // as text, each stray byte U+FFFD
  CHECK(row["serial_path"] == "sim%FF%C3");                // as a URL, its bytes
  CHECK(row["model"] == "M\xef\xbf\xbd");
  const auto page = get("/");
  REQUIRE(page.status == 200);
  CHECK(parsers::is_valid_utf8(page.body));
  CHECK(page.body.find("href=\"/devices/sim%FF%C3\"") != std::string::npos);
  // The link leads to the device, and so does the API address the page reads.
  const auto device_page = get("/devices/sim%FF%C3");
  CHECK(device_page.status == 200);
  CHECK(parsers::is_valid_utf8(device_page.body));
  CHECK(device_page.body.find("data-api=\"/api/devices/sim%FF%C3\"") != std::string::npos);
  const auto one = get("/api/devices/sim%FF%C3");
  REQUIRE(one.status == 200);
  CHECK(Json::parse(one.body)["serial_path"] == "sim%FF%C3");
  // A missing device's page names it in valid UTF-8 too.
  const auto missing = get("/devices/gone%FF");
  CHECK(missing.status == 404);
  CHECK(parsers::is_valid_utf8(missing.body));
}

// Text from outside is data (docs/security.md, "Text from outside"): phones
// whose model and app version name are not UTF-8, or cut inside a character,
// and requests whose run ids are raw bytes, against the real binary with the
// real adb server and the simulator. The daemon answers every request, every
// answer is valid UTF-8, and a restart over the same state changes nothing.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "parsers/utf8.h"
#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

const std::string kApp = "com.example.feed";

std::string hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : bytes) {
    out += kHex[static_cast<unsigned char>(c) >> 4];
    out += kHex[static_cast<unsigned char>(c) & 0xF];
  }
  return out;
}

// The status code of a raw HTTP response, or 0.
int status_of(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12) return 0;
  return std::stoi(response.substr(9, 3));
}

std::string body_of(const std::string& response) {
  const auto end = response.find("\r\n\r\n");
  return end == std::string::npos ? std::string() : response.substr(end + 4);
}

// The state of run `id` as GET /api/runs/ID answers it ("" when it does not).
std::string run_state(std::uint16_t port, const std::string& id) {
  const auto run = parse_json(body_of(http_get(port, "/api/runs/" + id)));
  return run ? (*run)["state"].str : std::string();
}

std::string post(std::uint16_t port, const std::string& path, const std::string& body) {
  return http_exchange(port, "POST " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                             "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                             "\r\n\r\n" + body);
}

}  // namespace

TEST_CASE("phones whose model and version name are not UTF-8 and raw-byte run ids never stop the daemon") {
  AdbServer adb;
  DevSim sim({"--devices", "2", "--sdk", "34", "--packages", kApp, "--stall-prob", "0", "--log-rate", "1"});
  // sim0: a Latin-1 model with a terminal escape in it and a Latin-1 version
  // name; sim1: a model of 300 bytes whose 256th byte is inside a character.
  const std::string latin1_model = "Caf\xe9 \x1b[31mphone\xff";
  std::string long_model(255, 'M');
  for (int i = 0; i < 20; ++i) long_model += "\xc3\xa9";
  REQUIRE(sim.control("model " + sim.devices()[0].name + " " + hex(latin1_model)).rfind("OK", 0) == 0);
  REQUIRE(sim.control("model " + sim.devices()[1].name + " " + hex(long_model)).rfind("OK", 0) == 0);
  REQUIRE(sim.control("install " + sim.devices()[0].name + " " + kApp + " hex:" + hex("1.0-b\xeata") + " 2")
              .rfind("OK", 0) == 0);
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));

  TempDir state, conf_dir;
  const std::string conf = conf_dir.path() + "/c.yaml";
  std::ofstream(conf) << "checkpoint_interval_seconds: 1\n"
                         "gfxinfo:\n  poll_interval_seconds: 1\n  fast_poll_interval_seconds: 1\n"
                         "runs:\n  step_seconds: 1\n"
                         "traces:\n  enabled: true\n  stop_delay_ms: 300\n  check_interval_seconds: 1\n"
                         "  rules:\n    skip_frames: 50\n    big_jank_count: 0\n";
  auto ex = std::make_unique<Exporter>(std::vector<std::uint16_t>{adb.port()}, state.path(),
                                       std::vector<std::string>{"--config", conf});
  const std::string serial0 = emulator_serial(sim.devices()[0]);
  for (const auto& d : sim.devices()) {
    const std::string following =
        "jank_exporter_device_state{serial=\"" + emulator_serial(d) + "\",state=\"following\"}";
    INFO(ex->log());
    REQUIRE(wait_until([&] { return ex->value(following) == 1; }, 30000ms, 250ms));
  }

  // Raw bytes, dots and an over-long id where a run id goes: 400, valid UTF-8, alive.
  for (const std::string& id : std::vector<std::string>{std::string("\xff"), std::string("caf\xe9"), std::string("."), std::string(".."),
                               std::string(65, 'r')}) {
    INFO(jank::parsers::terminal_text(id));
    const std::string shown = http_get(ex->port(), "/api/runs/" + id);
    CHECK(status_of(shown) == 400);
    CHECK(jank::parsers::is_valid_utf8(shown));
    const std::string stopped = post(ex->port(), "/api/runs/" + id + "/stop", "");
    CHECK(status_of(stopped) == 400);
    CHECK(jank::parsers::is_valid_utf8(stopped));
    REQUIRE(ex->alive());
  }

  // A run over both phones: its model and version name go into every answer.
  const std::string started = post(ex->port(), "/api/runs", "{\"package\":\"" + kApp + "\",\"id\":\"r1\"}");
  REQUIRE(status_of(started) == 201);
  REQUIRE(wait_until([&] { return run_state(ex->port(), "r1") == "running"; },
                     30000ms, 250ms));
  // The flight recorder takes a trace of sim0 (its model is in the trace's metadata).
  INFO(ex->log());
  REQUIRE(wait_until([&] {
    return ex->value("jank_exporter_trace_armed{serial=\"" + serial0 + "\"}") == 1;
  }, 40000ms, 250ms));
  REQUIRE(sim.control("skip " + sim.devices()[0].name + " " + kApp + " 80").rfind("OK", 0) == 0);
  REQUIRE(wait_until([&] {
    return ex->value("jank_exporter_traces_taken_total{serial=\"" + serial0 + "\",rule=\"skip\"}") == 1;
  }, 40000ms, 250ms));

  auto check_answers = [&](const char* when) {
    INFO(when);
    for (const std::string& path : std::vector<std::string>{"/api/runs", "/api/runs/r1", "/api/runs/r1?format=csv", "/api/runs?format=csv",
                                   "/api/devices", "/api/devices/" + serial0, "/", "/devices/" + serial0, "/traces/",
                                   "/metrics"}) {
      INFO(path);
      const std::string r = http_get(ex->port(), path);
      CHECK(status_of(r) == 200);
      CHECK(jank::parsers::is_valid_utf8(r));
      REQUIRE(ex->alive());
    }
    // The model as every JSON answer writes it: each byte that is not UTF-8 as U+FFFD.
    const std::string run = body_of(http_get(ex->port(), "/api/runs/r1"));
    CHECK(run.find("Caf\xef\xbf\xbd \\u001b[31mphone\xef\xbf\xbd") != std::string::npos);
    CHECK(run.find("1.0-b\xef\xbf\xbdta") != std::string::npos);
    // The long model is cut at 256 bytes, before the character the cut fell in.
    const auto doc = parse_json(run);
    REQUIRE(doc);
    bool cut = false;
    for (const Json& d : (*doc)["devices"].arr) cut = cut || d["model"].str == std::string(255, 'M');
    CHECK(cut);
    const std::string traces = body_of(http_get(ex->port(), "/traces/"));
    CHECK(traces.find("Caf\xef\xbf\xbd") != std::string::npos);
    // No barrier had to catch anything: the text rule did its work before.
    for (const char* thread : {"http", "io", "trace_writer"}) {
      CHECK(ex->value(std::string("jank_exporter_internal_errors_total{thread=\"") + thread + "\"}") == 0);
    }
  };
  check_answers("running");

  const std::string stop = post(ex->port(), "/api/runs/r1/stop", "");
  CHECK(status_of(stop) == 202);
  CHECK(jank::parsers::is_valid_utf8(stop));
  REQUIRE(wait_until([&] { return run_state(ex->port(), "r1") == "finished"; },
                     30000ms, 250ms));
  check_answers("finished");

  // The run and its model are checkpointed: a restart reads them and still answers.
  std::this_thread::sleep_for(1500ms);  // one checkpoint interval and more
  ex->kill9();
  ex = std::make_unique<Exporter>(std::vector<std::uint16_t>{adb.port()}, state.path(),
                                  std::vector<std::string>{"--config", conf});
  check_answers("after a restart");
  CHECK(ex->alive());
}

// The flight recorder's device side (app/session/trace_recorder.h,
// app/session/perfetto_commands.h) on a fake session: the exact commands, their
// order, what is counted and kept. Time is the test's: nothing sleeps.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "app/session/perfetto_commands.h"
#include "app/session/trace_recorder.h"
#include "config/config.h"
#include "metrics/sources/skips.h"
#include "metrics/sources/traces.h"

using namespace jank;
using namespace std::chrono_literals;
using namespace std::string_literals;
namespace pf = jank::app::perfetto;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

// The session as the recorder sees it: commands answered and the tick fired by the test.
struct FakeSession {
  std::vector<std::string> commands;
  std::vector<std::size_t> max_outputs;
  std::function<void(ingest::ShellResult)> pending;
  std::function<void()> due;
  std::int64_t host_ns = 1'700'000'000 * kSecond;

  app::RunCommand runner() {
    return [this](const std::string& command, std::size_t max_output, std::function<void(ingest::ShellResult)> done) {
      REQUIRE_FALSE(pending);  // one command at a time
      commands.push_back(command);
      max_outputs.push_back(max_output);
      pending = std::move(done);
    };
  }
  app::RunCommandWithin long_runner() {
    return [this](const std::string& command, std::size_t max_output, std::chrono::milliseconds,
                  std::function<void(ingest::ShellResult)> done) { runner()(command, max_output, std::move(done)); };
  }
  app::RunAfter timer() {
    return [this](std::chrono::milliseconds, std::function<void()> then) { due = std::move(then); };
  }
  // Half a second passes and the recorder's tick runs.
  void tick() {
    host_ns += kSecond / 2;
    REQUIRE(due);
    std::exchange(due, nullptr)();
  }
  void answer(std::string output, int exit_code = 0, bool truncated = false) {
    REQUIRE(pending);
    ingest::ShellResult r;
    r.output = std::move(output);
    r.exit_code = exit_code;
    r.truncated = truncated;
    std::exchange(pending, nullptr)(std::move(r));
  }
  const std::string& last() const { return commands.back(); }
};

// Saves as the daemon's writer does: later, when the test calls finish().
struct FakeSink : app::TraceSink {
  std::vector<std::pair<std::string, metrics::StoredTrace>> saved;
  std::vector<std::function<void()>> writing;
  bool fail = false;
  void save(std::string bytes, metrics::StoredTrace meta, std::function<void(app::SavedTrace)> done) override {
    app::SavedTrace result{"", "write_failed", "No space left on device"};
    if (!fail) {
      saved.emplace_back(std::move(bytes), std::move(meta));
      result = {"trace-" + std::to_string(saved.size()), "", ""};
    }
    writing.push_back([done = std::move(done), result] { done(result); });
  }
  void finish() {
    for (auto& w : std::exchange(writing, {})) w();
  }
};

const std::string kCmdline = "perfetto\0--background\0--txt\0-c\0-\0-o\0"s + std::string(pf::kTracePath) +
                             std::string(1, '\0');

struct Rig {
  std::shared_ptr<config::Config> config = std::make_shared<config::Config>();
  app::SharedState shared{metrics::StoreOptions{}};
  FakeSink sink;
  FakeSession session;
  std::unique_ptr<app::TraceRecorder> recorder;

  Rig() {
    config->traces_enabled = true;
    config->traces_stop_delay_ms = std::chrono::milliseconds(1000);
    shared.trace_sink = &sink;
    device().live.info["sdk"] = "34";
    device().live.info["model"] = "Pixel 8";
  }
  void start() {
    recorder = std::make_unique<app::TraceRecorder>(
        app::PollerContext{config, "s1", shared, session.runner(), session.timer(), [this] { return session.host_ns; }},
        session.long_runner());
    recorder->start(0ms);
  }
  metrics::DeviceMetrics& device() { return shared.store.device("s1"); }
  // Ticks until a command is asked for.
  void tick_until_command() {
    for (int i = 0; i < 200 && !session.pending; ++i) session.tick();
    REQUIRE(session.pending);
  }
  // Adopt finds nothing, arm prints pid 4242, the check sees it running.
  void arm() {
    tick_until_command();
    REQUIRE(session.last() == "pidof perfetto");
    session.answer("", 1);
    tick_until_command();
    REQUIRE(session.last().rfind("rm -f /data/misc/perfetto-traces/jank_exporter.pftrace; printf %s '", 0) == 0);
    session.answer("4242\n");
    tick_until_command();
    REQUIRE(session.last() == "cat /proc/4242/cmdline");
    session.answer(kCmdline);
  }
  void skip(std::uint32_t frames) {
    shared.store.set_host_time(session.host_ns);
    jank::metrics::record_skip(shared.store, device(), "com.app", 0, false, frames);
  }
  // From a re-arm to the pull: the session starts as `pid`, is confirmed, a
  // skip of `frames` triggers it, and it finishes.
  void rearm_and_collect(const std::string& pid, std::uint32_t frames) {
    tick_until_command();
    REQUIRE(session.last().rfind("rm -f ", 0) == 0);
    session.answer(pid + "\n");
    tick_until_command();
    session.answer(std::string("perfetto") + std::string(pf::kTracePath));
    session.tick();
    skip(frames);
    session.tick();
    REQUIRE(session.last() == "trigger_perfetto jank_exporter");
    session.answer("");
    tick_until_command();
    session.answer("", 1);
    tick_until_command();
  }
};

}  // namespace

TEST_CASE("perfetto commands: the session config on one line with the trigger the exporter adds", "[traces][app]") {
  pf::SessionOptions o;
  o.sdk = 34;
  o.apps = {"com.app"};
  o.buffer_kb = 1024;
  o.timeout = std::chrono::milliseconds(60000);
  o.stop_delay = std::chrono::milliseconds(1500);
  const std::string cfg = pf::session_config(o);
  CHECK(cfg.find('\n') == std::string::npos);
  CHECK(cfg.rfind("buffers { size_kb: 1024 fill_policy: RING_BUFFER } ", 0) == 0);
  CHECK(cfg.find("atrace_apps: \"com.app\"") != std::string::npos);
  CHECK(cfg.find("android.surfaceflinger.frametimeline") != std::string::npos);
  CHECK(cfg.find("unique_session_name: \"jank_exporter\" trigger_config { trigger_mode: STOP_TRACING "
                 "trigger_timeout_ms: 60000 triggers { name: \"jank_exporter\" stop_delay_ms: 1500 } }") !=
        std::string::npos);
  o.sdk = 30;  // FrameTimeline came with Android 12
  CHECK(pf::session_config(o).find("frametimeline") == std::string::npos);
  // A user's config: comments dropped, strings kept whole, quotes escaped for the shell.
  CHECK(pf::one_line("buffers { size_kb: 8 }  # ring\n# a comment\ndata_sources {\n  config { name: \"a # b\" }\n}\n") ==
        "buffers { size_kb: 8 } data_sources { config { name: \"a # b\" } }");
  CHECK(pf::shell_quote("it's") == "'it'\\''s'");
  CHECK(pf::arm_command(o).find(" | perfetto --background --txt -c - -o /data/misc/perfetto-traces/jank_exporter.pftrace") !=
        std::string::npos);
}

TEST_CASE("perfetto answers: pids and command lines", "[traces][app]") {
  CHECK(pf::parse_pid("4242\n") == 4242);
  CHECK(pf::parse_pid("some warning\n77\n") == 77);
  CHECK_FALSE(pf::parse_pid("").has_value());
  CHECK_FALSE(pf::parse_pid("-5\nabc\n").has_value());
  CHECK(pf::parse_pids("12 345 x 0 9\n") == std::vector<std::int32_t>{12, 345, 9});
  CHECK(pf::is_our_session(kCmdline));
  CHECK_FALSE(pf::is_our_session("perfetto\0-o\0/data/misc/perfetto-traces/other.pftrace"s));
  CHECK(pf::is_unsupported(127, ""));
  CHECK_FALSE(pf::is_unsupported(1, ""));
}

TEST_CASE("traces are taken only from devices the configuration names and of Android 10 or later", "[traces][app]") {
  config::Config c;
  CHECK_FALSE(app::traces_device(c, "s1", 34));  // off by default
  c.traces_enabled = true;
  CHECK(app::traces_device(c, "s1", 34));
  CHECK_FALSE(app::traces_device(c, "s1", 28));
  CHECK_FALSE(app::traces_device(c, "s1", std::nullopt));
  c.traces_devices = {"emulator-*"};
  CHECK_FALSE(app::traces_device(c, "s1", 34));
  CHECK(app::traces_device(c, "emulator-5554", 34));
}

TEST_CASE("a skip arms nothing twice and yields one trace with its exemplar and counts", "[traces][app]") {
  Rig rig;
  rig.start();
  rig.arm();
  CHECK(jank::metrics::trace_state(rig.device()).status.armed);
  CHECK(jank::metrics::trace_state(rig.device()).status.sessions["armed"] == 1);
  rig.session.tick();
  rig.skip(75);
  rig.session.tick();
  REQUIRE(rig.session.pending);
  CHECK(rig.session.last() == "trigger_perfetto jank_exporter");
  const std::int64_t triggered = rig.session.host_ns;
  rig.session.answer("");
  rig.skip(90);  // while collecting: counted, not triggered
  rig.session.tick();
  CHECK(jank::metrics::trace_state(rig.device()).status.suppressed["busy"] == 1);
  // Nothing is asked before the stop delay; then the process is watched until it is gone.
  CHECK_FALSE(rig.session.pending);
  rig.tick_until_command();
  CHECK(rig.session.host_ns - triggered >= kSecond);
  CHECK(rig.session.last() == "cat /proc/4242/cmdline");
  rig.session.answer(kCmdline);  // still writing
  rig.tick_until_command();
  rig.session.answer("", 1);  // gone: the file is whole
  rig.tick_until_command();
  CHECK(rig.session.last() == "cat /data/misc/perfetto-traces/jank_exporter.pftrace");
  CHECK(rig.session.max_outputs.back() == rig.config->traces_max_trace_bytes);
  CHECK(rig.shared.trace_pulls == 1);
  const std::string bytes = "PF\0\xff trace"s;
  rig.session.answer(bytes);
  // The bytes are in memory until written: the save keeps the pull's slot.
  CHECK(rig.shared.trace_pulls == 1);
  rig.session.tick();
  CHECK_FALSE(rig.session.pending);
  CHECK(jank::metrics::trace_state(rig.device()).status.taken.empty());
  rig.sink.finish();
  CHECK(rig.shared.trace_pulls == 0);
  REQUIRE(rig.sink.saved.size() == 1);
  CHECK(rig.sink.saved[0].first == bytes);
  const auto& meta = rig.sink.saved[0].second;
  CHECK(meta.serial == "s1");
  CHECK(meta.package == "com.app");
  CHECK(meta.rule == "skip");
  CHECK(meta.value == 75);
  CHECK(meta.triggered_at_ns == triggered);
  CHECK(meta.bytes == 10);
  CHECK(meta.sdk == 34);
  CHECK(meta.model == "Pixel 8");
  CHECK(jank::metrics::trace_state(rig.device()).status.taken["skip"] == 1);
  const metrics::ExemplarKey key{metrics::ExemplarCounter::skipped_frames, "com.app", ""};
  REQUIRE(jank::metrics::trace_state(rig.device()).exemplars.contains(key));
  CHECK(jank::metrics::trace_state(rig.device()).exemplars[key].trace_id == "trace-1");
  CHECK(jank::metrics::trace_state(rig.device()).exemplars[key].value == 75);
  // Armed again at once, without looking for an old session.
  rig.tick_until_command();
  CHECK(rig.session.last().rfind("rm -f ", 0) == 0);
}

TEST_CASE("the per-device limit suppresses a second spike and a session found running is adopted", "[traces][app]") {
  Rig rig;
  rig.config->traces_min_interval_seconds = config::Seconds(300);
  rig.shared.trace_budget.set_limits(300 * kSecond, 12);
  rig.shared.trace_budget.spend("s1", rig.session.host_ns);  // a trigger a moment ago
  rig.start();
  rig.tick_until_command();
  rig.session.answer("77 4242\n");
  rig.tick_until_command();
  CHECK(rig.session.last() == "cat /proc/77/cmdline");
  rig.session.answer("perfetto\0-o\0/data/misc/perfetto-traces/theirs\0"s);  // another tool's
  rig.tick_until_command();
  CHECK(rig.session.last() == "cat /proc/4242/cmdline");
  rig.session.answer(kCmdline);
  CHECK(jank::metrics::trace_state(rig.device()).status.sessions["adopted"] == 1);
  CHECK(jank::metrics::trace_state(rig.device()).status.armed);
  rig.session.tick();
  rig.skip(200);
  rig.session.tick();
  CHECK_FALSE(rig.session.pending);
  CHECK(jank::metrics::trace_state(rig.device()).status.suppressed["rate_limit"] == 1);
}

TEST_CASE("a session that ends by itself is armed again and a trace too large or unwritable is counted", "[traces][app]") {
  Rig rig;
  rig.config->traces_check_interval_seconds = config::Seconds(1);
  rig.start();
  rig.arm();
  rig.tick_until_command();
  rig.session.answer("", 1);  // expired
  CHECK(jank::metrics::trace_state(rig.device()).status.sessions["expired"] == 1);
  CHECK_FALSE(jank::metrics::trace_state(rig.device()).status.armed);
  rig.rearm_and_collect("5000", 100);
  rig.session.answer("partial", 0, true);
  CHECK(jank::metrics::trace_state(rig.device()).status.failed["too_large"] == 1);
  CHECK(rig.shared.trace_pulls == 0);
  CHECK(rig.sink.saved.empty());
  CHECK(rig.sink.writing.empty());
  CHECK(jank::metrics::trace_state(rig.device()).exemplars.empty());
  // Armed again; the next trace (no per-device interval now) meets a full disk.
  rig.shared.trace_budget.set_limits(0, 12);
  rig.sink.fail = true;
  rig.rearm_and_collect("5001", 100);
  rig.session.answer("PF trace");
  rig.sink.finish();
  CHECK(jank::metrics::trace_state(rig.device()).status.failed["write_failed"] == 1);
  CHECK(rig.shared.trace_pulls == 0);
  CHECK(jank::metrics::trace_state(rig.device()).exemplars.empty());
}

TEST_CASE("a session that ends while its trace is written gives the slot back when the write is done", "[traces][app]") {
  Rig rig;
  rig.start();
  rig.arm();
  rig.session.tick();
  rig.skip(75);
  rig.session.tick();
  REQUIRE(rig.session.last() == "trigger_perfetto jank_exporter");
  rig.session.answer("");
  rig.tick_until_command();
  rig.session.answer("", 1);
  rig.tick_until_command();
  rig.session.answer("PF trace");
  REQUIRE(rig.sink.writing.size() == 1);
  rig.recorder.reset();  // the device went away
  CHECK(rig.shared.trace_pulls == 1);
  rig.sink.finish();  // must not reach the recorder that is gone
  CHECK(rig.shared.trace_pulls == 0);
  CHECK(rig.sink.saved.size() == 1);
  CHECK(jank::metrics::trace_state(rig.device()).exemplars.empty());
}

TEST_CASE("a device without trigger_perfetto is asked again only after 30 minutes", "[traces][app]") {
  Rig rig;
  rig.start();
  rig.tick_until_command();
  rig.session.answer("", 1);
  rig.tick_until_command();
  rig.session.answer("", 127);
  CHECK(jank::metrics::trace_state(rig.device()).status.sessions["unsupported"] == 1);
  const std::int64_t at = rig.session.host_ns;
  while (!rig.session.pending && rig.session.host_ns - at < 31 * 60 * kSecond) rig.session.tick();
  REQUIRE(rig.session.pending);
  CHECK(rig.session.last().rfind("rm -f ", 0) == 0);
  CHECK(rig.session.host_ns - at >= 30 * 60 * kSecond);
}

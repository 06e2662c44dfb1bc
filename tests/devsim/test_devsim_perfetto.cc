// Perfetto on the simulated device (docs/devsim.md, "Perfetto"): the
// commands of docs/traces.md's table answered as Android 10+ answers them,
// and the truth a rig test compares a pulled trace with. On a ManualClock: no
// sleeping, no sockets.
#include <catch2/catch.hpp>

#include "devsim/model.h"
#include "tests/devsim/quiet_device.h"
#include "devsim/shell.h"
#include "tests/rig/fnv.h"
#include "tests/rig/json.h"

using namespace jank::devsim;
using jank::rig::Json;

namespace {

constexpr std::int64_t kMs = 1'000'000;
const std::string kPath = "/data/misc/perfetto-traces/jank_exporter.pftrace";

DeviceConfig quiet(int sdk = 33) { return test::quiet_device(sdk); }

// The exporter's default config on one line (docs/traces.md).
std::string config(std::uint32_t timeout_ms = 3'600'000, std::uint32_t stop_delay_ms = 2000,
                   const std::string& name = "jank_exporter") {
  return "buffers { size_kb: 65536 fill_policy: RING_BUFFER } buffers { size_kb: 2048 fill_policy: RING_BUFFER } "
         "incremental_state_config { clear_period_ms: 5000 } "
         "data_sources { config { name: \"linux.ftrace\" ftrace_config { ftrace_events: \"sched/sched_switch\" "
         "atrace_categories: \"gfx\" atrace_apps: \"com.example.feed\" } } } "
         "data_sources { config { name: \"linux.process_stats\" target_buffer: 1 process_stats_config { "
         "scan_all_processes_on_start: true } } } "
         "unique_session_name: \"" +
         name + "\" trigger_config { trigger_mode: STOP_TRACING trigger_timeout_ms: " + std::to_string(timeout_ms) +
         " triggers { name: \"jank_exporter\" stop_delay_ms: " + std::to_string(stop_delay_ms) + " } }";
}

// The arm step: the config single-quoted, a ' in it written '\''.
std::string arm(const std::string& cfg, const std::string& path = kPath) {
  std::string quoted;
  for (const char c : cfg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return "rm -f " + path + "; printf %s '" + quoted + "' | perfetto --background --txt -c - -o " + path;
}

struct Sim {
  ManualClock clock;
  Device dev;
  explicit Sim(int sdk = 33) : dev(quiet(sdk), clock) {}
  ShellResult sh(const std::string& cmd) { return run_shell(dev, cmd); }
  void ms(std::int64_t n) {
    clock.advance_ms(n);
    dev.advance();
  }
  Json perfetto() {
    dev.advance();
    auto j = jank::rig::parse_json(dev.truth_json());
    REQUIRE(j);
    return (*j)["perfetto"];
  }
  std::int32_t arm_pid(const std::string& cfg = config()) {
    const ShellResult r = sh(arm(cfg));
    REQUIRE(r.exit == 0);
    REQUIRE(r.err.empty());
    REQUIRE(r.out.size() > 1);
    REQUIRE(r.out.back() == '\n');
    return std::stoi(r.out);
  }
  bool alive(std::int32_t pid) { return sh("cat /proc/" + std::to_string(pid) + "/cmdline").exit == 0; }
};

}  // namespace

TEST_CASE("devsim perfetto: arming prints the pid of a session whose command line names the output", "[devsim][perfetto]") {
  Sim s;
  const std::int32_t pid = s.arm_pid();
  CHECK(s.sh("pidof perfetto").out == std::to_string(pid) + "\n");
  const ShellResult cmdline = s.sh("cat /proc/" + std::to_string(pid) + "/cmdline");
  CHECK(cmdline.exit == 0);
  std::string argv;
  for (const std::string a : {"perfetto", "--background", "--txt", "-c", "-", "-o", kPath.c_str()}) argv += a + '\0';
  CHECK(cmdline.out == argv);
  // The client created the file before it went to the background: empty until the trace is written.
  const ShellResult empty = s.sh("cat " + kPath);
  CHECK(empty.exit == 0);
  CHECK(empty.out.empty());
  CHECK(s.sh("ps -A").out.find(" " + std::to_string(pid) + "     1 ") != std::string::npos);
  CHECK_FALSE(s.sh("pidof traced").out.empty());
  const Json p = s.perfetto();
  CHECK(p["sessions_started"].integer() == 1);
  REQUIRE(p["running"].size() == 1);
  CHECK(p["running"][0]["pid"].integer() == pid);
  CHECK(p["running"][0]["state"].str == "tracing");
  CHECK(p["running"][0]["unique_session_name"].str == "jank_exporter");
  // The session outlives an app restart.
  REQUIRE(s.dev.restart_app("com.example.feed"));
  s.ms(1000);
  CHECK(s.alive(pid));
}

TEST_CASE("devsim perfetto: a trigger stops the session after stop_delay_ms and the whole file matches the truth",
          "[devsim][perfetto]") {
  Sim s;
  const std::int32_t pid = s.arm_pid(config(3'600'000, 2000));
  s.ms(5000);
  const std::int64_t trigger_ms = s.clock.wall_ns() / kMs;
  const ShellResult t = s.sh("trigger_perfetto jank_exporter");
  CHECK(t.exit == 0);
  CHECK(t.out.empty());
  CHECK(t.err.empty());
  s.ms(1999);
  CHECK(s.alive(pid));
  CHECK(s.perfetto()["traces"].size() == 0);
  s.ms(2);  // stopped: the final flush, then the file grows
  Json p = s.perfetto();
  REQUIRE(p["traces"].size() == 1);
  const std::uint64_t size = p["traces"][0]["size"].u64();
  CHECK(size >= 24 * 1024);
  CHECK(size < 64 * 1024);
  CHECK(p["traces"][0]["writing"].b);
  CHECK_FALSE(p["traces"][0]["complete"].b);
  // The delayed file: while the process lives the file is short.
  s.ms(80);
  const std::string partial = s.sh("cat " + kPath).out;
  CHECK(partial.size() < size);
  CHECK(s.alive(pid));
  s.ms(5000);
  CHECK_FALSE(s.alive(pid));
  const ShellResult gone = s.sh("cat /proc/" + std::to_string(pid) + "/cmdline");
  CHECK(gone.err == "cat: /proc/" + std::to_string(pid) + "/cmdline: No such file or directory\n");
  CHECK(gone.exit == 1);
  CHECK(s.sh("pidof perfetto").exit == 1);
  const ShellResult pulled = s.sh("cat " + kPath);
  REQUIRE(pulled.exit == 0);
  CHECK(pulled.out.size() == size);
  CHECK(pulled.out.compare(0, partial.size(), partial) == 0);
  CHECK(pulled.out[0] == '\x0a');
  CHECK(pulled.out.find('\0') != std::string::npos);
  CHECK(pulled.out.find('\xff') != std::string::npos);
  p = s.perfetto();
  const Json& tr = p["traces"][0];
  CHECK(tr["complete"].b);
  CHECK(tr["how"].str == "trigger");
  CHECK(tr["trigger"].str == "jank_exporter");
  CHECK(tr["bytes"].u64() == size);
  CHECK(tr["fnv1a64"].str == jank::rig::fnv1a64_hex(pulled.out));
  CHECK(tr["triggered_at_ms"].integer() == trigger_ms);
  CHECK(tr["stopped_at_ms"].integer() == trigger_ms + 2000);
  CHECK(tr["at_path"].b);
  CHECK(tr["pulls"].integer() == 1);
  CHECK(p["triggers_received"].integer() == 1);
  CHECK(p["pulls_served"].integer() == 2);
  CHECK(p["pulls_partial"].integer() == 1);
  // A later trigger finds no session; a new one gets other bytes.
  CHECK(s.sh("trigger_perfetto jank_exporter").exit == 0);
  CHECK(s.perfetto()["triggers_received"].integer() == 1);
  s.arm_pid();
  s.sh("trigger_perfetto jank_exporter");
  s.ms(10'000);
  const std::string second = s.sh("cat " + kPath).out;
  CHECK_FALSE(second.empty());
  CHECK(second != pulled.out);
  CHECK(s.perfetto()["traces"][1]["fnv1a64"].str == jank::rig::fnv1a64_hex(second));
}

TEST_CASE("devsim perfetto: the same seed writes the same bytes and trace-bytes sets the size", "[devsim][perfetto]") {
  std::string a, b;
  for (std::string* out : {&a, &b}) {
    Sim s;
    s.dev.perfetto().set_trace_bytes(100'003);
    s.arm_pid();
    s.ms(300);
    s.sh("trigger_perfetto jank_exporter");
    s.ms(60'000);
    *out = s.sh("cat " + kPath).out;
  }
  CHECK(a.size() == 100'003);
  CHECK(a == b);
  // TracePacket framing: a tag, a two-byte length, then the payload.
  CHECK(a.substr(4096, 5) == std::string("\x0a\xfd\x1f\x00\xff", 5));
}

TEST_CASE("devsim perfetto: a second session of the same unique name is refused and the first keeps running",
          "[devsim][perfetto]") {
  for (const int sdk : {33, 34}) {
    Sim s(sdk);
    const std::int32_t first = s.arm_pid();
    s.ms(500);
    const std::int32_t second = s.arm_pid();
    CHECK(second != first);
    CHECK(s.alive(second));
    s.ms(100);
    CHECK_FALSE(s.alive(second));
    CHECK(s.alive(first));
    Json p = s.perfetto();
    CHECK(p["refused"].integer() == 1);
    CHECK(p["sessions_started"].integer() == 1);
    CHECK(p["last_refusal"].str == "A trace with this unique session name (jank_exporter) already exists");
    // The second arm's `rm -f` unlinked the first's file: its trace is
    // written where nobody can pull it. Android 14 and later also remove the
    // refused client's empty file.
    s.sh("trigger_perfetto jank_exporter");
    s.ms(10'000);
    CHECK_FALSE(s.alive(first));
    p = s.perfetto();
    REQUIRE(p["traces"].size() == 1);
    CHECK(p["traces"][0]["complete"].b);
    CHECK_FALSE(p["traces"][0]["at_path"].b);
    const ShellResult cat = s.sh("cat " + kPath);
    if (sdk >= 34) {
      CHECK(cat.exit == 1);
      CHECK(cat.err == "cat: " + kPath + ": No such file or directory\n");
    } else {
      CHECK(cat.exit == 0);
      CHECK(cat.out.empty());
    }
  }
}

TEST_CASE("devsim perfetto: a session with no trigger expires after trigger_timeout_ms with an empty file",
          "[devsim][perfetto]") {
  Sim s;
  const std::int32_t pid = s.arm_pid(config(10'000, 2000));
  s.ms(9'999);
  CHECK(s.alive(pid));
  s.ms(100);
  CHECK_FALSE(s.alive(pid));
  const ShellResult cat = s.sh("cat " + kPath);
  CHECK(cat.exit == 0);
  CHECK(cat.out.empty());
  Json p = s.perfetto();
  CHECK(p["expired"].integer() == 1);
  CHECK(p["traces_written"].integer() == 0);
  // The control channel's `end` does the same at once.
  const std::int32_t again = s.arm_pid();
  CHECK(s.dev.perfetto().end_ours() == 1);
  s.ms(100);
  CHECK_FALSE(s.alive(again));
  p = s.perfetto();
  CHECK(p["expired"].integer() == 2);
  CHECK(p["ended_by_control"].integer() == 1);
}

TEST_CASE("devsim perfetto: kill ends a session as SIGTERM does in perfetto_cmd", "[devsim][perfetto]") {
  Sim s;
  SECTION("untriggered: no data, an empty file") {
    const std::int32_t pid = s.arm_pid();
    s.ms(1000);
    const ShellResult k = s.sh("kill " + std::to_string(pid));
    CHECK(k.exit == 0);
    CHECK(k.err.empty());
    s.ms(100);
    CHECK_FALSE(s.alive(pid));
    CHECK(s.sh("cat " + kPath).out.empty());
    CHECK(s.perfetto()["killed"].integer() == 1);
    CHECK(s.perfetto()["traces_written"].integer() == 0);
  }
  SECTION("triggered: stops at once and writes the trace") {
    const std::int32_t pid = s.arm_pid(config(3'600'000, 10'000));
    s.sh("trigger_perfetto jank_exporter");
    s.ms(1000);
    s.sh("kill -TERM " + std::to_string(pid));
    s.ms(1000);
    CHECK_FALSE(s.alive(pid));
    const Json p = s.perfetto();
    REQUIRE(p["traces"].size() == 1);
    CHECK(p["traces"][0]["how"].str == "sigterm");
    CHECK(p["traces"][0]["complete"].b);
    CHECK(s.sh("cat " + kPath).out.size() == p["traces"][0]["size"].u64());
  }
  SECTION("a second signal while writing kills it: the file stays partial") {
    s.dev.perfetto().set_trace_bytes(8 * 1024 * 1024);
    const std::int32_t pid = s.arm_pid(config(3'600'000, 0));
    s.sh("trigger_perfetto jank_exporter");
    s.ms(200);
    s.sh("kill " + std::to_string(pid));
    CHECK(s.alive(pid));  // the first SIGTERM: it is stopping anyway
    s.sh("kill " + std::to_string(pid));
    CHECK_FALSE(s.alive(pid));
    const Json p = s.perfetto();
    CHECK_FALSE(p["traces"][0]["complete"].b);
    const std::uint64_t bytes = p["traces"][0]["bytes"].u64();
    CHECK(bytes > 0);
    CHECK(bytes < 8 * 1024 * 1024);
    CHECK(s.sh("cat " + kPath).out.size() == bytes);
  }
  SECTION("other processes") {
    const ShellResult none = s.sh("kill 31999");
    CHECK(none.exit == 1);
    CHECK(none.err == "/system/bin/sh: kill: 31999: No such process\n");
    const std::string app = std::to_string(s.dev.app("com.example.feed")->pid);
    CHECK(s.sh("kill " + app).err == "/system/bin/sh: kill: " + app + ": Operation not permitted\n");
  }
}

TEST_CASE("devsim perfetto: Android 9 has no trigger_perfetto and its perfetto knows no --txt", "[devsim][perfetto]") {
  Sim s(28);
  const ShellResult t = s.sh("trigger_perfetto jank_exporter");
  CHECK(t.exit == 127);
  CHECK(t.err == "/system/bin/sh: trigger_perfetto: not found\n");  // mksh before R57
  const ShellResult a = s.sh(arm(config()));
  CHECK(a.exit == 1);
  CHECK(a.out.empty());
  CHECK(a.err.rfind("perfetto: unknown option -- txt\n", 0) == 0);
  CHECK(s.sh("pidof perfetto").exit == 1);
  CHECK(s.sh("pidof traced").exit == 1);
  Sim old(27);
  CHECK(old.sh("perfetto --background -c - -o " + kPath).err == "/system/bin/sh: perfetto: not found\n");
}

TEST_CASE("devsim perfetto: bad configs and paths fail before the background as perfetto reports them",
          "[devsim][perfetto]") {
  Sim s;
  SECTION("an unknown enum value") {
    const std::string cfg = "trigger_config { trigger_mode: STOP trigger_timeout_ms: 1000 }";
    const ShellResult r = s.sh(arm(cfg));
    CHECK(r.exit == 1);
    CHECK(r.out.empty());
    // On the first line perfetto's lexer counts columns from 0 and its
    // reporter from 1: the column and the caret fall one to the left.
    const std::size_t at = cfg.find("STOP ");
    CHECK(r.err.rfind("-:1:" + std::to_string(at) +
                          " error: Unexpected value 'STOP' for enum field trigger_mode in proto TriggerConfig\n" + cfg +
                          "\n" + std::string(at - 1, ' ') + "^~~~\n\n",
                      0) == 0);
    CHECK(r.err.find("perfetto_cmd.cc:704 The trace config is invalid, bailing out.\n") != std::string::npos);
  }
  SECTION("an unknown field and a value glued to its brace") {
    const ShellResult r = s.sh(arm("bogus: 1 "));
    CHECK(r.err.rfind("-:1:1 error: No field named \"bogus\" in proto TraceConfig\n", 0) == 0);
    CHECK(s.sh(arm("trigger_config { trigger_timeout_ms: 1000} unique_session_name: \"x\"")).err.find(
              "error: Unexpected character '}'") != std::string::npos);
    CHECK(s.sh(arm("buffers { size_kb: 1024 } buffers { size_kb: \"big\" }")).err.find(
              "Expected value of type uint32 for field size_kb in proto BufferConfig instead saw 'big'") !=
          std::string::npos);
    CHECK(s.sh(arm("trigger_config { trigger_timeout_ms: 1000 ")).err.find("error: Nested message not closed") !=
          std::string::npos);
  }
  SECTION("a quote inside the single-quoted config and unknown data source fields are fine") {
    const std::int32_t pid = s.arm_pid(config() + " data_sources { config { name: \"it's\" whatever_config { x: 1 } } }");
    CHECK(s.alive(pid));
  }
  SECTION("text without --txt") {
    const ShellResult r = s.sh("printf %s '" + config() + "' | perfetto --background -c - -o " + kPath);
    CHECK(r.exit == 1);
    CHECK(r.err.find("Try adding --txt to the cmdline.") != std::string::npos);
  }
  SECTION("an output outside /data/misc/perfetto-traces") {
    const ShellResult r = s.sh(arm(config(), "/data/local/tmp/x.pftrace"));
    CHECK(r.exit == 1);
    CHECK(r.out.empty());
    CHECK(r.err.find("perfetto_cmd.cc:1352 Failed to open /data/local/tmp/x.pftrace. If you get permission denied") !=
          std::string::npos);
    CHECK(r.err.find("(errno: 13, Permission denied)\n") != std::string::npos);
  }
  SECTION("the service refuses a trigger config without a timeout: the background process dies") {
    const std::int32_t pid = s.arm_pid("trigger_config { trigger_mode: STOP_TRACING triggers { name: \"x\" } }");
    s.ms(100);
    CHECK_FALSE(s.alive(pid));
    CHECK(s.perfetto()["last_refusal"].str.find("positive trigger_timeout_ms") != std::string::npos);
  }
  CHECK(s.perfetto()["sessions_started"].integer() <= 1);
}

TEST_CASE("devsim perfetto: the text config parser reads the fields the model acts on", "[devsim][perfetto]") {
  std::string err;
  const auto c = parse_perfetto_txt(config(60'000, 1500) + " # a comment\n duration_ms: 0; activate_triggers: \"a\" \"b\"",
                                    "-", &err);
  REQUIRE(c);
  CHECK(err.empty());
  CHECK(c->unique_session_name == "jank_exporter");
  CHECK(c->buffer_kb == std::vector<std::uint32_t>{65536, 2048});
  CHECK(c->trigger_mode == 2);
  CHECK(c->trigger_timeout_ms == 60'000);
  REQUIRE(c->triggers.size() == 1);
  CHECK(c->triggers[0].name == "jank_exporter");
  CHECK(c->triggers[0].stop_delay_ms == 1500);
  CHECK(c->data_sources == std::vector<std::string>{"linux.ftrace", "linux.process_stats"});
  CHECK(c->activate_triggers == std::vector<std::string>{"ab"});
  CHECK_FALSE(parse_perfetto_txt("unique_session_name: \"a\" unique_session_name: \"b\"", "-", &err));
  CHECK(err.find("Saw non-repeating field 'unique_session_name' more than once") != std::string::npos);
}

TEST_CASE("devsim perfetto: trigger_perfetto needs a name and honours max_per_24_h", "[devsim][perfetto]") {
  Sim s;
  const ShellResult none = s.sh("trigger_perfetto");
  CHECK(none.exit == 1);
  CHECK(none.err.find("At least one trigger must be specified.") != std::string::npos);
  const std::string limited = "unique_session_name: \"jank_exporter\" trigger_config { trigger_mode: STOP_TRACING "
                              "trigger_timeout_ms: 60000 triggers { name: \"jank_exporter\" stop_delay_ms: 0 "
                              "max_per_24_h: 1 } }";
  s.arm_pid(limited);
  s.sh("trigger_perfetto other_name jank_exporter");
  s.ms(1000);
  const std::int32_t second = s.arm_pid(limited);
  s.sh("trigger_perfetto jank_exporter");
  s.ms(1000);
  CHECK(s.alive(second));  // over the daily limit: ignored
  const Json p = s.perfetto();
  CHECK(p["trigger_calls"].integer() == 2);
  CHECK(p["triggers_received"].integer() == 1);
}

TEST_CASE("devsim perfetto: fail-pull and hang-pull fault the next cats of the trace", "[devsim][perfetto]") {
  Sim s;
  s.arm_pid(config(3'600'000, 0));
  s.sh("trigger_perfetto jank_exporter");
  s.ms(2000);
  s.dev.perfetto().fail_pulls(2);
  for (int i = 0; i < 2; ++i) {
    const ShellResult r = s.sh("cat " + kPath);
    CHECK(r.exit == 1);
    CHECK(r.out.empty());
    CHECK(r.err == "cat: " + kPath + ": Permission denied\n");
  }
  CHECK(s.sh("cat " + kPath).exit == 0);
  s.dev.perfetto().hang_pulls(true);
  const ShellResult hung = s.sh("cat " + kPath + "; echo after");
  CHECK(hung.hang);
  CHECK(hung.out.empty());
  s.dev.perfetto().hang_pulls(false);
  CHECK_FALSE(s.sh("cat " + kPath).out.empty());
  const Json p = s.perfetto();
  CHECK(p["pulls_failed"].integer() == 2);
  CHECK(p["pulls_hung"].integer() == 1);
  CHECK(p["pulls_served"].integer() == 2);
}

TEST_CASE("devsim perfetto: a reboot ends every session and leaves a partial file", "[devsim][perfetto]") {
  Sim s;
  s.dev.perfetto().set_trace_bytes(4 * 1024 * 1024);
  const std::int32_t pid = s.arm_pid(config(3'600'000, 0));
  const std::int32_t traced = s.dev.perfetto().traced_pid();
  bool refused = true;
  const std::int32_t foreign = s.dev.perfetto().start_foreign(0, "", &refused);
  CHECK_FALSE(refused);
  CHECK(s.sh("pidof perfetto").out == std::to_string(std::min(pid, foreign)) + " " +
                                          std::to_string(std::max(pid, foreign)) + "\n");
  CHECK(s.sh("cat /proc/" + std::to_string(foreign) + "/cmdline").out.find("jank_exporter") == std::string::npos);
  s.sh("trigger_perfetto jank_exporter");
  s.ms(150);
  s.dev.reboot(0);
  CHECK(s.sh("pidof perfetto").exit == 1);
  CHECK(s.dev.perfetto().traced_pid() != traced);
  const Json p = s.perfetto();
  CHECK(p["ended_by_reboot"].integer() == 2);
  REQUIRE(p["traces"].size() == 1);
  CHECK_FALSE(p["traces"][0]["complete"].b);
  const std::uint64_t bytes = p["traces"][0]["bytes"].u64();
  CHECK(bytes > 0);
  CHECK(bytes < 4 * 1024 * 1024);
  const std::string left = s.sh("cat " + kPath).out;
  CHECK(left.size() == bytes);
  CHECK(p["traces"][0]["fnv1a64"].str == jank::rig::fnv1a64_hex(left));
  s.ms(60'000);
  CHECK(s.sh("cat " + kPath).out.size() == bytes);
}

TEST_CASE("devsim perfetto: a foreign session holding our unique name makes our arm refused", "[devsim][perfetto]") {
  Sim s;
  bool refused = true;
  const std::int32_t foreign = s.dev.perfetto().start_foreign(5, "jank_exporter", &refused);
  CHECK_FALSE(refused);
  const std::int32_t ours = s.arm_pid();
  s.ms(100);
  CHECK_FALSE(s.alive(ours));
  CHECK(s.alive(foreign));
  s.ms(10'000);  // its 5 s are over: it writes its own file (no triggers: the data is returned)
  CHECK_FALSE(s.alive(foreign));
  const Json p = s.perfetto();
  CHECK(p["foreign_started"].integer() == 1);
  REQUIRE(p["traces"].size() == 1);
  CHECK(p["traces"][0]["foreign"].b);
  CHECK(p["traces"][0]["how"].str == "duration");
  CHECK(s.sh("cat " + p["traces"][0]["path"].str).out.size() == p["traces"][0]["size"].u64());
}

TEST_CASE("devsim perfetto: the trigger time is taken on the host clock at the trigger", "[devsim][perfetto]") {
  Sim s;
  s.arm_pid(config(3'600'000, 1000));
  const std::int64_t host_ms = s.clock.wall_ns() / kMs;
  s.sh("trigger_perfetto jank_exporter");
  s.dev.clock_step(3600LL * 1'000'000'000);  // the device's clock jumps during the stop delay
  s.ms(5000);
  const Json t = s.perfetto()["traces"][0];
  CHECK(t["triggered_at_ms"].integer() == host_ms);
  CHECK(t["device_triggered_at_ms"].integer() == host_ms);
  CHECK(t["stopped_at_ms"].integer() == host_ms + 1000);
}

// Perfetto on a simulated device (Android 10+): the `perfetto` command line
// client's background sessions, traced's trigger, timeout and uniqueness
// rules, `trigger_perfetto`, and the trace files the sessions write into
// /data/misc/perfetto-traces. A pure state machine on the device's monotonic
// clock (it advances with the Device); devsim/shell.cc turns shell commands
// into calls here. See docs/devsim.md ("Perfetto") for what is modelled.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace jank::devsim {

class Device;
struct TraceFile;

inline constexpr std::string_view kPerfettoTraceDir = "/data/misc/perfetto-traces/";

// The part of a TraceConfig the model acts on; the parser checks the syntax
// of everything and the field names of the messages below.
struct PerfettoTriggerSpec {
  std::string name;
  std::uint32_t stop_delay_ms = 0;
  std::uint32_t max_per_24_h = 0;  // 0: no limit
};
struct PerfettoConfig {
  std::string unique_session_name;
  std::vector<std::uint32_t> buffer_kb;
  std::uint32_t trigger_mode = 0;  // TriggerConfig.TriggerMode: 1 START, 2 STOP, 4 CLONE_SNAPSHOT
  std::uint32_t trigger_timeout_ms = 0;
  std::vector<PerfettoTriggerSpec> triggers;
  std::vector<std::string> data_sources;  // DataSourceConfig.name, in order
  std::uint32_t duration_ms = 0;
  bool write_into_file = false;
  std::vector<std::string> activate_triggers;
};

// Reads a text config as `perfetto --txt` does (its grammar: `key: value`,
// `key { … }`, `#` comments, `;` separators, double-quoted strings). On a
// syntax error, an unknown field of a message the model knows, or a value of
// the wrong type, returns nothing and sets *err to what perfetto prints
// (`FILE:ROW:COL error: …`, the line, a caret guide).
std::optional<PerfettoConfig> parse_perfetto_txt(std::string_view text, std::string_view file_name, std::string* err);

// A trace file's bytes: generated from a key on demand, never stored, so a
// trace of hundreds of MiB costs no memory. A stream of TracePacket fields
// (tag 0x0a, a two-byte length, a payload starting 0x00 0xff, then
// pseudo-random bytes): binary, with NUL and 0xff in every packet.
class TraceBytes {
 public:
  TraceBytes() = default;
  TraceBytes(std::uint64_t key, std::uint64_t size) : key_(key), size_(size) {}
  std::uint64_t key() const { return key_; }
  std::uint64_t size() const { return size_; }
  // Bytes [offset, offset + n) (clipped to the size).
  std::string slice(std::uint64_t offset, std::size_t n) const;
  // FNV-1a (64-bit) of the first `len` bytes.
  std::uint64_t fnv1a64(std::uint64_t len) const;

 private:
  std::uint64_t key_ = 0, size_ = 0;
};

// What `cat` of a path in the trace directory gets.
struct TraceRead {
  enum class Kind : std::uint8_t { missing, denied, hang, data } kind = Kind::missing;
  TraceBytes content;
  std::uint64_t length = 0;  // bytes in the file now (a file being written is short)
};

struct PerfettoRun {
  std::string out, err;
  int exit = 0;
};

class Perfetto {
 public:
  explicit Perfetto(Device& dev);
  Perfetto(const Perfetto&) = delete;
  Perfetto& operator=(const Perfetto&) = delete;

  // `perfetto ARGS…` (argv[0] included), `stdin_text`: what a pipe feeds it.
  PerfettoRun run_perfetto(const std::vector<std::string>& argv, const std::string* stdin_text);
  // `trigger_perfetto NAME…` (argv[0] included).
  PerfettoRun trigger_perfetto(const std::vector<std::string>& argv);
  // Sends signal `sig` (0: only checks) to a perfetto process. 0, or the
  // errno kill(2) gives the shell: ESRCH (no such process).
  int signal(std::int32_t pid, int sig);
  bool is_process(std::int32_t pid) const;
  // Live perfetto processes, ascending.
  std::vector<std::int32_t> pids() const;
  // /proc/PID/cmdline of a live perfetto process (argv, each ended by NUL).
  std::optional<std::string> cmdline(std::int32_t pid) const;
  std::int32_t traced_pid() const { return traced_pid_; }
  std::int32_t traced_probes_pid() const { return traced_probes_pid_; }

  // The trace directory (a file is an inode: `rm` unlinks the name, a
  // session keeps writing into the file it opened).
  bool file_exists(std::string_view path) const;
  bool remove_file(std::string_view path);
  // `cat PATH`: applies the pull faults and counts what was served.
  TraceRead cat(std::string_view path);

  // The device (re)started at `now` (device monotonic ns): traced's pids,
  // if init starts traced (persist.traced.enable=1).
  void boot(std::int64_t now);
  // persist.traced.enable was set: init's perfetto.rc triggers (`1`: mkdir
  // the trace directory, start traced; `0`: stop it).
  void traced_property_set(std::string_view value);
  // init runs traced (Android 10+, persist.traced.enable=1).
  bool traced_running() const { return traced_pid_ != 0; }
  // Runs sessions up to `now`.
  void advance(std::int64_t now);
  // The device reboots, its clock starting again at `now`: every process
  // dies where it stands (a file being written stays partial).
  void reboot(std::int64_t now);

  // Control channel.
  void fail_pulls(std::uint32_t n) { fail_pulls_ = n; }
  void hang_pulls(bool on) { hang_pulls_ = on; }
  // Size of the traces written from now on (0: the default, a few tens of
  // KiB, at most the config's buffers).
  void set_trace_bytes(std::uint64_t n) { trace_bytes_ = n; }
  // How fast a stopped session writes its file (0: the default).
  void set_write_speed(std::uint64_t bytes_per_s);
  // Starts a perfetto process of another tool: tracing for `seconds` (<= 0:
  // until killed or a reboot; then it writes its own file), with this
  // unique_session_name (empty: none). Returns its pid; *refused when the
  // service refused it.
  std::int32_t start_foreign(double seconds, const std::string& unique_name, bool* refused);
  // Ends every session of ours (not foreign) now as its trigger timeout
  // would: untriggered ones end without data. Returns how many ended.
  std::size_t end_ours();
  nlohmann::ordered_json truth() const;  // the truth's "perfetto" object

 private:
  enum class State : std::uint8_t { refused, tracing, writing, ending };
  struct Process {
    std::int32_t pid = 0;
    std::uint64_t session = 0;
    bool foreign = false;
    std::string cmdline;
    std::string path;
    PerfettoConfig cfg;
    std::shared_ptr<TraceFile> file;
    State state = State::tracing;
    std::int64_t stop_at = INT64_MAX;     // stop and write the buffers (trigger delay, duration)
    std::int64_t timeout_at = INT64_MAX;  // trigger_timeout_ms: stop without data unless triggered
    std::int64_t exit_at = INT64_MAX;
    bool triggered = false;
    std::string trigger;
    std::int64_t trigger_host_ms = 0, trigger_device_ms = 0;  // wall clocks at the trigger
    int sigterms = 0;
  };
  struct TraceRecord {
    std::uint64_t id = 0, session = 0;
    std::int32_t pid = 0;
    bool foreign = false;
    std::string path, how, trigger;
    std::int64_t triggered_host_ms = 0, triggered_device_ms = 0, stopped_host_ms = 0;
    std::shared_ptr<TraceFile> file;
    bool complete = false;
    std::uint64_t pulls = 0;  // cats that got the whole file
    mutable std::uint64_t fnv_len = UINT64_MAX, fnv = 0;  // the checksum, computed when the truth asks
  };

  std::int32_t new_pid();
  std::uint64_t next_trace_size(const Process& p);
  std::string refusal(const PerfettoConfig& cfg) const;
  void trigger(const std::string& name);
  void write_out(Process& p, const std::string& how);  // stop: the buffers go into the file
  void end_empty(Process& p);                           // stop without data
  void die(Process& p);                                 // gone at once (SIGKILL, reboot): the file stays as it is
  void exit_process(std::map<std::int32_t, Process>::iterator it);
  TraceRecord* record_of(const std::shared_ptr<TraceFile>& f);
  std::int64_t host_ms(std::int64_t mono) const;
  std::int64_t device_ms(std::int64_t mono) const;
  // A line of perfetto's stderr log, as printed from FILE:LINE now.
  std::string log_line(const char* file, int line, const std::string& msg) const;

  Device& dev_;
  std::mt19937_64 rng_;  // pids and keys only, so that the device's other draws stay as they were
  std::int64_t now_ = 0;
  std::int32_t traced_pid_ = 0, traced_probes_pid_ = 0;
  bool trace_dir_ = false;  // /data/misc/perfetto-traces exists (made by init, kept on /data)
  std::int32_t next_pid_ = 0;
  std::uint64_t sessions_ = 0;
  std::map<std::int32_t, Process> procs_;
  std::map<std::string, std::shared_ptr<TraceFile>, std::less<>> files_;
  std::map<std::string, std::deque<std::int64_t>, std::less<>> trigger_history_;  // activations per name
  std::deque<TraceRecord> traces_;  // the newest kMaxRecords
  std::uint64_t traces_written_ = 0;
  std::uint32_t fail_pulls_ = 0;
  bool hang_pulls_ = false;
  std::uint64_t trace_bytes_ = 0;
  std::uint64_t write_speed_;
  struct Counts {
    std::uint64_t started = 0, foreign = 0, refused = 0, expired = 0, killed = 0, sigkilled = 0, ended = 0, rebooted = 0;
    std::uint64_t trigger_calls = 0, triggers_received = 0;
    std::uint64_t pulls_served = 0, pulls_partial = 0, pulls_failed = 0, pulls_hung = 0, pulls_missing = 0;
    std::uint64_t bytes_served = 0;
  } n_;
  std::string last_refusal_;
};

}  // namespace jank::devsim

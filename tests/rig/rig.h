// Test rig: a private real adb server, the device simulator, and the adb host
// protocol spoken directly over a socket. Every wait has a deadline; every
// process is ended by its pid (SIGTERM, then SIGKILL), never by name.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/rig/json.h"

namespace jank::rig {

using ms = std::chrono::milliseconds;
using namespace std::chrono_literals;

struct RunResult {
  int exit = -1;           // exit status, or 128+signal
  bool timed_out = false;  // killed at the deadline
  std::string out, err;
};

// Runs argv (PATH lookup) with `env` entries ("K=V" sets, "K" unsets), stdin from /dev/null.
RunResult run(const std::vector<std::string>& argv, const std::vector<std::string>& env, ms timeout);

// Polls pred every `step` until it holds or the deadline passes.
template <typename Pred>
bool wait_until(Pred&& pred, ms timeout, ms step = 50ms);

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "jank-rig");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class ChildProcess {
 public:
  ChildProcess() = default;
  // stdout and stderr go to log_path.
  ChildProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
               const std::string& log_path);
  ~ChildProcess() { stop(); }
  ChildProcess(ChildProcess&& o) noexcept : pid_(o.pid_), status_(o.status_) { o.pid_ = -1; }
  ChildProcess& operator=(ChildProcess&& o) noexcept {
    if (this != &o) {
      stop();
      pid_ = o.pid_;
      status_ = o.status_;
      o.pid_ = -1;
    }
    return *this;
  }
  pid_t pid() const { return pid_; }
  bool alive();
  // SIGTERM, wait up to `grace`, then SIGKILL. Returns the wait status (-1 if none).
  int stop(ms grace = 3000ms);

 private:
  pid_t pid_ = -1;
  int status_ = -1;
};

// A free loopback TCP port (bound then released: a small race is accepted).
std::uint16_t free_port();
std::string read_file(const std::string& path);

// CPU time (user + system) and memory of a live process, from /proc.
struct ProcessUsage {
  double cpu_seconds = 0;
  long rss_kib = 0;  // VmRSS
  long hwm_kib = 0;  // VmHWM: peak RSS so far
};
ProcessUsage process_usage(pid_t pid);

struct HostReply {
  bool ok = false;     // OKAY
  bool eof = false;    // connection closed without a status
  std::string text;    // payload (OKAY) or message (FAIL)
};
// One adb host request on a fresh connection: 4 hex digits + payload, then OKAY/FAIL.
// `payload`: the OKAY is followed by hex4 + text (host:version, devices, connect …).
HostReply host_request(std::uint16_t port, const std::string& request, bool payload, ms timeout = 10000ms);

class AdbServer {
 public:
  AdbServer();  // starts `adb -P <free port> nodaemon server`, waits for host:version
  ~AdbServer();
  std::uint16_t port() const { return port_; }
  const std::string& home() const { return home_.path(); }
  std::vector<std::string> env() const;
  // The real adb client against this server: adb -P PORT ARGS…
  RunResult adb(const std::vector<std::string>& args, ms timeout = 20000ms) const;
  // The same client left running (a streaming logcat), its stdout and stderr
  // written to `output_path` as they come, so a test can wait on what arrived.
  ChildProcess adb_background(const std::vector<std::string>& args, const std::string& output_path) const;
  std::string connect(const std::string& host_port) const;  // host:connect reply text
  void emulator(std::uint16_t port) const;                   // host:emulator:PORT
  std::map<std::string, std::string> devices() const;        // serial → state (host:devices)
  // Waits until `serial` has `state` ("" = absent from the list).
  bool wait_state(const std::string& serial, const std::string& state, ms timeout) const;
  std::string log() const;
  pid_t pid() const { return proc_.pid(); }
  // A crash: SIGKILL, nothing answers on the port until restart().
  void kill();
  // A new server on the same port (and HOME); its device list starts empty.
  void restart();

 private:
  bool start_on_port();
  TempDir home_;
  TempDir tmp_;
  std::uint16_t port_ = 0;
  ChildProcess proc_;
};

struct SimDeviceInfo {
  std::string name;
  std::uint16_t port = 0;
  std::string model;
};

// The serial the adb server gives a device attached as an emulator on its
// adb port (the console port, one below).
inline std::string emulator_serial(std::uint16_t port) { return "emulator-" + std::to_string(port - 1); }
inline std::string emulator_serial(const SimDeviceInfo& d) { return emulator_serial(d.port); }

class DevSim {
 public:
  explicit DevSim(const std::vector<std::string>& args);  // waits for the ready file
  ~DevSim();
  const std::vector<SimDeviceInfo>& devices() const { return devices_; }
  std::uint16_t control_port() const { return control_; }
  // One control command; returns the reply line ("OK …" / "ERR …").
  std::string control(const std::string& line, ms timeout = 10000ms);
  // The ground truth of all devices (the JSON after "OK ").
  Json truth();
  // The entry of device `dev` in a truth document, or null.
  static const Json* device(const Json& truth, const std::string& dev);
  // The app entry of `package` on device `dev` in a truth document.
  static const Json* app(const Json& truth, const std::string& dev, const std::string& package);
  // Device faults (docs/devsim.md, control channel); each returns the reply line.
  std::string clock_step(const std::string& dev, double seconds);
  std::string clock_glitch(const std::string& dev, double seconds);
  std::string logd_restart(const std::string& dev);
  std::string reboot(const std::string& dev, double away_seconds = 3, double clock_offset_seconds = 0);
  std::string slow(const std::string& dev, double seconds);
  // The reader went back to a checkpoint: buffer name → logd index (Total
  // when its last counted entry was written), e.g. {{"main", 1234}, {"system", 567}}.
  std::string reader_rollback(const std::string& dev, const std::map<std::string, std::uint64_t>& read_upto);
  std::string log() const;
  pid_t pid() const { return proc_.pid(); }

 private:
  std::string drop_control(std::string error);

  TempDir dir_;
  ChildProcess proc_;
  std::vector<SimDeviceInfo> devices_;
  std::uint16_t control_ = 0;
  int control_fd_ = -1;
  std::string control_buf_;
};

// Paths of the programs under test (compile-time defaults, overridable by
// $JANK_DEVSIM and $JANK_ADB).
std::string devsim_program();
std::string adb_program();

template <typename Pred>
bool wait_until(Pred&& pred, ms timeout, ms step) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (pred()) return true;
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(step);
  }
}

}  // namespace jank::rig

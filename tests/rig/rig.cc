#include "tests/rig/rig.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#ifndef JANK_DEVSIM_PROGRAM
#define JANK_DEVSIM_PROGRAM "jank_devsim"
#endif
#ifndef JANK_ADB_PROGRAM
#define JANK_ADB_PROGRAM "adb"
#endif

namespace jank::rig {
namespace {

using steady = std::chrono::steady_clock;

// Writing to a socket the peer closed must fail, not kill the test.
const bool kSigpipeIgnored = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();

int ms_left(steady::time_point end) {
  auto d = std::chrono::duration_cast<ms>(end - steady::now()).count();
  return d < 0 ? 0 : static_cast<int>(d);
}

[[noreturn]] void exec_child(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  for (const auto& kv : env) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos) unsetenv(kv.c_str());  // a bare name removes the variable
    else setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), 1);
  }
  std::vector<char*> a;
  for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  execvp(a[0], a.data());
  std::fprintf(stderr, "exec %s: %s\n", a[0], std::strerror(errno));
  _exit(127);
}

int decode_status(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return -1;
}

int connect_loopback(std::uint16_t port, ms timeout) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{static_cast<time_t>(timeout.count() / 1000), static_cast<suseconds_t>(timeout.count() % 1000 * 1000)};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

bool write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    ssize_t n = send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<std::size_t>(n);
  }
  return true;
}

// Reads exactly n bytes before the deadline. False on EOF or timeout.
bool read_exact(int fd, std::size_t n, std::string& out, steady::time_point end, bool* eof = nullptr) {
  out.clear();
  while (out.size() < n) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, ms_left(end)) <= 0) return false;
    char buf[4096];
    ssize_t r = recv(fd, buf, std::min(sizeof buf, n - out.size()), 0);
    if (r <= 0) {
      if (eof) *eof = true;
      return false;
    }
    out.append(buf, static_cast<std::size_t>(r));
  }
  return true;
}

}  // namespace

std::string devsim_program() {
  const char* e = std::getenv("JANK_DEVSIM");
  return e && *e ? e : JANK_DEVSIM_PROGRAM;
}
std::string adb_program() {
  const char* e = std::getenv("JANK_ADB");
  return e && *e ? e : JANK_ADB_PROGRAM;
}

RunResult run(const std::vector<std::string>& argv, const std::vector<std::string>& env, ms timeout) {
  RunResult r;
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork");
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    exec_child(argv, env);
  }
  close(out[1]);
  close(err[1]);
  const auto end = steady::now() + timeout;
  bool open_out = true, open_err = true;
  while (open_out || open_err) {
    pollfd p[2] = {{open_out ? out[0] : -1, POLLIN, 0}, {open_err ? err[0] : -1, POLLIN, 0}};
    int n = poll(p, 2, ms_left(end));
    if (n == 0) {
      if (!r.timed_out) {
        r.timed_out = true;
        kill(pid, SIGKILL);
      }
      break;  // grandchildren might hold the pipes: stop reading
    }
    if (n < 0 && errno == EINTR) continue;
    for (int i = 0; i < 2; ++i) {
      if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      ssize_t k = read(p[i].fd, buf, sizeof buf);
      if (k <= 0) {
        (i == 0 ? open_out : open_err) = false;
      } else {
        (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(k));
      }
    }
  }
  close(out[0]);
  close(err[0]);
  int st = 0;
  // The process closed its pipes; give it a moment to exit, then insist.
  if (!wait_until([&] { return waitpid(pid, &st, WNOHANG) == pid; }, 3000ms, 5ms)) {
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    r.timed_out = true;
  }
  r.exit = decode_status(st);
  return r;
}

TempDir::TempDir(const std::string& prefix) {
  std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                           const std::string& log_path) {
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork");
  if (pid_ == 0) {
    int devnull = open("/dev/null", O_RDONLY);
    int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(devnull, 0);
    dup2(log, 1);
    dup2(log, 2);
    exec_child(argv, env);
  }
}

bool ChildProcess::alive() {
  if (pid_ <= 0) return false;
  int st = 0;
  if (waitpid(pid_, &st, WNOHANG) == pid_) {
    status_ = st;
    pid_ = -1;
    return false;
  }
  return true;
}

int ChildProcess::stop(ms grace) {
  if (pid_ <= 0) return status_;
  kill(pid_, SIGTERM);
  int st = 0;
  if (!wait_until([&] { return waitpid(pid_, &st, WNOHANG) == pid_; }, grace, 10ms)) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &st, 0);
  }
  status_ = st;
  pid_ = -1;
  return status_;
}

std::uint16_t free_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw std::runtime_error("bind");
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

ProcessUsage process_usage(pid_t pid) {
  ProcessUsage u;
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  // Fields after the command name (which may hold spaces): state is field 3,
  // utime and stime are fields 14 and 15.
  const auto paren = stat.rfind(')');
  if (paren != std::string::npos && paren + 2 < stat.size()) {
    std::istringstream in(stat.substr(paren + 2));
    std::string field;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && in >> field; ++i) {
      if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
      if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
    }
    u.cpu_seconds = static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }
  std::istringstream status(read_file("/proc/" + std::to_string(pid) + "/status"));
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) u.rss_kib = std::strtol(line.c_str() + 6, nullptr, 10);
    if (line.rfind("VmHWM:", 0) == 0) u.hwm_kib = std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return u;
}

HostReply host_request(std::uint16_t port, const std::string& request, bool payload, ms timeout) {
  HostReply r;
  const auto end = steady::now() + timeout;
  int fd = connect_loopback(port, timeout);
  if (fd < 0) {
    r.eof = true;
    return r;
  }
  char hdr[5];
  std::snprintf(hdr, sizeof hdr, "%04zx", request.size());
  std::string status, len, body;
  if (write_all(fd, hdr + request) && read_exact(fd, 4, status, end, &r.eof)) {
    r.ok = status == "OKAY";
    if ((!r.ok || payload) && read_exact(fd, 4, len, end)) {
      const auto n = std::strtoul(len.c_str(), nullptr, 16);
      if (read_exact(fd, n, body, end)) r.text = body;
    }
  } else {
    r.eof = true;
  }
  close(fd);
  return r;
}

AdbServer::AdbServer() : home_("jank-adb-home"), tmp_("jank-adb-tmp") {
  // A few attempts: the free port may be taken between probe and bind.
  for (int attempt = 0; attempt < 3; ++attempt) {
    port_ = free_port();
    if (start_on_port()) return;
  }
  throw std::runtime_error("adb server did not answer host:version; log:\n" + log());
}

bool AdbServer::start_on_port() {
  ChildProcess p({adb_program(), "-P", std::to_string(port_), "nodaemon", "server"}, env(),
                 home_.path() + "/adb-server.log");
  const bool up = wait_until(
      [&] {
        HostReply v = host_request(port_, "host:version", true, 1000ms);
        return v.ok && !v.text.empty();
      },
      10000ms, 50ms);
  if (up) {
    proc_ = std::move(p);
    return true;
  }
  p.stop();
  return false;
}

void AdbServer::kill() {
  if (proc_.pid() > 0) ::kill(proc_.pid(), SIGKILL);
  proc_.stop(1000ms);
}

void AdbServer::restart() {
  kill();
  // The port may linger for a moment; another process taking it fails the test.
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (start_on_port()) return;
    std::this_thread::sleep_for(500ms);
  }
  throw std::runtime_error("adb server did not come back on port " + std::to_string(port_) + "; log:\n" + log());
}

AdbServer::~AdbServer() { proc_.stop(); }

std::vector<std::string> AdbServer::env() const {
  // Own HOME (keys) and TMPDIR; no start-up port scan that could steal other tests' devices.
  return {"HOME=" + home_.path(), "TMPDIR=" + tmp_.path(), "ADB_LOCAL_TRANSPORT_MAX_PORT=5000",
          "ANDROID_SERIAL", "ADB_SERVER_SOCKET", "ADB_TRACE", "ANDROID_ADB_SERVER_PORT=" + std::to_string(port_)};
}

RunResult AdbServer::adb(const std::vector<std::string>& args, ms timeout) const {
  std::vector<std::string> argv = {adb_program(), "-P", std::to_string(port_)};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, env(), timeout);
}

ChildProcess AdbServer::adb_background(const std::vector<std::string>& args, const std::string& output_path) const {
  std::vector<std::string> argv = {adb_program(), "-P", std::to_string(port_)};
  argv.insert(argv.end(), args.begin(), args.end());
  return ChildProcess(argv, env(), output_path);
}

std::string AdbServer::connect(const std::string& host_port) const {
  HostReply r = host_request(port_, "host:connect:" + host_port, true, 15000ms);
  return r.text;
}

void AdbServer::emulator(std::uint16_t port) const {
  host_request(port_, "host:emulator:" + std::to_string(port), false, 2000ms);
}

std::map<std::string, std::string> AdbServer::devices() const {
  std::map<std::string, std::string> m;
  HostReply r = host_request(port_, "host:devices", true, 5000ms);
  std::istringstream in(r.text);
  for (std::string line; std::getline(in, line);) {
    const auto tab = line.find('\t');
    if (tab != std::string::npos) m[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return m;
}

bool AdbServer::wait_state(const std::string& serial, const std::string& state, ms timeout) const {
  return wait_until(
      [&] {
        auto d = devices();
        auto it = d.find(serial);
        return state.empty() ? it == d.end() : (it != d.end() && it->second == state);
      },
      timeout, 100ms);
}

std::string AdbServer::log() const { return read_file(home_.path() + "/adb-server.log"); }

DevSim::DevSim(const std::vector<std::string>& args) : dir_("jank-devsim") {
  const std::string ready = dir_.path() + "/ready.json";
  std::vector<std::string> argv = {devsim_program(), "--ready-file", ready};
  argv.insert(argv.end(), args.begin(), args.end());
  proc_ = ChildProcess(argv, {}, dir_.path() + "/devsim.log");
  std::optional<Json> j;
  wait_until(
      [&] {
        if (!proc_.alive()) return true;
        j = parse_json(read_file(ready));
        return j.has_value();
      },
      15000ms, 20ms);
  if (!j) throw std::runtime_error("jank_devsim did not write its ready file; log:\n" + log());
  control_ = static_cast<std::uint16_t>((*j)["control"].integer());
  for (const Json& d : (*j)["devices"].arr) {
    devices_.push_back({d["name"].str, static_cast<std::uint16_t>(d["port"].integer()), d["model"].str});
  }
}

DevSim::~DevSim() {
  if (control_fd_ >= 0) close(control_fd_);
  proc_.stop();
}

// A reply that comes after its command gave up would be read as the next
// command's: start the next command on a new connection instead.
// A dead simulator says why in its log: the tail goes into the error.
std::string DevSim::drop_control(std::string error) {
  close(control_fd_);
  control_fd_ = -1;
  control_buf_.clear();
  if (wait_until([&] { return !proc_.alive(); }, 500ms, 20ms)) {
    const std::string l = log();
    error += "; jank_devsim is gone, its log ends:\n" + l.substr(l.size() > 4000 ? l.size() - 4000 : 0);
  }
  return error;
}

std::string DevSim::control(const std::string& line, ms timeout) {
  const auto end = steady::now() + timeout;
  if (control_fd_ < 0) control_fd_ = connect_loopback(control_, timeout);
  if (control_fd_ < 0 || !write_all(control_fd_, line + "\n")) return "ERR control channel down";
  for (;;) {
    const auto nl = control_buf_.find('\n');
    if (nl != std::string::npos) {
      std::string reply = control_buf_.substr(0, nl);
      control_buf_.erase(0, nl + 1);
      return reply;
    }
    pollfd p{control_fd_, POLLIN, 0};
    if (poll(&p, 1, ms_left(end)) <= 0) return drop_control("ERR control timeout after " + line);
    char buf[65536];
    ssize_t n = recv(control_fd_, buf, sizeof buf, 0);
    if (n <= 0) return drop_control("ERR control channel closed");
    control_buf_.append(buf, static_cast<std::size_t>(n));
  }
}

Json DevSim::truth() {
  const std::string r = control("truth");
  if (r.rfind("OK ", 0) != 0) throw std::runtime_error("truth: " + r);
  auto j = parse_json(r.substr(3));
  if (!j) throw std::runtime_error("truth: bad JSON");
  return *j;
}

const Json* DevSim::device(const Json& truth, const std::string& dev) {
  for (const Json& d : truth["devices"].arr) {
    if (d["name"].str == dev) return &d;
  }
  return nullptr;
}

const Json* DevSim::app(const Json& truth, const std::string& dev, const std::string& package) {
  const Json* d = device(truth, dev);
  if (d == nullptr) return nullptr;
  for (const Json& a : (*d)["apps"].arr) {
    if (a["package"].str == package) return &a;
  }
  return nullptr;
}

namespace {
// Seconds as the control channel reads them (sign and fraction kept).
std::string seconds_text(double s) {
  char b[48];
  std::snprintf(b, sizeof b, "%.9g", s);
  return b;
}
}  // namespace

std::string DevSim::clock_step(const std::string& dev, double seconds) {
  return control("clock " + dev + " step " + seconds_text(seconds));
}

std::string DevSim::clock_glitch(const std::string& dev, double seconds) {
  return control("clock " + dev + " glitch " + seconds_text(seconds));
}

std::string DevSim::logd_restart(const std::string& dev) { return control("logd-restart " + dev); }

std::string DevSim::reboot(const std::string& dev, double away_seconds, double clock_offset_seconds) {
  return control("reboot " + dev + " " + seconds_text(away_seconds) + " " + seconds_text(clock_offset_seconds));
}

std::string DevSim::slow(const std::string& dev, double seconds) {
  return control("slow " + dev + " " + seconds_text(seconds));
}

std::string DevSim::reader_rollback(const std::string& dev, const std::map<std::string, std::uint64_t>& read_upto) {
  std::string line = "reader " + dev;
  for (const auto& [buffer, index] : read_upto) line += " " + buffer + "=" + std::to_string(index);
  return control(line);
}

std::string DevSim::log() const { return read_file(dir_.path() + "/devsim.log"); }

}  // namespace jank::rig

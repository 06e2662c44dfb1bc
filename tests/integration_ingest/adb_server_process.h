// A private instance of Debian's real adb server for tests: its own port, HOME
// and TMPDIR, no port scan; stopped by pid (SIGTERM, then SIGKILL).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/asio.hpp>

#include "ingest/client.h"

extern char** environ;

namespace jank::ingest::testing {

inline std::uint16_t free_tcp_port() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor probe(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return probe.local_endpoint().port();
}

class AdbServerProcess {
 public:
  explicit AdbServerProcess(std::uint16_t port = 0) : port_(port == 0 ? free_tcp_port() : port) {
    std::string templ = (std::filesystem::temp_directory_path() / "jank-adb-XXXXXX").string();
    if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = templ;
    std::filesystem::create_directories(dir_ / "home");
    std::filesystem::create_directories(dir_ / "tmp");
    spawn();
    wait_ready();
  }
  ~AdbServerProcess() {
    stop();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  AdbServerProcess(const AdbServerProcess&) = delete;
  AdbServerProcess& operator=(const AdbServerProcess&) = delete;

  AdbEndpoint endpoint() const { return {"127.0.0.1", port_}; }
  std::uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }

  // Sends `sig` and reaps the process; after `grace`, SIGKILL.
  void stop(int sig = SIGTERM, std::chrono::milliseconds grace = std::chrono::seconds(5)) {
    if (pid_ <= 0) return;
    ::kill(pid_, sig);
    auto deadline = std::chrono::steady_clock::now() + grace;
    while (true) {
      int status = 0;
      pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_ || (r < 0 && errno == ECHILD)) break;
      if (std::chrono::steady_clock::now() >= deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      ::usleep(10000);
    }
    pid_ = -1;
  }

  std::string log() const {
    std::ifstream in(dir_ / "server.log");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  void spawn() {
    std::vector<std::string> env = {"HOME=" + (dir_ / "home").string(), "TMPDIR=" + (dir_ / "tmp").string(),
                                    "ADB_LOCAL_TRANSPORT_MAX_PORT=5000"};
    if (const char* path = std::getenv("PATH")) env.push_back(std::string("PATH=") + path);
    std::vector<char*> envp;
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string program = JANK_ADB_PROGRAM;
    std::string port = std::to_string(port_);
    std::vector<std::string> args = {program, "-P", port, "nodaemon", "server"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    std::string log_path = (dir_ / "server.log").string();
    posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    int rc = posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot start " + program + ": " + std::strerror(rc));
  }

  // host:version answered, within a deadline.
  void wait_ready() {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    boost::asio::io_context io;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("adb server exited at start:\n" + log());
      }
      bool done = false;
      bool ok = false;
      query(io, endpoint(), "host:version", std::chrono::steady_clock::now() + std::chrono::milliseconds(500),
            [&](AdbError e, std::string payload) {
              done = true;
              ok = !e && payload == "0029";
            });
      io.restart();
      while (!done) io.run_one();
      if (ok) return;
      ::usleep(50000);
    }
    stop(SIGKILL);
    throw std::runtime_error("adb server did not answer host:version in 10 s:\n" + log());
  }

  std::uint16_t port_;
  std::filesystem::path dir_;
  pid_t pid_ = -1;
};

}  // namespace jank::ingest::testing

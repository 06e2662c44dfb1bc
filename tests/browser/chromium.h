// Headless Chromium for the browser tests: where it is (skip with exit 77
// when it is not), a child process with a deadline whose whole process group
// is killed, the common flags, and the console lines of its log.
#pragma once

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/browser/html_scan.h"

namespace jank::test {

inline std::string chromium() {
  const char* env = std::getenv("JANK_CHROMIUM");
  return env && *env ? env : JANK_CHROMIUM_PROGRAM;
}

// ctest reads exit status 77 as "skipped" (SKIP_RETURN_CODE).
inline void require_chromium() {
  const std::string path = chromium();
  if (path.empty() || ::access(path.c_str(), X_OK) != 0) {
    std::cout << "SKIPPED: no Chromium at '" << path
              << "' (scripts/deps installs Debian's chromium; JANK_CHROMIUM names another)\n";
    std::exit(77);
  }
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Result {
  int status = -1;
  std::string out, err;
};

// Runs argv with its output in files and a deadline; the whole process group
// (Chromium's helpers too) is killed when it is missed.
inline Result run(const std::vector<std::string>& argv, const std::filesystem::path& dir, int timeout_seconds = 60) {
  const std::filesystem::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(o, 1);
    ::dup2(e, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  Result r;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL(argv[0] << " took longer than " << timeout_seconds << " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(-pid, SIGKILL);  // helpers left behind, if any
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

inline std::vector<std::string> chromium_args(const std::filesystem::path& dir) {
  return {chromium(), "--headless=new", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
          "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
          "--user-data-dir=" + (dir / "profile").string(), "--enable-logging=stderr", "--v=0"};
}

// The same with JavaScript blocked by the profile's content setting (what a
// reader who turned it off has). Not --blink-settings=scriptEnabled=false:
// that also stops --dump-dom, which reads the DOM through script.
inline std::vector<std::string> chromium_args_without_javascript(const std::filesystem::path& dir) {
  const std::filesystem::path profile = dir / "profile-nojs";
  std::filesystem::create_directories(profile / "Default");
  std::ofstream(profile / "Default" / "Preferences") << R"({"profile":{"default_content_setting_values":{"javascript":2}}})";
  auto args = chromium_args(dir);
  for (auto& a : args) {
    if (a.starts_with("--user-data-dir=")) a = "--user-data-dir=" + profile.string();
  }
  return args;
}

// Chromium logs every console message (console.error and uncaught errors
// alike) as ":CONSOLE"; the pages write none when all is well.
inline std::vector<std::string> console_lines(const std::string& err) {
  std::vector<std::string> out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.find(":CONSOLE") != std::string::npos) out.push_back(line);
  }
  return out;
}

// A scratch directory for one test case (Chromium's profile, pages,
// screenshots), emptied first and removed at the end.
struct Scratch {
  std::filesystem::path dir;
  explicit Scratch(const std::string& prefix) {
    dir = std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

// A page as Chromium left it: the serialised DOM, its tags, the console lines.
struct Dom {
  std::string text;
  std::vector<Tag> tags;
  std::vector<std::string> console;
  Tag html;
};

// The DOM of `url` once its scripts ran; `argv` is Chromium with its flags
// (chromium_args, or without JavaScript, plus any of the test's own, such
// as --virtual-time-budget so that timers and fetches have run).
inline Dom dump_dom(std::vector<std::string> argv, const std::string& url, const std::filesystem::path& dir) {
  argv.push_back("--dump-dom");
  argv.push_back(url);
  const Result r = run(argv, dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  Dom dom;
  dom.text = r.out;
  dom.tags = scan_tags(r.out);
  dom.console = console_lines(r.err);
  REQUIRE(!dom.tags.empty());
  for (const auto& t : dom.tags) {
    if (t.name == "html") dom.html = t;
  }
  return dom;
}

}  // namespace jank::test

// Shared pieces of the hostile-input tests: a well-behaved scripted device
// whose parts each test replaces, logcat lines in the daemon's layout, and the
// exporter's memory from /proc.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>

#include "tests/daemon/exporter_process.h"
#include "tests/hostile/fake_adb.h"

namespace jank::hostile {

using namespace std::chrono_literals;

// kB of VmRSS / VmHWM of a process; -1 when unreadable.
inline long proc_status_kb(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + ":", 0) == 0) return std::stol(line.substr(key.size() + 1));
  }
  return -1;
}

// One logcat line as `logcat -v threadtime -v epoch -v usec` prints it, stamped now.
inline std::string log_line(int pid, char prio, const std::string& tag, const std::string& message) {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::system_clock::now().time_since_epoch()).count();
  char head[96];
  std::snprintf(head, sizeof head, "%19lld.%06lld %5d %5d %c ", static_cast<long long>(us / 1'000'000),
                static_cast<long long>(us % 1'000'000), pid, pid, prio);
  return head + tag + ": " + message + "\n";
}

inline std::string skip_line(int pid, int frames) {
  return log_line(pid, 'I', "Choreographer",
                  "Skipped " + std::to_string(frames) + " frames!  The application may be doing too much work on its main thread.");
}

// The first gfxinfo block of the golden input (com.example.feed).
inline std::string golden_gfxinfo() {
  std::ifstream in(std::string(JANK_SOURCE_DIR) + "/tests/golden/gfxinfo_two_polls.input");
  std::stringstream s;
  s << in.rdbuf();
  const std::string all = s.str();
  const auto second = all.find("** Graphics info", all.find("** Graphics info") + 1);
  return all.substr(0, second);
}

// A device that answers every command the daemon sends, plainly; tests swap parts.
struct DeviceScript {
  std::string getprop = "[ro.product.model]: [Fake]\n[ro.build.version.sdk]: [33]\n";
  std::string ps =
      "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\n"
      "root             1     0 10000000  9000 do_epoll_wait       0 S init\n"
      "system         900     1 20000000 300000 binder_wait       0 S system_server\n"
      "u0_a55        1005   500 15000000 99000 0                   0 S com.example.feed\n";
  std::string window = "  mCurrentFocus=Window{41b37570 u0 com.example.feed/com.example.feed.Main}\n";
  // dumpsys SurfaceFlinger --list; --latency of any name prints a period and two frames.
  std::string layers = "com.example.feed/com.example.feed.Main#7\n";
  // The endless logcat stream; the default holds it open, silent.
  std::function<void(Conn&)> logcat = [](Conn& c) { c.hold(1h); };
  // dumpsys thermalservice (empty: the service is missing)
  std::string thermal;
  // dumpsys gfxinfo PKG framestats
  std::function<void(const std::string& package, Conn&)> gfxinfo = [](const std::string& package, Conn& c) {
    c.write(package == "com.example.feed" ? golden_gfxinfo() : "No process found for: " + package + "\n");
  };
};

// Runs a command line the way the device's sh would for the scripts the
// exporter sends: "; "-separated parts, export/exec/echo, the boot id and
// logd's pid, logcat (-d dumps print nothing, -S statistics an empty log's;
// otherwise the endless stream).
inline std::function<void(const std::string&, Conn&)> shell_of(std::shared_ptr<DeviceScript> s) {
  return [s](const std::string& line, Conn& c) {
    std::size_t from = 0;
    while (from <= line.size()) {
      const std::size_t end = std::min(line.find("; ", from), line.size());
      std::string cmd = line.substr(from, end - from);
      from = end + 2;
      if (cmd.rfind("exec ", 0) == 0) cmd = cmd.substr(5);
      if (cmd.rfind("export ", 0) == 0) continue;
      if (cmd.rfind("echo ", 0) == 0) {
        c.write(cmd.substr(5) + "\n");
      } else if (cmd.rfind("logcat", 0) == 0) {
        const bool stats = cmd.find("'-S'") != std::string::npos || cmd.find(" -S") != std::string::npos;
        const bool once = stats || cmd.find("'-d'") != std::string::npos || cmd.find(" -d") != std::string::npos;
        if (stats) {
          c.write("size/num main               system             Total\n"
                  "Total    0/0                0/0                0/0\n"
                  "Now      0/0                0/0                0/0\n");
        }
        if (!once) return s->logcat(c);
      } else if (cmd == "cat /proc/sys/kernel/random/boot_id") {
        c.write("6c1f2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5\n");
      } else if (cmd == "pidof logd") {
        c.write("123\n");
      } else if (cmd == "getprop") {
        c.write(s->getprop);
      } else if (cmd == "ps -A") {
        c.write(s->ps);
      } else if (cmd == "dumpsys window displays") {
        c.write(s->window);
      } else if (cmd == "dumpsys SurfaceFlinger --list") {
        c.write(s->layers);
      } else if (cmd.rfind("'dumpsys' 'SurfaceFlinger' '--latency' '", 0) == 0) {
        c.write("16666667\n1000\t1000\t1000\n2000\t2000\t2000\n\n");
      } else if (cmd == "dumpsys thermalservice") {
        c.write(s->thermal);
      } else if (cmd.rfind("'dumpsys' 'gfxinfo' '", 0) == 0) {
        const std::size_t p = 21, q = cmd.find('\'', p);
        s->gfxinfo(cmd.substr(p, q - p), c);
      } else if (cmd.rfind("'setprop' ", 0) == 0 || cmd.rfind("dumpsys ", 0) == 0) {
        // nothing to say: the refresh rate falls back to the default
      } else {
        c.write("/system/bin/sh: " + cmd + ": not found\n");
      }
    }
  };
}

inline FakeDevice scripted(const std::string& serial, std::shared_ptr<DeviceScript> s) {
  FakeDevice d;
  d.serial = serial;
  d.shell = shell_of(std::move(s));
  return d;
}

inline std::string write_config(const jank::rig::TempDir& dir, const std::string& text) {
  const std::string path = dir.path() + "/c.yaml";
  std::ofstream(path) << text;
  return path;
}

}  // namespace jank::hostile

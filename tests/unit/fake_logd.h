// A small logd of the tests' own: per-buffer rings with lifetime totals,
// merged by sequence and printed as the exporter's log stream prints them
// (preamble with the boot id, logd's pid and statistics, a marker, the ring).
// Shared by the resume tests of the cursor and of the log patterns.
#pragma once

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace jank::test {

inline const std::vector<std::string> kLogdBuffers = {"main", "system"};
inline constexpr std::string_view kLogdPreambleEnd = "END-OF-PREAMBLE";

struct Entry {
  std::uint64_t seq;
  int buffer;  // 0 main, 1 system
  std::int64_t wall_us;
  std::string msg;
  std::string tag = {};  // empty: the buffer's (Choreographer, ActivityManager)
};

// What logd keeps: rings pruned oldest first, lifetime totals that neither
// prune nor clear lowers, one sequence over all buffers.
struct FakeLogd {
  std::string boot_id = "0f0e0d0c-0b0a-4908-8706-050403020100";
  std::int64_t pid = 321;
  std::int64_t clock_us = 1'700'000'000'000'000;  // the device's wall clock
  std::uint64_t seq = 0;
  std::size_t capacity = 1000;  // entries per buffer
  std::deque<Entry> ring[2];
  std::uint64_t total[2] = {0, 0};

  void log(int buffer, std::string msg, std::int64_t stamp_shift_us = 0) {
    clock_us += 1000;
    ring[buffer].push_back({++seq, buffer, clock_us + stamp_shift_us, std::move(msg)});
    ++total[buffer];
    while (ring[buffer].size() > capacity) ring[buffer].pop_front();
  }
  // Lines logd counts in Total but never holds (a log.tag property refusing
  // them in logd: Total grows, Now does not).
  void filtered(int buffer, std::uint64_t n) { total[buffer] += n; }
  // A run of `n` identical lines as logd 8.0–11 keeps it: the first, a
  // chatty summary of the n − 2 in between (itself not counted in Total),
  // the last; every one of the n counted.
  void identical_run(int buffer, const std::string& msg, std::uint64_t n) {
    log(buffer, msg);
    if (n >= 3) {
      clock_us += 1000;
      ring[buffer].push_back({++seq, buffer, clock_us,
                              "uid=10123(com.example.feed) identical " + std::to_string(n - 2) + " lines", "chatty"});
      total[buffer] += n - 2;
    }
    if (n >= 2) log(buffer, msg);
  }
  void clear() {
    ring[0].clear();
    ring[1].clear();
  }
  void restart() {  // logd restart: new pid, empty rings, totals from zero
    clear();
    total[0] = total[1] = 0;
    ++pid;
  }
  void reboot() {
    restart();
    boot_id = "1f0e0d0c-0b0a-4908-8706-050403020100";
  }

  static std::string line(const Entry& e) {
    char head[64];
    std::snprintf(head, sizeof head, "%19" PRId64 ".%06" PRId64 "  %4d  %4d I ", e.wall_us / 1'000'000,
                  e.wall_us % 1'000'000, 100 + e.buffer, 100 + e.buffer);
    const std::string tag = !e.tag.empty() ? e.tag : e.buffer == 0 ? "Choreographer" : "ActivityManager";
    return std::string(head) + tag + ": " + e.msg + "\n";
  }

  // The exporter's stream: boot id, logd pid, statistics, marker, then the
  // whole ring merged by sequence with -D dividers.
  std::string stream() const { return preamble() + dump(); }

  std::string preamble() const {
    // An unreadable boot id or a missing pidof prints nothing the stream can use.
    std::string s = boot_id + "\n" + (pid > 0 ? std::to_string(pid) : "") + "\n";
    // logd's columns: 9 characters of row name, then 19 per buffer.
    auto row = [](std::string name, const std::vector<std::string>& cells) {
      name.resize(9, ' ');
      for (auto cell : cells) {
        cell.resize(19, ' ');
        name += cell;
      }
      return name + "\n";
    };
    s += row("size/num", {"main", "system", "Total"});
    s += row("Total", {"0/" + std::to_string(total[0]), "0/" + std::to_string(total[1]),
                       "0/" + std::to_string(total[0] + total[1])});
    s += row("Now", {"0/" + std::to_string(ring[0].size()), "0/" + std::to_string(ring[1].size()),
                     "0/" + std::to_string(ring[0].size() + ring[1].size())});
    s += std::string(kLogdPreambleEnd) + "\n";
    return s;
  }

  std::string dump() const {
    std::string s;
    std::vector<const Entry*> merged;
    for (const auto& r : ring) {
      for (const auto& e : r) merged.push_back(&e);
    }
    std::sort(merged.begin(), merged.end(), [](const Entry* a, const Entry* b) { return a->seq < b->seq; });
    int printed = -1;
    for (const Entry* e : merged) {
      if (printed != e->buffer) s += std::string("--------- switch to ") + (e->buffer == 0 ? "main" : "system") + "\n";
      printed = e->buffer;
      s += line(*e);
    }
    return s;
  }
};

}  // namespace jank::test

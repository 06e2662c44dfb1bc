// Soak: N simulated devices followed by the real jank_exporter for T minutes
// while Prometheus-like scrapes come every few seconds. The exporter's RSS,
// open fds, threads and series count are sampled; after the warm-up each must
// stay within a small bound of its level at the start of the measured span
// (flat: nothing grows without limit).
//
// Open fds swing by dozens from one second to the next (every gfxinfo,
// SurfaceFlinger or thermal poll is a socket of its own), so what is checked
// is the number of fds that have been open longer than any command may run:
// the logcat streams, the device tracker, the listener and files, plus
// whatever leaked. Its peaks must not rise.
//
//   JANK_SOAK_DEVICES (100)  JANK_SOAK_SECONDS (300)  JANK_SOAK_WARMUP_SECONDS (150)
//   JANK_SOAK_SCRAPE_SECONDS (5)  JANK_SOAK_CSV=FILE: every sample
#include <catch2/catch.hpp>

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/daemon/exporter_process.h"

using namespace jank::daemon_test;

namespace {

double env_num(const char* name, double dflt) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtod(v, nullptr) : dflt;
}

std::size_t count_dir(const std::string& path) {
  std::size_t n = 0;
  if (DIR* d = ::opendir(path.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      if (e->d_name[0] != '.') ++n;
    }
    ::closedir(d);
  }
  return n;
}

double rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr);
  }
  return 0;
}

// Samples in a scrape (lines that are neither comments nor HTTP headers).
std::size_t series_count(const std::string& response) {
  const auto body = response.find("\r\n\r\n");
  if (body == std::string::npos) return 0;
  std::istringstream in(response.substr(body + 4));
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') ++n;
  }
  return n;
}

// Longer than any device command may stay open: timeouts.command_max_seconds
// is 120 s by default.
constexpr auto kLongLived = std::chrono::seconds(130);

// When each open fd (number and target: a socket's inode, a file's path) was
// first seen; sampled often enough that a command socket is never mistaken
// for a long-lived one.
class FdAges {
 public:
  explicit FdAges(pid_t pid) : dir_("/proc/" + std::to_string(pid) + "/fd") {}
  void sample(std::chrono::steady_clock::time_point now) {
    std::map<std::string, std::chrono::steady_clock::time_point> seen;
    if (DIR* d = ::opendir(dir_.c_str())) {
      while (const dirent* e = ::readdir(d)) {
        if (e->d_name[0] == '.') continue;
        char target[512];
        const auto n = ::readlink((dir_ + "/" + e->d_name).c_str(), target, sizeof target);
        if (n < 0) continue;  // closed since readdir
        std::string key = std::string(e->d_name) + "=" + std::string(target, static_cast<std::size_t>(n));
        const auto it = first_seen_.find(key);
        seen.emplace(std::move(key), it == first_seen_.end() ? now : it->second);
      }
      ::closedir(d);
    }
    first_seen_ = std::move(seen);
  }
  std::size_t open() const { return first_seen_.size(); }
  std::size_t older_than(std::chrono::steady_clock::duration age, std::chrono::steady_clock::time_point now) const {
    std::size_t n = 0;
    for (const auto& [key, since] : first_seen_) n += now - since >= age;
    return n;
  }

 private:
  std::string dir_;
  std::map<std::string, std::chrono::steady_clock::time_point> first_seen_;
};

struct Sample {
  double t_min, rss_kib, fds, long_lived_fds, threads, series, scrape_ms;
};

// Least-squares slope of y over t.
double slope(const std::vector<Sample>& s, double Sample::*y) {
  double n = 0, st = 0, sy = 0, stt = 0, sty = 0;
  for (const auto& x : s) {
    n += 1;
    st += x.t_min;
    sy += x.*y;
    stt += x.t_min * x.t_min;
    sty += x.t_min * (x.*y);
  }
  const double d = n * stt - st * st;
  return d == 0 ? 0 : (n * sty - st * sy) / d;
}

double mean(const std::vector<Sample>& s, double Sample::*y) {
  double sum = 0;
  for (const auto& x : s) sum += x.*y;
  return s.empty() ? 0 : sum / static_cast<double>(s.size());
}

}  // namespace

#if defined(__SANITIZE_ADDRESS__)
// ASan's quarantine and shadow memory make RSS meaningless and every process
// slower: a smaller soak that still checks fds, threads, series and (at exit)
// leaks.
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

TEST_CASE("RSS, fds, threads and series stay flat under scrapes") {
  const int devices = static_cast<int>(env_num("JANK_SOAK_DEVICES", kSanitized ? 20 : 100));
  const double seconds = env_num("JANK_SOAK_SECONDS", kSanitized ? 240 : 300);
  const double warmup = env_num("JANK_SOAK_WARMUP_SECONDS", 150);
  const double every = env_num("JANK_SOAK_SCRAPE_SECONDS", 5);
  std::printf("soak: %d devices, %.0f s (warm-up %.0f s), a scrape every %.0f s\n", devices, seconds, warmup, every);
  std::fflush(stdout);
  // Every fd open at the start of the measured span must have aged past kLongLived.
  REQUIRE(warmup >= std::chrono::duration<double>(kLongLived).count() + 10);

  AdbServer adb;
  DevSim sim({"--devices", std::to_string(devices), "--threads", "1", "--refresh", "60,90,120"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  REQUIRE(wait_until([&] {
    std::size_t online = 0;
    for (const auto& [serial, state] : adb.devices()) online += state == "device";
    return online == static_cast<std::size_t>(devices);
  }, 120000ms, 500ms));
  TempDir state;
  Exporter ex({adb.port()}, state.path());
  REQUIRE(ex.alive());

  std::vector<Sample> all;
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::milliseconds(static_cast<long>(seconds * 1000));
  const auto scrape_every = std::chrono::milliseconds(static_cast<long>(every * 1000));
  auto next = start, next_scrape = start;
  double worst_scrape_ms = 0;
  FdAges fd_ages(ex.pid());
  while (std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_until(next);
    next += 500ms;
    fd_ages.sample(std::chrono::steady_clock::now());
    if (next_scrape > std::chrono::steady_clock::now()) continue;
    next_scrape += scrape_every;
    const auto t0 = std::chrono::steady_clock::now();
    const std::string scrape = ex.scrape();
    const double scrape_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    REQUIRE(scrape.find(" 200 ") != std::string::npos);
    const pid_t pid = ex.pid();
    Sample s;
    s.t_min = std::chrono::duration<double>(t0 - start).count() / 60;
    s.rss_kib = rss_kib(pid);
    s.fds = static_cast<double>(fd_ages.open());
    s.long_lived_fds = static_cast<double>(fd_ages.older_than(kLongLived, t0));
    s.threads = static_cast<double>(count_dir("/proc/" + std::to_string(pid) + "/task"));
    s.series = static_cast<double>(series_count(scrape));
    s.scrape_ms = scrape_ms;
    all.push_back(s);
    worst_scrape_ms = std::max(worst_scrape_ms, scrape_ms);
  }
  REQUIRE(ex.alive());
  if (const char* csv = std::getenv("JANK_SOAK_CSV"); csv && *csv) {
    std::ofstream out(csv);
    out << "minutes,rss_kib,fds,long_lived_fds,threads,series,scrape_ms\n";
    for (const auto& s : all) {
      out << s.t_min << ',' << s.rss_kib << ',' << s.fds << ',' << s.long_lived_fds << ',' << s.threads << ','
          << s.series << ',' << s.scrape_ms << '\n';
    }
  }

  std::vector<Sample> steady;
  for (const auto& s : all) {
    if (s.t_min * 60 >= warmup) steady.push_back(s);
  }
  REQUIRE(steady.size() >= 3);
  const double span = steady.back().t_min - steady.front().t_min;
  struct Figure {
    const char* name;
    double Sample::*field;
    double allowed;  // growth over the span that still counts as flat
    enum { peak, floor, fit, shown } check;
  };
  const double rss = mean(steady, &Sample::rss_kib);
  const double series = mean(steady, &Sample::series);
  // Bounds: a few MiB of allocator slack, and nothing for long-lived fds,
  // threads and series (fixed devices and apps). All open fds are shown, not
  // checked: their swing is the commands in flight.
  const Figure figures[] = {{"rss_kib", &Sample::rss_kib, 4096 + 0.03 * rss, Figure::peak},
                            {"fds", &Sample::fds, 0, Figure::shown},
                            {"fds_long", &Sample::long_lived_fds, 0, Figure::peak},
                            {"threads", &Sample::threads, 1, Figure::floor},
                            {"series", &Sample::series, 0.01 * series + 1, Figure::fit}};
  std::printf("soak: %zu samples, %zu after warm-up over %.1f min; worst scrape %.0f ms\n", all.size(), steady.size(),
              span, worst_scrape_ms);
  for (const auto& f : figures) {
    const double k = slope(steady, f.field);
    std::printf("  %-8s mean %10.1f  first %10.1f  last %10.1f  slope %+9.2f/min  growth over span %+9.1f (bound %.1f)\n",
                f.name, mean(steady, f.field), steady.front().*f.field, steady.back().*f.field, k, k * span, f.allowed);
  }
  std::fflush(stdout);
  // Robust to transients: RSS dips when malloc trims and a logcat stream that
  // restarts is young for a while, so those compare the peaks of the first
  // and last thirds; threads compare the floors. A leak raises both.
  const std::size_t third = steady.size() / 3;
  auto extreme = [&](double Sample::*y, bool peak, bool last) {
    const std::size_t from = last ? steady.size() - third : 0, to = last ? steady.size() : third;
    double m = steady[from].*y;
    for (std::size_t i = from; i < to; ++i) m = peak ? std::max(m, steady[i].*y) : std::min(m, steady[i].*y);
    return m;
  };
  for (const auto& f : figures) {
    if (f.check == Figure::shown) continue;
    const bool peak = f.check == Figure::peak;
    const double growth = f.check == Figure::fit ? slope(steady, f.field) * span
                                                 : extreme(f.field, peak, true) - extreme(f.field, peak, false);
    std::printf("  %-8s checked growth %+.1f (%s)\n", f.name, growth,
                f.check == Figure::fit ? "fit" : peak ? "peak, last third vs first" : "floor, last third vs first");
    INFO(f.name);
    if (!(kSanitized && f.field == &Sample::rss_kib)) CHECK(growth <= f.allowed);
  }
  std::fflush(stdout);
  // The measure sees what it is meant to: each device's logcat stream at least.
  CHECK(steady.back().long_lived_fds >= devices);
  CHECK(ex.terminate() == 0);
}

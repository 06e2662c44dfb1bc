// The shipped FPS recording rules (config/prometheus/jank_exporter.rules.yml)
// against a reference computed here from the definition: FPS over active
// time = present-to-present intervals within active stretches / the time they
// span, where a gap over 1.2 s (SurfaceFlinger's active-layer window) is a
// rest that starts a new stretch. Present sequences of bursts and rests at
// 60, 90 and 120 Hz go through the exporter's own PresentTracker, polled the
// way the daemon polls (a ~127-row table every 0.5 s); its counters, sampled
// every 15 s, are the input series of a generated promtool test whose
// expected values are the reference's. promtool's exit status is the verdict.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "metrics/present_tracker.h"
#include "parsers/sf_latency.h"

namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kIdleGapNs = 1'200'000'000;
constexpr std::int64_t kPollNs = kSec / 2;
constexpr std::int64_t kScrapeNs = 15 * kSec;
constexpr std::size_t kTableRows = 127;

// A layer's presents (device monotonic ns): bursts of `burst_ns` at the
// refresh period, every `miss_every`-th frame one vsync late, rests between.
struct Pattern {
  std::int64_t period_ns;
  std::vector<std::int64_t> bursts_ns;  // cycled
  std::vector<std::int64_t> rests_ns;   // cycled; 0: no rest (one continuous stretch)
  int miss_every;                       // 0: no missed vsync
};

std::vector<std::int64_t> presents(const Pattern& p, std::int64_t end_ns) {
  std::vector<std::int64_t> out;
  std::int64_t t = kSec;  // the first present
  for (std::size_t b = 0; t < end_ns; ++b) {
    const std::int64_t burst_end = t + p.bursts_ns[b % p.bursts_ns.size()];
    int n = 0;
    while (t <= burst_end && t < end_ns) {
      out.push_back(t);
      ++n;
      t += (p.miss_every > 0 && n % p.miss_every == 0) ? 2 * p.period_ns : p.period_ns;
    }
    const std::int64_t rest = p.rests_ns[b % p.rests_ns.size()];
    if (rest > 0) t = out.back() + rest;
  }
  return out;
}

// The definition, straight from the presents: intervals ending in (from, to]
// whose gap is within the idle gap, and their total length.
struct Reference {
  std::uint64_t intervals = 0, presents = 0;
  std::int64_t active_ns = 0;
};

Reference reference(const std::vector<std::int64_t>& at, std::int64_t from_ns, std::int64_t to_ns) {
  Reference r;
  for (std::size_t i = 0; i < at.size(); ++i) {
    if (at[i] <= from_ns || at[i] > to_ns) continue;
    ++r.presents;
    if (i == 0) continue;
    const std::int64_t gap = at[i] - at[i - 1];
    if (gap > kIdleGapNs) continue;
    ++r.intervals;
    r.active_ns += gap;
  }
  return r;
}

struct Layer {
  std::string serial, package, layer, kind;
  Pattern pattern;
  std::vector<std::int64_t> at;
  // Counters at each scrape: frame-time count, active seconds, frames presented.
  std::vector<std::uint64_t> count, frames;
  std::vector<double> active_s;
};

// Polls every 0.5 s a table of the newest 127 presents up to the poll, as
// `dumpsys SurfaceFlinger --latency` prints it; scrapes every 15 s.
void run_tracker(Layer& l, std::int64_t end_ns) {
  jank::metrics::PresentTracker tracker;
  for (std::int64_t now = 0; now <= end_ns; now += kPollNs) {
    jank::parsers::SfLatency table;
    table.refresh_period_ns = l.pattern.period_ns;
    const auto last = std::upper_bound(l.at.begin(), l.at.end(), now);
    const auto first = last - std::min<std::ptrdiff_t>(last - l.at.begin(), kTableRows);
    for (std::size_t k = static_cast<std::size_t>(last - first); k < kTableRows; ++k) table.rows.push_back({0, 0, 0});
    for (auto it = first; it != last; ++it) table.rows.push_back({*it - l.pattern.period_ns, *it, *it});
    tracker.observe(table);
    REQUIRE(tracker.overflows() == 0);
    if (now % kScrapeNs == 0) {
      l.count.push_back(tracker.frame_time().count());
      l.frames.push_back(tracker.frames());
      l.active_s.push_back(static_cast<double>(tracker.active_ns()) / 1e9);
    }
  }
}

std::string labels(const Layer& l) {
  return "instance=\"h:9789\",job=\"jank_exporter\",serial=\"" + l.serial + "\",package=\"" + l.package +
         "\",layer=\"" + l.layer + "\",kind=\"" + l.kind + "\"";
}

template <typename T>
std::string values(const std::vector<T>& v) {
  std::ostringstream out;
  out.precision(17);
  for (std::size_t i = 0; i < v.size(); ++i) out << (i ? " " : "") << v[i];
  return out.str();
}

// promtool compares floats exactly: the expression tests |rule − reference| < 1e-9.
std::string close_to(const std::string& rule, const std::string& selector, double expected,
                     const std::string& result_labels, int eval_s) {
  std::ostringstream out;
  out.precision(17);
  out << "      - expr: 'abs(" << rule << "{" << selector << "} - " << expected << ") < bool 1e-9'\n"
      << "        eval_time: " << eval_s << "s\n"
      << "        exp_samples:\n"
      << "          - labels: '{" << result_labels << "}'\n"
      << "            value: 1\n";
  return out.str();
}

int run(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("the shipped FPS rules equal frame intervals over active time at 60, 90 and 120 Hz", "[ops][fps]") {
  constexpr std::int64_t kEnd = 10 * 60 * kSec;
  std::vector<Layer> layers = {
      // A 0.5 s burst (30 periods) every 15 s: the figure the old rule read 62 for.
      {"s60", "com.example.feed", "com.example.feed/com.example.feed.Main", "app_window",
       {16'666'667, {30 * 16'666'667}, {15 * kSec - 30 * 16'666'667}, 0}, {}, {}, {}, {}},
      // Bursts of 0.2 to 3 s with rests of 1.3 to 4 s, a vsync missed every 7th frame.
      {"s90", "com.example.shop", "com.example.shop/com.example.shop.Main", "app_window",
       {11'111'111, {200'000'000, 3 * kSec, 800'000'000, 1'500'000'000}, {1'300'000'000, 4 * kSec, 2 * kSec}, 7},
       {}, {}, {}, {}},
      // An app with two layers at 120 Hz: bursty window, continuous SurfaceView.
      {"s120", "com.example.game", "com.example.game/com.example.game.Main", "app_window",
       {8'333'333, {250'000'000, 1 * kSec}, {2'500'000'000, 1'210'000'000}, 0}, {}, {}, {}, {}},
      {"s120", "com.example.game", "SurfaceView[com.example.game/com.example.game.Main](BLAST)", "surface_view",
       {8'333'333, {5 * kSec}, {0}, 5}, {}, {}, {}, {}},
  };
  for (auto& l : layers) {
    l.at = presents(l.pattern, kEnd);
    run_tracker(l, kEnd);
  }

  // The input series, then the expectations at several evaluation times.
  std::ostringstream test;
  test << "rule_files:\n  - " << JANK_SOURCE_DIR << "/config/prometheus/jank_exporter.rules.yml\n"
       << "evaluation_interval: 15s\ntests:\n  - interval: 15s\n    input_series:\n";
  for (const auto& l : layers) {
    test << "      - series: 'android_layer_frame_time_seconds_count{" << labels(l) << "}'\n"
         << "        values: '" << values(l.count) << "'\n"
         << "      - series: 'android_layer_active_seconds_total{" << labels(l) << "}'\n"
         << "        values: '" << values(l.active_s) << "'\n"
         << "      - series: 'android_layer_frames_presented_total{" << labels(l) << "}'\n"
         << "        values: '" << values(l.frames) << "'\n";
  }
  test << "    promql_expr_test:\n";
  for (const int eval_s : {300, 435, 540}) {
    const std::int64_t to = std::int64_t{eval_s} * kSec;
    std::map<std::string, Reference> app;  // serial/package over 5m
    for (const auto& l : layers) {
      const Reference r1 = reference(l.at, to - 60 * kSec, to);
      const Reference r5 = reference(l.at, to - 300 * kSec, to);
      REQUIRE(r1.active_ns > 0);
      const double fps1 = static_cast<double>(r1.intervals) / (static_cast<double>(r1.active_ns) / 1e9);
      const double fps5 = static_cast<double>(r5.intervals) / (static_cast<double>(r5.active_ns) / 1e9);
      INFO(l.serial << " " << l.layer << " at " << eval_s << " s: FPS " << fps1 << " over 1m; presents over active time "
                    << static_cast<double>(r1.presents) / (static_cast<double>(r1.active_ns) / 1e9));
      CHECK(fps1 <= 1e9 / static_cast<double>(l.pattern.period_ns) + 1e-9);  // never above the panel's rate
      test << close_to("serial_layer:android_layer_fps:active_rate1m", labels(l), fps1, labels(l), eval_s)
           << close_to("serial_layer:android_layer_fps:active_rate5m", labels(l), fps5, labels(l), eval_s);
      Reference& a = app[l.serial + "\",package=\"" + l.package];
      a.intervals += r5.intervals;
      a.active_ns += r5.active_ns;
    }
    for (const auto& [key, a] : app) {
      const double fps = static_cast<double>(a.intervals) / (static_cast<double>(a.active_ns) / 1e9);
      const std::string sel = "instance=\"h:9789\",job=\"jank_exporter\",serial=\"" + key + "\"";
      test << close_to("serial_package:android_app_fps:active_rate5m", sel, fps, sel, eval_s);
      // One app per device here: the device's FPS is its app's.
      const std::string serial = key.substr(0, key.find('"'));
      const std::string dev = "instance=\"h:9789\",job=\"jank_exporter\",serial=\"" + serial + "\"";
      test << close_to("serial:android_device_fps:active_rate5m", dev, fps, dev, eval_s);
    }
  }

  // The burst at 60 Hz: 30 intervals in 0.5 s, 31 presents.
  const Reference burst = reference(layers[0].at, 285 * kSec, 300 * kSec);
  CHECK(burst.intervals == 30);
  CHECK(burst.presents == 31);
  CHECK(static_cast<double>(burst.intervals) / (static_cast<double>(burst.active_ns) / 1e9) == Approx(60).epsilon(1e-6));

  const auto dir = std::filesystem::temp_directory_path() / ("jank_fps_rules_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "fps.test.yml";
  std::ofstream(file) << test.str();
  const int status = run(std::string(JANK_PROMTOOL_PROGRAM) + " test rules " + file.string());
  INFO("generated test kept at " << file.string() << " when it fails");
  CHECK(status == 0);
  if (status == 0) std::filesystem::remove_all(dir);
}

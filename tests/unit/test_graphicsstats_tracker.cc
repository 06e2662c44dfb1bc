// graphicsstats blocks as counters, against a model of the device's service
// written here from GraphicsStatsService.java and .cpp (AOSP
// frameworks/base): per day, package and version a file; a running
// process's buffer is printed merged with its day's file; a process that dies
// leaves the active list before its save reaches the file; day files older
// than the three newest days are deleted. The truth is every frame drawn.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "metrics/graphicsstats_tracker.h"
#include "metrics/state_io.h"

using jank::metrics::AppBuild;
using jank::metrics::GraphicsStatsTracker;

namespace {

constexpr std::int64_t kInterval = 16'666'667;
constexpr std::int64_t kDayMs = 86'400'000;

// What a block holds: frames, of them janky, and the HISTOGRAM (5, 8, 20 and
// 150 ms bins: every fourth frame janky at 20 ms, every twentieth at 150 ms).
struct Stats {
  std::int64_t start = 0;
  std::uint64_t frames = 0, janky = 0, b5 = 0, b8 = 0, b20 = 0, b150 = 0;
  void draw(std::uint64_t n) {
    for (std::uint64_t k = 0; k < n; ++k) {
      ++frames;
      const std::uint64_t i = frames;
      if (i % 20 == 0) {
        ++b150, ++janky;
      } else if (i % 4 == 0) {
        ++b20, ++janky;
      } else if (i % 2 == 0) {
        ++b8;
      } else {
        ++b5;
      }
    }
  }
  void merge(const Stats& o) {
    start = start == 0 ? o.start : std::min(start, o.start);
    frames += o.frames, janky += o.janky, b5 += o.b5, b8 += o.b8, b20 += o.b20, b150 += o.b150;
  }
};

std::string block_text(const std::string& pkg, std::int64_t version, const Stats& s) {
  return "\nPackage: " + pkg + "\nVersion: " + std::to_string(version) + "\nStats since: " + std::to_string(s.start) +
         "ns\nStats end: " + std::to_string(s.start + 1000) + "ns\nTotal frames rendered: " + std::to_string(s.frames) +
         "\nJanky frames: " + std::to_string(s.janky) + " (0.00%)\nNumber Missed Vsync: 0\nNumber Slow UI thread: " +
         std::to_string(s.janky) + "\nHISTOGRAM: 5ms=" + std::to_string(s.b5) + " 8ms=" + std::to_string(s.b8) +
         " 20ms=" + std::to_string(s.b20) + " 150ms=" + std::to_string(s.b150) + "\n";
}

struct File {
  std::int64_t day = 0;
  std::string pkg;
  std::int64_t version = 0;
  auto operator<=>(const File&) const = default;
};
struct Buffer {
  int pid = 0;
  File file;
  Stats stats;
};

// The device's service. Wall clock in ms; the day is its midnight.
struct Service {
  std::int64_t now_ms = 1'732'838'400'000;  // a midnight
  std::map<File, Stats> files;
  std::vector<Buffer> active;
  std::vector<Buffer> saving;  // died, not yet in their file
  std::map<AppBuild, std::uint64_t> truth;

  std::int64_t today() const { return now_ms - now_ms % kDayMs; }
  Buffer& buffer(int pid, const std::string& pkg, std::int64_t version) {
    for (auto& b : active) {
      if (b.pid != pid) continue;
      if (b.stats.start >= today()) return b;
      die(pid);  // a buffer from before today ends (fetchActiveBuffersLocked)
      save();
      break;
    }
    Buffer b{pid, {today(), pkg, version}, {}};
    b.stats.start = now_ms;
    active.push_back(b);
    return active.back();
  }
  void draw(int pid, const std::string& pkg, std::int64_t version, std::uint64_t n) {
    buffer(pid, pkg, version).stats.draw(n);
    truth[{pkg, version}] += n;
  }
  void die(int pid) {
    for (auto it = active.begin(); it != active.end(); ++it) {
      if (it->pid != pid) continue;
      saving.push_back(*it);
      active.erase(it);
      return;
    }
  }
  void save() {
    for (const auto& b : saving) files[b.file].merge(b.stats);
    saving.clear();
    // Only the three newest days are kept (deleteOldBuffers).
    std::vector<std::int64_t> days;
    for (const auto& [f, s] : files) {
      if (days.empty() || days.back() != f.day) days.push_back(f.day);
    }
    std::sort(days.begin(), days.end());
    days.erase(std::unique(days.begin(), days.end()), days.end());
    while (days.size() > 3) {
      const std::int64_t oldest = days.front();
      std::erase_if(files, [&](const auto& e) { return e.first.day == oldest; });
      days.erase(days.begin());
    }
  }
  // dumpActiveLocked, then dumpHistoricalLocked without those files.
  std::string dump() const {
    std::string out;
    std::vector<File> shown;
    for (const auto& b : active) {
      Stats s = b.stats;
      if (const auto it = files.find(b.file); it != files.end()) s.merge(it->second);
      out += block_text(b.file.pkg, b.file.version, s);
      shown.push_back(b.file);
    }
    for (const auto& [f, s] : files) {
      if (std::find(shown.begin(), shown.end(), f) == shown.end()) out += block_text(f.pkg, f.version, s);
    }
    return out;
  }
};

void poll(GraphicsStatsTracker& t, const Service& s, bool whole = true) {
  const auto d = jank::parsers::parse_graphicsstats(s.dump());
  REQUIRE(d.malformed_lines == 0);
  t.apply(d, whole, kInterval);
}

std::uint64_t frames(const GraphicsStatsTracker& t, const std::string& pkg, std::int64_t version) {
  const auto it = t.apps().find({pkg, version});
  return it == t.apps().end() ? 0 : it->second.frames_rendered();
}

}  // namespace

TEST_CASE("graphicsstats counts every frame once across polls, deaths, two processes and new days",
          "[metrics][graphicsstats]") {
  Service dev;
  GraphicsStatsTracker t;
  dev.draw(100, "com.a", 1, 500);
  poll(t, dev);
  CHECK(frames(t, "com.a", 1) == 500);  // the first poll counts what the device holds
  dev.draw(100, "com.a", 1, 300);
  poll(t, dev);
  CHECK(frames(t, "com.a", 1) == 800);
  // The process dies: the next dump shows the day's file without it (the
  // save has not landed), then with it. Nothing is counted twice.
  dev.die(100);
  poll(t, dev);
  CHECK(frames(t, "com.a", 1) == 800);
  dev.save();
  poll(t, dev);
  CHECK(frames(t, "com.a", 1) == 800);
  // Two processes of the app at once: each prints the file with its buffer.
  dev.draw(200, "com.a", 1, 40);
  dev.draw(201, "com.a", 1, 70);
  poll(t, dev);
  CHECK(frames(t, "com.a", 1) >= 870);
  CHECK(frames(t, "com.a", 1) <= 910);
  dev.die(200);
  dev.die(201);
  dev.save();
  poll(t, dev);
  CHECK(frames(t, "com.a", 1) == 910);  // caught up once the file holds both
  // A new version and a new day: new blocks, counted whole.
  dev.draw(300, "com.a", 2, 25);
  dev.now_ms += kDayMs;
  dev.draw(300, "com.a", 2, 35);  // the buffer from yesterday ends, today's starts
  poll(t, dev);
  CHECK(frames(t, "com.a", 2) == 60);
  CHECK(frames(t, "com.a", 1) == 910);
  // Four more days: the first days' files are deleted; their frames stay,
  // and their blocks are forgotten after five dumps without them.
  for (int day = 0; day < 4; ++day) {
    dev.now_ms += kDayMs;
    dev.draw(300, "com.a", 2, 10);
    poll(t, dev);
  }
  for (int k = 0; k < 5; ++k) poll(t, dev);
  dev.die(300);
  dev.save();
  poll(t, dev);
  CHECK(t.forgotten_blocks() >= 2);
  for (const auto& [app, n] : dev.truth) {
    INFO(app.package << " " << app.version_code);
    CHECK(frames(t, app.package, app.version_code) == n);
    // The histogram and the janky count hold the same frames.
    CHECK(t.apps().at(app).frame_duration().count() == n);
  }
  CHECK(t.apps().at({"com.a", 1}).janky_frames() == 910 / 4);
}

TEST_CASE("graphicsstats keeps a block a cut dump left out and counts it once when it returns after a restart",
          "[metrics][graphicsstats]") {
  Service dev;
  GraphicsStatsTracker t;
  dev.draw(1, "com.a", 1, 100);
  dev.draw(2, "com.b", 1, 50);
  poll(t, dev);
  // A dump cut after com.a's block: com.b is kept, and counted once when it returns.
  auto cut = jank::parsers::parse_graphicsstats(dev.dump());
  cut.blocks.resize(1);
  t.apply(cut, false, kInterval);
  CHECK(t.blocks() == 2);
  poll(t, dev);
  CHECK(frames(t, "com.b", 1) == 50);
  // Checkpointed and restored: a poll after the restart adds nothing twice.
  jank::metrics::StateWriter w;
  t.save(w);
  GraphicsStatsTracker back;
  jank::metrics::StateReader r(w.text());
  REQUIRE(back.load(r));
  dev.draw(1, "com.a", 1, 10);
  poll(back, dev);
  CHECK(frames(back, "com.a", 1) == 110);
  CHECK(frames(back, "com.b", 1) == 50);
  // A damaged checkpoint is refused whole.
  std::string text = w.text();
  text.replace(0, 1, "x");
  GraphicsStatsTracker damaged;
  jank::metrics::StateReader bad(text);
  CHECK_FALSE(damaged.load(bad));
  CHECK(damaged.apps().empty());
}

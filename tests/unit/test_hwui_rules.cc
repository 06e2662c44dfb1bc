// HWUI's jank rules per framestats row and Android vitals' slow/frozen frames
// from the gfxinfo HISTOGRAM, checked against reference models written here
// from the published rules' text, not from the exporter's code:
//  - RefJankTracker follows frameworks/base libs/hwui/JankTracker.cpp
//    (Miku-UI/platform_frameworks_base@5144fe5, an Android 14+ tree):
//    calculateLegacyJank, lines 102-168, and finishFrame, lines 170-230, with
//    its state (mSwapDeadlineLegacy, mNextFrameStartUnstuffed) carried from
//    frame to frame as HWUI does; the Android 12/13 variant of the
//    triple-buffered deadline (deadline += FrameInterval) too; and Android
//    11's finishFrame (Ankits-lab/frameworks_base@150a924, lines 109-136).
//  - The HISTOGRAM bucketing follows ProfileData.cpp's
//    frameCountIndexForFrameTime / frameTimeForFrameCountIndex /
//    frameTimeForSlowFrameCountIndex; slow/frozen follow Android vitals'
//    definition (developer.android.com "Slow rendering", "Frozen frames").
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "metrics/framestats_tracker.h"
#include "metrics/gfxinfo_tracker.h"
#include "metrics/state_io.h"
#include "parsers/framestats.h"
#include "parsers/gfxinfo.h"

using jank::metrics::CountedFrame;
using jank::metrics::FramestatsTracker;
using jank::metrics::GfxinfoTracker;
using jank::parsers::FramestatsTable;
using jank::parsers::GfxStats;
using jank::parsers::HistogramBin;

namespace {

constexpr std::int64_t kMs = 1'000'000;

// One frame as HWUI's FrameInfo holds it (the fields the rules read).
struct Frame {
  std::int64_t intended = 0, vsync = 0, issue = 0, completed = 0, dequeue = 0;
  std::int64_t deadline = 0, interval = 0, workload_target = 0, start_time = 0;
  std::int64_t gpu_completed = 0, swap_completed = 0;
};

enum class Release { android11, android12_13, android14_plus };

// The reference: HWUI's JankTracker over a sequence of frames of one window.
struct RefJankTracker {
  Release release;
  std::int64_t vsync_period;      // DeviceInfo::getVsyncPeriod() when the tracker was made
  std::int64_t forgiveness = 0;   // mDequeueTimeForgiveness(Legacy): device offsets; 0 = none
  std::int64_t next_frame_start_unstuffed = -1;
  std::uint64_t janky = 0, janky_legacy = 0, triple_buffered = 0;

  // Time blocked in dequeueBuffer that HWUI forgives (both rules' shared
  // preamble, JankTracker.cpp lines 105-122); -1: the frame is not judged.
  std::int64_t forgiven_duration(const Frame& f, std::int64_t end) const {
    std::int64_t total = end - f.intended;
    if (forgiveness != 0 && f.dequeue > 500'000) {
      const std::int64_t expected = forgiveness + f.vsync - f.issue;
      if (expected > 0) {
        const std::int64_t forgive = std::min(expected, f.dequeue);
        if (forgive >= total) return -1;
        total -= forgive;
      }
    }
    return total;
  }

  // Returns {janky, janky_legacy} and moves f.deadline as HWUI does.
  std::pair<bool, bool> finish(Frame& f) {
    if (release == Release::android11) {
      const std::int64_t total = forgiven_duration(f, f.completed);
      const bool j = total > 0 && total > vsync_period;  // line 136
      if (j) ++janky, ++janky_legacy;
      return {j, j};
    }
    // calculateLegacyJank: up to SwapBuffersCompleted, over the period of
    // the device when the tracker was made (line 136). Its swap-deadline
    // state only feeds the cause counters, not "Janky frames (legacy)".
    const std::int64_t total = forgiven_duration(f, f.swap_completed);
    const bool legacy = total > 0 && total > vsync_period;
    if (legacy) ++janky_legacy;
    // finishFrame: the deadline rule with the frame's own interval.
    const std::int64_t interval = f.interval;
    const bool stuffed =
        static_cast<double>(next_frame_start_unstuffed - f.intended) > static_cast<double>(interval) * 0.1;
    if (stuffed) {
      ++triple_buffered;
      f.deadline = release == Release::android12_13 ? f.deadline + interval
                                                    : next_frame_start_unstuffed + f.workload_target;
    }
    const bool missed = !(f.gpu_completed < f.deadline);
    if (!missed) {
      if (stuffed) next_frame_start_unstuffed += interval;
    } else {
      next_frame_start_unstuffed = f.gpu_completed - (f.gpu_completed - f.vsync) % interval + interval;
    }
    if (missed) ++janky;
    return {missed, legacy};
  }
};

// Frames of one window at `hz`: mostly on time, some long (one to several
// intervals), so that buffer stuffing (triple buffering) follows long frames.
std::vector<Frame> generate(std::mt19937_64& rng, double hz, int n) {
  const auto interval = static_cast<std::int64_t>(1e9 / hz);
  std::vector<Frame> frames;
  std::int64_t intended = 5'000'000'000'000;
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < n; ++i) {
    Frame f;
    f.intended = intended;
    f.interval = interval;
    f.workload_target = interval;
    f.start_time = intended + static_cast<std::int64_t>(u(rng) * 200'000);
    f.vsync = intended + (u(rng) < 0.1 ? interval : 0);
    f.deadline = intended + interval;
    const double r = u(rng);
    const double frames_long = r < 0.6 ? 0.3 + 0.6 * u(rng) : r < 0.85 ? 0.9 + 0.3 * u(rng) : 1.2 + 3 * u(rng);
    const auto duration = static_cast<std::int64_t>(frames_long * static_cast<double>(interval)) + 1;
    f.issue = f.vsync + duration / 2;
    f.completed = f.intended + duration;
    f.swap_completed = f.completed - static_cast<std::int64_t>(u(rng) * 0.3 * static_cast<double>(duration / 2));
    f.gpu_completed = f.completed + (u(rng) < 0.2 ? static_cast<std::int64_t>(u(rng) * 2 * kMs) : 0);
    f.dequeue = u(rng) < 0.3 ? static_cast<std::int64_t>(u(rng) * 3 * kMs) : 20'000;
    frames.push_back(f);
    // The next frame's vsync: usually the next one, sometimes one later.
    intended += interval * (u(rng) < 0.85 ? 1 : 2);
  }
  return frames;
}

// The framestats table HWUI would print for these frames, as `release` lays
// it out (the A12/13 header mislabels the interval and start-time columns).
FramestatsTable print(const std::vector<Frame>& frames, Release release) {
  FramestatsTable t;
  const std::vector<std::string> head = {"Flags", "IntendedVsync", "Vsync", "HandleInputStart", "AnimationStart",
                                         "PerformTraversalsStart", "DrawStart"};
  t.columns = head;
  if (release == Release::android11) {
    for (const char* c : {"SyncQueued", "SyncStart", "IssueDrawCommandsStart", "SwapBuffers", "FrameCompleted",
                          "DequeueBufferDuration", "QueueBufferDuration", "GpuCompleted"}) {
      t.columns.emplace_back(c);
    }
  } else {
    const bool trap = release == Release::android12_13;
    for (const char* c : {"FrameDeadline", trap ? "FrameInterval" : "FrameStartTime",
                          trap ? "FrameStartTime" : "FrameInterval", "SyncQueued", "SyncStart",
                          "IssueDrawCommandsStart", "SwapBuffers", "FrameCompleted", "DequeueBufferDuration",
                          "QueueBufferDuration", "GpuCompleted", "SwapBuffersCompleted", "DisplayPresentTime"}) {
      t.columns.emplace_back(c);
    }
  }
  for (const Frame& f : frames) {
    std::vector<std::int64_t> row = {0, f.intended, f.vsync, f.vsync + 1000, f.vsync + 2000, f.vsync + 3000,
                                     f.vsync + 4000};
    if (release == Release::android11) {
      for (std::int64_t v : {f.vsync + 5000, f.vsync + 6000, f.issue, f.issue + 1000, f.completed, f.dequeue,
                             std::int64_t{30'000}, f.gpu_completed}) {
        row.push_back(v);
      }
    } else {
      // Data order is always FrameDeadline, FrameStartTime, FrameInterval.
      for (std::int64_t v : {f.deadline, f.start_time, f.interval, f.vsync + 5000, f.vsync + 6000, f.issue,
                             f.issue + 1000, f.completed, f.dequeue, std::int64_t{30'000}, f.gpu_completed,
                             f.swap_completed, f.completed + f.interval}) {
        row.push_back(v);
      }
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace

TEST_CASE("framestats janky and legacy janky follow HWUI's JankTracker frame by frame",
          "[unit][framestats][hwui_rules]") {
  std::mt19937_64 rng(20240611);
  for (const double hz : {60.0, 90.0, 120.0}) {
    for (const Release release : {Release::android11, Release::android12_13, Release::android14_plus}) {
      INFO("hz " << hz << " release " << static_cast<int>(release));
      const auto interval = static_cast<std::int64_t>(1e9 / hz);
      std::vector<Frame> frames = generate(rng, hz, 600);
      RefJankTracker ref{release, interval};
      std::vector<std::pair<bool, bool>> truth;
      for (Frame& f : frames) truth.push_back(ref.finish(f));  // moves deadlines as HWUI does before printing
      if (release != Release::android11) REQUIRE(ref.triple_buffered > 20);
      REQUIRE(ref.janky > 20);
      REQUIRE(ref.janky < frames.size() - 20);

      // Rows that carry their interval are judged by it whatever the caller
      // says; Android 11 rows by the caller's.
      const std::int64_t caller = release == Release::android11 ? interval : 16'666'667 * 2;
      FramestatsTracker t;
      std::vector<CountedFrame> counted;
      t.apply("w", print(frames, release), caller, nullptr, &counted);
      REQUIRE(counted.size() == frames.size());
      for (std::size_t i = 0; i < frames.size(); ++i) {
        INFO("frame " << i);
        CHECK(counted[i].janky == truth[i].first);
        CHECK(counted[i].janky_legacy == truth[i].second);
      }
      CHECK(t.janky_frames() == ref.janky);
      CHECK(t.janky_frames_legacy() == ref.janky_legacy);
      if (release != Release::android11) CHECK(ref.janky != ref.janky_legacy);
    }
  }
}

TEST_CASE("the deadline rule is not the old FrameCompleted rule", "[unit][framestats][hwui_rules]") {
  // One 120 Hz frame 12 ms long whose GPU work ended before the deadline HWUI
  // moved for buffer stuffing (FrameDeadline as printed): on time for HWUI,
  // late for a fixed interval.
  Frame f;
  f.intended = 1'000'000'000'000;
  f.vsync = f.intended;
  f.interval = 8'333'333;
  f.deadline = f.intended + 2 * f.interval;  // printed after HWUI moved it
  f.start_time = f.intended;
  f.issue = f.intended + 4 * kMs;
  f.completed = f.gpu_completed = f.intended + 12 * kMs;
  f.swap_completed = f.intended + 7 * kMs;
  FramestatsTracker t;
  t.apply("w", print({f}, Release::android14_plus), 8'333'333);
  CHECK(t.frames() == 1);
  CHECK(t.janky_frames() == 0);
  CHECK(t.janky_frames_legacy() == 0);  // 7 ms to SwapBuffersCompleted
  // The A12/13 header puts the interval under "FrameStartTime": still read.
  f.swap_completed = f.intended + 9 * kMs;
  FramestatsTracker trap;
  trap.apply("w", print({f}, Release::android12_13), 100 * kMs);
  CHECK(trap.janky_frames_legacy() == 1);  // 9 ms > 8.33 ms, not > 100 ms
}

TEST_CASE("a row whose interval columns hold no interval is judged by the device's and counted so",
          "[unit][framestats][hwui_rules]") {
  Frame f;
  f.intended = 1'000'000'000'000;
  f.vsync = f.intended;
  f.interval = 0;  // garbage in both interval candidates
  f.start_time = f.intended;
  f.deadline = f.intended + 8'333'333;
  f.issue = f.intended + 4 * kMs;
  f.completed = f.gpu_completed = f.intended + 12 * kMs;
  f.swap_completed = f.intended + 10 * kMs;
  FramestatsTracker t;
  t.apply("w", print({f}, Release::android14_plus), 8'333'333);
  CHECK(t.frames() == 1);
  CHECK(t.interval_fallbacks() == 1);
  CHECK(t.janky_frames_legacy() == 1);  // 10 ms over the device's 8.33 ms
  // A row with its own interval is no fallback.
  f.intended += 100 * kMs;
  f.vsync = f.start_time = f.intended;
  f.interval = 8'333'333;
  f.deadline = f.intended + f.interval;
  f.issue = f.intended + 4 * kMs;
  f.completed = f.gpu_completed = f.intended + 12 * kMs;
  f.swap_completed = f.intended + 10 * kMs;
  t.apply("w", print({f}, Release::android14_plus), 8'333'333);
  CHECK(t.frames() == 2);
  CHECK(t.interval_fallbacks() == 1);
}

TEST_CASE("framestats legacy janky survives a checkpoint and older files read on", "[unit][framestats][hwui_rules]") {
  std::mt19937_64 rng(7);
  auto frames = generate(rng, 120, 100);
  RefJankTracker ref{Release::android14_plus, 8'333'333};
  for (Frame& f : frames) ref.finish(f);
  FramestatsTracker t;
  t.apply("w", print(frames, Release::android14_plus), 8'333'333);
  REQUIRE(t.janky_frames_legacy() == ref.janky_legacy);
  jank::metrics::StateWriter w;
  t.save(w);
  FramestatsTracker back;
  jank::metrics::StateReader r(w.text());
  REQUIRE(back.load(r));
  CHECK(back.janky_frames() == t.janky_frames());
  CHECK(back.janky_frames_legacy() == ref.janky_legacy);
  // A file from before the legacy count: everything else loads, legacy from 0.
  std::string old = w.text();
  old = old.substr(0, old.rfind("fs_legacy"));
  FramestatsTracker older;
  jank::metrics::StateReader r2(old);
  REQUIRE(older.load(r2));
  CHECK(older.janky_frames() == t.janky_frames());
  CHECK(older.janky_frames_legacy() == 0);
  // More legacy-janky frames than frames cannot be true: dropped, counted.
  std::string bad = w.text().substr(0, w.text().rfind("fs_legacy")) + "fs_legacy 999999";
  FramestatsTracker damaged;
  jank::metrics::StateReader r3(bad);
  damaged.load(r3);
  CHECK(r3.rejected() == 1);
  CHECK(damaged.janky_frames_legacy() == 0);
}

namespace {

// ProfileData.cpp: the HISTOGRAM label a frame of `ns` is counted under.
std::uint32_t hwui_label(std::int64_t ns) {
  const std::int64_t ms = ns / kMs;
  if (ms <= 5) return 5;
  if (ms <= 32) return static_cast<std::uint32_t>(ms);
  if (ms <= 48) return static_cast<std::uint32_t>(32 + (ms - 32) / 2 * 2);
  if (ms < 136) {
    // 4 ms buckets whose label sits one ms into the bucket (53 holds 52-55).
    return static_cast<std::uint32_t>(48 + (ms - 48) / 4 * 4 + (ms >= 52 ? 1 : 0));
  }
  return static_cast<std::uint32_t>(std::min<std::int64_t>(150 + (ms - 150) / 50 * 50, 4950));
}

std::vector<std::uint32_t> hwui_labels() {
  std::vector<std::uint32_t> labels;
  for (std::uint32_t ms = 5; ms <= 32; ++ms) labels.push_back(ms);
  for (std::uint32_t ms = 34; ms <= 48; ms += 2) labels.push_back(ms);
  for (std::uint32_t ms = 53; ms <= 133; ms += 4) labels.push_back(ms);
  for (std::uint32_t ms = 150; ms <= 4950; ms += 50) labels.push_back(ms);
  return labels;
}

GfxStats dump_of(std::uint64_t since, const std::vector<std::int64_t>& durations) {
  std::map<std::uint32_t, std::uint64_t> counts;
  for (std::int64_t d : durations) ++counts[hwui_label(d)];
  GfxStats s;
  s.stats_since_ns = since;
  s.total_frames = durations.size();
  s.janky_frames = 0;
  for (std::uint32_t label : hwui_labels()) s.histogram.push_back({label, counts[label]});
  return s;
}

// Vitals' classes at the histogram's whole-millisecond resolution.
struct VitalsTruth {
  std::uint64_t slow = 0, slow_refresh = 0, frozen = 0;
  void add(std::int64_t ns, std::int64_t interval_ns) {
    const std::int64_t whole_ms = ns / kMs;
    slow += whole_ms > 16;                      // "more than 16 ms"
    slow_refresh += whole_ms > interval_ns / kMs;  // more than one refresh interval
    frozen += whole_ms >= 700;                  // "more than 700 ms" (50 ms buckets: 700 holds 700-749)
  }
};

std::int64_t random_duration(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  const double r = u(rng);
  double ms = r < 0.7 ? 3 + 20 * u(rng) : r < 0.95 ? 20 + 110 * u(rng) : 150 + 2000 * u(rng);
  if (ms >= 133 && ms < 150) ms = 131;  // HWUI files 136-149 ms oddly (docs/metrics.md): kept out
  return static_cast<std::int64_t>(ms * 1e6);
}

}  // namespace

TEST_CASE("the reference bucketing matches the labels HWUI prints", "[unit][gfxinfo][vitals]") {
  CHECK(hwui_labels().size() == 57 + 97);
  CHECK(hwui_label(5'999'999) == 5);
  CHECK(hwui_label(16'999'999) == 16);
  CHECK(hwui_label(17'000'000) == 17);
  CHECK(hwui_label(33'900'000) == 32);
  CHECK(hwui_label(51'000'000) == 48);
  CHECK(hwui_label(52'000'000) == 53);
  CHECK(hwui_label(135'000'000) == 133);
  CHECK(hwui_label(699'000'000) == 650);
  CHECK(hwui_label(700'000'000) == 700);
  CHECK(hwui_label(9'000'000'000) == 4950);
}

TEST_CASE("vitals slow and frozen frames from cumulative HISTOGRAMs: each frame once across polls, resets and a "
          "checkpoint",
          "[unit][gfxinfo][vitals]") {
  for (const double hz : {60.0, 90.0, 120.0}) {
    INFO("hz " << hz);
    const auto interval = static_cast<std::int64_t>(1e9 / hz);
    std::mt19937_64 rng(static_cast<std::uint64_t>(hz));
    VitalsTruth truth;
    GfxinfoTracker t;
    std::vector<std::int64_t> life;  // frames since the process's stats started
    std::uint64_t since = 1000;
    for (int poll = 0; poll < 12; ++poll) {
      if (poll == 5 || poll == 9) {  // gfxinfo reset / process restart: a new "Stats since"
        life.clear();
        since += 777;
      }
      const int n = 50 + poll * 13;
      for (int i = 0; i < n; ++i) {
        life.push_back(random_duration(rng));
        truth.add(life.back(), interval);
      }
      t.apply(dump_of(since, life), interval);
      if (poll == 7) {  // the daemon restarts from its checkpoint
        jank::metrics::StateWriter w;
        t.save(w);
        GfxinfoTracker back;
        jank::metrics::StateReader r(w.text());
        REQUIRE(back.load(r));
        t = back;
      }
      if (poll % 3 == 0) t.apply(dump_of(since, life), interval);  // a poll with nothing new
    }
    REQUIRE(truth.frozen > 0);
    CHECK(t.slow_frames() == truth.slow);
    CHECK(t.slow_frames_refresh() == truth.slow_refresh);
    CHECK(t.frozen_frames() == truth.frozen);
    CHECK(t.baseline_resets() == 2);
    if (hz == 60) CHECK(t.slow_frames_refresh() == t.slow_frames());
    if (hz > 60) CHECK(t.slow_frames_refresh() > t.slow_frames());
  }
}

TEST_CASE("refresh-aware threshold: whole milliseconds above the interval's", "[unit][gfxinfo][vitals]") {
  CHECK(jank::metrics::slow_frame_min_ms(16'666'666) == 17);
  CHECK(jank::metrics::slow_frame_min_ms(11'111'111) == 12);
  CHECK(jank::metrics::slow_frame_min_ms(8'333'333) == 9);
  CHECK(jank::metrics::slow_frame_min_ms(4'166'666) == 6);  // 240 Hz: the 5ms bucket holds 0-5 ms
  CHECK(jank::metrics::slow_frame_min_ms(0) == 17);
}

TEST_CASE("a dump without HISTOGRAM counts no vitals and says so", "[unit][gfxinfo][vitals]") {
  GfxinfoTracker t;
  GfxStats s;
  s.stats_since_ns = 1;
  s.total_frames = 40;
  t.apply(s, 16'666'666);
  CHECK_FALSE(t.has_histogram());
  CHECK(t.slow_frames() == 0);
  t.apply(dump_of(1, {20 * kMs, 800 * kMs}), 16'666'666);
  CHECK(t.has_histogram());
  CHECK(t.slow_frames() == 2);
  CHECK(t.frozen_frames() == 1);
}

TEST_CASE("a damaged vitals record is rejected, the rest of the tracker loads", "[unit][gfxinfo][vitals]") {
  GfxinfoTracker t;
  t.apply(dump_of(1, {20 * kMs, 800 * kMs}), 16'666'666);
  jank::metrics::StateWriter w;
  t.save(w);
  const std::string text = w.text();
  const std::string bad = text.substr(0, text.rfind("vitals")) + "vitals 1 1 1 5";  // frozen > slow
  GfxinfoTracker back;
  jank::metrics::StateReader r(bad);
  back.load(r);
  CHECK(r.rejected() == 1);
  CHECK(back.frozen_frames() == 0);
  CHECK(back.frames_rendered() == 2);
}

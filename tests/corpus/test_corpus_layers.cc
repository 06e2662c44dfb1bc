// Real `dumpsys SurfaceFlinger --latency` captures of ../shared/corpus through
// the layer tracker, against a reference written here from the published
// rules and reading the text itself: PerfDog's Jank/BigJank (FT over twice
// the mean of the previous three and over 2 or 3 film frames at 24 fps),
// Android vitals' slow (rendered in more than 16 ms: gap − one period) and
// frozen (over 700 ms) frames, and FPS as frame intervals over active time.
// SOURCES.md gives the capture's FPS as (rows − 1) / span.
#include <catch2/catch.hpp>

#include <cmath>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "metrics/present_tracker.h"
#include "parsers/sf_latency.h"
#include "tests/corpus/corpus_text.h"

namespace fs = std::filesystem;

namespace {

using jank::corpus_test::read_text;

struct Reference {
  std::int64_t period = 0;
  std::uint64_t presents = 0, intervals = 0, jank = 0, big_jank = 0, slow = 0, frozen = 0;
  double active_s = 0;
};

// Presents are the second column of the three-number rows (0 0 0: an unused
// slot); the period is the lone number before them. Gaps over 1.2 s would be
// rests here (these captures have none: checked).
Reference reference(const std::string& text) {
  Reference r;
  std::vector<std::int64_t> presents;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<long long> v;
    for (std::string w; words >> w;) {
      if (w.find_first_not_of("0123456789") != std::string::npos) {
        v.clear();
        break;
      }
      v.push_back(std::stoll(w));
    }
    if (v.size() == 1 && r.period == 0) r.period = v[0];
    if (v.size() == 3 && v[1] != 0) presents.push_back(v[1]);
  }
  r.presents = presents.size();
  std::deque<double> last3;
  for (std::size_t i = 1; i < presents.size(); ++i) {
    const double ft_ms = static_cast<double>(presents[i] - presents[i - 1]) / 1e6;
    REQUIRE(ft_ms <= 1200);
    ++r.intervals;
    r.active_s += ft_ms / 1000;
    if (last3.size() == 3) {
      const double mean = (last3[0] + last3[1] + last3[2]) / 3;
      if (ft_ms > 2 * mean && ft_ms > 2 * 1000.0 / 24) ++r.jank;
      if (ft_ms > 2 * mean && ft_ms > 3 * 1000.0 / 24) ++r.big_jank;
    }
    if (ft_ms - static_cast<double>(r.period) / 1e6 > 16) ++r.slow;
    if (ft_ms > 700) ++r.frozen;
    last3.push_back(ft_ms);
    if (last3.size() > 3) last3.pop_front();
  }
  return r;
}

}  // namespace

TEST_CASE("SurfaceFlinger latency captures: PerfDog, vitals and FPS of the layer equal the reference on the text",
          "[corpus][surfaceflinger][present]") {
  const fs::path dir = fs::path(JANK_CORPUS_DIR) / "surfaceflinger";
  if (!fs::exists(dir)) {
    WARN(dir << " not found: skipped");
    return;
  }
  int with_frames = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string text = read_text(entry.path());
    INFO(entry.path().filename().string());
    const Reference want = reference(text);
    jank::metrics::PresentTracker t;
    t.observe(jank::parsers::parse_sf_latency(text));
    CHECK(t.frames() == want.presents);
    CHECK(t.frame_time().count() == want.intervals);
    CHECK(t.jank() == want.jank);
    CHECK(t.big_jank() == want.big_jank);
    CHECK(t.slow_frames() == want.slow);
    CHECK(t.frozen_frames() == want.frozen);
    CHECK(std::abs(static_cast<double>(t.active_ns()) / 1e9 - want.active_s) < 1e-6);
    if (want.intervals == 0) continue;
    ++with_frames;
    const double fps = static_cast<double>(t.frame_time().count()) / (static_cast<double>(t.active_ns()) / 1e9);
    if (entry.path().filename() == "solox249_blast_surfaceview_latency_excerpt.txt") {
      // SOURCES.md: 25 rows over a 993 472 000 ns span, 24.158 fps.
      CHECK(want.presents == 25);
      CHECK(std::abs(fps - 24.158) < 0.001);
    }
  }
  CHECK(with_frames >= 1);
}

// Real captures of ../shared/corpus through `replay`: the framestats janky
// counts equal HWUI's rules applied here to the CSV text (GpuCompleted ≥
// FrameDeadline; IntendedVsync → SwapBuffersCompleted over the row's
// interval), whatever --refresh-rate says for rows that carry their
// interval; the vitals counters equal a count made here from the HISTOGRAM
// lines. The references read the text themselves (docs/metrics.md has the
// rules and their AOSP sources).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "app/cli/replay.h"
#include "tests/corpus/corpus_text.h"

namespace fs = std::filesystem;

namespace {

using jank::corpus_test::read_text;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    const auto first = line.find_first_not_of(" \t\xEF\xBB\xBF");
    lines.push_back(first == std::string::npos ? "" : line.substr(first));
  }
  return lines;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(s);
  while (std::getline(in, cell, sep)) out.push_back(cell);
  return out;
}

// "** Graphics info for pid N [pkg] **" → pkg; "" elsewhere.
std::string section_package(const std::string& line) {
  if (line.rfind("** Graphics info for pid", 0) != 0) return "";
  const auto a = line.find('['), b = line.rfind(']');
  return a == std::string::npos || b == std::string::npos || b < a ? "" : line.substr(a + 1, b - a - 1);
}

struct Janky {
  std::uint64_t frames = 0, janky = 0, legacy = 0;
};

// HWUI's rules on every new Flags=0 row of every PROFILEDATA block, by package.
std::map<std::string, Janky> reference_framestats(const std::string& text, std::int64_t fallback_interval) {
  std::map<std::string, Janky> out;
  std::set<std::tuple<std::string, std::string, std::int64_t>> seen;  // package, window, IntendedVsync
  std::string package = "unknown", window;
  const auto lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (const auto p = section_package(lines[i]); !p.empty()) {
      package = p;
      window.clear();
    }
    if (lines[i].rfind("Window: ", 0) == 0) window = lines[i].substr(8);
    if (lines[i] != "---PROFILEDATA---" || i + 1 >= lines.size()) continue;
    std::map<std::string, std::size_t> col;
    const auto head = split(lines[++i], ',');
    for (std::size_t c = 0; c < head.size(); ++c) col[head[c]] = c;
    auto& counts = out[package];
    for (++i; i < lines.size() && lines[i] != "---PROFILEDATA---"; ++i) {
      const auto cells = split(lines[i], ',');
      if (cells.size() < head.size() || cells[0] != "0") continue;
      auto v = [&](const char* name) -> std::int64_t {
        const auto it = col.find(name);
        return it == col.end() ? 0 : std::stoll(cells[it->second]);
      };
      const std::int64_t intended = v("IntendedVsync"), completed = v("FrameCompleted");
      if (intended <= 0 || completed <= intended || completed - intended >= 10'000'000'000) continue;
      if (!seen.insert({package, window, intended}).second) continue;
      ++counts.frames;
      // The interval: whichever of FrameInterval / FrameStartTime holds one
      // (Android 12/13 swap their labels), else the caller's.
      std::int64_t interval = fallback_interval;
      for (const char* name : {"FrameInterval", "FrameStartTime"}) {
        const std::int64_t x = v(name);
        if (col.count("FrameInterval") && x > 0 && x < 1'000'000'000) {
          interval = x;
          break;
        }
      }
      const std::int64_t end = col.count("SwapBuffersCompleted") ? v("SwapBuffersCompleted") : completed;
      const bool legacy = end - intended > 0 && end - intended > interval;
      const bool janky = col.count("FrameDeadline") && col.count("GpuCompleted")
                             ? v("GpuCompleted") >= v("FrameDeadline")
                             : legacy;
      if (janky) ++counts.janky;
      if (legacy) ++counts.legacy;
    }
  }
  return out;
}

// Sample values of a replay's exposition: "name{labels}" → value.
std::map<std::string, double> samples(const std::string& exposition) {
  std::map<std::string, double> m;
  for (const auto& line : lines_of(exposition)) {
    if (line.empty() || line[0] == '#') continue;
    const auto sp = line.rfind(' ');
    m[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
  }
  return m;
}

std::map<std::string, double> replay(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  std::vector<std::string> all = {"--serial", "c", "--year", "2024"};
  all.insert(all.end(), args.begin(), args.end());
  REQUIRE(jank::app::run_replay(all, stdin, out, err) == 0);
  return samples(out.str());
}

double value(const std::map<std::string, double>& m, const std::string& family, const std::string& package) {
  const auto it = m.find(family + "{serial=\"c\",package=\"" + package + "\"}");
  return it == m.end() ? -1 : it->second;
}

}  // namespace

TEST_CASE("framestats captures: janky counts are HWUI's rules on the rows, whatever --refresh-rate",
          "[corpus][framestats][hwui_rules]") {
  const fs::path dir = fs::path(JANK_CORPUS_DIR) / "framestats";
  if (!fs::exists(dir)) {
    WARN(dir << " not found: skipped");
    return;
  }
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string text = read_text(entry.path());
    if (text.find("---PROFILEDATA---") == std::string::npos) continue;
    ++files;
    for (const int hz : {60, 90, 120}) {
      INFO(entry.path().filename().string() << " at --refresh-rate " << hz);
      const auto ref = reference_framestats(text, static_cast<std::int64_t>(1e9 / hz));
      const auto m = replay({"--refresh-rate", std::to_string(hz), entry.path().string()});
      for (const auto& [package, want] : ref) {
        INFO(package);
        CHECK(value(m, "android_framestats_frames_total", package) == static_cast<double>(want.frames));
        CHECK(value(m, "android_framestats_janky_frames_total", package) == static_cast<double>(want.janky));
        CHECK(value(m, "android_framestats_janky_frames_legacy_total", package) == static_cast<double>(want.legacy));
      }
    }
  }
  CHECK(files >= 5);
}

TEST_CASE("the 120 Hz capture: HWUI calls 10 of its 120 frames janky, not 119", "[corpus][framestats][hwui_rules]") {
  const fs::path dir = fs::path(JANK_CORPUS_DIR) / "framestats";
  if (!fs::exists(dir / "soundvis_120hz_framestats.txt")) {
    WARN(dir << " not found: skipped");
    return;
  }
  const std::string pkg = "com.soundvisualization.accessibility";
  for (const auto& [file, janky, legacy] :
       {std::tuple{"soundvis_120hz_framestats.txt", 10.0, 71.0}, std::tuple{"soundvis_120hz_framestats_stay.txt", 15.0, 35.0}}) {
    for (const char* hz : {"60", "90", "120"}) {
      INFO(file << " at " << hz << " Hz");
      const auto m = replay({"--refresh-rate", hz, (dir / file).string()});
      CHECK(value(m, "android_framestats_frames_total", pkg) == 120);
      CHECK(value(m, "android_framestats_janky_frames_total", pkg) == janky);
      CHECK(value(m, "android_framestats_janky_frames_legacy_total", pkg) == legacy);
    }
  }
}

namespace {

struct Vitals {
  std::uint64_t slow = 0, slow_refresh = 0, frozen = 0;
};

// Each section's process-level HISTOGRAM (the first, before any Window:),
// counted as new frames per package: the difference from the package's
// previous one when "Stats since" is the same and no bucket fell, else whole.
std::map<std::string, Vitals> reference_vitals(const std::string& text, std::uint32_t refresh_min_ms) {
  std::map<std::string, Vitals> out;
  std::map<std::string, std::pair<std::string, std::map<std::uint32_t, std::uint64_t>>> previous;
  std::string package = "unknown", since;
  bool taken = false;
  for (const auto& line : lines_of(text)) {
    if (const auto p = section_package(line); !p.empty()) {
      package = p;
      taken = false;
      since.clear();
    }
    if (line.rfind("Window:", 0) == 0) taken = true;
    if (line.rfind("Stats since:", 0) == 0 && !taken) since = line;
    if (line.rfind("HISTOGRAM:", 0) != 0 || taken) continue;
    taken = true;
    std::map<std::uint32_t, std::uint64_t> bins;
    for (const auto& cell : split(line.substr(10), ' ')) {
      const auto ms = cell.find("ms=");
      if (ms == std::string::npos) continue;
      bins[static_cast<std::uint32_t>(std::stoul(cell.substr(0, ms)))] += std::stoull(cell.substr(ms + 3));
    }
    auto& prev = previous[package];
    bool same = prev.first == since && !prev.second.empty();
    for (const auto& [label, n] : bins) same = same && n >= prev.second[label];
    auto& v = out[package];
    for (const auto& [label, n] : bins) {
      const std::uint64_t add = same ? n - prev.second[label] : n;
      if (label > 16) v.slow += add;               // vitals: more than 16 ms
      if (label >= refresh_min_ms) v.slow_refresh += add;
      if (label >= 700) v.frozen += add;           // vitals: more than 700 ms
    }
    prev = {since, bins};
  }
  return out;
}

}  // namespace

TEST_CASE("gfxinfo captures: vitals slow and frozen frames are the HISTOGRAM's", "[corpus][gfxinfo][vitals]") {
  const fs::path corpus = JANK_CORPUS_DIR;
  if (!fs::exists(corpus / "SOURCES.md")) {
    WARN("corpus not found at " << corpus << ": skipped");
    return;
  }
  int with_histogram = 0;
  std::uint64_t slow_total = 0;
  for (const char* sub : {"gfxinfo", "framestats"}) {
    for (const auto& entry : fs::directory_iterator(corpus / sub)) {
      const std::string text = read_text(entry.path());
      if (text.find("\nHISTOGRAM:") == std::string::npos && text.find(" HISTOGRAM:") == std::string::npos) continue;
      ++with_histogram;
      // 120 Hz: more than 8.33 ms is 9 ms and up at whole-ms resolution.
      for (const auto& [hz, min_ms] : {std::pair{"60", 17u}, std::pair{"120", 9u}}) {
        INFO(entry.path().filename().string() << " at " << hz << " Hz");
        const auto ref = reference_vitals(text, min_ms);
        const auto m = replay({"--refresh-rate", hz, entry.path().string()});
        for (const auto& [package, want] : ref) {
          INFO(package);
          CHECK(value(m, "android_gfxinfo_slow_frames_total", package) == static_cast<double>(want.slow));
          CHECK(value(m, "android_gfxinfo_slow_frames_refresh_total", package) ==
                static_cast<double>(want.slow_refresh));
          CHECK(value(m, "android_gfxinfo_frozen_frames_total", package) == static_cast<double>(want.frozen));
          slow_total += want.slow;
        }
      }
    }
  }
  CHECK(with_histogram >= 8);
  CHECK(slow_total > 0);
}

#include "parsers/timestats.h"

#include <charconv>
#include <limits>

#include "parsers/frametimeline.h"
#include "parsers/text_scan.h"

namespace jank::parsers {

namespace {

// SurfaceFlinger keeps at most 200 tracked layer stats, plus one "none" row
// per uid and bucket; the caps only guard against hostile input.
constexpr std::size_t kMaxGlobalBuckets = 1024;
constexpr std::size_t kMaxLayers = 4096;
constexpr std::size_t kMaxLayerNameBytes = 1024;

constexpr std::array<std::string_view, kTsJankFieldCount> kJankKeys = {
    "totalTimelineFrames",      "jankyFrames",           "sfLongCpuJankyFrames",
    "sfLongGpuJankyFrames",     "sfUnattributedJankyFrames", "appUnattributedJankyFrames",
    "sfSchedulingJankyFrames",  "sfPredictionErrorJankyFrames", "appBufferStuffingJankyFrames"};

constexpr std::string_view kHeader = "SurfaceFlinger TimeStats:";
constexpr std::string_view kJankHeader = "Global aggregated jank payload (Timeline stats):";

// The counters are int32 on the device (%d): a negative value is a wrapped
// counter, not a count.
std::optional<std::uint64_t> to_count(std::string_view v) {
  const auto n = scan::parse_int<std::uint64_t>(v);
  if (!n || *n > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) return std::nullopt;
  return n;
}

std::string_view without_suffix(std::string_view v, std::string_view suffix, bool& ok) {
  ok = v.ends_with(suffix);
  return ok ? scan::trim(v.substr(0, v.size() - suffix.size())) : v;
}

// "120 fps" → 120.
std::optional<int> to_fps(std::string_view v) {
  bool ok = false;
  v = without_suffix(v, "fps", ok);
  if (!ok) return std::nullopt;
  const auto n = scan::parse_int<int>(v);
  if (!n || *n < 0) return std::nullopt;
  return n;
}

// "12 ms", "0.000 ms": the legacy values, checked but not kept.
bool is_ms_value(std::string_view v, bool integer) {
  bool ok = false;
  v = without_suffix(v, "ms", ok);
  if (!ok) return false;
  if (integer) return scan::parse_int<std::int64_t>(v).has_value();
  return scan::parse_finite(v, std::chars_format::fixed).has_value();
}

// "<N>ms=<N>" tokens: one histogram line (85 buckets on 11-16).
bool is_histogram_line(std::string_view line) {
  std::size_t tokens = 0;
  while (!line.empty()) {
    const std::size_t sp = line.find(' ');
    const std::string_view tok = line.substr(0, sp);
    line = sp == std::string_view::npos ? std::string_view() : scan::trim(line.substr(sp + 1));
    const std::size_t eq = tok.find("ms=");
    if (eq == std::string_view::npos || !scan::parse_int<std::int64_t>(tok.substr(0, eq)) ||
        !scan::parse_int<std::int64_t>(tok.substr(eq + 3)))
      return false;
    ++tokens;
  }
  return tokens > 0;
}

// displayConfigStats entries: "60fps = 1234ms" on 12+, "60fps=1234ms 90fps=5ms" on 11.
bool is_config_stats_line(std::string_view line) {
  std::size_t tokens = 0;
  while (!line.empty()) {
    const std::size_t fps = line.find("fps");
    if (fps == std::string_view::npos || !scan::parse_int<int>(line.substr(0, fps))) return false;
    line = scan::trim(line.substr(fps + 3));
    if (!line.starts_with("=")) return false;
    line = scan::trim(line.substr(1));
    const std::size_t ms = line.find("ms");
    if (ms == std::string_view::npos || !scan::parse_int<std::int64_t>(line.substr(0, ms))) return false;
    line = scan::trim(line.substr(ms + 2));
    ++tokens;
  }
  return tokens > 0;
}

std::optional<TsGameMode> game_mode_of(std::string_view v) {
  if (v.empty()) return std::nullopt;
  if (v.starts_with("GameMode")) v.remove_prefix(8);  // Android 12's names
  if (v == "Unsupported") return TsGameMode::unsupported;
  if (v == "Standard") return TsGameMode::standard;
  if (v == "Performance") return TsGameMode::performance;
  if (v == "Battery") return TsGameMode::battery;
  if (v == "Custom") return TsGameMode::custom;
  if (v == "Unspecified") return TsGameMode::unspecified;
  return TsGameMode::other;  // 13+ print a mode without a name as its number
}

// The fields of one block, as bits: which were read.
enum BlockBit : std::uint32_t {
  kRefresh = 1u << 0,
  kRender = 1u << 1,
  kUid = 1u << 2,
  kLayerName = 1u << 3,
  kPackage = 1u << 4,
  kGameMode = 1u << 5,
  kTotalFrames = 1u << 6,
  kDropped = 1u << 7,
  kLateAcquire = 1u << 8,
  kBadDesired = 1u << 9,
  kJankTitle = 1u << 10,
  kVoteTitle = 1u << 11,
  kFrameRate = 1u << 12,
  kCompat = 1u << 13,
  kSeamless = 1u << 14,
  kAverageFps = 1u << 15,
  kFirstJankBit = 16,  // then one bit per TsJankField
};
constexpr std::uint32_t kAllJank = ((1u << kTsJankFieldCount) - 1u) << kFirstJankBit;
constexpr std::uint32_t kLayerOnly = kUid | kLayerName | kPackage | kGameMode | kTotalFrames | kDropped |
                                     kLateAcquire | kBadDesired | kJankTitle | kVoteTitle | kFrameRate | kCompat |
                                     kSeamless | kAverageFps;
constexpr std::uint32_t kLayerNeeded = kRefresh | kRender | kUid | kLayerName | kTotalFrames | kDropped | kAllJank;
constexpr std::uint32_t kGlobalNeeded = kRefresh | kRender | kAllJank;

class Parser {
 public:
  explicit Parser(TimeStatsDump& out) : out_(out) {}

  void line(std::string_view line) {
    ++out_.lines;
    const bool expected_histogram = expect_histogram_;
    expect_histogram_ = false;
    if (line == kHeader) return header();
    if (!in_dump_) return before_header(line);
    if (expected_histogram && is_histogram_line(line)) return;  // skipped: bucket counts
    if (line == "Legacy stats are as follows:" && !block_open_) return;
    if (line == kJankHeader) {
      finish_block();
      out_.has_jank_payload = true;
      return;
    }
    if (line.ends_with(" histogram is as below:")) {
      expect_histogram_ = true;
      return;
    }
    if (!block_open_ && (line == "displayConfigStats is as below:" || is_config_stats_line(line))) return;
    if (line == "Jank payload for this layer:") return block_title(kJankTitle);
    // "SetFrateRate" is Android 12-14's spelling, "SetFrameRate" 15's.
    if (line == "SetFrateRate vote for this layer:" || line == "SetFrameRate vote for this layer:")
      return block_title(kVoteTitle);

    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) return malformed();
    const std::string_view key = scan::trim(line.substr(0, eq));
    const std::string_view value = scan::trim(line.substr(eq + 1));
    if (key == "displayRefreshRate") {
      finish_block();
      block_open_ = true;
      return block_key(key, value);
    }
    // Android 11 blocks start at layerName; they never get a jank payload.
    if (key == "layerName" && (!block_open_ || (bits_ & kLayerName) != 0)) {
      finish_block();
      block_open_ = true;
    }
    if (block_open_) return block_key(key, value);
    if (!out_.has_jank_payload) return legacy_key(key, value);
    malformed();
  }

  void finish() { finish_block(); }

 private:
  void malformed() { ++out_.malformed_lines; }

  void header() {
    finish_block();
    if (in_dump_) return malformed();  // a second dump glued on: only the first is read
    in_dump_ = true;
    out_.text = TimeStatsText::timestats;
  }

  void before_header(std::string_view line) {
    out_.text = TimeStatsText::not_recognised;
    // SurfaceFlinger 12-14 prefix this when its state lock is busy; the dump follows.
    if (line.starts_with("Dumping without lock after timeout:")) return;
    malformed();
  }

  void legacy_key(std::string_view key, std::string_view value) {
    if (key == "statsStart" || key == "statsEnd") {
      const auto v = scan::parse_int<std::int64_t>(value);
      if (!v) return malformed();
      (key == "statsStart" ? out_.stats_start : out_.stats_end) = *v;
      return;
    }
    if (key == "totalFrames" || key == "missedFrames" || key == "clientCompositionFrames" ||
        key == "clientCompositionReusedFrames" || key == "refreshRateSwitches" || key == "compositionStrategyChanges" ||
        key == "compositionStrategyPredicted" || key == "compositionStrategyPredictionSucceeded" ||
        key == "compositionStrategyPredictionFailed") {
      if (scan::parse_int<std::int64_t>(value)) return;
    } else if (key == "displayOnTime" || key == "totalP2PTime") {
      if (is_ms_value(value, true)) return;
    } else if (key == "averageFrameDuration" || key == "averageRenderEngineTiming") {
      if (is_ms_value(value, false)) return;
    }
    malformed();
  }

  void block_title(std::uint32_t bit) {
    if (!block_open_ || (bits_ & bit) != 0) return malformed();
    bits_ |= bit;
  }

  // Marks `bit` read; a repeated key is malformed and its value ignored.
  bool take(std::uint32_t bit) {
    if ((bits_ & bit) != 0) {
      malformed();
      return false;
    }
    return true;
  }

  void block_key(std::string_view key, std::string_view value) {
    for (std::size_t i = 0; i < kTsJankFieldCount; ++i) {
      if (key != kJankKeys[i]) continue;
      const std::uint32_t bit = 1u << (kFirstJankBit + i);
      if (!take(bit)) return;
      const auto n = to_count(value);
      if (!n) return malformed();
      jank_.counts[i] = *n;
      bits_ |= bit;
      return;
    }
    std::uint32_t bit = 0;
    bool ok = false;
    if (key == "displayRefreshRate" || key == "renderRate") {
      bit = key == "renderRate" ? kRender : kRefresh;
      if (!take(bit)) return;
      if (const auto v = to_fps(value)) {
        (bit == kRender ? layer_.render_rate_fps : layer_.refresh_rate_fps) = *v;
        ok = true;
      }
    } else if (key == "uid") {
      bit = kUid;
      if (!take(bit)) return;
      if (const auto v = scan::parse_int<std::int64_t>(value)) {
        layer_.uid = *v;
        ok = true;
      }
    } else if (key == "layerName") {
      bit = kLayerName;
      if (!value.empty() && value.size() <= kMaxLayerNameBytes) {
        layer_.layer_name = std::string(value);
        ok = true;
      }
    } else if (key == "packageName") {
      bit = kPackage;
      if (!take(bit)) return;
      if (value.size() <= kMaxLayerNameBytes) {
        layer_.package_name = std::string(value);
        ok = true;
      }
    } else if (key == "gameMode") {
      bit = kGameMode;
      if (!take(bit)) return;
      if (const auto m = game_mode_of(value)) {
        layer_.game_mode = *m;
        ok = true;
      }
    } else if (key == "totalFrames" || key == "droppedFrames") {
      bit = key == "totalFrames" ? kTotalFrames : kDropped;
      if (!take(bit)) return;
      if (const auto n = to_count(value)) {
        (bit == kTotalFrames ? layer_.total_frames : layer_.dropped_frames) = *n;
        ok = true;
      }
    } else if (key == "lateAcquireFrames" || key == "badDesiredPresentFrames") {
      bit = key == "lateAcquireFrames" ? kLateAcquire : kBadDesired;
      if (!take(bit)) return;
      ok = to_count(value).has_value();  // read, not kept
    } else if (key == "frameRate" || key == "averageFPS") {
      bit = key == "frameRate" ? kFrameRate : kAverageFps;
      if (!take(bit)) return;
      ok = scan::parse_finite(value, std::chars_format::fixed).has_value();
    } else if (key == "frameRateCompatibility" || key == "seamlessness") {
      bit = key == "seamlessness" ? kSeamless : kCompat;
      if (!take(bit)) return;
      ok = !value.empty();  // an enum name, or its number for an unnamed value
    }
    if (!ok) return malformed();
    bits_ |= bit;
  }

  void finish_block() {
    if (!block_open_) return;
    const bool is_layer = (bits_ & kLayerOnly) != 0;
    if (is_layer && (bits_ & kLayerNeeded) == kLayerNeeded && out_.layers.size() < kMaxLayers) {
      layer_.jank = jank_;
      out_.layers.push_back(std::move(layer_));
    } else if (!is_layer && (bits_ & kGlobalNeeded) == kGlobalNeeded && out_.global.size() < kMaxGlobalBuckets) {
      out_.global.push_back({layer_.refresh_rate_fps, layer_.render_rate_fps, jank_});
    } else {
      ++out_.discarded_blocks;
    }
    block_open_ = false;
    bits_ = 0;
    layer_ = TsLayer{};
    jank_ = TsJankPayload{};
  }

  TimeStatsDump& out_;
  bool in_dump_ = false;
  bool expect_histogram_ = false;
  bool block_open_ = false;
  std::uint32_t bits_ = 0;
  TsLayer layer_;
  TsJankPayload jank_;
};

}  // namespace

std::uint32_t ts_jank_field_cause(TsJankField field) {
  // TimeStats.cpp updateJankPayload: which JankType bit feeds which counter.
  switch (field) {
    case TsJankField::sf_long_cpu:
      return kJankSfCpuDeadlineMissed;
    case TsJankField::sf_long_gpu:
      return kJankSfGpuDeadlineMissed;
    case TsJankField::sf_unattributed:
      return kJankDisplayHal;
    case TsJankField::app_unattributed:
      return kJankAppDeadlineMissed;
    case TsJankField::sf_scheduling:
      return kJankSfScheduling;
    case TsJankField::sf_prediction_error:
      return kJankPredictionError;
    case TsJankField::app_buffer_stuffing:
      return kJankBufferStuffing;
    case TsJankField::total_timeline_frames:
    case TsJankField::janky_frames:
      return 0;
  }
  return 0;
}

TimeStatsDump parse_timestats(std::string_view text) {
  TimeStatsDump out;
  Parser parser(out);
  scan::for_each_trimmed_line(text, [&](std::string_view line) { parser.line(line); });
  parser.finish();
  return out;
}

std::vector<std::string_view> split_timestats_dumps(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t at = text.find(kHeader);
  while (at != std::string_view::npos) {
    const std::size_t next = text.find(kHeader, at + 1);
    out.push_back(text.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
    at = next;
  }
  return out;
}

}  // namespace jank::parsers
